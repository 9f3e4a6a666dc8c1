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
#include <optional>
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

const std::vector<cli::Args::Spec>& demo_specs() {
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
  return specs;
}

struct DemoOptions {
  std::int64_t nodes = 5;
  std::string http_host = "127.0.0.1";
  std::int64_t http_port = 8080;
  std::string profile;
  std::string web;  // the built web app
  std::string key;  // base64 gossip key; empty with --plaintext
  bool key_given = false;
  std::vector<std::string> security;  // passed on to every agent
};

// Plaintext gossip makes anyone who can send UDP to an agent a member: the demo's cluster gets a
// key of its own, which no one else has.
std::string fresh_key() {
  std::random_device entropy;
  wire::Bytes fresh(32);
  for (auto& b : fresh) b = static_cast<std::uint8_t>(entropy());
  return base64_encode(fresh);
}

// The token lets its holder inject faults into every agent.
std::string fresh_token() {
  std::random_device rd;
  std::string token;
  for (int i = 0; i < 32; ++i) token += "0123456789abcdef"[rd() % 16];
  return token;
}

Result<DemoOptions> read_options(const cli::Args& args) {
  DemoOptions o;
  auto nodes = args.integer_in("nodes", 5, 1, 64);
  if (!nodes) return nodes.error();
  o.nodes = *nodes;
  auto port = args.integer_in("http-port", 8080, 1, 65535);
  if (!port) return port.error();
  o.http_port = *port;
  if (auto http = args.text("http")) {
    if (args.has("http-port")) return Error{"give --http or --http-port, not both"};
    auto endpoint = cli::parse_host_port(*http);
    if (!endpoint) return Error{"--http: " + endpoint.error().message};
    o.http_host = endpoint->host;
    o.http_port = endpoint->port;
  }
  auto profile = args.choice("profile", swim::Config::profile_names(), "local");
  if (!profile) return profile.error();
  o.profile = *profile;
  o.web = args.text("web").value_or(cli::default_web_dir());
  if (args.has("encrypt-key") && args.flag("plaintext"))
    return Error{"give --encrypt-key or --plaintext, not both"};
  o.key_given = args.has("encrypt-key");
  o.key = args.text("encrypt-key").value_or("");
  if (!o.key.empty()) {
    if (auto k = parse_key(o.key); !k) return Error{"--encrypt-key: " + k.error().message};
  } else if (!args.flag("plaintext")) {
    o.key = fresh_key();
  }
  if (auto label = args.text("label")) {
    if (label->empty() || label->size() > 255) return Error{"--label: 1 to 255 bytes"};
    o.security.insert(o.security.end(), {"--label", *label});
  }
  return o;
}

// Secrets go to the agents in files only this user can read (mkstemp: mode 0600), not on their
// command lines, which every user of the machine can list. The files go when the demo ends.
class SecretFiles {
 public:
  SecretFiles() = default;
  SecretFiles(const SecretFiles&) = delete;
  SecretFiles& operator=(const SecretFiles&) = delete;
  ~SecretFiles() {
    for (const auto& path : paths_) std::remove(path.c_str());
  }

  // The new file's path, or nothing if it could not be written.
  std::optional<std::string> write(const std::string& path_template, const std::string& text) {
    std::string path = path_template;
    if (!write_secret(path.data(), text)) return std::nullopt;
    paths_.push_back(path);
    return path;
  }

 private:
  std::vector<std::string> paths_;
};

std::vector<std::string> agent_command(const std::string& exe, const Child& c, const DemoOptions& o,
                                       const std::string& token_path,
                                       const std::string& page_origins, int join_port) {
  std::vector<std::string> cmd = {exe,
                                  "agent",
                                  "--name",
                                  c.name,
                                  "--bind",
                                  "127.0.0.1:" + std::to_string(c.protocol_port),
                                  "--http",
                                  "127.0.0.1:" + std::to_string(c.http_port),
                                  "--profile",
                                  o.profile,
                                  "--token-file",
                                  token_path,
                                  "--web",
                                  o.web,
                                  "--quiet",
                                  "--allow-origin",
                                  page_origins};
  if (join_port > 0) cmd.insert(cmd.end(), {"--join", "127.0.0.1:" + std::to_string(join_port)});
  cmd.insert(cmd.end(), o.security.begin(), o.security.end());
  return cmd;
}

bool wait_until_up(const Child& c) {
  bool up = false;
  for (int attempt = 0; attempt < 100 && !up && !g_stop; ++attempt) {
    up = http_get("127.0.0.1", c.http_port, "/v1/self", Millis{200}).ok();
    if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return up;
}

// Starts one agent after the other, each joining through the first once it is up. On failure
// what was started is stopped again.
Status start_agents(std::vector<Child>& children, const DemoOptions& o,
                    const std::string& token_path, const std::string& page_origins) {
  const std::string exe = self_exe();
  for (std::size_t i = 0; i < children.size(); ++i) {
    Child& c = children[i];
    c.name = "node-" + std::to_string(i);
    c.protocol_port = free_port();
    c.http_port = free_port();
    if (!c.protocol_port || !c.http_port) {
      stop_all(children);
      return Error{"no free ports on 127.0.0.1"};
    }
    c.pid = spawn(
        agent_command(exe, c, o, token_path, page_origins, i > 0 ? children[0].protocol_port : 0));
    if (!wait_until_up(c)) {
      stop_all(children);
      return Error{"agent " + c.name + " did not come up"};
    }
  }
  return ok_status();
}

void print_banner(const std::vector<Child>& children, const DemoOptions& o,
                  const std::string& token, const std::string& url) {
  std::printf("vigil demo: %lld agents (%s profile) on 127.0.0.1\n",
              static_cast<long long>(o.nodes), o.profile.c_str());
  for (const auto& c : children)
    std::printf("  %-8s protocol 127.0.0.1:%d  live view http://127.0.0.1:%d/\n", c.name.c_str(),
                c.protocol_port, c.http_port);
  std::printf("token: %s\n", token.c_str());
  std::printf("gossip: %s\n",
              o.key.empty()
                  ? "plaintext (--plaintext): anyone who can send UDP to an agent is a member"
              : o.key_given ? "encrypted with the key given (--encrypt-key)"
                            : "encrypted with a fresh key of this demo's own");
  std::printf("explainer: %sexplainer.html\n", url.c_str());
  std::printf("open %s  (live cluster: %slive.html)  Ctrl-C stops everything\n", url.c_str(),
              url.c_str());
  std::fflush(stdout);
}

// /v1/demo: where each agent is, whether it still runs, and the token.
HttpResponse demo_answer(const HttpRequest& request, const std::vector<Child>& children,
                         const std::string& token) {
  if (request.target != "/v1/demo") return {404, "application/json", "{\"error\":\"not found\"}"};
  nlohmann::json agents = nlohmann::json::array();
  for (const auto& c : children)
    agents.push_back({{"name", c.name},
                      {"http", "127.0.0.1:" + std::to_string(c.http_port)},
                      {"ws", "ws://127.0.0.1:" + std::to_string(c.http_port) + "/ws"},
                      {"running", c.pid > 0},
                      {"pid", static_cast<long>(c.pid)}});
  return {200, "application/json", nlohmann::json{{"agents", agents}, {"token", token}}.dump()};
}

}  // namespace

int run_demo(const std::vector<std::string>& argv) {
  auto fail = [](int code, const std::string& m) {
    std::fprintf(stderr, "vigil demo: %s\n", m.c_str());
    return code;
  };
  auto args = cli::Args::parse(argv, demo_specs());
  if (!args) return fail(cli::kUsage, args.error().message);
  if (args->flag("help")) {
    std::printf(
        "usage: vigil demo [options]\nStarts local agents and serves the web app pointed at "
        "them.\n\noptions:\n%s",
        cli::Args::usage(demo_specs()).c_str());
    return cli::kOk;
  }
  auto read = read_options(*args);
  if (!read) return fail(cli::kUsage, read.error().message);
  DemoOptions& o = *read;

  // The web app's own server first: if its port is taken, nothing has been started yet.
  std::vector<Child> children(static_cast<std::size_t>(o.nodes));
  const std::string token = fresh_token();
  LwsHost::Options http;
  http.host = o.http_host;
  http.port = static_cast<int>(o.http_port);
  http.web_dir = o.web;
  http.dynamic_paths = {"/v1"};
  // The token lets its holder inject faults into every agent: it stays on this machine.
  http.loopback_only_paths = {"/v1/demo"};
  http.ws_protocol.clear();
  LwsHost::Handlers handlers;
  handlers.on_http = [&](const HttpRequest& request) {
    return demo_answer(request, children, token);
  };
  auto server = LwsHost::create(http, handlers);
  if (!server) return fail(cli::kFailure, server.error().message);

  SecretFiles secrets;
  const auto token_path = secrets.write("/tmp/vigil-demo-token-XXXXXX", token);
  if (!token_path) return fail(cli::kFailure, "cannot write the token file");
  if (!o.key.empty()) {
    const auto keyring_path =
        secrets.write("/tmp/vigil-demo-keyring-XXXXXX", "[\"" + o.key + "\"]\n");
    if (!keyring_path) return fail(cli::kFailure, "cannot write the keyring file");
    o.security.insert(o.security.end(), {"--keyring-file", *keyring_path});
  }

  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  // The page served here (another port, so another origin) opens each agent's WebSocket:
  // the agents must let it in.
  std::string page_origins;
  for (const auto& origin : OriginPolicy::own_origins(http.host, http.port))
    page_origins += (page_origins.empty() ? "" : ",") + origin;
  if (auto started = start_agents(children, o, *token_path, page_origins); !started)
    return fail(cli::kFailure, started.error().message);
  print_banner(children, o, token, (*server)->url());

  // Notice agents that die (killed from outside) so the page can show them as gone.
  handlers.on_timer = nullptr;
  while (!g_stop && (*server)->service_once()) {
    for (auto& c : children)
      if (c.pid > 0 && ::waitpid(c.pid, nullptr, WNOHANG) == c.pid) c.pid = -1;
    (*server)->wake_after(Millis{500});
  }
  std::printf("vigil demo: stopping\n");
  stop_all(children);
  return cli::kOk;
}

}  // namespace vigil::native
