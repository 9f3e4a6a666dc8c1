// The `vigil` executable: lab experiments, the static web server, and (later) agents.
#include <cstdio>
#include <string>
#include <vector>

#include "cli/exit_codes.hpp"
#include "commands/agent_cli.hpp"
#include "commands/help_command.hpp"
#include "commands/lab_cli.hpp"
#include "commands/serve_cli.hpp"
#include "commands/trace_command.hpp"
#include "commands/tune_cli.hpp"

namespace {

void print_help() {
  std::printf(
      "vigil — is that node dead, or just slow?\n\n"
      "usage: vigil <command> [options]\n\n"
      "commands:\n"
      "  demo               start local agents and the web app pointed at them (vigil demo "
      "--help)\n"
      "  agent              run one SWIM member with its live view (vigil agent --help)\n"
      "  members            list the members an agent knows (vigil members --help)\n"
      "  trace              download the ack arrival times an agent saw from a peer, as CSV\n"
      "                     (vigil trace --help)\n"
      "  lab <experiment>   run an experiment and print its table (vigil lab --help)\n"
      "  serve              serve the web app over HTTP (vigil serve --help)\n"
      "  tune               fit detector settings to a recorded heartbeat trace (vigil tune "
      "--help)\n"
      "  help [TOPIC]       show this help, or a reference table: vigil help agent|members|\n"
      "                     trace|serve|tune|lab EXPERIMENT|metrics [--format "
      "text|markdown|json]\n\n"
      "exit codes: 0 success, 1 runtime failure, 2 bad command line or parameters\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    print_help();
    return vigil::cli::kUsage;
  }
  const std::string command = args.front();
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "help" && !rest.empty()) return vigil::native::run_help(rest);
  if (command == "help" || command == "--help" || command == "-h") {
    print_help();
    return vigil::cli::kOk;
  }
  if (command == "lab") return vigil::native::run_lab(rest);
  if (command == "tune") return vigil::native::run_tune(rest);
  if (command == "serve") return vigil::native::run_serve(rest);
  if (command == "agent") return vigil::native::run_agent(rest);
  if (command == "members") return vigil::native::run_members(rest);
  if (command == "trace") return vigil::native::run_trace(rest);
  if (command == "demo") return vigil::native::run_demo(rest);
  std::fprintf(stderr, "vigil: unknown command '%s' (try vigil --help)\n", command.c_str());
  return vigil::cli::kUsage;
}
