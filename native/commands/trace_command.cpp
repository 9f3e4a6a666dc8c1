// `vigil trace`: what a live agent measured of one peer, ready for `vigil tune` or a notebook.
#include "commands/trace_command.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/args.hpp"
#include "cli/duration.hpp"
#include "cli/endpoint.hpp"
#include "cli/exit_codes.hpp"
#include "cli/printable.hpp"
#include "http/http_get.hpp"
#include "http/query_string.hpp"

namespace vigil::native {

const std::vector<cli::Args::Spec>& trace_option_specs() {
  static const std::vector<cli::Args::Spec> specs = {
      {"http", true, "the agent's live-view address", "127.0.0.1:8081"},
      {"peer", true, "the member whose acks to fetch (required)", ""},
      {"timeout", true, "give up after this long (ms, s, m)", "10s"},
      {"help", false, "show this help", ""},
  };
  return specs;
}

int run_trace(const std::vector<std::string>& argv) {
  const auto& specs = trace_option_specs();
  auto fail = [](int code, const std::string& m) {
    std::fprintf(stderr, "vigil trace: %s\n", m.c_str());
    return code;
  };
  auto args = cli::Args::parse(argv, specs);
  if (!args) return fail(cli::kUsage, args.error().message);
  if (args->flag("help")) {
    std::printf(
        "usage: vigil trace --peer NAME [options] > trace.csv\n"
        "Writes the arrival times of the acks an agent received from one peer, as CSV\n"
        "(time_ms,sender; ms since the Unix epoch, oldest first; the last 4096 acks).\n\n"
        "options:\n%s",
        cli::Args::usage(specs).c_str());
    return cli::kOk;
  }
  const auto peer = args->text("peer");
  if (!peer || peer->empty()) return fail(cli::kUsage, "--peer NAME is required");
  auto endpoint = cli::parse_endpoint(args->text("http").value_or("127.0.0.1:8081"));
  if (!endpoint) return fail(cli::kUsage, "--http: " + endpoint.error().message);
  auto timeout = cli::parse_duration(args->text("timeout").value_or("10s"));
  if (!timeout) return fail(cli::kUsage, "--timeout: " + timeout.error().message);

  auto reply =
      http_get(endpoint->host, endpoint->port, "/v1/trace?peer=" + percent_encode(*peer), *timeout);
  if (!reply) return fail(cli::kFailure, reply.error().message);
  if (reply->status != 200) {
    // The agent explains itself in {"error": ...}; anything else is shown by its status alone.
    const auto body = nlohmann::json::parse(reply->body, nullptr, false);
    std::string why;
    if (body.is_object() && body.contains("error") && body["error"].is_string())
      why = ": " + cli::printable(body["error"].get<std::string>());
    return fail(cli::kFailure, "the agent answered HTTP " + std::to_string(reply->status) + why);
  }
  if (std::fwrite(reply->body.data(), 1, reply->body.size(), stdout) != reply->body.size() ||
      std::fflush(stdout) != 0)
    return fail(cli::kFailure, "cannot write the trace to standard output");
  return cli::kOk;
}

}  // namespace vigil::native
