#include <vigil/lab/fencing_report.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace vigil::lab {

namespace {

std::string ms(Millis t) {
  return std::to_string(t.count()) + " ms";
}

}  // namespace

Report stale_leader_report(const fencing::StaleLeaderResult& r,
                           const fencing::StaleLeaderOptions& o) {
  using fencing::Token;
  auto token_cell = [](Token t) { return t ? Cell(static_cast<std::int64_t>(t)) : Cell(); };
  auto text_cell = [](const std::string& s) { return s.empty() ? Cell() : Cell(s); };
  Table t;
  t.key = "timeline";
  t.title = "stale leader: lease " + ms(o.lease) + ", pause " + ms(o.pause) + ", fencing " +
            (o.fencing ? "on" : "off") +
            (o.resource_participates ? ", the resource takes part in the hand-over" : "");
  t.columns = {
      {"t_ms", "t (ms)", 0},     {"actor", "actor", 0},     {"action", "action", 0},
      {"token", "token", 0},     {"outcome", "outcome", 0}, {"value", "value", 0},
      {"highest", "highest", 0}, {"stored", "stored", 0},   {"stored_token", "stored token", 0},
      {"detail", "detail", 0}};
  t.rows.assign(r.events.size(), std::vector<Cell>(t.columns.size()));
  for (std::size_t i = 0; i < r.events.size(); ++i) {
    const fencing::Event& e = r.events[i];
    auto& row = t.rows[i];
    row[0] = static_cast<std::int64_t>(e.at.count());
    row[1] = std::string(fencing::actor_name(e.actor));
    row[2] = std::string(fencing::action_name(e.action));
    row[3] = token_cell(e.token);
    row[4] = text_cell(fencing::outcome_name(e.outcome));
    row[5] = text_cell(e.value);
    row[6] = token_cell(e.highest);
    row[7] = text_cell(e.stored);
    row[8] = token_cell(e.stored_token);
    row[9] = e.detail;
  }
  Report report;
  report.tables.push_back(std::move(t));
  auto num = [](auto x) { return static_cast<double>(x); };
  report.facts = {{"lease_ms", num(o.lease.count())},
                  {"pause_ms", num(o.pause.count())},
                  {"write_interval_ms", num(o.write_interval.count())},
                  {"old_writes", num(o.old_writes)},
                  {"old_token", num(r.old_token)},
                  {"new_token", num(r.new_token)},
                  {"pause_at_ms", num(r.pause_at.count())},
                  {"wake_at_ms", num(r.wake_at.count())},
                  {"handover_at_ms", r.handover ? num(r.handover_at.count()) : -1.0},
                  {"end_ms", num(r.end.count())},
                  {"accepted", num(r.accepted)},
                  {"rejected", num(r.rejected)},
                  {"highest", num(r.highest)},
                  {"value_token", num(r.value_token)}};
  report.flags = {{"fencing", o.fencing},
                  {"resource_participates", o.resource_participates},
                  {"new_leader_writes_first", o.new_leader_writes_first},
                  {"handover", r.handover},
                  {"stale_write", r.stale_write},
                  {"stale_write_rejected", r.stale_write_rejected},
                  {"lost_update", r.lost_update},
                  {"issued_not_seen", r.issued_not_seen}};
  report.notes = {"value: '" + r.value + "'", r.summary};
  return report;
}

}  // namespace vigil::lab
