#pragma once

#include <map>
#include <optional>
#include <string>

namespace vigil::web {

// The page's query string (?demo=phi&mean=1000...), read once at start-up. Documentation pages
// configure embedded demos through it.
class UrlParams {
 public:
  static UrlParams from_page();
  static UrlParams parse(const std::string& query);  // "a=1&b=x", leading '?' allowed

  std::optional<std::string> text(const std::string& key) const;
  // A number when present and well-formed and within [lo, hi]; otherwise the fallback.
  double number(const std::string& key, double fallback, double lo, double hi) const;
  bool flag(const std::string& key) const;  // "1", "true", "yes" or "on"

 private:
  std::map<std::string, std::string> values_;
};

}  // namespace vigil::web
