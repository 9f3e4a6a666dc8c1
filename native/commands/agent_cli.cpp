#include "commands/agent_cli.hpp"

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <vigil/swim/config.hpp>
#include "agent/agent.hpp"
#include "agent/serf_tags.hpp"
#include "agent/socket_address.hpp"
#include "cli/args.hpp"
#include "cli/duration.hpp"
#include "cli/endpoint.hpp"
#include "cli/exit_codes.hpp"
#include "cli/paths.hpp"
#include "cli/printable.hpp"
#include "commands/tls_flags.hpp"
#include "crypto/key_source.hpp"
#include "http/origin_policy.hpp"

namespace vigil::native {

namespace {

constexpr const char* kDefaultBind = "127.0.0.1:7946";
constexpr const char* kDefaultHttp = "127.0.0.1:8081";

volatile std::sig_atomic_t g_stop = 0;
volatile std::sig_atomic_t g_stop_now = 0;
void on_signal(int) {
  if (g_stop) g_stop_now = 1;
  g_stop = 1;
}

const std::vector<cli::Args::Spec>& specs() {
  static const std::vector<cli::Args::Spec> s = {
      {"name", true, "this member's name (unique in the cluster)", "required"},
      {"bind", true,
       "UDP and TCP address for the protocol (IPv6 as [::1]:7946; a name takes its first address)",
       kDefaultBind},
      {"join", true,
       "a member to join through, HOST:PORT, [IPV6]:PORT or NAME:PORT (every address of a name is "
       "tried in turn, at most " +
           std::to_string(JoinLimits::kMaxAddressesPerAttempt) +
           " per attempt); repeat or comma-separate",
       ""},
      {"retry-interval", true, "wait between failed join attempts (500ms, 5s, 2m)", "5s"},
      {"retry-max", true, "join attempts before exiting with status 1 (0: retry for ever)", "0"},
      {"http", true,
       "address for the live view (HTTP, WebSocket at /ws): that address only (a name: each "
       "of its addresses; 0.0.0.0 or [::] for every interface)",
       kDefaultHttp},
      {"advertise-http", true,
       "URL of this live view as other machines reach it, advertised to viewers in the node's "
       "metadata (the Serf tag vigil-view)",
       "http://HOST:PORT of --http; a 0.0.0.0 host becomes --bind's"},
      {"profile", true, "lan|wan|local|teaching", "lan"},
      {"probe-interval", true,
       "time between probes, memberlist's ProbeInterval (200ms, 1s); overrides the profile",
       "the profile's: 1s for lan and local, 5s for wan"},
      {"probe-timeout", true,
       "wait for a direct ack before asking others, memberlist's ProbeTimeout; at most the "
       "probe interval; overrides the profile",
       "the profile's: 500ms for lan, 200ms for local, 3s for wan"},
      {"token-file", true, "file holding the token that authorises commands", "a new random token"},
      {"web", true,
       "directory of the built web app to serve at / ('none' to serve only /v1 and /ws)",
       "build/web next to the binary"},
      {"max-clients", true, "concurrent WebSocket viewers", "32"},
      {"allow-origin", true,
       "a web origin (http://host:port, port * for any) whose pages may open /ws (repeat or "
       "comma-separate)",
       "this agent's own http://HOST:PORT, 127.0.0.1 and localhost"},
      {"compression", true,
       "on|off: send full-state exchanges, and datagrams where it saves bytes, LZW-compressed "
       "as memberlist's EnableCompression does (Serf reads both); compressed input is read "
       "either way",
       "on"},
      {"label", true, "cluster label: only members with the same label talk (memberlist's Label)",
       "none"},
      {"encrypt-key", true,
       "base64 AES key (16, 24 or 32 bytes) sealing all gossip, as serf -encrypt (serf keygen)",
       "no encryption"},
      {"keyring-file", true,
       "JSON array of base64 keys, as serf's keyring file: the first encrypts, all decrypt", ""},
      {"quiet", false, "do not print membership events", ""},
      {"help", false, "show this help", ""},
  };
  static const std::vector<cli::Args::Spec> with_tls = [] {
    auto all = s;
    const auto tls = cli::tls_specs();
    all.insert(all.end() - 2, tls.begin(), tls.end());  // before --quiet and --help
    return all;
  }();
  return with_tls;
}

bool is_loopback(const std::string& host) {
  return host.rfind("127.", 0) == 0 || host == "::1";
}

std::string random_token() {
  std::random_device rd;
  static const char kHex[] = "0123456789abcdef";
  std::string t;
  for (int i = 0; i < 32; ++i) t += kHex[rd() % 16];
  return t;
}

Result<std::string> read_token(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error{"cannot read token file '" + path + "'"};
  std::stringstream buf;
  buf << in.rdbuf();
  std::string t = buf.str();
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.pop_back();
  if (t.empty()) return Error{"token file '" + path + "' is empty"};
  return t;
}

// Every value of a repeatable option (--name V or --name=V), comma lists split.
std::vector<std::string> list_option(const std::vector<std::string>& argv,
                                     const std::string& name) {
  std::vector<std::string> out;
  const std::string flag = "--" + name;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    std::string value;
    if (argv[i] == flag && i + 1 < argv.size())
      value = argv[++i];
    else if (argv[i].rfind(flag + "=", 0) == 0)
      value = argv[i].substr(flag.size() + 1);
    else
      continue;
    std::stringstream items(value);
    std::string item;
    while (std::getline(items, item, ','))
      if (!item.empty()) out.push_back(item);
  }
  return out;
}

// --join may repeat (the parser keeps the last) or list several addresses with commas. Names
// are checked here and resolved on each join attempt.
Result<std::vector<cli::Endpoint>> joins(const std::vector<std::string>& argv) {
  std::vector<cli::Endpoint> out;
  for (const auto& item : list_option(argv, "join")) {
    auto e = cli::parse_host_port(item);
    if (!e) return Error{"--join: " + e.error().message};
    out.push_back(*e);
  }
  return out;
}

// --bind and --http need one address of this machine: a name gives its first.
Result<swim::Address> local_address(const std::string& flag, const std::string& text) {
  auto e = cli::parse_host_port(text);
  if (!e) return Error{flag + ": " + e.error().message};
  auto found = resolve(e->host, static_cast<std::uint16_t>(e->port), AF_UNSPEC);
  if (!found) return Error{flag + ": cannot resolve '" + e->host + "': " + found.error().message};
  return found->front();
}

void print_agent_help() {
  std::printf(
      "usage: vigil agent --name NAME [options]\nRuns one SWIM member and serves its live "
      "view.\n\n"
      "options:\n%s\n"
      "gossip encryption: memberlist's AES-GCM, byte-compatible with serf -encrypt. Every "
      "member\n"
      "needs a key in common; datagrams and streams that do not decrypt are dropped and "
      "counted.\n"
      "With both --encrypt-key and --keyring-file the key becomes the primary. To rotate: give\n"
      "everyone a keyring [old, new], then [new, old], then [new].\n\n"
      "joining: as serf -retry-join, every seed is asked for its state; with no answer the "
      "agent\n"
      "tries again every --retry-interval. A name is resolved again on each attempt; an attempt\n"
      "asks at most %zu addresses at once, the first of each seed before the second of any,\n"
      "and the next attempt goes on with those not asked yet.\n\n"
      "exit codes: 0 after a graceful leave, 1 if it cannot run (e.g. address in use) or no\n"
      "seed answered in --retry-max attempts,\n"
      "2 for a bad command line\n",
      cli::Args::usage(specs()).c_str(), JoinLimits::kMaxAddressesPerAttempt);
}

// The member's name and its protocol address.
Status read_identity(const cli::Args& args, AgentOptions& o) {
  auto name = args.text("name");
  if (!name || name->empty()) return Error{"missing required option --name"};
  o.name = *name;
  auto bind = local_address("--bind", args.text("bind").value_or(kDefaultBind));
  if (!bind) return bind.error();
  o.bind = *bind;
  return ok_status();
}

// The members to join through, and how often and how many times to try them.
Status read_joining(const cli::Args& args, const std::vector<std::string>& argv, AgentOptions& o) {
  auto seeds = joins(argv);
  if (!seeds) return seeds.error();
  o.joins = *seeds;
  auto retry_interval = cli::parse_duration(args.text("retry-interval").value_or("5s"));
  if (!retry_interval) return Error{"--retry-interval: " + retry_interval.error().message};
  o.retry_interval = *retry_interval;
  auto retry_max = args.integer_in("retry-max", 0, 0, 1'000'000);
  if (!retry_max) return retry_max.error();
  o.retry_max = static_cast<int>(*retry_max);
  return ok_status();
}

// Where the live view listens, and the URL other machines are told to reach it at.
Status read_live_view_address(const cli::Args& args, AgentOptions& o) {
  const std::string http_text = args.text("http").value_or(kDefaultHttp);
  auto http = local_address("--http", http_text);
  if (!http) return http.error();
  // A name is handed on as it is: the live view listens on every address it resolves to.
  const auto http_endpoint = cli::parse_host_port(http_text);
  o.http_host =
      http_endpoint->kind == cli::Endpoint::Kind::name ? http_endpoint->host : http->ip_text();
  o.http_port = http->port;
  o.advertise_http = args.text("advertise-http").value_or("");
  if (args.has("advertise-http"))
    if (auto s = check_view_url(o.advertise_http); !s)
      return Error{"--advertise-http: " + s.error().message};
  return ok_status();
}

// The profile and its overrides, checked together as the engine will run them.
Status read_protocol(const cli::Args& args, AgentOptions& o) {
  auto profile = args.choice("profile", swim::Config::profile_names(), "lan");
  if (!profile) return profile.error();
  o.profile = *profile;
  for (auto [flag, field] : {std::pair{"probe-interval", &o.probe_interval},
                             std::pair{"probe-timeout", &o.probe_timeout}}) {
    auto text = args.text(flag);
    if (!text) continue;
    auto d = cli::parse_duration(*text);
    if (!d) return Error{"--" + std::string(flag) + ": " + d.error().message};
    *field = *d;
  }
  auto compression = args.choice("compression", {"on", "off"}, "on");
  if (!compression) return compression.error();
  o.compression = *compression == "on";
  if (auto config = agent_config(o.profile, o); !config) {
    // Name the value the operator did not give, so a fast interval points at --probe-timeout.
    const swim::Config base = swim::Config::profile(o.profile).value();
    const Millis interval = o.probe_interval.value_or(base.probe_interval);
    const Millis timeout = o.probe_timeout.value_or(base.probe_timeout);
    return Error{config.error().message + " (probe interval " + cli::duration_text(interval) +
                 (o.probe_interval ? "" : " from the " + o.profile + " profile") +
                 ", probe timeout " + cli::duration_text(timeout) +
                 (o.probe_timeout ? "" : " from the " + o.profile + " profile") + ")"};
  }
  return ok_status();
}

// Who may watch: viewers, the pages allowed to open /ws, and the event lines.
Status read_view(const cli::Args& args, const std::vector<std::string>& argv, AgentOptions& o) {
  auto clients = args.integer_in("max-clients", 32, 1, 1024);
  if (!clients) return clients.error();
  o.max_clients = static_cast<std::size_t>(*clients);
  o.quiet = args.flag("quiet");
  for (const auto& origin : list_option(argv, "allow-origin")) {
    OriginPolicy check;
    if (auto s = check.allow(origin); !s) return Error{"--allow-origin: " + s.error().message};
    o.allow_origins.push_back(origin);
  }
  return ok_status();
}

// The cluster label and the gossip keys.
Status read_gossip_security(const cli::Args& args, AgentOptions& o) {
  o.label = args.text("label").value_or("");
  if (o.label.size() > 255) return Error{"--label: at most 255 bytes"};
  if (args.has("label") && o.label.empty()) return Error{"--label: empty (leave it out for none)"};
  std::optional<wire::Bytes> primary;
  if (auto text = args.text("encrypt-key")) {
    auto key = parse_key(*text);
    if (!key) return Error{"--encrypt-key: " + key.error().message};
    primary = std::move(key).value();
  }
  std::vector<wire::Bytes> ring;
  if (auto path = args.text("keyring-file")) {
    auto keys = read_keyring_file(*path);
    if (!keys) return Error{"--keyring-file: " + keys.error().message};
    ring = std::move(keys).value();
  }
  o.keys = merge_keys(primary, std::move(ring));
  return ok_status();
}

// The command token: from --token-file, or a random one when only this machine can reach the
// live view.
Status choose_token(const cli::Args& args, AgentOptions& o) {
  if (auto path = args.text("token-file")) {
    auto token = read_token(*path);
    if (!token) return token.error();
    o.token = *token;
    return ok_status();
  }
  // Anyone who can reach a non-loopback address could send commands: insist on a chosen token.
  // A name listens on each of its addresses: all of them must be loopback.
  bool loopback = is_loopback(o.http_host);
  const auto http_endpoint = cli::parse_host_port(args.text("http").value_or(kDefaultHttp));
  if (http_endpoint && http_endpoint->kind == cli::Endpoint::Kind::name) {
    auto all = resolve(o.http_host, static_cast<std::uint16_t>(o.http_port), AF_UNSPEC);
    loopback = all && std::all_of(all->begin(), all->end(),
                                  [](const swim::Address& a) { return is_loopback(a.ip_text()); });
  }
  if (!loopback) return Error{"a non-loopback --http needs --token-file"};
  o.token = random_token();
  return ok_status();
}

// The web app's directory; a missing default build is noted and the API served alone.
void choose_web_dir(const cli::Args& args, AgentOptions& o) {
  o.web_dir = args.text("web").value_or(cli::default_web_dir());
  if (o.web_dir == "none") {
    o.web_dir.clear();
  } else if (!args.has("web") &&
             !std::filesystem::is_regular_file(std::filesystem::path(o.web_dir) / "index.html")) {
    std::fprintf(stderr,
                 "vigil agent: no web app at %s (build it with scripts/build.sh); serving /v1 and "
                 "/ws only\n",
                 o.web_dir.c_str());
    o.web_dir.clear();
  }
}

// The command line as AgentOptions, checked in the order the flags are documented. On a problem
// prints it and returns the exit code.
std::optional<int> read_agent_options(const cli::Args& args, const std::vector<std::string>& argv,
                                      AgentOptions& o) {
  Status s = read_identity(args, o);
  if (s) s = read_joining(args, argv, o);
  if (s) s = read_live_view_address(args, o);
  if (s) s = read_protocol(args, o);
  if (s) s = read_view(args, argv, o);
  if (s) s = read_gossip_security(args, o);
  if (s) s = choose_token(args, o);
  if (!s) {
    std::fprintf(stderr, "vigil agent: %s\n", s.error().message.c_str());
    return cli::kUsage;
  }
  cli::TlsFiles tls;
  if (auto code = cli::read_tls_flags(args, "agent", tls)) return code;
  o.tls_cert = tls.cert;
  o.tls_key = tls.key;
  choose_web_dir(args, o);
  return std::nullopt;
}

// Starts the agent, prints where it listens, and runs it until a signal or a graceful leave.
int start_and_run(const AgentOptions& o, bool token_from_file) {
  auto agent = Agent::start(o);
  if (!agent) {
    std::fprintf(stderr, "vigil agent: %s\n", agent.error().message.c_str());
    return cli::kFailure;
  }
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::signal(SIGPIPE, SIG_IGN);
  (*agent)->say(
      "vigil agent " + cli::printable(o.name) + ": protocol " + o.bind.to_string() +
      ", live view " + (*agent)->http_url() + ", token " +
      (token_from_file ? "(from file)" : o.token) +
      (o.joins.empty() ? "" : ", joining " + std::to_string(o.joins.size()) + " seed(s)") + "\n");
  return (*agent)->run(g_stop, g_stop_now);
}

}  // namespace

const std::vector<cli::Args::Spec>& agent_option_specs() {
  return specs();
}

int run_agent(const std::vector<std::string>& argv) {
  // --join and --allow-origin may repeat: the generic parser keeps the last, so they are read
  // from argv too.
  auto args = cli::Args::parse(argv, specs());
  if (!args) {
    std::fprintf(stderr, "vigil agent: %s\n", args.error().message.c_str());
    return cli::kUsage;
  }
  if (args->flag("help")) {
    print_agent_help();
    return cli::kOk;
  }
  AgentOptions o;
  if (auto code = read_agent_options(*args, argv, o)) return *code;
  return start_and_run(o, args->has("token-file"));
}

}  // namespace vigil::native
