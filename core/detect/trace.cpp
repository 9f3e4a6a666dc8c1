#include <vigil/detect/trace.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <unordered_map>

namespace vigil::detect {

namespace {

// One timestamp as read, before the unit is known.
struct Record {
  double value = 0.0;
  bool iso = false;      // already milliseconds since the epoch
  double scale = 0.0;    // ms per unit when the column fixes it (time_ms, time_s), else 0
  std::size_t line = 0;  // 1-based
  std::string sender;
};

Error at(std::size_t line, const std::string& reason) {
  return Error{"line " + std::to_string(line) + ": " + reason};
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string shown(std::string_view s) {
  constexpr std::size_t kMax = 40;
  return s.size() > kMax ? std::string(s.substr(0, kMax)) + "..." : std::string(s);
}

// Days since 1970-01-01 of a civil date (Howard Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool digits(std::string_view s, std::size_t pos, std::size_t n, int& out) {
  if (pos + n > s.size()) return false;
  out = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

// YYYY-MM-DD[T ]hh:mm:ss[.fraction][Z|+hh:mm|-hh:mm] -> ms since the epoch. No zone means UTC:
// only differences between timestamps matter.
std::optional<double> parse_iso(std::string_view s) {
  int y, mo, d, h, mi, sec;
  if (!digits(s, 0, 4, y) || s.size() < 19 || s[4] != '-' || !digits(s, 5, 2, mo) || s[7] != '-' ||
      !digits(s, 8, 2, d) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') ||
      !digits(s, 11, 2, h) || s[13] != ':' || !digits(s, 14, 2, mi) || s[16] != ':' ||
      !digits(s, 17, 2, sec))
    return std::nullopt;
  static constexpr int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (mo < 1 || mo > 12 || d < 1 || d > kDays[mo - 1] || h > 23 || mi > 59 || sec > 60)
    return std::nullopt;
  std::size_t pos = 19;
  double fraction = 0.0;
  if (pos < s.size() && (s[pos] == '.' || s[pos] == ',')) {
    double place = 0.1;
    std::size_t start = ++pos;
    while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
      fraction += (s[pos] - '0') * place;
      place /= 10.0;
      ++pos;
    }
    if (pos == start) return std::nullopt;
  }
  int offset_min = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    int oh, om;
    const int sign = s[pos] == '-' ? -1 : 1;
    if (!digits(s, pos + 1, 2, oh)) return std::nullopt;
    pos += 3;
    if (pos < s.size() && s[pos] == ':') ++pos;
    if (!digits(s, pos, 2, om) || oh > 23 || om > 59) return std::nullopt;
    pos += 2;
    offset_min = sign * (oh * 60 + om);
  }
  if (pos != s.size()) return std::nullopt;
  const std::int64_t days = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  const std::int64_t seconds = days * 86400 + h * 3600 + mi * 60 + sec - offset_min * 60;
  return static_cast<double>(seconds) * 1000.0 + fraction * 1000.0;
}

bool looks_like_iso(std::string_view s) {
  return s.size() >= 10 && std::isdigit(static_cast<unsigned char>(s[0])) && s[4] == '-';
}

std::optional<double> parse_number(std::string_view s) {
  if (s.empty()) return std::nullopt;
  const std::string text(s);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  return v;
}

// A time field: a number (unit decided later, or `scale` ms per unit) or an ISO-8601 time.
Result<Record> read_time(std::string_view field, std::size_t line, double scale) {
  field = trim(field);
  if (field.size() >= 2 && field.front() == '"' && field.back() == '"')
    field = field.substr(1, field.size() - 2);
  if (field.empty()) return at(line, "empty time");
  Record r;
  r.line = line;
  if (looks_like_iso(field)) {
    auto ms = parse_iso(field);
    if (!ms) return at(line, "'" + shown(field) + "' is not a valid ISO-8601 time");
    r.value = *ms;
    r.iso = true;
    return r;
  }
  auto v = parse_number(field);
  if (!v) return at(line, "'" + shown(field) + "' is not a number or an ISO-8601 time");
  if (!std::isfinite(*v)) return at(line, "time '" + shown(field) + "' is not a finite number");
  r.value = *v;
  r.scale = scale;
  return r;
}

// The input's lines, with '#' comment lines kept as blanks so that line numbers stay true.
std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (trim(line).rfind('#', 0) == 0) line = {};
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    out.push_back(
        trim(line.substr(start, comma == std::string_view::npos ? line.npos : comma - start)));
    if (comma == std::string_view::npos) return out;
    start = comma + 1;
  }
}

double scale_of_column(std::string_view name) {
  if (name == "time_ms") return 1.0;
  if (name == "time_s") return 1000.0;
  return 0.0;  // "time": detected
}

Result<std::vector<Record>> read_text(const std::vector<std::string_view>& lines) {
  std::vector<Record> out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto line = trim(lines[i]);
    if (line.empty()) continue;
    if (line.find(',') != std::string_view::npos)
      return at(i + 1, "expected one timestamp, got '" + shown(line) + "'");
    auto r = read_time(line, i + 1, 0.0);
    if (!r) return r.error();
    out.push_back(*r);
  }
  return out;
}

Result<std::vector<Record>> read_csv(const std::vector<std::string_view>& lines,
                                     std::size_t header_index) {
  const auto header = split_fields(lines[header_index]);
  std::optional<std::size_t> time_col, sender_col;
  double scale = 0.0;
  for (std::size_t c = 0; c < header.size(); ++c) {
    std::string name(header[c]);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    if (name.size() >= 2 && name.front() == '"' && name.back() == '"')
      name = name.substr(1, name.size() - 2);
    if (!time_col && (name == "time" || name == "time_ms" || name == "time_s")) {
      time_col = c;
      scale = scale_of_column(name);
    } else if (!sender_col && name == "sender") {
      sender_col = c;
    }
  }
  if (!time_col) return at(header_index + 1, "CSV header has no time, time_ms or time_s column");
  std::vector<Record> out;
  for (std::size_t i = header_index + 1; i < lines.size(); ++i) {
    if (trim(lines[i]).empty()) continue;
    const auto fields = split_fields(lines[i]);
    if (fields.size() != header.size())
      return at(i + 1, "row has " + std::to_string(fields.size()) + " fields, the header has " +
                           std::to_string(header.size()));
    auto r = read_time(fields[*time_col], i + 1, scale);
    if (!r) return r.error();
    if (sender_col) r->sender = std::string(fields[*sender_col]);
    out.push_back(*r);
  }
  return out;
}

// A small reader for the one JSON shape a trace takes: an array of numbers, ISO strings, or flat
// objects with a time key and an optional sender.
class JsonTraceReader {
 public:
  explicit JsonTraceReader(std::string_view text) : s_(text) {}

  Result<std::vector<Record>> read() {
    skip();
    if (!eat('[')) return fail("expected '[' to open the JSON array");
    std::vector<Record> out;
    skip();
    if (eat(']')) return finish(out);
    while (true) {
      skip();
      auto r = element();
      if (!r) return r.error();
      out.push_back(*r);
      skip();
      if (eat(']')) return finish(out);
      if (pos_ >= s_.size()) return fail("JSON array is not closed");
      if (!eat(',')) return fail("expected ',' or ']' in the JSON array");
    }
  }

 private:
  // Counted forward from the previous answer: a large array stays linear.
  std::size_t line() const {
    if (pos_ < counted_to_) {
      counted_to_ = 0;
      counted_line_ = 1;
    }
    counted_line_ +=
        static_cast<std::size_t>(std::count(s_.begin() + static_cast<std::ptrdiff_t>(counted_to_),
                                            s_.begin() + static_cast<std::ptrdiff_t>(pos_), '\n'));
    counted_to_ = pos_;
    return counted_line_;
  }
  Error fail(const std::string& reason) const { return at(line(), reason); }
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(char c) {
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  Result<std::vector<Record>> finish(std::vector<Record>& out) {
    skip();
    if (pos_ != s_.size()) return fail("unexpected text after the JSON array");
    return std::move(out);
  }
  // A number token's text, or an empty view.
  std::string_view number_token() {
    const std::size_t start = pos_;
    while (pos_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[pos_])) ||
                                std::string_view("+-.eE").find(s_[pos_]) != s_.npos))
      ++pos_;
    return s_.substr(start, pos_ - start);
  }
  Result<std::string> string_token() {
    if (!eat('"')) return fail("expected a string");
    std::string out;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      if (s_[pos_] == '\\' && pos_ + 1 < s_.size()) ++pos_;
      if (s_[pos_] == '\n') break;
      out += s_[pos_++];
    }
    if (!eat('"')) return fail("JSON string is not closed");
    return out;
  }
  Result<Record> time_value(double scale) {
    const std::size_t at_line = line();
    if (pos_ < s_.size() && s_[pos_] == '"') {
      auto text = string_token();
      if (!text) return text.error();
      return read_time(*text, at_line, scale);
    }
    const auto token = number_token();
    if (token.empty()) return fail("expected a number or a string as the time");
    return read_time(token, at_line, scale);
  }
  Result<Record> element() {
    if (pos_ >= s_.size()) return fail("JSON array is not closed");
    if (s_[pos_] != '{') {
      if (s_[pos_] != '"' && s_[pos_] != '-' && !std::isdigit(static_cast<unsigned char>(s_[pos_])))
        return fail("expected a number or an object in the JSON array");
      return time_value(0.0);
    }
    const std::size_t object_line = line();
    ++pos_;
    std::optional<Record> time;
    std::string sender;
    skip();
    if (!eat('}')) {
      while (true) {
        skip();
        auto key = string_token();
        if (!key) return key.error();
        skip();
        if (!eat(':')) return fail("expected ':' after the key \"" + shown(*key) + "\"");
        skip();
        if (!time && (*key == "time" || *key == "time_ms" || *key == "time_s")) {
          auto r = time_value(scale_of_column(*key));
          if (!r) return r.error();
          time = *r;
        } else if (*key == "sender") {
          auto v = string_token();
          if (!v) return v.error();
          sender = *v;
        } else if (auto skipped = skip_scalar(); !skipped) {
          return skipped.error();
        }
        skip();
        if (eat('}')) break;
        if (pos_ >= s_.size()) return fail("JSON object is not closed");
        if (!eat(',')) return fail("expected ',' or '}' in a JSON object");
      }
    }
    if (!time) return at(object_line, "JSON object has no time, time_ms or time_s key");
    time->sender = sender;
    return *time;
  }
  // Other keys are ignored, as other CSV columns are; they must be plain values.
  Status skip_scalar() {
    if (pos_ < s_.size() && s_[pos_] == '"') {
      auto v = string_token();
      if (!v) return v.error();
      return ok_status();
    }
    if (pos_ < s_.size() && (s_[pos_] == '{' || s_[pos_] == '['))
      return fail("nested JSON values are not supported in a trace");
    const std::size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) ||
                                std::string_view("+-.").find(s_[pos_]) != s_.npos))
      ++pos_;
    if (pos_ == start) return fail("expected a JSON value");
    return ok_status();
  }

  std::string_view s_;
  std::size_t pos_ = 0;
  mutable std::size_t counted_to_ = 0;
  mutable std::size_t counted_line_ = 1;
};

double median_positive_gap(const std::vector<Record>& records) {
  std::vector<double> gaps;
  for (std::size_t i = 1; i < records.size(); ++i) {
    const double g = records[i].value - records[i - 1].value;
    if (g > 0) gaps.push_back(g);
  }
  if (gaps.empty()) return 0.0;
  auto mid = gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2);
  std::nth_element(gaps.begin(), mid, gaps.end());
  return *mid;
}

TimeUnit detect_unit(const std::vector<Record>& records) {
  double largest = 0.0;
  std::vector<Record> numeric;
  for (const auto& r : records)
    if (!r.iso && r.scale == 0.0) {
      largest = std::max(largest, std::fabs(r.value));
      numeric.push_back(r);
    }
  if (numeric.empty()) return TimeUnit::milliseconds;
  const double gap = median_positive_gap(numeric);
  if (largest >= 1e14) return TimeUnit::microseconds;
  // Epoch magnitudes, unless the gaps say it is a long relative trace in a finer unit: heartbeats
  // more than 30 s apart in seconds, or a minute apart in milliseconds, are taken as not.
  if (largest >= 1e11) return gap > 60000.0 ? TimeUnit::microseconds : TimeUnit::milliseconds;
  if (largest >= 1e8) return gap > 30.0 ? TimeUnit::milliseconds : TimeUnit::seconds;
  return gap > 0.0 && gap <= 30.0 ? TimeUnit::seconds : TimeUnit::milliseconds;
}

double ms_per(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::seconds:
      return 1000.0;
    case TimeUnit::microseconds:
      return 0.001;
    default:
      return 1.0;
  }
}

}  // namespace

std::string_view to_string(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::automatic:
      return "auto";
    case TimeUnit::seconds:
      return "s";
    case TimeUnit::milliseconds:
      return "ms";
    case TimeUnit::microseconds:
      return "us";
  }
  return "ms";
}

Result<TimeUnit> parse_time_unit(std::string_view text) {
  for (auto u :
       {TimeUnit::automatic, TimeUnit::seconds, TimeUnit::milliseconds, TimeUnit::microseconds})
    if (text == to_string(u)) return u;
  return Error{"unknown time unit '" + std::string(text) + "' (expected auto, s, ms or us)"};
}

Result<Trace> parse_trace(std::string_view text, TimeUnit unit) {
  const auto lines = split_lines(text);
  std::size_t first = 0;
  while (first < lines.size() && trim(lines[first]).empty()) ++first;
  if (first == lines.size()) return Error{"trace is empty: no timestamps found"};

  Trace trace;
  Result<std::vector<Record>> records = std::vector<Record>{};
  const auto head = trim(lines[first]);
  if (head.front() == '[') {
    std::string blanked;  // comments blanked, newlines kept for line numbers
    for (std::size_t i = 0; i < lines.size(); ++i) {
      blanked += lines[i];
      blanked += '\n';
    }
    trace.format = "json";
    records = JsonTraceReader(blanked).read();
  } else if (head.find(',') == std::string_view::npos && read_time(head, first + 1, 0.0)) {
    trace.format = "text";
    records = read_text(lines);
  } else {
    const auto fields = split_fields(head);
    const bool header = std::none_of(fields.begin(), fields.end(), [](std::string_view f) {
      return !f.empty() && (std::isdigit(static_cast<unsigned char>(f.front())) ||
                            f.front() == '-' || f.front() == '.');
    });
    if (!header)
      return at(first + 1,
                "expected a timestamp or a CSV header with a time, time_ms or time_s "
                "column, got '" +
                    shown(head) + "'");
    trace.format = "csv";
    records = read_csv(lines, first);
  }
  if (!records) return records.error();
  if (records->empty()) return Error{"trace is empty: no timestamps found"};
  for (std::size_t i = 1; i < records->size(); ++i)
    if ((*records)[i].iso != (*records)[0].iso)
      return at((*records)[i].line, "mixes ISO-8601 times and numbers");

  trace.unit = unit == TimeUnit::automatic ? detect_unit(*records) : unit;
  const double numeric_scale = ms_per(trace.unit);
  // Indexed by name: a file with a new sender on every line stays linear.
  std::unordered_map<std::string, std::size_t> sender_index;
  for (const auto& r : *records) {
    const double ms = r.iso ? r.value : r.value * (r.scale != 0.0 ? r.scale : numeric_scale);
    if (!(std::fabs(ms) < 9e15)) return at(r.line, "time is out of range");
    auto [slot, added] = sender_index.try_emplace(r.sender, trace.senders.size());
    if (added) trace.senders.push_back({r.sender, {}, 0, 0, 0});
    auto it = trace.senders.begin() + static_cast<std::ptrdiff_t>(slot->second);
    const Millis t{std::llround(ms)};
    if (!it->arrivals.empty() && t < it->arrivals.back()) ++it->out_of_order;
    it->arrivals.push_back(t);
    ++it->records;
  }
  for (auto& s : trace.senders) {
    std::stable_sort(s.arrivals.begin(), s.arrivals.end());
    const auto unique_end = std::unique(s.arrivals.begin(), s.arrivals.end());
    s.duplicates = static_cast<std::size_t>(s.arrivals.end() - unique_end);
    s.arrivals.erase(unique_end, s.arrivals.end());
  }
  return trace;
}

Result<SenderTrace> pick_sender(const Trace& trace, std::string_view name) {
  std::string names;
  for (const auto& s : trace.senders)
    names += (names.empty() ? "" : ", ") + (s.sender.empty() ? std::string("(unnamed)") : s.sender);
  if (name.empty()) {
    if (trace.senders.size() == 1) return trace.senders.front();
    return Error{"the trace has " + std::to_string(trace.senders.size()) + " senders (" + names +
                 "): choose one"};
  }
  for (const auto& s : trace.senders)
    if (s.sender == name) return s;
  return Error{"no sender '" + std::string(name) + "' in the trace (senders: " + names + ")"};
}

std::string trace_csv(std::span<const Millis> arrivals, std::string_view sender,
                      std::string_view comment) {
  std::string out;
  if (!comment.empty()) out += "# " + std::string(comment) + "\n";
  out += "time_ms,sender\n";
  char buf[64];
  for (const auto t : arrivals) {
    std::snprintf(buf, sizeof buf, "%lld.000,", static_cast<long long>(t.count()));
    out += buf;
    out += sender;
    out += '\n';
  }
  return out;
}

}  // namespace vigil::detect
