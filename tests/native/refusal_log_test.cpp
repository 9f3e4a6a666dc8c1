#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "http/refusal_log.hpp"

using vigil::Millis;
using vigil::native::RefusalLog;

TEST_CASE("a refusal log writes one line per kind and interval, with the count since the last") {
  std::vector<std::string> lines;
  RefusalLog log(Millis{10000}, [&](const std::string& l) { lines.push_back(l); });
  log.note("upgrades", Millis{1000});  // the first of a quiet kind: at once
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] == "refused 1 x upgrades");
  for (int i = 0; i < 999; ++i) log.note("upgrades", Millis{1000 + i});
  log.note("connections", Millis{2000});  // another kind has its own interval
  REQUIRE(lines.size() == 2);
  CHECK(lines[1] == "refused 1 x connections");
  // Nothing more until the interval has passed; flush says when that is.
  CHECK(log.flush(Millis{5000}) == Millis{11000});
  CHECK(lines.size() == 2);
  CHECK(log.flush(Millis{11000}) == std::nullopt);
  REQUIRE(lines.size() == 3);
  CHECK(lines[2] == "refused 999 x upgrades in the last 10 s");
  // A refusal past the interval is written at once, with the count since the last line.
  log.note("upgrades", Millis{30000});
  REQUIRE(lines.size() == 4);
  CHECK(lines[3] == "refused 1 x upgrades in the last 19 s");
}

TEST_CASE("a refusal log with no interval writes nothing") {
  int written = 0;
  RefusalLog log(Millis{0}, [&](const std::string&) { ++written; });
  for (int i = 0; i < 100; ++i) log.note("anything", Millis{i});
  CHECK(log.flush(Millis{1000000}) == std::nullopt);
  CHECK(written == 0);
}
