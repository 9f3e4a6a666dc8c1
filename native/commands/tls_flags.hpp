#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/args.hpp"

namespace vigil::cli {

// --tls-cert and --tls-key, shared by the commands that serve HTTP (their help lines).
std::vector<Args::Spec> tls_specs();

struct TlsFiles {
  std::string cert;  // both empty: plain HTTP
  std::string key;
};

// Reads --tls-cert/--tls-key: both or neither, and the files a matching PEM certificate and key.
// On a problem, prints "vigil COMMAND: message" (naming the file) and returns the exit code:
// kUsage for flags or contents that are wrong, kFailure for a file that cannot be read.
std::optional<int> read_tls_flags(const Args& args, const char* command, TlsFiles& out);

}  // namespace vigil::cli
