#include "app/demo_summary.hpp"

#include <cstdio>
#include <string_view>
#include <vector>

#include <vigil/view/member_state.hpp>

namespace vigil::web {

namespace {

using nlohmann::json;

double number(const json& j, std::string_view key, double fallback = 0.0) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

std::string text(const json& j, std::string_view key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// printf into a std::string: every sentence below is short.
template <typename... Args>
std::string format(const char* fmt, Args... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

// 12345 -> "12,345": the numbers read aloud as numbers.
std::string grouped(double value) {
  const long long n = static_cast<long long>(value < 0 ? value - 0.5 : value + 0.5);
  std::string digits = std::to_string(n < 0 ? -n : n);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3)
    digits.insert(static_cast<std::size_t>(i), ",");
  return n < 0 ? "-" + digits : digits;
}

std::string phi_summary(const json& s) {
  const json& live = s.value("live", json::object());
  const json& trace = s.value("trace", json());
  std::string out;
  if (trace.is_object()) out = "A recorded heartbeat trace is replayed. ";
  const json& phi = live.value("phi", json::object());
  if (!phi.empty()) {
    out += "Phi now:";
    bool first = true;
    for (const auto& [model, value] : phi.items()) {
      out += format("%s %s %.1f", first ? "" : ",", model.c_str(),
                    value.is_number() ? value.get<double>() : 0.0);
      first = false;
    }
    out += format(". Last heartbeat %s ms ago; %s heartbeats received.",
                  grouped(number(live, "silence_ms")).c_str(),
                  grouped(number(live, "received")).c_str());
    if (live.value("crashed", false)) out += " The sender has crashed.";
  }
  out += format(
      " A silence of %s ms after gaps of mean %s ms and deviation %s ms gives phi %.2f "
      "under the %s tail.",
      grouped(number(s, "silence")).c_str(), grouped(number(s, "mean")).c_str(),
      grouped(number(s, "std")).c_str(), number(s, "phi"), text(s, "model").c_str());
  return out;
}

// Each member that some live member does not hold alive, with the worst of those views.
std::vector<std::string> swim_troubles(const json& s) {
  std::vector<std::string> out;
  const json& views = s.value("views", json::array());
  const json& up = s.value("up", json::array());
  const json& members = s.value("members", json::array());
  const auto name_of = [&](std::size_t i) {
    if (i < members.size()) return text(members[i], "name");
    return "node-" + std::to_string(i);
  };
  const auto is_up = [&](std::size_t i) { return i < up.size() && up[i].is_boolean() && up[i]; };
  std::size_t observers = 0;
  for (std::size_t r = 0; r < views.size(); ++r) observers += is_up(r);
  for (std::size_t c = 0; c < views.size(); ++c) {
    std::size_t dead = 0, suspect = 0, left = 0;
    for (std::size_t r = 0; r < views.size(); ++r) {
      if (r == c || !is_up(r) || !views[r].is_array() || c >= views[r].size()) continue;
      const auto state = view::member_state_from_string(
          views[r][c].is_string() ? views[r][c].get<std::string>() : "");
      dead += state == view::MemberState::dead;
      suspect += state == view::MemberState::suspect;
      left += state == view::MemberState::left;
    }
    const std::size_t others = observers - (is_up(c) ? 1 : 0);
    std::string line;
    if (dead) line += format("dead to %zu of %zu", dead, others);
    if (suspect) line += format("%ssuspect to %zu", line.empty() ? "" : ", ", suspect);
    if (left) line += format("%sleft for %zu", line.empty() ? "" : ", ", left);
    if (line.empty()) continue;
    out.push_back(name_of(c) + (is_up(c) ? "" : " (crashed)") + " is " + line);
  }
  return out;
}

std::string swim_summary(const json& s) {
  const json& up = s.value("up", json::array());
  std::size_t running = 0;
  for (const auto& u : up) running += u.is_boolean() && u.get<bool>();
  std::string out = format("%s members, %s running.", grouped(number(s, "nodes")).c_str(),
                           grouped(static_cast<double>(running)).c_str());
  const auto troubles = swim_troubles(s);
  if (troubles.empty()) {
    out += " Every running member holds every other alive.";
  } else {
    for (const auto& t : troubles) out += " " + t + ".";
  }
  if (s.value("partitioned", false)) out += " The network is partitioned.";
  if (s.value("paused", false)) out += " Paused.";
  return out;
}

std::string gossip_summary(const json& s) {
  if (text(s, "view") == "membership") {
    const json& m = s.value("membership", json::object());
    if (!m.value("ready", false))
      return "Heartbeat membership: computing false suspicions for each T_fail.";
    const json& t_fail = m.value("t_fail", json::array());
    const double selected = number(m, "selected_t_fail");
    for (std::size_t i = 0; i < t_fail.size(); ++i) {
      if (!t_fail[i].is_number() || t_fail[i].get<double>() != selected) continue;
      std::string out = format(
          "Heartbeat membership of %s members: with T_fail = %g rounds, false suspicions "
          "take %.2f %% of member-rounds",
          grouped(number(m, "n")).c_str(), selected,
          m["false_suspicion_pct"][i].is_number() ? m["false_suspicion_pct"][i].get<double>()
                                                  : 0.0);
      const json& agree = m["agree_dead_rounds_mean"][i];
      if (agree.is_number())
        out += format(", and all agree on a death after %.1f rounds", agree.get<double>());
      return out + ".";
    }
    return "Heartbeat membership.";
  }
  const double n = number(s, "n"), informed = number(s, "informed");
  std::string out = format(
      "%s gossip, fanout %s: round %s, %s of %s members informed (%.0f %%), "
      "%s messages.",
      text(s, "mode").c_str(), grouped(number(s, "fanout")).c_str(),
      grouped(number(s, "round")).c_str(), grouped(informed).c_str(), grouped(n).c_str(),
      n > 0 ? 100.0 * informed / n : 0.0, grouped(number(s, "messages")).c_str());
  if (s.value("done", false)) out += " Every live member has the rumour.";
  return out;
}

std::string retry_summary(const json& s) {
  const std::string view = text(s, "view");
  if (const auto c = s.find("chain"); c != s.end() && c->is_object())
    return format(
        "A chain of %s services, %s tries each, %.0f %% of calls failing: %s calls per "
        "request reach the deepest service, an amplification of %.1f times; %.1f %% of "
        "requests succeed.",
        grouped(number(*c, "depth")).c_str(), grouped(number(*c, "tries")).c_str(),
        100.0 * number(*c, "fail"), grouped(number(*c, "calls_per_request")).c_str(),
        number(*c, "amplification"), 100.0 * number(*c, "success"));
  if (const auto f = s.find("fleet"); f != s.end() && f->is_object()) {
    std::string out =
        format("%s clients against a server of %s requests a second.",
               grouped(number(*f, "clients")).c_str(), grouped(number(*f, "capacity")).c_str());
    const json strategies = f->value("strategies", json::object());
    for (const auto& [name, run] : strategies.items())
      out += format(" %s: peak %s requests a second, %s calls, %s still waiting.", name.c_str(),
                    grouped(number(run, "peak_rps")).c_str(),
                    grouped(number(run, "total_calls")).c_str(),
                    grouped(number(run, "unfinished")).c_str());
    return out;
  }
  if (const auto v = s.find("server"); v != s.end() && v->is_object()) {
    std::string out =
        format("A server of capacity %s requests a second, offered %s, with %s.",
               grouped(number(*v, "capacity")).c_str(), grouped(number(*v, "arrival")).c_str(),
               text(*v, "mitigations").c_str());
    if (v->contains("goodput"))
      out +=
          format(" Now: goodput %s, throughput %s requests a second.",
                 grouped(number(*v, "goodput")).c_str(), grouped(number(*v, "throughput")).c_str());
    return out;
  }
  if (const auto h = s.find("hysteresis"); h != s.end() && h->is_object()) {
    if (!h->value("done", false))
      return format("Sweeping the offered load: %.0f %% done.", 100.0 * number(*h, "progress"));
    std::string out = "The offered load was raised, then lowered.";
    if ((*h)["collapse_load"].is_number())
      out += format(" Goodput collapses at a load of %.0f", (*h)["collapse_load"].get<double>());
    if ((*h)["recovery_load"].is_number())
      out += format(" and recovers only below %.0f", (*h)["recovery_load"].get<double>());
    return out + ".";
  }
  return "Retry storms: " + view + ".";
}

std::string live_summary(const json& s) {
  const json& agents = s.value("agents", json::array());
  if (agents.empty()) return "No agent is connected.";
  std::string out;
  for (const auto& a : agents) {
    out += text(a, "name").empty() ? text(a, "address") : text(a, "name");
    out += " (" + text(a, "status") + ")";
    std::size_t alive = 0, others = 0;
    std::string trouble;
    const json members = a.value("members", json::object());
    for (const auto& [name, state] : members.items()) {
      const std::string st = state.is_string() ? state.get<std::string>() : "";
      if (view::member_state_from_string(st) == view::MemberState::alive) {
        ++alive;
      } else {
        ++others;
        trouble += format("%s%s %s", trouble.empty() ? "" : ", ", name.c_str(), st.c_str());
      }
    }
    out += format(" sees %zu alive", alive);
    if (others) out += ": " + trouble;
    out += ". ";
  }
  out.pop_back();
  return out;
}

std::string fencing_summary(const json& s) {
  std::string out = text(s, "sentence");
  out += format(" %s writes accepted, %s rejected.", grouped(number(s, "accepted")).c_str(),
                grouped(number(s, "rejected")).c_str());
  return out;
}

}  // namespace

std::string summarize_demo(const json& state) {
  const std::string demo = text(state, "demo");
  std::string out;
  if (demo == "phi") out = phi_summary(state);
  if (demo == "swim") out = swim_summary(state);
  if (demo == "gossip") out = gossip_summary(state);
  if (demo == "retry") out = retry_summary(state);
  if (demo == "live") out = live_summary(state);
  if (demo == "fencing") out = fencing_summary(state);
  while (!out.empty() && out.front() == ' ') out.erase(out.begin());
  return out;
}

std::string summary_events(const json& state) {
  const std::string demo = text(state, "demo");
  std::string out;
  if (demo == "swim") {
    for (const auto& t : swim_troubles(state)) out += "|" + t;
    if (state.value("partitioned", false)) out += "|partitioned";
  }
  if (demo == "phi" && state.value("live", json::object()).value("crashed", false))
    out += "|crashed";
  if (demo == "gossip" && state.value("done", false)) out += "|done";
  if (demo == "live") out += "|" + live_summary(state);
  if (demo == "fencing") out += "|" + text(state, "sentence");
  return out;
}

}  // namespace vigil::web
