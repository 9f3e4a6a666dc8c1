// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <vigil/base/result.hpp>
#include <vigil/base/rng.hpp>
#include <vigil/gossip/params.hpp>

namespace vigil::gossip {

// Who starts a contact in a round, and which way the rumour can flow through it.
enum class Mode {
  push,       // every informed node tells f random others
  pull,       // every uninformed node asks f random others
  push_pull,  // every node contacts f random others; the rumour flows both ways
};

// "push", "pull", "pushpull": the names the CLI takes and prints.
const char* mode_name(Mode mode);
Result<Mode> parse_mode(const std::string& name);

// One rumour spreading over `nodes` members in synchronous rounds. The rumour starts at member 0;
// the last `dead` members have crashed: they neither start contacts nor answer, are not waited
// for, yet can still be picked as targets, which wastes the contact. A member is "informed at the
// start of a round" only if it knew before the round began, so news travels one hop per round.
//
// Loss is per message: a push is one message, lost with probability `loss`; a pull is a question
// and an answer, and the rumour gets through only if both arrive; a push-pull contact is a
// message carrying the initiator's news and an answer carrying the target's, the answer sent only
// if the first message arrived.
struct SpreadOptions {
  std::size_t nodes = static_cast<std::size_t>(spread_param::nodes.def);
  int fanout = static_cast<int>(spread_param::fanout.def);
  Mode mode = Mode::push;
  double loss = spread_param::loss.def;
  std::size_t dead = static_cast<std::size_t>(spread_param::dead.def);
  int max_rounds = static_cast<int>(spread_param::max_rounds.def);  // 0: default_max_rounds(nodes)

  Status validate() const;
};

// About ten times the push spread time for fanout 1 (Pittel: log2 n + ln n) at any n, so a run
// without loss that hits it is broken, while heavy loss can.
int default_max_rounds(std::size_t nodes);

struct SpreadResult {
  bool finished = false;  // every live member informed within the round cap
  int rounds = 0;         // rounds run: until finished, or the cap
  // Contacts started by live members, whatever came of them: a push, a question (its answer
  // included) or a push-pull exchange each count once, also when lost or sent to a dead member.
  std::uint64_t messages = 0;
  std::size_t live = 0;                 // nodes - dead: the members that must learn
  std::vector<std::uint32_t> informed;  // informed live members after r rounds; [0] = 1
};

// Draws targets from `rng` in a fixed order, so one generator passed through several runs gives
// one reproducible sequence. Push draws as JavaScript on mulberry32 does (informed members in
// index order, f targets each, `below(n - 1)` shifted past the sender), so with its seed 44
// its table comes out exactly; loss draws are made only when loss > 0.
Result<SpreadResult> spread(const SpreadOptions& options, Rng& rng);

}  // namespace vigil::gossip
