#include <vigil/gossip/spread_run.hpp>

namespace vigil::gossip {

Result<SpreadRun> SpreadRun::create(const SpreadOptions& options, Rng rng) {
  if (auto s = options.validate(); !s) return s.error();
  return SpreadRun(options, rng);
}

SpreadRun::SpreadRun(const SpreadOptions& options, Rng rng)
    : options_(options),
      rng_(rng),
      live_(static_cast<std::uint32_t>(options.nodes - options.dead)),
      cap_(options.max_rounds > 0 ? options.max_rounds : default_max_rounds(options.nodes)),
      learned_(options.nodes, kNever) {
  learned_[0] = 0;
}

bool SpreadRun::step() {
  if (done()) return false;
  const auto r = static_cast<std::uint32_t>(++round_);
  const auto n = static_cast<std::uint32_t>(learned_.size());
  const auto f = static_cast<std::uint32_t>(options_.fanout);
  const double loss = options_.loss;
  const bool lossy = loss > 0.0;
  std::uint64_t messages = messages_by_round_.back();
  std::uint32_t* learned = learned_.data();

  // The same draws as spread(), in the same order: see spread.cpp.
  auto other = [&](std::uint32_t self) {
    const std::uint32_t t = rng_.below(n - 1);
    return t >= self ? t + 1 : t;
  };
  auto arrives = [&] { return !lossy || !rng_.chance(loss); };
  auto knew = [&](std::uint32_t member) { return learned[member] < r; };
  auto learn = [&](std::uint32_t member) {
    learned[member] = r;
    ++informed_;
  };

  switch (options_.mode) {
    case Mode::push:
      for (std::uint32_t i = 0; i < live_; ++i) {
        if (!knew(i)) continue;
        for (std::uint32_t k = 0; k < f; ++k) {
          const std::uint32_t t = other(i);
          ++messages;
          if (t < live_ && learned[t] == kNever && arrives()) learn(t);
        }
      }
      break;
    case Mode::pull:
      for (std::uint32_t i = 0; i < live_; ++i) {
        if (learned[i] != kNever) continue;
        for (std::uint32_t k = 0; k < f; ++k) {
          const std::uint32_t t = other(i);
          ++messages;
          if (learned[i] == kNever && t < live_ && knew(t) && arrives() && arrives()) learn(i);
        }
      }
      break;
    case Mode::push_pull:
      for (std::uint32_t i = 0; i < live_; ++i) {
        for (std::uint32_t k = 0; k < f; ++k) {
          const std::uint32_t t = other(i);
          ++messages;
          if (t >= live_) continue;
          if (knew(i) && learned[t] == kNever) {
            if (arrives()) learn(t);
          } else if (knew(t) && learned[i] == kNever) {
            // A pull crosses the lossy link twice, request and answer: two independent draws.
            if (arrives() && arrives()) learn(i);  // NOLINT(misc-redundant-expression)
          }
        }
      }
      break;
  }
  informed_by_round_.push_back(informed_);
  messages_by_round_.push_back(messages);
  return true;
}

void SpreadRun::run_to_end() {
  while (step()) {
  }
}

SpreadResult SpreadRun::result() const {
  SpreadResult r;
  r.finished = finished();
  r.rounds = round_;
  r.messages = messages();
  r.live = live_;
  r.informed = informed_by_round_;
  return r;
}

}  // namespace vigil::gossip
