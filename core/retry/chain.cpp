#include <vigil/retry/chain.hpp>

#include <cmath>
#include <string>

namespace vigil::retry {

Status Chain::validate() const {
  // Bounds keep k^(N-1) a finite double.
  if (depth < 1 || depth > 64) return Error{"--depth must be between 1 and 64 services"};
  if (tries < 1 || tries > 100)
    return Error{"--retries (attempts per hop, the first call included) must be between 1 and 100"};
  if (!(fail >= 0.0 && fail <= 1.0))
    return Error{"--fail must be a probability in [0, 1], got " + std::to_string(fail)};
  return ok_status();
}

double expected_calls(int tries, double fail) {
  double sum = 0.0, term = 1.0;
  for (int j = 0; j < tries; ++j) {
    sum += term;
    term *= fail;
  }
  return sum;
}

Result<ChainAmplification> amplify(const Chain& chain) {
  if (auto s = chain.validate(); !s) return s.error();
  ChainAmplification a;
  a.calls_per_request = expected_calls(chain.tries, chain.fail);
  a.amplification = std::pow(a.calls_per_request, chain.depth - 1);
  a.worst_case = std::pow(static_cast<double>(chain.tries), chain.depth - 1);
  a.success = std::pow(1.0 - std::pow(chain.fail, chain.tries), chain.depth);
  return a;
}

}  // namespace vigil::retry
