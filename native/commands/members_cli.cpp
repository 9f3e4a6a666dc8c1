// `vigil members`: an agent's membership list, like `serf members`.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include <vigil/lab/table.hpp>
#include <vigil/view/messages.hpp>
#include "cli/args.hpp"
#include "cli/endpoint.hpp"
#include "cli/exit_codes.hpp"
#include "cli/printable.hpp"
#include "commands/agent_cli.hpp"
#include "http/http_get.hpp"

namespace vigil::native {

namespace {

std::string state_names(const char* separator) {
  std::string out;
  for (auto s : view::kMemberStates) {
    if (!out.empty()) out += separator;
    out += view::to_string(s);
  }
  return out;
}

// --status may repeat (the parser keeps the last) or list several states with commas; none
// given means every state.
Result<std::set<view::MemberState>> statuses(const std::vector<std::string>& argv) {
  std::set<view::MemberState> out;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    std::string value;
    if (argv[i] == "--status" && i + 1 < argv.size())
      value = argv[++i];
    else if (argv[i].rfind("--status=", 0) == 0)
      value = argv[i].substr(9);
    else
      continue;
    std::stringstream items(value);
    std::string item;
    while (std::getline(items, item, ',')) {
      auto state = view::member_state_from_string(item);
      if (!state) return Error{"--status: '" + item + "' is not one of " + state_names(", ")};
      out.insert(*state);
    }
    if (value.empty() || value.back() == ',') return Error{"--status: an empty state"};
  }
  return out;
}

}  // namespace

const std::vector<cli::Args::Spec>& members_option_specs() {
  static const std::vector<cli::Args::Spec> specs = {
      {"http", true, "the agent's live-view address", "127.0.0.1:8081"},
      {"format", true, "table|json", "table"},
      {"status", true,
       "only members in these states: " + state_names("|") + " (repeat or comma list)", "all"},
      {"help", false, "show this help", ""},
  };
  return specs;
}

int run_members(const std::vector<std::string>& argv) {
  const auto& specs = members_option_specs();
  auto fail = [](int code, const std::string& m) {
    std::fprintf(stderr, "vigil members: %s\n", m.c_str());
    return code;
  };
  auto args = cli::Args::parse(argv, specs);
  if (!args) return fail(cli::kUsage, args.error().message);
  if (args->flag("help")) {
    std::printf(
        "usage: vigil members [options]\nLists the members an agent knows, itself "
        "included.\n\noptions:\n%s",
        cli::Args::usage(specs).c_str());
    return cli::kOk;
  }
  auto format = args->choice("format", {"table", "json"}, "table");
  if (!format) return fail(cli::kUsage, format.error().message);
  auto wanted = statuses(argv);
  if (!wanted) return fail(cli::kUsage, wanted.error().message);
  auto endpoint = cli::parse_endpoint(args->text("http").value_or("127.0.0.1:8081"));
  if (!endpoint) return fail(cli::kUsage, "--http: " + endpoint.error().message);
  auto reply = http_get(endpoint->host, endpoint->port, "/v1/members", Millis{5000});
  if (!reply) return fail(cli::kFailure, reply.error().message);
  if (reply->status != 200)
    return fail(cli::kFailure, "the agent answered HTTP " + std::to_string(reply->status));
  const auto all = nlohmann::json::parse(reply->body, nullptr, false);
  if (all.is_discarded() || !all.is_array())
    return fail(cli::kFailure, "the agent's answer is not a member list");
  // Each entry read through the protocol's definition, tolerating whatever shape a stranger's
  // server might send; --format json prints the entries shown as they came.
  auto shown_json = nlohmann::json::array();
  std::vector<view::MemberRow> shown;
  for (const auto& entry : all) {
    if (!entry.is_object()) continue;
    auto row = entry.get<view::MemberRow>();
    if (!wanted->empty() && !(row.state && wanted->count(*row.state))) continue;
    shown_json.push_back(entry);
    shown.push_back(std::move(row));
  }
  if (*format == "json") {
    std::printf("%s\n", cli::json_text(shown_json, 2).c_str());
    return cli::kOk;
  }
  lab::Table t;
  t.columns = {{"name", "Name", 0},
               {"address", "Address", 0},
               {"state", "Status", 0},
               {"incarnation", "Incarnation", 0}};
  // Names are whatever their members chose: escaped, so that a name cannot write to the
  // terminal itself.
  for (const auto& m : shown) {
    lab::Cell state;
    if (m.state) state = std::string(view::to_string(*m.state));
    t.rows.push_back({cli::printable(m.name), cli::printable(m.address), state,
                      static_cast<std::int64_t>(m.incarnation)});
  }
  lab::Report report;
  report.tables.push_back(std::move(t));
  std::fputs(lab::render(report, lab::Format::table).c_str(), stdout);
  return cli::kOk;
}

}  // namespace vigil::native
