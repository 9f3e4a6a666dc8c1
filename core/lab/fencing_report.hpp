// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <vigil/fencing/stale_leader.hpp>
#include <vigil/lab/table.hpp>

namespace vigil::lab {

// The stale-leader timeline as `vigil lab fencing` prints it (table "timeline", facts and
// flags); the web demo's state() carries the same rows.
Report stale_leader_report(const fencing::StaleLeaderResult& result,
                           const fencing::StaleLeaderOptions& options);

}  // namespace vigil::lab
