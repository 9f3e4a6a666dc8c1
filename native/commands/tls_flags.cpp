#include "commands/tls_flags.hpp"

#include <cstdio>

#include "cli/exit_codes.hpp"
#include "http/tls_files.hpp"

namespace vigil::cli {

std::vector<Args::Spec> tls_specs() {
  return {
      {"tls-cert", true,
       "PEM certificate (chain): serve over TLS (https://, wss://) instead of plain HTTP (needs "
       "--tls-key)",
       "plain HTTP"},
      {"tls-key", true, "PEM private key of --tls-cert (without a passphrase)", ""},
  };
}

std::optional<int> read_tls_flags(const Args& args, const char* command, TlsFiles& out) {
  auto fail = [command](int code, const std::string& message) {
    std::fprintf(stderr, "vigil %s: %s\n", command, message.c_str());
    return code;
  };
  const bool cert = args.has("tls-cert");
  const bool key = args.has("tls-key");
  if (cert != key)
    return fail(kUsage, cert ? "--tls-cert needs --tls-key (the certificate's private key)"
                             : "--tls-key needs --tls-cert (the certificate it belongs to)");
  if (!cert) return std::nullopt;
  out.cert = args.text("tls-cert").value_or("");
  out.key = args.text("tls-key").value_or("");
  if (out.cert.empty() || out.key.empty())
    return fail(kUsage, "--tls-cert and --tls-key need file names");
  if (auto problem = native::check_tls_files(out.cert, out.key))
    return fail(problem->kind == native::TlsFilesProblem::Kind::unreadable ? kFailure : kUsage,
                problem->message);
  return std::nullopt;
}

}  // namespace vigil::cli
