#include <vigil/retry/chain.hpp>

#include <cmath>

namespace vigil::retry {

Status Chain::validate() const {
  // The bounds on N and k keep k^(N-1) a finite double.
  if (auto s = chain_param::depth.check(depth); !s) return s;
  if (auto s = chain_param::tries.check(tries); !s) return s;
  return chain_param::fail.check(fail);
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
