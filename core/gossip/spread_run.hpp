// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <vigil/base/result.hpp>
#include <vigil/base/rng.hpp>
#include <vigil/gossip/spread.hpp>

namespace vigil::gossip {

// spread(), one round at a time, remembering the round in which each member learnt the rumour:
// what an animation needs to colour members and to stop between rounds. It makes spread()'s
// draws in spread()'s order, so stepped to the end from a generator in the same state it gives
// spread()'s result and leaves its generator where spread() leaves the caller's.
class SpreadRun {
 public:
  // learned_round() of a member that does not know (yet); dead members never do.
  static constexpr std::uint32_t kNever = 0xFFFFFFFFu;

  static Result<SpreadRun> create(const SpreadOptions& options, Rng rng);

  // Runs the next round; false, changing nothing, once done().
  bool step();
  void run_to_end();

  // Every live member informed, or the round cap reached without it.
  bool done() const { return finished() || round_ >= cap_; }
  bool finished() const { return informed_ == live_; }

  int round() const { return round_; }
  int cap() const { return cap_; }
  std::size_t nodes() const { return learned_.size(); }
  std::size_t live() const { return live_; }
  bool is_dead(std::size_t member) const { return member >= live_; }
  std::uint32_t informed() const { return informed_; }
  // Contacts started so far, counted as spread() counts them.
  std::uint64_t messages() const { return messages_by_round_.back(); }

  // 0 for member 0, r for a member that learnt in round r, kNever for the rest.
  std::uint32_t learned_round(std::size_t member) const { return learned_[member]; }
  std::span<const std::uint32_t> learned_rounds() const { return learned_; }
  // Informed live members after each round run so far; [0] = 1.
  const std::vector<std::uint32_t>& informed_by_round() const { return informed_by_round_; }
  // Contacts started by the end of each round; [0] = 0.
  const std::vector<std::uint64_t>& messages_by_round() const { return messages_by_round_; }

  const SpreadOptions& options() const { return options_; }
  const Rng& rng() const { return rng_; }
  // What spread() returns for a run of the rounds so far (finished or not).
  SpreadResult result() const;

 private:
  SpreadRun(const SpreadOptions& options, Rng rng);

  SpreadOptions options_;
  Rng rng_;
  std::uint32_t live_;
  int cap_;
  int round_ = 0;
  std::uint32_t informed_ = 1;
  // A member informed when round r began has learned_ < r; one that learnt during round r has
  // learned_ == r and is not yet passing it on, which is spread()'s "just learnt" state.
  std::vector<std::uint32_t> learned_;
  std::vector<std::uint32_t> informed_by_round_{1};
  std::vector<std::uint64_t> messages_by_round_{0};
};

}  // namespace vigil::gossip
