#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include <vigil/base/param_spec.hpp>

namespace vigil::test {

// What every parameter table must hold: the default is a value the model accepts, the page's
// slider never offers what the model refuses, and the CLI and page have words for it. A
// parameter whose page opens elsewhere than the command line's default (a lighter first view)
// passes `default_on_slider = false`.
inline void check_well_formed(const ParamSpec& p, bool default_on_slider = true) {
  CAPTURE(std::string(p.flag));
  CHECK(p.contains(p.def));
  CHECK(p.check(p.def).ok());
  CHECK(p.contains(p.view_max));
  CHECK(p.contains(p.view_min));
  CHECK(p.view_min <= p.view_max);
  if (default_on_slider) {
    CHECK(p.view_min <= p.def);
    CHECK(p.def <= p.view_max);
  }
  CHECK_FALSE(p.help.empty());
  CHECK_FALSE(p.label.empty());
  if (p.integer) CHECK(p.def == std::trunc(p.def));
}

}  // namespace vigil::test
