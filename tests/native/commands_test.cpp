#include <doctest/doctest.h>

#include "agent/commands.hpp"

using namespace vigil::native;

namespace {
const CommandError* error_of(const ParsedCommand& p) {
  return std::get_if<CommandError>(&p.result);
}
const Command* command_of(const ParsedCommand& p) {
  return std::get_if<Command>(&p.result);
}
}  // namespace

TEST_CASE("malformed input is a bad-json error, never an exception") {
  for (const char* text : {"", "{", "not json", "[1,2]", "\"text\"", "{\"type\":", "\xff\xfe"}) {
    CAPTURE(text);
    const auto p = parse_command(text, "t");
    REQUIRE(error_of(p));
    CHECK(error_of(p)->code == "bad-json");
  }
  const auto p = parse_command("{\"kind\":\"x\"}", "t");
  REQUIRE(error_of(p));
  CHECK(error_of(p)->code == "invalid");
}

TEST_CASE("unknown commands are named in the error") {
  const auto p = parse_command(R"({"type":"reboot","token":"t"})", "t");
  REQUIRE(error_of(p));
  CHECK(error_of(p)->code == "unknown-command");
  CHECK(error_of(p)->message.find("reboot") != std::string::npos);
}

TEST_CASE("snapshot is read-only; everything else needs the token") {
  CHECK(command_of(parse_command(R"({"type":"snapshot"})", "secret")));
  for (const char* text : {R"({"type":"leave"})", R"({"type":"leave","token":"secreT"})",
                           R"({"type":"leave","token":"secret "})", R"({"type":"leave","token":7})",
                           R"({"type":"block","peer":"b","token":""})"}) {
    CAPTURE(text);
    const auto p = parse_command(text, "secret");
    REQUIRE(error_of(p));
    CHECK(error_of(p)->code == "unauthorized");
  }
  CHECK(command_of(parse_command(R"({"type":"leave","token":"secret"})", "secret")));
}

TEST_CASE("inject parses and validates fault settings and direction") {
  const auto p = parse_command(
      R"({"type":"inject","token":"t","loss":0.2,"delay_ms":50,"jitter_ms":10,"direction":"both"})",
      "t");
  REQUIRE(command_of(p));
  const auto& inject = std::get<command::Inject>(*command_of(p));
  CHECK(inject.faults.loss == 0.2);
  CHECK(inject.faults.delay_ms == 50);
  CHECK(inject.faults.on_send);
  CHECK(inject.faults.on_receive);
  for (const char* bad : {R"({"type":"inject","token":"t","loss":1.5})",
                          R"({"type":"inject","token":"t","loss":"high"})",
                          R"({"type":"inject","token":"t","delay_ms":-1})",
                          R"({"type":"inject","token":"t","direction":"sideways"})",
                          R"({"type":"inject","token":"t","direction":3})"}) {
    CAPTURE(bad);
    const auto q = parse_command(bad, "t");
    REQUIRE(error_of(q));
    CHECK(error_of(q)->code == "invalid");
  }
}

TEST_CASE("pause, block, unblock and set-profile check their arguments") {
  CHECK(std::get<command::Pause>(
            *command_of(parse_command(R"({"type":"pause","token":"t","ms":1500})", "t")))
            .duration == vigil::Millis{1500});
  CHECK(error_of(parse_command(R"({"type":"pause","token":"t","ms":0})", "t")));
  CHECK(error_of(parse_command(R"({"type":"pause","token":"t"})", "t")));
  CHECK(std::get<command::Block>(
            *command_of(parse_command(R"({"type":"block","token":"t","peer":"b"})", "t")))
            .peer == "b");
  CHECK(error_of(parse_command(R"({"type":"unblock","token":"t","peer":""})", "t")));
  CHECK(
      std::get<command::SetProfile>(
          *command_of(parse_command(R"({"type":"set-profile","token":"t","profile":"wan"})", "t")))
          .profile == "wan");
  CHECK(error_of(parse_command(R"({"type":"set-profile","token":"t","profile":"mars"})", "t")));
}

TEST_CASE("token comparison is exact") {
  CHECK(tokens_equal("abc", "abc"));
  CHECK_FALSE(tokens_equal("abc", "abd"));
  CHECK_FALSE(tokens_equal("abc", "abcd"));
  CHECK_FALSE(tokens_equal("", "a"));
  CHECK(tokens_equal("", ""));
}
