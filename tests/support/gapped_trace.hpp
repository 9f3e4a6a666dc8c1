#pragma once

#include <cstddef>
#include <vector>

#include <vigil/base/time.hpp>

namespace vigil::test {

// Heartbeats every 100 ms, with the given longer gaps spliced in after `at` regular ones each:
// a trace whose every gap is known, so a timeout's mistakes on it can be counted by hand.
inline std::vector<Millis> regular_with_gaps(std::size_t at, const std::vector<long>& long_gaps) {
  std::vector<Millis> out{Millis{0}};
  auto add = [&](long gap) { out.push_back(out.back() + Millis{gap}); };
  for (long gap : long_gaps) {
    for (std::size_t i = 0; i < at; ++i) add(100);
    add(gap);
  }
  for (std::size_t i = 0; i < at; ++i) add(100);
  return out;
}

}  // namespace vigil::test
