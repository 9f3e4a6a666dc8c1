#pragma once

#include <cstdint>
#include <ostream>
#include <string_view>

namespace vigil::native {

// One sample in Prometheus' text exposition format (0.0.4), with its HELP and TYPE lines.
inline void write_metric(std::ostream& out, std::string_view type, std::string_view name,
                         std::string_view help, std::uint64_t value) {
  out << "# HELP " << name << " " << help << "\n# TYPE " << name << " " << type << "\n"
      << name << " " << value << "\n";
}

inline void write_counter(std::ostream& out, std::string_view name, std::string_view help,
                          std::uint64_t value) {
  write_metric(out, "counter", name, help, value);
}

inline void write_gauge(std::ostream& out, std::string_view name, std::string_view help,
                        std::uint64_t value) {
  write_metric(out, "gauge", name, help, value);
}

}  // namespace vigil::native
