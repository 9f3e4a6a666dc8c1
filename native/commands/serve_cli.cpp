#include "commands/serve_cli.hpp"

#include <csignal>
#include <cstdio>

#include "cli/args.hpp"
#include "cli/endpoint.hpp"
#include "cli/exit_codes.hpp"
#include "cli/paths.hpp"
#include "commands/tls_flags.hpp"
#include "http/lws_host.hpp"

namespace vigil::native {

namespace {

volatile std::sig_atomic_t g_stop = 0;
void on_signal(int) {
  g_stop = 1;
}

const std::vector<cli::Args::Spec>& specs() {
  static const std::vector<cli::Args::Spec> s = {
      {"http", true,
       "address and port to listen on: that address only (a name: each of its addresses; "
       "0.0.0.0 or [::] for every interface)",
       "127.0.0.1:8080"},
      {"web", true, "directory holding the built web app", "build/web next to the binary"},
      {"help", false, "show this help", ""},
  };
  static const std::vector<cli::Args::Spec> with_tls = [] {
    auto all = s;
    const auto tls = cli::tls_specs();
    all.insert(all.end() - 1, tls.begin(), tls.end());  // before --help
    return all;
  }();
  return with_tls;
}

}  // namespace

const std::vector<cli::Args::Spec>& serve_option_specs() {
  return specs();
}

int run_serve(const std::vector<std::string>& argv) {
  auto args = cli::Args::parse(argv, specs());
  if (!args) {
    std::fprintf(stderr, "vigil serve: %s\n", args.error().message.c_str());
    return cli::kUsage;
  }
  if (args->flag("help")) {
    std::printf(
        "usage: vigil serve [options]\nServes the web app over HTTP (or HTTPS).\n\noptions:\n%s",
        cli::Args::usage(specs()).c_str());
    return cli::kOk;
  }
  // A name listens on every address it resolves to ("localhost": 127.0.0.1 and ::1).
  auto endpoint = cli::parse_host_port(args->text("http").value_or("127.0.0.1:8080"));
  if (!endpoint) {
    std::fprintf(stderr, "vigil serve: --http: %s\n", endpoint.error().message.c_str());
    return cli::kUsage;
  }
  cli::TlsFiles tls;
  if (auto code = cli::read_tls_flags(*args, "serve", tls)) return *code;
  LwsHost::Options options;
  options.tls_cert = tls.cert;
  options.tls_key = tls.key;
  options.host = endpoint->host;
  options.port = endpoint->port;
  options.web_dir = args->text("web").value_or(cli::default_web_dir());
  options.ws_protocol.clear();
  options.dynamic_paths = {"/v1"};
  LwsHost::Handlers handlers;
  // The page asks every vigil server which agents it may connect to; this one runs none.
  handlers.on_http = [](const HttpRequest& request) -> HttpResponse {
    if (request.target == "/v1/demo") return {200, "application/json", R"({"agents":[]})"};
    return {404, "application/json", R"({"error":"not found"})"};
  };
  auto server = LwsHost::create(options, handlers);
  if (!server) {
    std::fprintf(stderr, "vigil serve: %s\n", server.error().message.c_str());
    return cli::kFailure;
  }
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::string where;
  for (const std::string& address : (*server)->listening())
    where += (where.empty() ? "" : ", ") + address;
  std::printf("vigil: serving %s at %s  (listening on %s; Ctrl-C to stop)\n",
              options.web_dir.c_str(), (*server)->url().c_str(), where.c_str());
  std::fflush(stdout);
  (*server)->run(g_stop);
  std::printf("vigil: stopped\n");
  return cli::kOk;
}

}  // namespace vigil::native
