#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "app/url_params.hpp"
#include "panels/phi_tail_panel.hpp"

namespace vigil::web {

// The application: which demo is shown, in full or embedded (chromeless) form.
class App {
 public:
  explicit App(const UrlParams& params);

  void frame(double real_ms);  // advance the simulation and draw one ImGui frame's content
  nlohmann::json state() const;

 private:
  std::string demo_ = "phi";
  bool embed_ = false;
  std::uint64_t frames_ = 0;
  PhiTailPanel phi_;
};

}  // namespace vigil::web
