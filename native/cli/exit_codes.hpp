#pragma once

namespace vigil::cli {

// Exit codes of the `vigil` executable (documented in ARCHITECTURE.md, "Details worth knowing").
inline constexpr int kOk = 0;
inline constexpr int kFailure = 1;  // a runtime failure: a port in use, a file that can't be read
inline constexpr int kUsage = 2;    // bad command line or invalid parameter values

}  // namespace vigil::cli
