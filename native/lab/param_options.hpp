#pragma once

#include <array>
#include <chrono>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <vigil/base/param_spec.hpp>
#include "cli/args.hpp"

namespace vigil::native {

// A parameter as --help shows it: its help, range and default, from its ParamSpec. The option
// keeps a pointer to `p`, so `p` must be one of the core's tables (static storage).
cli::Args::Spec option(const ParamSpec& p);

template <std::size_t N>
std::vector<cli::Args::Spec> options(const std::array<ParamSpec, N>& specs) {
  std::vector<cli::Args::Spec> out;
  for (const auto& p : specs) out.push_back(option(p));
  return out;
}

// Reads parameters from the command line into their fields: whole numbers where the parameter is
// one, each checked against its range, the first error kept. An absent option leaves the field
// at the spec's default.
class ParamReader {
 public:
  explicit ParamReader(const cli::Args& args) : args_(args) {}

  template <class T>
  requires std::is_arithmetic_v<T>
  void operator()(const ParamSpec& p, T& field) {
    if (auto v = value(p)) field = static_cast<T>(*v);
  }
  template <class Rep, class Period>
  void operator()(const ParamSpec& p, std::chrono::duration<Rep, Period>& field) {
    if (auto v = value(p)) field = std::chrono::duration<Rep, Period>{static_cast<Rep>(*v)};
  }
  const Status& status() const { return status_; }

 private:
  std::optional<double> value(const ParamSpec& p);

  const cli::Args& args_;
  Status status_ = ok_status();
};

}  // namespace vigil::native
