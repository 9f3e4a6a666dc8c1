#pragma once

#include <cstdint>
#include <string>

#include <vigil/base/result.hpp>
#include <vigil/detect/trace.hpp>
#include <vigil/lab/table.hpp>
#include "cli/args.hpp"

namespace vigil::native {

// A heartbeat trace file, read and parsed. `unreadable` is set when the file could not be read
// (a runtime failure) rather than holding a bad trace (bad input).
Result<detect::Trace> read_trace_file(const std::string& path, detect::TimeUnit unit,
                                      bool* unreadable = nullptr);

// `vigil lab detectors --trace FILE`: the detectors replayed on a recorded trace.
Result<lab::Report> run_trace_detectors(const cli::Args& args, std::uint32_t seed);
// The trace's options given without --trace: an error rather than silently ignored.
Status reject_trace_options(const cli::Args& args);

}  // namespace vigil::native
