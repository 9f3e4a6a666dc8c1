// libFuzzer target: the agent's WebSocket command parser (native/agent/commands.*) fed arbitrary
// bytes as one text message, followed by the reply the agent would build from the result.
//
// Invariants (a violation traps; an escaping exception is a crash too):
//  - parse_command never throws and yields either a command or an error with a documented code;
//  - a command that changes the agent's behaviour is only produced when the message is a JSON
//    object whose "token" is the agent's token;
//  - every command's values are within the documented ranges;
//  - the error or ok reply the agent sends serialises without throwing;
//  - the constant-time token comparison agrees with ==, on the message against the token and on
//    the message's two halves against each other.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>

#include <nlohmann/json.hpp>

#include <vigil/swim/config.hpp>
#include "agent/commands.hpp"

namespace {

using namespace vigil::native;

constexpr std::string_view kToken = "0141687f88da9515276ac7f128543a10";

void check(bool condition) {
  if (!condition) __builtin_trap();
}

bool is_error_code(const std::string& code) {
  return code == "bad-json" || code == "unknown-command" || code == "invalid" ||
         code == "unauthorized";
}

// An independent reading of the message: was the agent's token in it?
bool carries_token(std::string_view text) {
  const auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return false;
  const auto it = j.find("token");
  return it != j.end() && it->is_string() && it->get_ref<const std::string&>() == kToken;
}

void check_command(const ParsedCommand& parsed, std::string_view text) {
  const Command& command = std::get<Command>(parsed.result);
  const bool snapshot = std::holds_alternative<command::Snapshot>(command);
  check(!parsed.type.empty());
  check(snapshot == (parsed.type == "snapshot"));
  if (!snapshot) check(carries_token(text));
  std::visit(
      [&](const auto& c) {
        using T = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<T, command::Inject>) {
          check(c.faults.validate().ok());
          check(parsed.type == "inject");
        } else if constexpr (std::is_same_v<T, command::Pause>) {
          check(c.duration.count() >= 1 && c.duration.count() <= 600000);
          check(parsed.type == "pause");
        } else if constexpr (std::is_same_v<T, command::Block>) {
          check(!c.peer.empty() && parsed.type == "block");
        } else if constexpr (std::is_same_v<T, command::Unblock>) {
          check(!c.peer.empty() && parsed.type == "unblock");
        } else if constexpr (std::is_same_v<T, command::Leave>) {
          check(parsed.type == "leave");
        } else if constexpr (std::is_same_v<T, command::SetProfile>) {
          check(vigil::swim::Config::profile(c.profile).ok());
          check(parsed.type == "set-profile");
        }
      },
      command);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const ParsedCommand parsed = parse_command(text, kToken);
  nlohmann::json reply;
  if (const auto* error = std::get_if<CommandError>(&parsed.result)) {
    check(is_error_code(error->code));
    check(!error->message.empty());
    // As Agent::on_ws_message builds it.
    reply = {{"type", "error"}, {"code", error->code}, {"message", error->message}};
    if (!parsed.type.empty()) reply["command"] = parsed.type;
  } else {
    check_command(parsed, text);
    reply = {{"type", "ok"}, {"command", parsed.type}};
  }
  const std::string sent = reply.dump();
  check(!sent.empty());
  check(tokens_equal(text, kToken) == (text == kToken));
  const auto half = text.substr(0, size / 2);
  const auto rest = text.substr(size / 2);
  check(tokens_equal(half, rest) == (half == rest));
  return 0;
}
