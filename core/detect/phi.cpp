#include <vigil/detect/phi.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>

#include <vigil/detect/params.hpp>

namespace vigil::detect {

namespace {
constexpr double kInfinity = std::numeric_limits<double>::infinity();
}  // namespace

std::string_view to_string(TailModel model) {
  switch (model) {
    case TailModel::normal:
      return "normal";
    case TailModel::logistic:
      return "logistic";
    case TailModel::exponential:
      return "exponential";
    case TailModel::empirical:
      return "empirical";
  }
  return "?";
}

Result<TailModel> parse_tail_model(std::string_view text) {
  for (auto m :
       {TailModel::normal, TailModel::logistic, TailModel::exponential, TailModel::empirical})
    if (text == to_string(m)) return m;
  return Error{"unknown tail model '" + std::string(text) +
               "' (expected normal, logistic, exponential or empirical)"};
}

double normal_tail(double z) {
  return 0.5 * std::erfc(z / std::numbers::sqrt2);
}

double phi_from_tail(double tail) {
  if (tail >= 1.0) return 0.0;  // not -0.0: nothing unusual at all
  return tail > 0.0 ? -std::log10(tail) : kInfinity;
}

double phi_normal(double elapsed_ms, double mean_ms, double stddev_ms, double pause_margin_ms) {
  return phi_from_tail(normal_tail((elapsed_ms - pause_margin_ms - mean_ms) / stddev_ms));
}

double phi_logistic(double elapsed_ms, double mean_ms, double stddev_ms, double pause_margin_ms) {
  // Akka: tail = e / (1 + e) with e = exp(-a), a = y (1.5976 + 0.070566 y^2). Taking the
  // logarithm analytically keeps phi finite and exact where e itself would underflow.
  const double y = (elapsed_ms - pause_margin_ms - mean_ms) / stddev_ms;
  const double a = y * (1.5976 + 0.070566 * y * y);
  const double log10e = std::numbers::log10e;
  if (a > 0.0) return a * log10e + std::log1p(std::exp(-a)) * log10e;
  return std::log1p(std::exp(a)) * log10e;
}

double phi_exponential(double elapsed_ms, double mean_ms, double pause_margin_ms) {
  return std::max(0.0, elapsed_ms - pause_margin_ms) / mean_ms * std::numbers::log10e;
}

double phi_empirical(double elapsed_ms, std::span<const double> gaps_ms, double pause_margin_ms) {
  if (gaps_ms.empty()) return 0.0;
  const double t = elapsed_ms - pause_margin_ms;
  const auto longer =
      std::count_if(gaps_ms.begin(), gaps_ms.end(), [t](double g) { return g > t; });
  return phi_from_tail(static_cast<double>(longer) / static_cast<double>(gaps_ms.size()));
}

Result<double> phi(double elapsed_ms, double mean_ms, double stddev_ms, double pause_margin_ms,
                   TailModel model) {
  namespace p = phi_param;
  if (auto s = p::silence.check(elapsed_ms); !s) return s.error();
  if (auto s = p::mean.check(mean_ms); !s) return s.error();
  if (model != TailModel::exponential)
    if (auto s = p::std_dev.check(stddev_ms); !s) return s.error();
  if (auto s = p::pause.check(pause_margin_ms); !s) return s.error();
  switch (model) {
    case TailModel::normal:
      return phi_normal(elapsed_ms, mean_ms, stddev_ms, pause_margin_ms);
    case TailModel::logistic:
      return phi_logistic(elapsed_ms, mean_ms, stddev_ms, pause_margin_ms);
    case TailModel::exponential:
      return phi_exponential(elapsed_ms, mean_ms, pause_margin_ms);
    case TailModel::empirical:
      break;
  }
  return Error{"the empirical model needs a window of observed gaps, not a mean and deviation"};
}

}  // namespace vigil::detect
