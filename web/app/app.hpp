#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/url_params.hpp"
#include "panels/panel.hpp"

namespace vigil::web {

// The application: the demos as tabs, or one demo alone and chromeless when embedded
// (?embed=1). Panels are built on first view and only the visible one runs.
class App {
 public:
  explicit App(UrlParams params);

  void frame(double real_ms);  // advance the visible demo and draw one ImGui frame's content
  nlohmann::json state() const;

 private:
  struct Demo {
    const char* id;
    const char* title;
    std::function<std::unique_ptr<Panel>(const UrlParams&)> make;
    std::unique_ptr<Panel> panel;
  };

  Panel& active();

  UrlParams params_;
  std::vector<Demo> demos_;
  std::size_t active_ = 0;
  bool embed_ = false;
  bool first_frame_ = true;
  std::uint64_t frames_ = 0;
};

}  // namespace vigil::web
