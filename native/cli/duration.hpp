#pragma once

#include <string>
#include <string_view>

#include <vigil/base/result.hpp>
#include <vigil/base/time.hpp>

namespace vigil::cli {

// A positive duration as Serf and Consul write them: a number and a unit, ms, s, m or h
// ("500ms", "1s", "1.5s", "2m").
Result<Millis> parse_duration(std::string_view text);

// The shortest of those forms that is exact: 1500 ms is "1500ms", 2000 ms "2s", 120000 ms "2m".
std::string duration_text(Millis d);

}  // namespace vigil::cli
