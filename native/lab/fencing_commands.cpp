// `vigil lab fencing`: a paused old leader, an expired lease, a new leader, and whether the
// resource's fencing token check stops the old leader's late write.
#include "lab/fencing_commands.hpp"

#include <vigil/lab/fencing_report.hpp>

namespace vigil::native {

namespace {

using cli::Args;

Result<lab::Report> run_fencing(const Args& args, std::uint32_t) {
  fencing::StaleLeaderOptions o;
  auto lease = args.integer_in("lease", o.lease.count(), 2, 86'400'000);
  auto pause = args.integer_in("pause", o.pause.count(), 0, 86'400'000);
  auto interval = args.integer_in("interval", o.write_interval.count(), 1, 86'400'000);
  auto old_writes = args.integer_in("old-writes", o.old_writes, 0, 1000);
  auto token =
      args.integer_in("token", static_cast<std::int64_t>(o.old_token), 1, 1'000'000'000'000'000);
  auto new_first = on_off(args, "new-first", o.new_leader_writes_first);
  auto fencing = on_off(args, "fencing", o.fencing);
  auto participate = on_off(args, "participate", o.resource_participates);
  for (const Error* e :
       {lease ? nullptr : &lease.error(), pause ? nullptr : &pause.error(),
        interval ? nullptr : &interval.error(), old_writes ? nullptr : &old_writes.error(),
        token ? nullptr : &token.error(), new_first ? nullptr : &new_first.error(),
        fencing ? nullptr : &fencing.error(), participate ? nullptr : &participate.error()})
    if (e) return *e;
  o.lease = Millis{*lease};
  o.pause = Millis{*pause};
  o.write_interval = Millis{*interval};
  o.old_writes = static_cast<int>(*old_writes);
  o.old_token = static_cast<fencing::Token>(*token);
  o.new_leader_writes_first = *new_first;
  o.fencing = *fencing;
  o.resource_participates = *participate;
  auto r = fencing::run_stale_leader(o);
  if (!r) return r.error();
  return lab::stale_leader_report(*r, o);
}

}  // namespace

std::vector<LabCommand> fencing_commands() {
  return {
      {"fencing",
       "a stale leader after a pause longer than its lease: fencing tokens reject its late write",
       {{"lease", true, "lease length, ms (a leader renews at every write)", "1000"},
        {"pause", true, "how long the old leader is frozen (GC pause, SIGSTOP), ms", "2000"},
        {"interval", true, "time between a leader's writes, ms; shorter than --lease", "250"},
        {"old-writes", true, "writes the old leader makes before the pause", "2"},
        {"token", true, "the old leader's fencing token; the new leader gets the next", "41"},
        {"new-first", true, "on|off: the new leader writes before the old one wakes", "on"},
        {"fencing", true, "on|off: the resource checks tokens (off: lost updates)", "on"},
        {"participate", true,
         "on|off: the issuer fences the resource at the hand-over, before any new write", "off"}},
       "1",
       run_fencing},
  };
}

}  // namespace vigil::native
