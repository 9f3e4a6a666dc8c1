#pragma once

#include <optional>
#include <string>

namespace vigil::native {

// Why a certificate and key pair cannot serve HTTPS.
struct TlsFilesProblem {
  enum class Kind {
    unreadable,  // a file is missing or cannot be opened: the process cannot run
    invalid,     // readable, but not a PEM certificate/key, or the two do not belong together
  };
  Kind kind;
  std::string message;  // names the file
};

// Checks, before libwebsockets is handed the paths, that `cert_path` holds a PEM certificate (a
// chain: the first is this server's) and `key_path` the PEM private key of that certificate.
// libwebsockets would only log and fail to listen; this says which file is wrong and how.
// A passphrase-protected key is refused rather than prompted for: the agent runs unattended.
std::optional<TlsFilesProblem> check_tls_files(const std::string& cert_path,
                                               const std::string& key_path);

}  // namespace vigil::native
