#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "lab/table.hpp"

using namespace vigil::lab;

namespace {
Table sample() {
  Table t;
  t.key = "rows";
  t.title = "Sample";
  t.columns = {{"name", "name", 0}, {"value", "value", 2}, {"count", "n", 0}};
  t.rows = {{std::string("alpha"), 1.5, std::int64_t{3}},
            {std::string("b,c"), std::numeric_limits<double>::infinity(), Cell{}}};
  return t;
}
}  // namespace

TEST_CASE("text tables align text left and numbers right") {
  Report r;
  r.tables = {sample()};
  const std::string out = render(r, Format::table);
  CHECK(out ==
        "Sample\n"
        "name   value  n\n"
        "alpha   1.50  3\n"
        "b,c      inf  -\n");
}

TEST_CASE("CSV uses keys as headers and quotes commas") {
  Report r;
  r.tables = {sample()};
  CHECK(render(r, Format::csv) == "name,value,count\nalpha,1.50,3\n\"b,c\",inf,\n");
}

TEST_CASE("JSON: one table is an array of rows, infinity and empty cells are null") {
  Report r;
  r.tables = {sample()};
  const auto j = nlohmann::json::parse(render(r, Format::json));
  REQUIRE(j.is_array());
  REQUIRE(j.size() == 2);
  CHECK(j[0]["name"] == "alpha");
  CHECK(j[0]["value"] == 1.5);
  CHECK(j[0]["count"] == 3);
  CHECK(j[1]["value"].is_null());
  CHECK(j[1]["count"].is_null());
}

TEST_CASE("JSON: several tables or facts make an object, numbers keep full precision") {
  Report r;
  r.tables = {sample()};
  r.facts = {{"phi", 4.500070497173659}};
  const auto j = nlohmann::json::parse(render(r, Format::json));
  REQUIRE(j.is_object());
  CHECK(j["rows"].size() == 2);
  CHECK(j["phi"].get<double>() == 4.500070497173659);
  Report facts_only;
  facts_only.facts = {{"phi", 0.25}};
  CHECK(nlohmann::json::parse(render(facts_only, Format::json)) == nlohmann::json{{"phi", 0.25}});
}
