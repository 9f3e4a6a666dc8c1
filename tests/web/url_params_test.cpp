#include <doctest/doctest.h>

#include <limits>
#include <string>

#include "panels/param_url.hpp"
#include "ui/url_params.hpp"

#include <vigil/retry/params.hpp>

using vigil::web::UrlParams;

TEST_CASE("a query string reads back what was written, whatever the characters") {
  UrlParams p;
  p.set("agents", "127.0.0.1:8081,[::1]:8082");
  p.set("label", "a b&c=d%e+f/é");
  p.set("n", 12.0);
  p.set_flag("autoplay", true);
  const std::string query = p.query();
  CHECK(query.find(' ') == std::string::npos);
  CHECK(query.find("&c=") == std::string::npos);  // the value's own & and = are escaped
  const UrlParams back = UrlParams::parse(query);
  CHECK(back.text("agents") == "127.0.0.1:8081,[::1]:8082");
  CHECK(back.text("label") == "a b&c=d%e+f/é");
  CHECK(back.number("n", 0, 0, 100) == 12.0);
  CHECK(back.flag("autoplay"));
  CHECK(back.query() == query);
}

TEST_CASE("numbers are written as short as they read back exactly") {
  UrlParams p;
  p.set("loss", 15.0);
  p.set("p", 0.3);
  p.set("seed", 4294967295.0);
  p.set("third", 1.0 / 3.0);
  CHECK(p.text("loss") == "15");
  CHECK(p.text("p") == "0.3");
  CHECK(p.text("seed") == "4294967295");
  const double third = UrlParams::parse(p.query()).number("third", 0, 0, 1);
  CHECK(third == 1.0 / 3.0);  // bit for bit: a reloaded demo gets the very same value
}

TEST_CASE("flags and erasing") {
  UrlParams p = UrlParams::parse("?demo=swim&embed=1&autoplay=1&token=secret");
  p.set_flag("autoplay", false);
  p.erase("token");
  p.erase("absent");
  CHECK_FALSE(p.text("autoplay"));
  CHECK_FALSE(p.text("token"));
  CHECK(p.query() == "demo=swim&embed=1");
  // A key without a value survives the round trip as a key without a value.
  CHECK(UrlParams::parse("embed&demo=phi").query() == "demo=phi&embed");
}

TEST_CASE("retry parameters: read under their key or alias within the slider's range") {
  using vigil::web::save_param;
  using vigil::web::url_param;
  namespace chain = vigil::retry::chain_param;
  namespace hysteresis = vigil::retry::hysteresis_param;
  const auto& mu = hysteresis::mu_max;
  // The key, then the alias, then the fallback.
  CHECK(url_param(UrlParams::parse("mu-max=1500"), mu, mu.def) == 1500.0);
  CHECK(url_param(UrlParams::parse("mu=1200"), mu, mu.def) == 1200.0);
  CHECK(url_param(UrlParams::parse("mu=1200&mu-max=1500"), mu, mu.def) == 1500.0);
  CHECK(url_param(UrlParams::parse(""), mu, mu.def) == mu.def);
  // Outside the slider's range (though within the model's), the page keeps the fallback.
  CHECK(url_param(UrlParams::parse("mu-max=" + std::to_string(mu.view_max * 2)), mu, mu.def) ==
        mu.def);
  CHECK(url_param(UrlParams::parse("mu-max=" + std::to_string(mu.view_min / 2)), mu, mu.def) ==
        mu.def);
  CHECK(url_param(UrlParams::parse("mu-max=" + std::to_string(mu.view_max)), mu, mu.def) ==
        mu.view_max);
  // An out-of-range key does not hide a good alias.
  CHECK(url_param(UrlParams::parse("mu=1200&mu-max=-1"), mu, mu.def) == 1200.0);
  // The chain's k travels as tries (its command line calls it --retries, also read).
  const int tries = url_param(UrlParams::parse("retries=7"), chain::tries, 3);
  CHECK(tries == 7);
  UrlParams p;
  save_param(p, chain::tries, tries);
  save_param(p, chain::fail, 0.45);
  CHECK(p.query() == "fail=0.45&tries=7");
  CHECK(url_param(UrlParams::parse(p.query()), chain::fail, chain::fail.def) == 0.45);
}

TEST_CASE("a percent parameter travels as a percentage and is kept as a fraction") {
  using vigil::web::save_param;
  using vigil::web::url_param;
  constexpr vigil::ParamSpec loss{.flag = "loss",
                                  .label = "loss",
                                  .help = "loss probability",
                                  .def = 0.1,
                                  .min = 0,
                                  .max = 1,
                                  .view_min = 0,
                                  .view_max = 0.6,
                                  .percent = true};
  CHECK(url_param(UrlParams::parse("loss=20"), loss) == doctest::Approx(0.2));
  CHECK(url_param(UrlParams::parse(""), loss) == doctest::Approx(0.1));
  // 70 % lies beyond the slider's 60 %: the page keeps the default.
  CHECK(url_param(UrlParams::parse("loss=70"), loss) == doctest::Approx(0.1));
  UrlParams p;
  save_param(p, loss, 0.25);
  CHECK(p.query() == "loss=25");
}
