#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include <vigil/lab/table.hpp>

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

TEST_CASE("series: JSON arrays under their names, text and CSV as one index table") {
  Report r;
  r.facts = {{"rounds", 2.0}};
  r.series = {{"informed", {1.0, 2.5, 4.0}}, {"theory", {1.0, std::nan("")}}};
  const auto j = nlohmann::json::parse(render(r, Format::json));
  CHECK(j == nlohmann::json::parse(R"({"rounds": 2.0, "informed": [1.0, 2.5, 4.0],
                                      "theory": [1.0, null]})"));
  CHECK(render(r, Format::table) ==
        "i  informed  theory\n"
        "0      1.00    1.00\n"
        "1      2.50     nan\n"
        "2      4.00       -\n"
        "rounds: 2.0000\n");
  CHECK(render(r, Format::csv) ==
        "index,informed,theory\n"
        "0,1.000000,1.000000\n"
        "1,2.500000,nan\n"
        "2,4.000000,\n"
        "\n"
        "fact,value\n"
        "rounds,2.000000\n");
}

TEST_CASE("series alone or after a table still give a JSON object") {
  Report r;
  r.tables = {sample()};
  r.series = {{"curve", {0.5}}};
  const auto j = nlohmann::json::parse(render(r, Format::json));
  REQUIRE(j.is_object());
  CHECK(j["rows"].size() == 2);
  CHECK(j["curve"] == nlohmann::json::array({0.5}));
  CHECK(render(r, Format::csv).find("\n# series\nindex,curve\n0,0.500000\n") != std::string::npos);
}
