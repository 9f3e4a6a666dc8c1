#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace vigil::web {

// The page's query string (?demo=phi&mean=1000...), read once at start-up. Documentation pages
// configure embedded demos through it, and each demo writes its current parameters back into one
// (see Panel::save), so that a page can reload a demo as the reader left it.
class UrlParams {
 public:
  static UrlParams from_page();
  static UrlParams parse(const std::string& query);  // "a=1&b=x", leading '?' allowed

  std::optional<std::string> text(const std::string& key) const;
  // A number when present and well-formed and within [lo, hi]; otherwise the fallback.
  double number(const std::string& key, double fallback, double lo, double hi) const;
  bool flag(const std::string& key) const;  // "1", "true", "yes" or "on"

  void set(const std::string& key, std::string value);
  // Shortest text that reads back as the same double (integers without a decimal point).
  void set(const std::string& key, double value);
  void set_flag(const std::string& key, bool on);  // "1", or the key removed
  void erase(const std::string& key);
  // "a=1&b=x" in key order, percent-encoded: parse(query()) gives these parameters back.
  std::string query() const;

 private:
  std::map<std::string, std::string> values_;
};

}  // namespace vigil::web
