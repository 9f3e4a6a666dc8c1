// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <string_view>

#include <vigil/base/result.hpp>

namespace vigil {

// One numeric parameter of a model or demo, written down once. The model takes its default and
// its range check from it, the `vigil lab` command its flag, --help text and range errors, and
// the web demo its URL key and slider.
struct ParamSpec {
  std::string_view flag = {};   // the CLI option, without "--"
  std::string_view key = {};    // the web page's URL key, when it is not the flag
  std::string_view alias = {};  // another URL key the page also reads, or empty
  std::string_view label = {};  // the web slider's label
  std::string_view unit = {};   // empty when dimensionless
  std::string_view help = {};   // one line of --help
  double def = 0.0;
  double min = 0.0, max = 0.0;  // what the model accepts
  bool min_open = false;        // min itself excluded: (min, max]
  bool max_open = false;        // max itself excluded: [min, max), as a loss probability below 1
  // The web slider's range, inside [min, max]: what a page can explore within a frame's work.
  double view_min = 0.0, view_max = 0.0;
  bool integer = false;
  bool log = false;  // the slider moves on a log scale
  int digits = 0;    // decimals the slider shows
  // The page shows a probability as a percentage, on its slider and in its URL ("loss=20" is 0.2);
  // the model and the command line keep the fraction.
  bool percent = false;

  constexpr std::string_view url_key() const { return key.empty() ? flag : key; }
  constexpr bool contains(double v) const {
    return (min_open ? v > min : v >= min) && (max_open ? v < max : v <= max) &&
           (!integer || v == static_cast<long long>(v));
  }
  // "[1, 64]" or "(0, 10000] ms".
  std::string range_text() const;
  // The default as the CLI prints and reads it: "4000", "0.5".
  std::string default_text() const;
  // Ok when `v` is in range, else "--flag must be in RANGE, got V".
  Status check(double v) const;
};

// A PRNG seed: any 32-bit value, read from the URL but given no slider.
constexpr ParamSpec seed_spec(double def, std::string_view help = "PRNG seed (mulberry32)") {
  return {.flag = "seed",
          .label = "seed",
          .help = help,
          .def = def,
          .min = 0,
          .max = 4294967295.0,
          .view_min = 0,
          .view_max = 4294967295.0,
          .integer = true};
}

// An independent loss probability in [0, 1), shown on the page in percent up to `view_max`.
constexpr ParamSpec loss_spec(double def, double view_max, std::string_view help) {
  return {.flag = "loss",
          .label = "loss",
          .help = help,
          .def = def,
          .min = 0,
          .max = 1,
          .max_open = true,
          .view_min = 0,
          .view_max = view_max,
          .percent = true};
}

// The shortest text for a number that reads back as the same double ("1", "0.05", "10000000").
std::string number_text(double x);

}  // namespace vigil
