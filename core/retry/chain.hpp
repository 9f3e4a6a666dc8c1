// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <vigil/base/result.hpp>
#include <vigil/retry/params.hpp>

namespace vigil::retry {

// A chain of services S1 -> S2 -> ... -> SN in which every hop makes up to `tries` attempts (the
// first call included) at the next one, and the last hop fails with probability `fail`.
struct Chain {
  int depth = static_cast<int>(chain_param::depth.def);  // N, services in the chain
  int tries = static_cast<int>(chain_param::tries.def);  // k, attempts per hop
  double fail = chain_param::fail.def;  // p, failure probability of a call to the last service

  Status validate() const;
};

struct ChainAmplification {
  double calls_per_request = 0.0;  // E[C] = (1 - p^k) / (1 - p), and k when p = 1
  double amplification = 0.0;      // E[C]^(N-1): calls reaching SN per request entering S1
  double worst_case = 0.0;         // k^(N-1), the p -> 1 limit
  double success = 0.0;            // (1 - p^k)^N, a probability in [0, 1]
};

// Expected attempts one hop makes per incoming request: a truncated geometric count. Summed as
// 1 + p + ... + p^(k-1), which is exact at p = 1 and loses no precision as p approaches 1.
double expected_calls(int tries, double fail);

// The closed forms of retry amplification. Note their two usual assumptions differ: the
// amplification counts failures at the last hop only, while the success probability lets every
// one of the N hops fail with probability p after k tries. Both are kept as usually stated.
Result<ChainAmplification> amplify(const Chain& chain);

}  // namespace vigil::retry
