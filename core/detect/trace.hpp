// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <vigil/base/result.hpp>
#include <vigil/base/time.hpp>

namespace vigil::detect {

// The unit of numeric times in a heartbeat trace. `automatic` reads epoch magnitudes
// (seconds ~1e9, milliseconds ~1e12, microseconds ~1e15), checked against the median gap (a
// "seconds" trace with gaps over 30 is milliseconds, a "milliseconds" one with gaps over 60000 is
// microseconds); relative times with a median gap of 30 or less are seconds, others milliseconds.
enum class TimeUnit { automatic, seconds, milliseconds, microseconds };

std::string_view to_string(TimeUnit unit);
Result<TimeUnit> parse_time_unit(std::string_view text);  // auto|s|ms|us

// One sender's heartbeat (or ack) arrivals, oldest first, in whole milliseconds: the detectors'
// resolution. Records that land on the same millisecond as an earlier one are duplicates (dropped
// and counted); records earlier than the record before them are out of order (sorted and counted).
struct SenderTrace {
  std::string sender;  // empty when the trace has no sender column
  std::vector<Millis> arrivals;
  std::size_t records = 0;
  std::size_t duplicates = 0;
  std::size_t out_of_order = 0;
};

struct Trace {
  std::string format;                      // "text", "csv" or "json"
  TimeUnit unit = TimeUnit::milliseconds;  // the unit used (detected or given)
  std::vector<SenderTrace> senders;        // in order of first appearance
};

// Parses a trace (plain text, CSV with a header row, or a JSON array) held in memory. Errors name
// the 1-based line and the reason.
Result<Trace> parse_trace(std::string_view text, TimeUnit unit = TimeUnit::automatic);

// The one sender named `name`, or the only sender when `name` is empty.
Result<SenderTrace> pick_sender(const Trace& trace, std::string_view name);

// The trace's CSV form (time_ms,sender; milliseconds with 3 decimals), headed by a # comment:
// what the agent exports, and what parse_trace reads back unchanged.
std::string trace_csv(std::span<const Millis> arrivals, std::string_view sender,
                      std::string_view comment);

}  // namespace vigil::detect
