#include "cli/duration.hpp"

#include <charconv>
#include <cmath>

namespace vigil::cli {

Result<Millis> parse_duration(std::string_view text) {
  const std::string written(text);
  const auto unit_at = text.find_first_not_of("0123456789.");
  if (unit_at == 0 || unit_at == std::string_view::npos)
    return Error{"expected a duration such as 500ms, 1s or 2m, got '" + written + "'"};
  const std::string_view number = text.substr(0, unit_at);
  const std::string_view unit = text.substr(unit_at);
  double value = 0;
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc() || end != number.data() + number.size())
    return Error{"expected a duration such as 500ms, 1s or 2m, got '" + written + "'"};
  double scale = 0;
  if (unit == "ms")
    scale = 1;
  else if (unit == "s")
    scale = 1000;
  else if (unit == "m")
    scale = 60'000;
  else if (unit == "h")
    scale = 3'600'000;
  else
    return Error{"unknown unit '" + std::string(unit) + "' in '" + written +
                 "' (use ms, s, m or h)"};
  const double ms = value * scale;
  // A day bounds it: longer waits are typing mistakes, and it keeps the arithmetic far from
  // overflow.
  if (!(ms >= 1) || ms > 86'400'000)
    return Error{"a duration must be between 1ms and 24h, got '" + written + "'"};
  return Millis{std::llround(ms)};
}

std::string duration_text(Millis d) {
  const auto ms = d.count();
  if (ms != 0 && ms % 3'600'000 == 0) return std::to_string(ms / 3'600'000) + "h";
  if (ms != 0 && ms % 60'000 == 0) return std::to_string(ms / 60'000) + "m";
  if (ms != 0 && ms % 1000 == 0) return std::to_string(ms / 1000) + "s";
  return std::to_string(ms) + "ms";
}

}  // namespace vigil::cli
