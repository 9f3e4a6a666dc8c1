#include <vigil/gossip/theory.hpp>

#include <cmath>

namespace vigil::gossip {

namespace {

// Below this many expected uninformed members the curve has converged for any plot or sum.
constexpr double kNegligible = 1e-9;

}  // namespace

double pittel_rounds(double nodes, double fanout) {
  const double ln_n = std::log(nodes);
  return ln_n / std::log(fanout + 1.0) + ln_n / fanout;
}

std::vector<double> mean_field_curve(const SpreadOptions& o, int rounds) {
  const double live = static_cast<double>(o.nodes - o.dead);
  std::vector<double> curve{1.0};
  if (o.nodes < 2) return curve;
  const double q = 1.0 / static_cast<double>(o.nodes - 1);
  const double f = o.fanout;
  const double push_ok = 1.0 - o.loss;                     // a push arrives
  const double pull_ok = (1.0 - o.loss) * (1.0 - o.loss);  // a question and its answer arrive
  double informed = 1.0;
  for (int r = 0; r < rounds && live - informed > kNegligible; ++r) {
    double uninformed = live - informed;
    if (o.mode != Mode::pull) uninformed *= std::pow(1.0 - q * push_ok, f * informed);
    if (o.mode != Mode::push) uninformed *= std::pow(1.0 - q * informed * pull_ok, f);
    informed = live - uninformed;
    curve.push_back(informed);
  }
  return curve;
}

double mean_field_rounds(const SpreadOptions& o, int rounds) {
  const double live = static_cast<double>(o.nodes - o.dead);
  double expected = 0.0;
  for (double informed : mean_field_curve(o, rounds)) expected += -std::expm1(informed - live);
  return expected;
}

}  // namespace vigil::gossip
