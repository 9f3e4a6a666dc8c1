#include <vigil/gossip/spread.hpp>

#include <cmath>

namespace vigil::gossip {

namespace {

// Informed member states within a round; news learnt this round is not passed on until the next.
constexpr std::uint8_t kUninformed = 0;
constexpr std::uint8_t kInformed = 1;    // knew when the round began
constexpr std::uint8_t kJustLearnt = 2;  // learnt during this round

}  // namespace

const char* mode_name(Mode mode) {
  switch (mode) {
    case Mode::push:
      return "push";
    case Mode::pull:
      return "pull";
    case Mode::push_pull:
      return "pushpull";
  }
  return "?";
}

Result<Mode> parse_mode(const std::string& name) {
  for (Mode m : {Mode::push, Mode::pull, Mode::push_pull})
    if (name == mode_name(m)) return m;
  return Error{"--mode must be one of push|pull|pushpull, got '" + name + "'"};
}

Status SpreadOptions::validate() const {
  if (auto s = spread_param::nodes.check(static_cast<double>(nodes)); !s) return s;
  if (auto s = spread_param::fanout.check(fanout); !s) return s;
  if (auto s = spread_param::loss.check(loss); !s) return s;
  if (auto s = spread_param::dead.check(static_cast<double>(dead)); !s) return s;
  if (dead >= nodes)
    return Error{"--dead must be smaller than --nodes: the rumour starts at a live member"};
  return spread_param::max_rounds.check(max_rounds);
}

int default_max_rounds(std::size_t nodes) {
  const int log2n = static_cast<int>(std::ceil(std::log2(static_cast<double>(nodes))));
  return 10 * (log2n + 10);
}

Result<SpreadResult> spread(const SpreadOptions& o, Rng& rng) {
  if (auto s = o.validate(); !s) return s.error();
  const auto n = static_cast<std::uint32_t>(o.nodes);
  const auto live = static_cast<std::uint32_t>(o.nodes - o.dead);  // members [live, n) are dead
  const int cap = o.max_rounds > 0 ? o.max_rounds : default_max_rounds(o.nodes);
  const std::uint32_t f = static_cast<std::uint32_t>(o.fanout);
  const bool lossy = o.loss > 0.0;

  std::vector<std::uint8_t> state(n, kUninformed);
  state[0] = kInformed;
  std::uint32_t informed = 1;

  SpreadResult r;
  r.live = live;
  r.informed.push_back(informed);

  // Anyone but `self`, uniformly; the same arithmetic as JavaScript's
  // floor(rand() * (n - 1)).
  auto other = [&](std::uint32_t self) {
    const std::uint32_t t = rng.below(n - 1);
    return t >= self ? t + 1 : t;
  };
  auto arrives = [&] { return !lossy || !rng.chance(o.loss); };
  auto learn = [&](std::uint32_t member) {
    state[member] = kJustLearnt;
    ++informed;
  };

  while (informed < live && r.rounds < cap) {
    ++r.rounds;
    switch (o.mode) {
      case Mode::push:
        for (std::uint32_t i = 0; i < live; ++i) {
          if (state[i] != kInformed) continue;
          for (std::uint32_t k = 0; k < f; ++k) {
            const std::uint32_t t = other(i);
            ++r.messages;
            if (t < live && state[t] == kUninformed && arrives()) learn(t);
          }
        }
        break;
      case Mode::pull:
        for (std::uint32_t i = 0; i < live; ++i) {
          if (state[i] != kUninformed) continue;
          // All f questions go out at once, so each counts even after an earlier answer told.
          for (std::uint32_t k = 0; k < f; ++k) {
            const std::uint32_t t = other(i);
            ++r.messages;
            if (state[i] == kUninformed && t < live && state[t] == kInformed && arrives() &&
                arrives())
              learn(i);
          }
        }
        break;
      case Mode::push_pull:
        for (std::uint32_t i = 0; i < live; ++i) {
          for (std::uint32_t k = 0; k < f; ++k) {
            const std::uint32_t t = other(i);
            ++r.messages;
            if (t >= live) continue;
            if (state[i] == kInformed && state[t] == kUninformed) {
              if (arrives()) learn(t);
            } else if (state[t] == kInformed && state[i] == kUninformed) {
              // A pull crosses the lossy link twice, request and answer: two independent draws.
              if (arrives() && arrives()) learn(i);  // NOLINT(misc-redundant-expression)
            }
          }
        }
        break;
    }
    for (std::uint32_t i = 0; i < live; ++i)
      if (state[i] == kJustLearnt) state[i] = kInformed;
    r.informed.push_back(informed);
  }
  r.finished = informed == live;
  return r;
}

}  // namespace vigil::gossip
