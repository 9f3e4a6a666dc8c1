// `vigil demo`: N agents on loopback and the web app pointing at them.
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include <vigil/swim/config.hpp>
#include "cli/args.hpp"
#include "cli/endpoint.hpp"
#include "cli/exit_codes.hpp"
#include "cli/paths.hpp"
#include "commands/agent_cli.hpp"
#include "crypto/base64.hpp"
#include "crypto/key_source.hpp"
#include "http/http_get.hpp"
#include "http/lws_host.hpp"

namespace vigil::native {

namespace {

volatile std::sig_atomic_t g_stop = 0;
void on_signal(int) {
  g_stop = 1;
}

struct Child {
  std::string name;
  int protocol_port = 0;
  int http_port = 0;
  pid_t pid = -1;
};

// A port that is free for both UDP and TCP right now (the agent binds both).
int free_port() {
  for (int attempt = 0; attempt < 50; ++attempt) {
    const int tcp = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof sa;
    if (tcp < 0 || ::bind(tcp, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 ||
        ::getsockname(tcp, reinterpret_cast<sockaddr*>(&sa), &len) != 0) {
      if (tcp >= 0) ::close(tcp);
      continue;
    }
    const int udp = ::socket(AF_INET, SOCK_DGRAM, 0);
    const bool udp_free = udp >= 0 && ::bind(udp, reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0;
    if (udp >= 0) ::close(udp);
    ::close(tcp);
    if (udp_free) return ntohs(sa.sin_port);
  }
  return 0;
}

std::string self_exe() {
  std::error_code ec;
  return std::filesystem::read_symlink("/proc/self/exe", ec).string();
}

// Writes `text` to a new file made from `path_template` (mkstemp: this user alone may read it).
bool write_secret(char* path_template, const std::string& text) {
  const int fd = ::mkstemp(path_template);
  if (fd < 0) return false;
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  if (!written) std::remove(path_template);
  return written;
}

pid_t spawn(const std::vector<std::string>& args) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  // The child: its own process group would survive a Ctrl-C on the terminal; stay in ours.
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ::execv(argv[0], argv.data());
  std::perror("vigil demo: exec");
  std::_Exit(127);
}

void stop_all(std::vector<Child>& children) {
  for (auto& c : children)
    if (c.pid > 0) ::kill(c.pid, SIGTERM);
  // Agents leave gracefully within a second or two; after that, make sure.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(4);
  for (auto& c : children) {
    while (c.pid > 0) {
      if (::waitpid(c.pid, nullptr, WNOHANG) == c.pid)
        c.pid = -1;
      else if (std::chrono::steady_clock::now() > deadline) {
        ::kill(c.pid, SIGKILL);
        ::waitpid(c.pid, nullptr, 0);
        c.pid = -1;
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
  }
}

}  // namespace

int run_demo(const std::vector<std::string>& argv) {
  static const std::vector<cli::Args::Spec> specs = {
      {"nodes", true, "agents to start", "5"},
      {"http-port", true, "port of the web app (the live view and the explainer) on 127.0.0.1",
       "8080"},
      {"http", true,
       "address and port of the web app instead: that address only (a name: each of its "
       "addresses). The token is served to this machine's own clients alone",
       "127.0.0.1:8080"},
      {"profile", true, "lan|wan|local|teaching", "local"},
      {"web", true, "directory of the built web app", "build/web next to the binary"},
      {"encrypt-key", true,
       "base64 AES key every agent encrypts its gossip with (see vigil agent --help)",
       "a fresh random key"},
      {"plaintext", false,
       "gossip without encryption, as memberlist does by default: anyone who can send UDP to "
       "an agent is then a member",
       ""},
      {"label", true, "cluster label given to every agent", "none"},
      {"help", false, "show this help", ""},
  };
  auto fail = [](int code, const std::string& m) {
    std::fprintf(stderr, "vigil demo: %s\n", m.c_str());
    return code;
  };
  auto args = cli::Args::parse(argv, specs);
  if (!args) return fail(cli::kUsage, args.error().message);
  if (args->flag("help")) {
    std::printf(
        "usage: vigil demo [options]\nStarts local agents and serves the web app pointed at "
        "them.\n\noptions:\n%s",
        cli::Args::usage(specs).c_str());
    return cli::kOk;
  }
  auto nodes = args->integer_in("nodes", 5, 1, 64);
  if (!nodes) return fail(cli::kUsage, nodes.error().message);
  auto port = args->integer_in("http-port", 8080, 1, 65535);
  if (!port) return fail(cli::kUsage, port.error().message);
  std::string http_host = "127.0.0.1";
  if (auto http = args->text("http")) {
    if (args->has("http-port")) return fail(cli::kUsage, "give --http or --http-port, not both");
    auto endpoint = cli::parse_host_port(*http);
    if (!endpoint) return fail(cli::kUsage, "--http: " + endpoint.error().message);
    http_host = endpoint->host;
    *port = endpoint->port;
  }
  auto profile = args->choice("profile", swim::Config::profile_names(), "local");
  if (!profile) return fail(cli::kUsage, profile.error().message);
  const std::string web = args->text("web").value_or(cli::default_web_dir());
  std::vector<std::string> security;  // passed on to every agent
  if (args->has("encrypt-key") && args->flag("plaintext"))
    return fail(cli::kUsage, "give --encrypt-key or --plaintext, not both");
  std::string key = args->text("encrypt-key").value_or("");
  if (!key.empty()) {
    if (auto k = parse_key(key); !k)
      return fail(cli::kUsage, "--encrypt-key: " + k.error().message);
  } else if (!args->flag("plaintext")) {
    // Plaintext gossip makes anyone who can send UDP to an agent a member: the demo's cluster
    // gets a key of its own, which no one else has.
    std::random_device entropy;
    wire::Bytes fresh(32);
    for (auto& b : fresh) b = static_cast<std::uint8_t>(entropy());
    key = base64_encode(fresh);
  }
  if (auto label = args->text("label")) {
    if (label->empty() || label->size() > 255) return fail(cli::kUsage, "--label: 1 to 255 bytes");
    security.insert(security.end(), {"--label", *label});
  }

  // The web app's own server first: if its port is taken, nothing has been started yet.
  std::vector<Child> children(static_cast<std::size_t>(*nodes));
  std::random_device rd;
  std::string token;
  for (int i = 0; i < 32; ++i) token += "0123456789abcdef"[rd() % 16];
  LwsHost::Options http;
  http.host = http_host;
  http.port = static_cast<int>(*port);
  http.web_dir = web;
  http.dynamic_paths = {"/v1"};
  // The token lets its holder inject faults into every agent: it stays on this machine.
  http.loopback_only_paths = {"/v1/demo"};
  http.ws_protocol.clear();
  LwsHost::Handlers handlers;
  handlers.on_http = [&](const HttpRequest& request) -> HttpResponse {
    if (request.target != "/v1/demo") return {404, "application/json", "{\"error\":\"not found\"}"};
    nlohmann::json agents = nlohmann::json::array();
    for (const auto& c : children)
      agents.push_back({{"name", c.name},
                        {"http", "127.0.0.1:" + std::to_string(c.http_port)},
                        {"ws", "ws://127.0.0.1:" + std::to_string(c.http_port) + "/ws"},
                        {"running", c.pid > 0},
                        {"pid", static_cast<long>(c.pid)}});
    return {200, "application/json", nlohmann::json{{"agents", agents}, {"token", token}}.dump()};
  };
  auto server = LwsHost::create(http, handlers);
  if (!server) return fail(cli::kFailure, server.error().message);

  // Secrets go to the agents in files only this user can read (mkstemp: mode 0600), not on
  // their command lines, which every user of the machine can list.
  char token_path[] = "/tmp/vigil-demo-token-XXXXXX";
  if (!write_secret(token_path, token)) return fail(cli::kFailure, "cannot write the token file");
  char keyring_path[] = "/tmp/vigil-demo-keyring-XXXXXX";
  if (!key.empty()) {
    if (!write_secret(keyring_path, "[\"" + key + "\"]\n")) {
      std::remove(token_path);
      return fail(cli::kFailure, "cannot write the keyring file");
    }
    security.insert(security.end(), {"--keyring-file", keyring_path});
  }
  auto remove_secrets = [&] {
    std::remove(token_path);
    if (!key.empty()) std::remove(keyring_path);
  };

  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  const std::string exe = self_exe();
  // The page served here (another port, so another origin) opens each agent's WebSocket:
  // the agents must let it in.
  std::string page_origins;
  for (const auto& o : OriginPolicy::own_origins(http.host, http.port))
    page_origins += (page_origins.empty() ? "" : ",") + o;
  for (std::size_t i = 0; i < children.size(); ++i) {
    Child& c = children[i];
    c.name = "node-" + std::to_string(i);
    c.protocol_port = free_port();
    c.http_port = free_port();
    if (!c.protocol_port || !c.http_port) {
      stop_all(children);
      remove_secrets();
      return fail(cli::kFailure, "no free ports on 127.0.0.1");
    }
    std::vector<std::string> cmd = {exe,
                                    "agent",
                                    "--name",
                                    c.name,
                                    "--bind",
                                    "127.0.0.1:" + std::to_string(c.protocol_port),
                                    "--http",
                                    "127.0.0.1:" + std::to_string(c.http_port),
                                    "--profile",
                                    *profile,
                                    "--token-file",
                                    token_path,
                                    "--web",
                                    web,
                                    "--quiet",
                                    "--allow-origin",
                                    page_origins};
    if (i > 0)
      cmd.insert(cmd.end(), {"--join", "127.0.0.1:" + std::to_string(children[0].protocol_port)});
    cmd.insert(cmd.end(), security.begin(), security.end());
    c.pid = spawn(cmd);
    // Each agent must be up before the next joins through the first.
    bool up = false;
    for (int attempt = 0; attempt < 100 && !up && !g_stop; ++attempt) {
      up = http_get("127.0.0.1", c.http_port, "/v1/self", Millis{200}).ok();
      if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (!up) {
      stop_all(children);
      remove_secrets();
      return fail(cli::kFailure, "agent " + c.name + " did not come up");
    }
  }
  std::printf("vigil demo: %lld agents (%s profile) on 127.0.0.1\n", static_cast<long long>(*nodes),
              profile->c_str());
  for (const auto& c : children)
    std::printf("  %-8s protocol 127.0.0.1:%d  live view http://127.0.0.1:%d/\n", c.name.c_str(),
                c.protocol_port, c.http_port);
  std::printf("token: %s\n", token.c_str());
  std::printf("gossip: %s\n",
              key.empty()
                  ? "plaintext (--plaintext): anyone who can send UDP to an agent is a member"
              : args->has("encrypt-key") ? "encrypted with the key given (--encrypt-key)"
                                         : "encrypted with a fresh key of this demo's own");
  std::printf("explainer: %sexplainer.html\n", (*server)->url().c_str());
  std::printf("open %s  (live cluster: %slive.html)  Ctrl-C stops everything\n",
              (*server)->url().c_str(), (*server)->url().c_str());
  std::fflush(stdout);

  // Notice agents that die (killed from outside) so the page can show them as gone.
  handlers.on_timer = nullptr;
  while (!g_stop && (*server)->service_once()) {
    for (auto& c : children)
      if (c.pid > 0 && ::waitpid(c.pid, nullptr, WNOHANG) == c.pid) c.pid = -1;
    (*server)->wake_after(Millis{500});
  }
  std::printf("vigil demo: stopping\n");
  stop_all(children);
  remove_secrets();
  return cli::kOk;
}

}  // namespace vigil::native
