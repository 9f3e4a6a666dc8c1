#include "http/http_date.hpp"

#include <array>
#include <charconv>
#include <chrono>
#include <cstdio>

namespace vigil::native {

namespace {

using namespace std::chrono;

constexpr std::array<const char*, 7> kWeekdays = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
constexpr std::array<const char*, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

// A small cursor over the text; every step fails softly so that parsing reads as a sequence.
class Reader {
 public:
  explicit Reader(std::string_view s) : s_(s) {}
  bool done() const { return s_.empty(); }
  bool literal(std::string_view word) {
    if (s_.substr(0, word.size()) != word) return false;
    s_.remove_prefix(word.size());
    return true;
  }
  // Exactly `digits` digits (or 1..digits when `at_most`).
  std::optional<int> number(std::size_t digits, bool at_most = false) {
    std::size_t n = 0;
    while (n < digits && n < s_.size() && s_[n] >= '0' && s_[n] <= '9') ++n;
    if (n == 0 || (!at_most && n != digits)) return std::nullopt;
    int value = 0;
    std::from_chars(s_.data(), s_.data() + n, value);
    s_.remove_prefix(n);
    return value;
  }
  // Letters up to the next non-letter.
  std::string_view word() {
    std::size_t n = 0;
    while (n < s_.size() && ((s_[n] >= 'A' && s_[n] <= 'Z') || (s_[n] >= 'a' && s_[n] <= 'z'))) ++n;
    const std::string_view w = s_.substr(0, n);
    s_.remove_prefix(n);
    return w;
  }
  std::optional<int> month() {
    const std::string_view w = word();
    for (std::size_t i = 0; i < kMonths.size(); ++i)
      if (w == kMonths[i]) return static_cast<int>(i) + 1;
    return std::nullopt;
  }
  // "HH:MM:SS" as seconds into the day.
  std::optional<int> time_of_day() {
    const auto h = number(2);
    if (!h || !literal(":")) return std::nullopt;
    const auto m = number(2);
    if (!m || !literal(":")) return std::nullopt;
    const auto s = number(2);
    // 60 allows a leap second, which the Unix clock folds into the next minute.
    if (!s || *h > 23 || *m > 59 || *s > 60) return std::nullopt;
    return *h * 3600 + *m * 60 + *s;
  }

 private:
  std::string_view s_;
};

std::optional<std::int64_t> to_unix(int y, int mo, int d, int seconds_of_day) {
  const year_month_day date{year{y}, month{static_cast<unsigned>(mo)},
                            day{static_cast<unsigned>(d)}};
  if (!date.ok()) return std::nullopt;
  return sys_days{date}.time_since_epoch().count() * std::int64_t{86400} + seconds_of_day;
}

bool weekday_name(std::string_view w, bool long_form) {
  static constexpr std::array<const char*, 7> kLong = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                                       "Thursday", "Friday", "Saturday"};
  for (std::size_t i = 0; i < 7; ++i)
    if (w == (long_form ? kLong[i] : kWeekdays[i])) return true;
  return false;
}

// "06 Nov 1994 08:49:37 GMT", after "Sun, ".
std::optional<std::int64_t> imf_fixdate(Reader r) {
  const auto d = r.number(2);
  if (!d || !r.literal(" ")) return std::nullopt;
  const auto mo = r.month();
  if (!mo || !r.literal(" ")) return std::nullopt;
  const auto y = r.number(4);
  if (!y || !r.literal(" ")) return std::nullopt;
  const auto t = r.time_of_day();
  if (!t || !r.literal(" GMT") || !r.done()) return std::nullopt;
  return to_unix(*y, *mo, *d, *t);
}

// "06-Nov-94 08:49:37 GMT", after "Sunday, ". A two-digit year more than 50 years ahead of
// today's is taken to be in the past century (RFC 9110's rule).
std::optional<std::int64_t> rfc850(Reader r) {
  const auto d = r.number(2);
  if (!d || !r.literal("-")) return std::nullopt;
  const auto mo = r.month();
  if (!mo || !r.literal("-")) return std::nullopt;
  const auto yy = r.number(2);
  if (!yy || !r.literal(" ")) return std::nullopt;
  const auto t = r.time_of_day();
  if (!t || !r.literal(" GMT") || !r.done()) return std::nullopt;
  const int this_year = static_cast<int>(year_month_day{floor<days>(system_clock::now())}.year());
  int y = this_year / 100 * 100 + *yy;
  if (y > this_year + 50) y -= 100;
  return to_unix(y, *mo, *d, *t);
}

// "Nov  6 08:49:37 1994", after "Sun ".
std::optional<std::int64_t> asctime_date(Reader r) {
  const auto mo = r.month();
  if (!mo || !r.literal(" ")) return std::nullopt;
  r.literal(" ");  // days below 10 are padded with a space
  const auto d = r.number(2, true);
  if (!d || !r.literal(" ")) return std::nullopt;
  const auto t = r.time_of_day();
  if (!t || !r.literal(" ")) return std::nullopt;
  const auto y = r.number(4);
  if (!y || !r.done()) return std::nullopt;
  return to_unix(*y, *mo, *d, *t);
}

}  // namespace

std::string format_http_date(std::int64_t unix_seconds) {
  const sys_seconds at{seconds{unix_seconds}};
  const sys_days day_start = floor<days>(at);
  const year_month_day date{day_start};
  const hh_mm_ss<seconds> time{at - day_start};
  char text[40];
  std::snprintf(text, sizeof text, "%s, %02u %s %04d %02d:%02d:%02d GMT",
                kWeekdays[weekday{day_start}.c_encoding()], static_cast<unsigned>(date.day()),
                kMonths[static_cast<unsigned>(date.month()) - 1], static_cast<int>(date.year()),
                static_cast<int>(time.hours().count()), static_cast<int>(time.minutes().count()),
                static_cast<int>(time.seconds().count()));
  return text;
}

std::optional<std::int64_t> parse_http_date(std::string_view text) {
  Reader r(text);
  const std::string_view name = r.word();
  if (r.literal(", ")) {
    if (weekday_name(name, false)) return imf_fixdate(r);
    if (weekday_name(name, true)) return rfc850(r);
    return std::nullopt;
  }
  if (weekday_name(name, false) && r.literal(" ")) return asctime_date(r);
  return std::nullopt;
}

}  // namespace vigil::native
