#include <vigil/retry/overload_server.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace vigil::retry {

namespace {

constexpr const char* kMitigationList = "none, all, or a comma list of budget,quota,deadline,shed";

double exponential(Rng& rng, double mean) {
  // 1 - u keeps the logarithm's argument in (0, 1].
  return -mean * std::log(1.0 - rng.uniform());
}

// Nearest-rank percentile; reorders `v`.
double percentile(std::vector<double>& v, double q) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
  const auto k = std::clamp<std::size_t>(rank, 1, v.size()) - 1;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

}  // namespace

Result<Mitigations> parse_mitigations(const std::string& text) {
  Mitigations m;
  if (text == "none") return m;
  if (text == "all") return Mitigations{true, true, true, true};
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    if (item == "budget")
      m.budget = true;
    else if (item == "quota")
      m.quota = true;
    else if (item == "deadline")
      m.deadline = true;
    else if (item == "shed")
      m.shed = true;
    else
      return Error{"--mitigation must be " + std::string(kMitigationList) + ", got '" + text + "'"};
    start = comma + 1;
  }
  return m;
}

std::string mitigations_name(const Mitigations& m) {
  if (!m.any()) return "none";
  if (m.budget && m.quota && m.deadline && m.shed) return "all";
  std::string out;
  for (auto [on, name] : {std::pair{m.budget, "budget"}, std::pair{m.quota, "quota"},
                          std::pair{m.deadline, "deadline"}, std::pair{m.shed, "shed"}})
    if (on) out += (out.empty() ? "" : ",") + std::string(name);
  return out;
}

Status ServerOptions::validate() const {
  namespace p = server_param;
  for (auto [spec, value] :
       {std::pair{p::arrival, arrival_rps}, std::pair{p::capacity, capacity_rps},
        std::pair{p::timeout, timeout_ms}, std::pair{p::tries, static_cast<double>(tries)},
        std::pair{p::seconds, static_cast<double>(seconds)}, std::pair{p::trigger_at, trigger_at_s},
        std::pair{p::trigger_seconds, trigger_seconds},
        std::pair{p::trigger_capacity, trigger_capacity}, std::pair{p::trigger_load, trigger_load}})
    if (auto s = spec.check(value); !s) return s;
  if (!(settle_seconds >= 0.0)) return Error{"the settle time must be >= 0 s"};
  if (trigger_end_s() + settle_seconds + 1.0 > seconds)
    return Error{"--seconds must leave at least 1 s after the trigger ends and " +
                 std::to_string(static_cast<int>(settle_seconds)) + " s of settling"};
  if (auto s = backoff.validate(); !s) return s;
  if (auto s = budget.validate(); !s) return s;
  return quota.validate();
}

Result<OverloadServer> OverloadServer::create(const ServerOptions& options) {
  if (auto s = options.validate(); !s) return s.error();
  return OverloadServer(options);
}

// Separate streams, so switching a mitigation on changes nothing about when requests arrive or
// how long they take to serve.
OverloadServer::OverloadServer(const ServerOptions& options)
    : options_(options),
      arrivals_(Rng(options.seed).fork(1)),
      service_(Rng(options.seed).fork(2)),
      backoff_(Rng(options.seed).fork(3)),
      budget_(options.budget),
      quota_(options.quota) {
  push(exponential(arrivals_, 1.0 / options_.arrival_rps), Kind::arrival, 0);
}

void OverloadServer::push(double at, Kind kind, std::int32_t id, std::int32_t detail,
                          std::int32_t paid) {
  events_.push(Event{at, order_++, kind, id, detail, paid});
}

bool OverloadServer::in_trigger(double t) const {
  return t >= options_.trigger_at_s && t < options_.trigger_end_s();
}

double OverloadServer::capacity_at(double t) const {
  return options_.capacity_rps * (in_trigger(t) ? options_.trigger_capacity : 1.0);
}

void OverloadServer::send(double now, std::int32_t request, std::int32_t index, std::int32_t paid) {
  const auto id = static_cast<std::int32_t>(attempts_.size());
  attempts_.push_back(
      {request, index, paid, now, now + options_.timeout_ms / 1000.0, State::pending});
  ++bucket().offered;
  if (index > 0) {
    ++bucket().retries;
    ++retries_;
  }
  push(attempts_.back().deadline, Kind::timeout, id);
  if (options_.mitigations.shed) {
    // The wait this request would see: everything ahead of it, at today's service rate.
    const double ahead = static_cast<double>(queue_.size()) + (busy_ ? 1.0 : 0.0);
    if (ahead / capacity_at(now) > options_.timeout_ms / 1000.0) {
      ++bucket().rejected;
      give_up_on(now, id, false);
      return;
    }
  }
  queue_.push_back(id);
  if (!busy_) serve_next(now);
}

void OverloadServer::serve_next(double now) {
  while (!queue_.empty()) {
    const std::int32_t id = queue_.front();
    queue_.pop_front();
    if (options_.mitigations.deadline && now >= attempts_[id].deadline) {
      ++bucket().dropped;
      continue;
    }
    busy_ = true;
    push(now + exponential(service_, 1.0 / capacity_at(now)), Kind::done, id);
    return;
  }
  busy_ = false;
}

void OverloadServer::give_up_on(double now, std::int32_t attempt, bool after_timeout) {
  Attempt& a = attempts_[attempt];
  a.state = State::failed;
  Request& r = requests_[a.request];
  if (r.done) return;
  auto fail = [&] {
    r.done = true;
    ++bucket().failed;
  };
  if (a.index + 1 >= options_.tries) return fail();
  const Mitigations& m = options_.mitigations;
  if (m.budget && !budget_.allows_retry()) {
    ++bucket().denied;
    return fail();
  }
  std::int32_t paid = 0;
  if (m.quota) {
    auto cost = quota_.acquire(after_timeout);
    if (!cost) {
      ++bucket().denied;
      return fail();
    }
    paid = *cost;
  }
  if (m.budget) budget_.spend();
  const double wait = options_.backoff.delay(a.index, r.previous_delay, backoff_);
  r.previous_delay = wait;
  push(now + wait, Kind::send, a.request, a.index + 1, paid);
}

void OverloadServer::run_second() {
  if (finished()) return;
  current_ = ServerSecond{};
  current_.second = elapsed();
  const double end = current_.second + 1.0;
  while (!events_.empty() && events_.top().at < end) {
    const Event e = events_.top();
    events_.pop();
    const double now = e.at;
    switch (e.kind) {
      case Kind::arrival: {
        const auto request = static_cast<std::int32_t>(requests_.size());
        requests_.push_back({options_.backoff.base_s, false});
        ++first_attempts_;
        if (options_.mitigations.budget) budget_.on_first_attempt();
        send(now, request, 0, 0);
        const double rate = options_.arrival_rps * (in_trigger(now) ? options_.trigger_load : 1.0);
        // A zero rate during the trigger resumes at its end.
        push(rate > 0 ? now + exponential(arrivals_, 1.0 / rate) : options_.trigger_end_s(),
             Kind::arrival, 0);
        break;
      }
      case Kind::send:
        send(now, e.id, e.detail, e.paid);
        break;
      case Kind::timeout:
        if (attempts_[e.id].state == State::pending) give_up_on(now, e.id, true);
        break;
      case Kind::done: {
        Attempt& a = attempts_[e.id];
        ++current_.completed;
        latencies_.push_back((now - a.sent) * 1000.0);
        if (a.state == State::pending && now < a.deadline) {
          a.state = State::succeeded;
          requests_[a.request].done = true;
          ++current_.goodput;
          if (options_.mitigations.quota) quota_.on_success(a.paid);
        }
        serve_next(now);
        break;
      }
    }
  }
  current_.queue = static_cast<std::int64_t>(queue_.size());
  current_.p50_ms = percentile(latencies_, 0.50);
  current_.p99_ms = percentile(latencies_, 0.99);
  latencies_.clear();
  per_second_.push_back(current_);
}

ServerSummary OverloadServer::summary() const {
  auto mean = [&](double from, double to, std::int64_t ServerSecond::*field) {
    double sum = 0.0;
    int n = 0;
    for (const auto& s : per_second_)
      if (s.second >= from && s.second + 1 <= to) {
        sum += static_cast<double>(s.*field);
        ++n;
      }
    return n ? sum / n : std::numeric_limits<double>::quiet_NaN();
  };
  const double start = options_.trigger_at_s, stop = options_.trigger_end_s();
  const double after = stop + options_.settle_seconds, end = options_.seconds;
  ServerSummary s;
  s.goodput_before = mean(1, start, &ServerSecond::goodput);
  s.goodput_during = mean(start, stop, &ServerSecond::goodput);
  s.goodput_after = mean(after, end, &ServerSecond::goodput);
  s.throughput_before = mean(1, start, &ServerSecond::completed);
  s.throughput_after = mean(after, end, &ServerSecond::completed);
  std::int64_t completed = 0, useful = 0;
  for (const auto& sec : per_second_) {
    completed += sec.completed;
    useful += sec.goodput;
  }
  s.retry_share = first_attempts_ ? static_cast<double>(retries_) / first_attempts_ : 0.0;
  s.wasted_share = completed ? static_cast<double>(completed - useful) / completed : 0.0;
  s.recovered = s.goodput_after >= 0.9 * s.goodput_before;
  return s;
}

}  // namespace vigil::retry
