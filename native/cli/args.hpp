#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <vigil/base/param_spec.hpp>
#include <vigil/base/result.hpp>

namespace vigil::cli {

// Command-line options of one subcommand: `--name value`, `--name=value` and bare `--flag`.
// Every option must be declared; unknown ones, missing values and malformed numbers become errors
// that name the option, so a mistyped flag never silently falls back to a default.
class Args {
 public:
  struct Spec {
    std::string name;  // without the leading dashes
    bool takes_value = true;
    std::string help;
    std::string default_text;  // shown in --help
    // The model parameter behind the option, when there is one (lab::params prints its table);
    // it points into a table of static storage.
    const ParamSpec* param = nullptr;
  };

  static Result<Args> parse(const std::vector<std::string>& argv, const std::vector<Spec>& specs);

  bool has(const std::string& name) const { return values_.count(name) > 0; }
  bool flag(const std::string& name) const { return has(name); }
  std::optional<std::string> text(const std::string& name) const;

  Result<double> number(const std::string& name, double fallback) const;
  Result<std::int64_t> integer(const std::string& name, std::int64_t fallback) const;
  Result<double> required_number(const std::string& name) const;
  // The same, also checked against an inclusive range ("--name must be between lo and hi").
  Result<std::int64_t> integer_in(const std::string& name, std::int64_t fallback, std::int64_t lo,
                                  std::int64_t hi) const;
  Result<double> number_in(const std::string& name, double fallback, double lo, double hi) const;
  // A value that must be one of `choices`.
  Result<std::string> choice(const std::string& name, const std::vector<std::string>& choices,
                             const std::string& fallback) const;

  const std::vector<std::string>& positional() const { return positional_; }

  static std::string usage(const std::vector<Spec>& specs);
  // The same options as a Markdown table (option, default, meaning), for the reference pages.
  static std::string markdown(const std::vector<Spec>& specs);

 private:
  std::map<std::string, std::string> values_;
  std::vector<std::string> positional_;
};

// `text` fit for one cell of a Markdown table: pipes escaped, line breaks turned into spaces.
std::string markdown_cell(std::string_view text);

}  // namespace vigil::cli
