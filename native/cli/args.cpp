#include "cli/args.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace vigil::cli {

Result<Args> Args::parse(const std::vector<std::string>& argv, const std::vector<Spec>& specs) {
  Args args;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a.rfind("--", 0) != 0 || a == "--") {
      args.positional_.push_back(a);
      continue;
    }
    std::string name = a.substr(2);
    std::optional<std::string> value;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    auto spec =
        std::find_if(specs.begin(), specs.end(), [&](const Spec& s) { return s.name == name; });
    if (spec == specs.end()) return Error{"unknown option --" + name + " (see --help)"};
    if (!spec->takes_value) {
      if (value) return Error{"option --" + name + " takes no value"};
      args.values_[name] = "";
      continue;
    }
    if (!value) {
      if (i + 1 >= argv.size()) return Error{"option --" + name + " needs a value"};
      value = argv[++i];
    }
    args.values_[name] = *value;
  }
  return args;
}

std::optional<std::string> Args::text(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

Result<double> Args::number(const std::string& name, double fallback) const {
  auto t = text(name);
  if (!t) return fallback;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(t->c_str(), &end);
  if (t->empty() || end != t->c_str() + t->size() || errno == ERANGE || !std::isfinite(v))
    return Error{"--" + name + " expects a number, got '" + *t + "'"};
  return v;
}

Result<std::int64_t> Args::integer(const std::string& name, std::int64_t fallback) const {
  auto t = text(name);
  if (!t) return fallback;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(t->c_str(), &end, 10);
  if (t->empty() || end != t->c_str() + t->size() || errno == ERANGE)
    return Error{"--" + name + " expects a whole number, got '" + *t + "'"};
  return static_cast<std::int64_t>(v);
}

Result<double> Args::required_number(const std::string& name) const {
  if (!has(name)) return Error{"missing required option --" + name};
  return number(name, 0.0);
}

Result<std::int64_t> Args::integer_in(const std::string& name, std::int64_t fallback,
                                      std::int64_t lo, std::int64_t hi) const {
  auto v = integer(name, fallback);
  if (v && (*v < lo || *v > hi))
    return Error{"--" + name + " must be between " + std::to_string(lo) + " and " +
                 std::to_string(hi)};
  return v;
}

Result<double> Args::number_in(const std::string& name, double fallback, double lo,
                               double hi) const {
  auto v = number(name, fallback);
  if (v && (*v < lo || *v > hi)) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "--%s must be between %g and %g, got %g", name.c_str(), lo, hi,
                  *v);
    return Error{buf};
  }
  return v;
}

Result<std::string> Args::choice(const std::string& name, const std::vector<std::string>& choices,
                                 const std::string& fallback) const {
  auto t = text(name);
  if (!t) return fallback;
  if (std::find(choices.begin(), choices.end(), *t) != choices.end()) return *t;
  std::string list;
  for (const auto& c : choices) list += (list.empty() ? "" : "|") + c;
  return Error{"--" + name + " must be one of " + list + ", got '" + *t + "'"};
}

std::string Args::usage(const std::vector<Spec>& specs) {
  std::string out;
  for (const auto& s : specs) {
    std::string left = "  --" + s.name + (s.takes_value ? " VALUE" : "");
    if (left.size() < 24)
      left.resize(24, ' ');
    else
      left += "  ";
    out += left + s.help;
    if (!s.default_text.empty()) out += " (default: " + s.default_text + ")";
    out += "\n";
  }
  return out;
}

std::string markdown_cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

std::string Args::markdown(const std::vector<Spec>& specs) {
  std::string out = "| Option | Default | Meaning |\n|---|---|---|\n";
  for (const auto& s : specs) {
    out += "| `--" + s.name + (s.takes_value ? " VALUE" : "") + "` | " +
           markdown_cell(s.default_text) + " | " + markdown_cell(s.help) + " |\n";
  }
  return out;
}

}  // namespace vigil::cli
