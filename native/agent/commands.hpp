#pragma once

#include <string>
#include <string_view>
#include <variant>

#include <vigil/base/time.hpp>
#include "agent/fault_injector.hpp"

namespace vigil::native {

// Commands a live view sends to an agent over its WebSocket (docs/websocket.md). Everything but
// `snapshot` and `packets` changes the agent's behaviour and needs the agent's token.
namespace command {
struct Snapshot {};
// Turns this connection's packet log on or off (read-only: no token).
struct Packets {
  bool on = false;
};
struct Inject {
  FaultSettings faults;
};
struct Pause {
  Millis duration{0};
};
struct Block {
  std::string peer;
};
struct Unblock {
  std::string peer;
};
struct Leave {};
struct SetProfile {
  std::string profile;
};
}  // namespace command

using Command = std::variant<command::Snapshot, command::Packets, command::Inject, command::Pause,
                             command::Block, command::Unblock, command::Leave, command::SetProfile>;

struct CommandError {
  std::string code;  // bad-json, unknown-command, invalid, unauthorized, auth-rate-limited
  std::string message;
};

struct ParsedCommand {
  std::string type;  // echoed in the reply, "" when the message was not even JSON
  std::variant<Command, CommandError> result;
};

// Parses one text message and checks its token (compared in constant time) for commands that
// mutate. Never throws: malformed input is a CommandError. When `may_check_token` is false (the
// sender's address is out of attempts), a command needing the token is refused with
// `auth-rate-limited` and its token is not looked at.
ParsedCommand parse_command(std::string_view text, std::string_view token,
                            bool may_check_token = true);

// Compares a guess with the secret token in time that depends only on the secret's length.
bool tokens_equal(std::string_view guess, std::string_view secret);

}  // namespace vigil::native
