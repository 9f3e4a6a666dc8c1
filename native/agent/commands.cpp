#include "agent/commands.hpp"

#include <openssl/crypto.h>
#include <algorithm>
#include <nlohmann/json.hpp>

#include <vigil/swim/config.hpp>

namespace vigil::native {

namespace {

using nlohmann::json;

CommandError invalid(std::string message) {
  return CommandError{"invalid", std::move(message)};
}

// A number field: absent -> fallback; present but not a number -> error.
std::variant<double, CommandError> number(const json& j, const char* key, double fallback) {
  auto it = j.find(key);
  if (it == j.end()) return fallback;
  if (!it->is_number()) return invalid(std::string("'") + key + "' must be a number");
  return it->get<double>();
}

std::variant<std::string, CommandError> text(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string() || it->get_ref<const std::string&>().empty())
    return invalid(std::string("'") + key + "' must be a non-empty string");
  return it->get<std::string>();
}

std::variant<Command, CommandError> parse_inject(const json& j) {
  FaultSettings f;
  for (auto [key, field] :
       {std::pair{"loss", &f.loss}, {"delay_ms", &f.delay_ms}, {"jitter_ms", &f.jitter_ms}}) {
    auto v = number(j, key, 0.0);
    if (auto* e = std::get_if<CommandError>(&v)) return *e;
    *field = std::get<double>(v);
  }
  std::string direction = "send";
  if (auto it = j.find("direction"); it != j.end()) {
    if (!it->is_string()) return invalid("'direction' must be send, receive or both");
    direction = it->get<std::string>();
  }
  if (direction == "send")
    f = FaultSettings{f.loss, f.delay_ms, f.jitter_ms, true, false};
  else if (direction == "receive")
    f = FaultSettings{f.loss, f.delay_ms, f.jitter_ms, false, true};
  else if (direction == "both")
    f = FaultSettings{f.loss, f.delay_ms, f.jitter_ms, true, true};
  else
    return invalid("'direction' must be send, receive or both");
  if (auto s = f.validate(); !s) return invalid(s.error().message);
  return command::Inject{f};
}

}  // namespace

bool tokens_equal(std::string_view guess, std::string_view secret) {
  // OpenSSL's comparison has no early exit and is written so that compilers cannot add one:
  // the time taken does not tell how much of a guess is right. A guess of the wrong length
  // still costs a walk over the whole secret, so the secret's length does not show either.
  if (guess.size() == secret.size())
    return CRYPTO_memcmp(guess.data(), secret.data(), secret.size()) == 0;
  volatile int sink = CRYPTO_memcmp(secret.data(), secret.data(), secret.size());
  (void)sink;
  return false;
}

ParsedCommand parse_command(std::string_view text_in, std::string_view token,
                            bool may_check_token) {
  const json j = json::parse(text_in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    return {"", CommandError{"bad-json", "expected a JSON object such as {\"type\":\"snapshot\"}"}};
  auto type_it = j.find("type");
  if (type_it == j.end() || !type_it->is_string())
    return {"", CommandError{"invalid", "missing string field 'type'"}};
  const std::string type = type_it->get<std::string>();
  if (type == "snapshot") return {type, Command{command::Snapshot{}}};
  if (type == "packets") {
    auto on = j.find("on");
    if (on == j.end() || !on->is_boolean()) return {type, invalid("'on' must be true or false")};
    return {type, Command{command::Packets{on->get<bool>()}}};
  }

  static const char* kMutating[] = {"inject", "pause", "block", "unblock", "leave", "set-profile"};
  if (std::find(std::begin(kMutating), std::end(kMutating), type) == std::end(kMutating))
    return {type,
            CommandError{
                "unknown-command",
                "unknown command '" + type +
                    "' (snapshot, packets, inject, pause, block, unblock, leave, set-profile)"}};
  if (!may_check_token)
    return {type, CommandError{
                      "auth-rate-limited",
                      "too many wrong tokens from this address: commands that need the token are "
                      "refused unchecked for now; try again in a few seconds"}};
  auto tok = j.find("token");
  if (tok == j.end() || !tok->is_string() ||
      !tokens_equal(tok->get_ref<const std::string&>(), token))
    return {type, CommandError{"unauthorized", "this command needs the agent's token"}};

  if (type == "inject") {
    auto c = parse_inject(j);
    if (auto* e = std::get_if<CommandError>(&c)) return {type, *e};
    return {type, std::get<Command>(c)};
  }
  if (type == "pause") {
    auto ms = number(j, "ms", -1);
    if (auto* e = std::get_if<CommandError>(&ms)) return {type, *e};
    const double v = std::get<double>(ms);
    if (!(v >= 1 && v <= 600000)) return {type, invalid("'ms' must be within [1, 600000]")};
    return {type, Command{command::Pause{Millis{static_cast<std::int64_t>(v)}}}};
  }
  if (type == "block" || type == "unblock") {
    auto peer = text(j, "peer");
    if (auto* e = std::get_if<CommandError>(&peer)) return {type, *e};
    if (type == "block") return {type, Command{command::Block{std::get<std::string>(peer)}}};
    return {type, Command{command::Unblock{std::get<std::string>(peer)}}};
  }
  if (type == "leave") return {type, Command{command::Leave{}}};
  auto profile = text(j, "profile");
  if (auto* e = std::get_if<CommandError>(&profile)) return {type, *e};
  if (!swim::Config::profile(std::get<std::string>(profile)))
    return {type, invalid("'profile' must be lan, wan, local or teaching")};
  return {type, Command{command::SetProfile{std::get<std::string>(profile)}}};
}

}  // namespace vigil::native
