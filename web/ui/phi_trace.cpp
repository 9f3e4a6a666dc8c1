#include "ui/phi_trace.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include <vigil/detect/fixed_timeout.hpp>
#include <vigil/detect/phi_threshold.hpp>

namespace vigil::web {

namespace {

std::string thousands(std::size_t n) {
  std::string digits = std::to_string(n);
  for (int at = static_cast<int>(digits.size()) - 3; at > 0; at -= 3)
    digits.insert(static_cast<std::size_t>(at), ",");
  return digits;
}

}  // namespace

Result<PhiTrace> PhiTrace::load(std::string name, std::string_view text, std::string_view sender,
                                detect::TimeUnit unit) {
  if (text.size() > kMaxTraceBytes)
    return Error{"the file has " + thousands(text.size()) + " bytes; the page reads at most " +
                 thousands(kMaxTraceBytes) + " (use vigil tune on the command line)"};
  auto parsed = detect::parse_trace(text, unit);
  if (!parsed) return parsed.error();
  PhiTrace t;
  t.name_ = std::move(name);
  t.parsed_ = std::move(*parsed);
  std::size_t pick = 0;
  if (!sender.empty()) {
    auto it = std::find_if(t.parsed_.senders.begin(), t.parsed_.senders.end(),
                           [&](const auto& s) { return s.sender == sender; });
    if (it == t.parsed_.senders.end()) {
      // pick_sender's message lists the senders there are.
      auto picked = detect::pick_sender(t.parsed_, sender);
      return picked ? Error{"no sender '" + std::string(sender) + "'"} : picked.error();
    }
    pick = static_cast<std::size_t>(it - t.parsed_.senders.begin());
  } else {
    for (std::size_t i = 1; i < t.parsed_.senders.size(); ++i)
      if (t.parsed_.senders[i].arrivals.size() > t.parsed_.senders[pick].arrivals.size()) pick = i;
  }
  if (auto s = t.choose_sender(pick); !s) return s.error();
  return t;
}

Status PhiTrace::choose_sender(std::size_t index) {
  if (index >= parsed_.senders.size()) return Error{"no such sender"};
  const auto& s = parsed_.senders[index];
  const std::string who = s.sender.empty() ? "the trace" : "sender '" + s.sender + "'";
  if (s.arrivals.size() > kMaxTraceHeartbeats)
    return Error{who + " has " + thousands(s.arrivals.size()) +
                 " heartbeats; the page replays at most " + thousands(kMaxTraceHeartbeats) +
                 " (use vigil tune on the command line)"};
  if (auto ok = lab::check_replayable(s.arrivals, lab::TraceReplayOptions{}); !ok)
    return s.sender.empty() ? ok.error() : Error{who + ": " + ok.error().message};
  select(index);
  return ok_status();
}

void PhiTrace::select(std::size_t index) {
  sender_ = index;
  const auto& raw = parsed_.senders[index].arrivals;
  arrivals_.clear();
  arrivals_.reserve(raw.size());
  for (Millis a : raw) arrivals_.push_back(a - raw.front());
  interval_ms_ = lab::median_gap_ms(arrivals_);
  replayed_for_.reset();
  tuned_for_.reset();
}

double PhiTrace::timeout_ms(std::size_t i) const {
  return std::max(1.0, std::round(kTraceTimeoutGaps[i] * interval_ms_));
}

std::string PhiTrace::detector_name(const TraceDetectors& d, std::size_t i) const {
  char buf[48];
  if (i < 3) {
    const double ms = timeout_ms(i);
    if (ms >= 1000)
      std::snprintf(buf, sizeof buf, "timeout %.1f s", ms / 1000.0);
    else
      std::snprintf(buf, sizeof buf, "timeout %.0f ms", ms);
  } else {
    std::snprintf(buf, sizeof buf, "phi(%s) > %.1f", std::string(to_string(d.model)).c_str(),
                  i == 3 ? d.threshold_a : d.threshold_b);
  }
  return buf;
}

const std::vector<lab::TraceReplayRow>& PhiTrace::replay(const TraceDetectors& d) {
  if (replayed_for_ == d) return replay_;
  std::vector<std::unique_ptr<detect::Detector>> detectors;
  for (std::size_t i = 0; i < 3; ++i)
    detectors.push_back(std::make_unique<detect::FixedTimeout>(
        detect::FixedTimeout::create(Millis{std::llround(timeout_ms(i))}, detector_name(d, i))
            .value()));
  const auto config = lab::trace_phi_config(interval_ms_, d.model);
  for (std::size_t i = 3; i < 5; ++i)
    detectors.push_back(std::make_unique<detect::PhiThreshold>(
        detect::PhiThreshold::create(config, i == 3 ? d.threshold_a : d.threshold_b,
                                     detector_name(d, i))
            .value()));
  // load() checked that the trace is long enough, so the replay cannot fail.
  replay_ = lab::replay_trace(arrivals_, detectors, lab::TraceReplayOptions{}).value();
  replayed_for_ = d;
  return replay_;
}

const lab::TuneResult& PhiTrace::tune(double budget_per_hour, double confidence) {
  const std::pair key{budget_per_hour, confidence};
  if (tuned_for_ == key) return tune_;
  lab::TuneOptions options;
  options.max_mistakes_per_hour = budget_per_hour;
  options.confidence = confidence;
  // The budget and confidence come from the page's sliders, which stay in range.
  tune_ = lab::tune_trace(arrivals_, options).value();
  tuned_for_ = key;
  return tune_;
}

std::string_view PhiTrace::family_of(detect::TailModel model) {
  switch (model) {
    case detect::TailModel::normal:
      return "phi-normal";
    case detect::TailModel::logistic:
      return "phi-logistic";
    case detect::TailModel::exponential:
      return "phi-exponential";
    default:
      return "";
  }
}

}  // namespace vigil::web
