// `vigil lab fencing`: a paused old leader, an expired lease, a new leader, and whether the
// resource's fencing token check stops the old leader's late write.
#include "lab/fencing_commands.hpp"

#include <vigil/fencing/params.hpp>
#include <vigil/lab/fencing_report.hpp>
#include "lab/param_options.hpp"

namespace vigil::native {

namespace {

using cli::Args;

Result<lab::Report> run_fencing(const Args& args, std::uint32_t) {
  namespace p = fencing::stale_leader_param;
  fencing::StaleLeaderOptions o;
  ParamReader read(args);
  read(p::lease, o.lease);
  read(p::pause, o.pause);
  read(p::interval, o.write_interval);
  read(p::old_writes, o.old_writes);
  read(p::token, o.old_token);
  if (!read.status()) return read.status().error();
  auto new_first = on_off(args, "new-first", o.new_leader_writes_first);
  auto fencing = on_off(args, "fencing", o.fencing);
  auto participate = on_off(args, "participate", o.resource_participates);
  for (const Error* e :
       {new_first ? nullptr : &new_first.error(), fencing ? nullptr : &fencing.error(),
        participate ? nullptr : &participate.error()})
    if (e) return *e;
  o.new_leader_writes_first = *new_first;
  o.fencing = *fencing;
  o.resource_participates = *participate;
  auto r = fencing::run_stale_leader(o);
  if (!r) return r.error();
  return lab::stale_leader_report(*r, o);
}

}  // namespace

std::vector<LabCommand> fencing_commands() {
  auto params = options(fencing::stale_leader_param::all);
  params.insert(
      params.end(),
      {{"new-first", true, "on|off: the new leader writes before the old one wakes", "on"},
       {"fencing", true, "on|off: the resource checks tokens (off: lost updates)", "on"},
       {"participate", true,
        "on|off: the issuer fences the resource at the hand-over, before any new write", "off"}});
  return {
      {"fencing",
       "a stale leader after a pause longer than its lease: fencing tokens reject its late write",
       params, "1", run_fencing},
  };
}

}  // namespace vigil::native
