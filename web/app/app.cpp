#include "app/app.hpp"

#include <emscripten.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>

#include "app/demo_summary.hpp"
#include "app/share.hpp"
#include "panels/fencing_panel.hpp"
#include "panels/gossip_panel.hpp"
#include "panels/live_panel.hpp"
#include "panels/phi_tail_panel.hpp"
#include "panels/retry_panel.hpp"
#include "panels/swim_panel.hpp"
#include "ui/layout_report.hpp"
#include "ui/page_caption.hpp"
#include "ui/palette.hpp"
#include "ui/screen.hpp"
#include "ui/widgets.hpp"

namespace vigil::web {

namespace {
template <typename T>
std::unique_ptr<Panel> make(const UrlParams& p) {
  return std::make_unique<T>(p);
}
}  // namespace

App::App(UrlParams params) : params_(std::move(params)) {
  demos_.push_back({"phi", "Phi tails", make<PhiTailPanel>, nullptr});
  demos_.push_back({"gossip", "Gossip", make<GossipPanel>, nullptr});
  demos_.push_back({"swim", "SWIM cluster", make<SwimPanel>, nullptr});
  demos_.push_back({"retry", "Retry storms", make<RetryPanel>, nullptr});
  demos_.push_back({"live", "Live cluster", make<LivePanel>, nullptr});
  demos_.push_back({"fencing", "Fencing", make<FencingPanel>, nullptr});
  embed_ = params_.flag("embed");
  screen::set_embedded(embed_);
  // The front page: index.html with nothing asked of it but colours or motion.
  UrlParams asked = params_;
  asked.erase("theme");
  asked.erase("motion");
  screen::set_front_page(!embed_ && asked.query().empty());
  const std::string wanted = params_.text("demo").value_or("phi");
  for (std::size_t i = 0; i < demos_.size(); ++i)
    if (wanted == demos_[i].id) active_ = i;
}

Panel& App::active() {
  Demo& d = demos_[active_];
  if (!d.panel) d.panel = d.make(params_);
  return *d.panel;
}

bool App::animating() {
  // The first frames lay out the tab bar and size the plots.
  return frames_ < 3 || active().animating();
}

std::string App::query() {
  UrlParams p = params_;
  p.set("demo", demos_[active_].id);
  active().save(p);
  // The agents' token lets its holder inject faults: it never goes into an address, which the
  // page rewrites and reports to its host.
  p.erase("token");
  return p.query();
}

void App::frame(double real_ms) {
  ++frames_;
  shortcuts_new_frame();
  page_caption_new_frame();
  if (auto trace = trace_inbox().take()) deliver_trace(*trace);
  Panel& panel = active();  // built on first view: construction is not simulation time
  const auto t0 = std::chrono::steady_clock::now();
  panel.advance(real_ms);
  advance_ms_total_ +=
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

  const ImGuiViewport* viewport = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(viewport->WorkPos);
  ImGui::SetNextWindowSize(viewport->WorkSize);
  // No background: the canvas is cleared to the same colour (WindowBg is window_bg), and a quad
  // over the whole canvas is a large share of a frame where WebGL is rendered in software.
  ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                           ImGuiWindowFlags_NoSavedSettings |
                           ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoBackground;
  // One column: the page grows the canvas to the content and scrolls it, not ImGui.
  if (screen::narrow()) flags |= ImGuiWindowFlags_NoScrollWithMouse;
  ImGui::Begin("vigil", nullptr, flags);
  if (embed_) {
    active().draw();
  } else {
    draw_header();
    if (screen::narrow()) {
      draw_demo_buttons();
      active().draw();
    } else if (ImGui::BeginTabBar("demos")) {
      for (std::size_t i = 0; i < demos_.size(); ++i) {
        const ImGuiTabItemFlags tab_flags =
            (select_tab_ && i == active_) ? ImGuiTabItemFlags_SetSelected : 0;
        if (ImGui::BeginTabItem(demos_[i].title, nullptr, tab_flags)) {
          if (!select_tab_ && active_ != i) {
            active_ = i;
            screen::set_front_page(false);  // the reader chose a demo: it may play
          }
          if (i == active_) active().draw();
          ImGui::EndTabItem();
        }
      }
      ImGui::EndTabBar();
      select_tab_ = false;
    }
  }
  draw_keys_sheet();
  ImGui::End();
}

void App::deliver_trace(const TraceFile& trace) {
  if (active().load_trace(trace)) return;
  for (std::size_t i = 0; i < demos_.size(); ++i) {
    if (i == active_) continue;
    Demo& d = demos_[i];
    if (!d.panel) d.panel = d.make(params_);
    if (d.panel->load_trace(trace)) {
      active_ = i;
      select_tab_ = true;
      return;
    }
  }
}

ShareTexts App::share() {
  return share_texts(demos_[active_].id, query());
}

void App::draw_header() {
  ImGui::TextColored(plot::to_vec4(plot::palette().accent), "vigil");
  ImGui::SameLine();
  ImGui::TextDisabled("is that node dead, or just slow?");
  // The explainer, which walks through every demo; a plain page next to this one.
  if (row_button("read the explainer"))
    emscripten_run_script("window.location.href = 'explainer.html';");
  if (key_button("keys", Shortcut::kHelp, "the keyboard shortcuts")) ImGui::OpenPopup("keys");
  if (row_button("share / embed")) {
    share_ = share();
    ImGui::OpenPopup("share");
  }
  draw_share_popup(share_);
}

// The keys a demo answers, as RaftScope lists them: `?` or the header's button opens it.
void App::draw_keys_sheet() {
  if (take_shortcut(Shortcut::kHelp)) ImGui::OpenPopup("keys");
  keys_sheet_open_ = ImGui::BeginPopup("keys");
  if (!keys_sheet_open_) return;
  static constexpr const char* kKeys[][2] = {
      {"Tab, Shift+Tab", "leave the demo (to the page's next or previous part)"},
      {"arrow keys", "move between the demo's controls"},
      {"Enter", "press the control shown with a frame"},
      {"Space", "play or pause"},
      {".", "step"},
      {"r", "replay the story, or restart"},
      {"?", "this list; Esc closes it"},
  };
  ImGui::TextColored(plot::to_vec4(plot::palette().accent), "Keys");
  if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_SizingFixedFit)) {
    for (const auto& [key, what] : kKeys) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(key);
      ImGui::TableNextColumn();
      ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + screen::css_width() * screen::dpr() * 0.6f);
      ImGui::TextUnformatted(what);
      ImGui::PopTextWrapPos();
    }
    ImGui::EndTable();
  }
  hint("Space, . and r act on the demo's play, step and restart buttons when it has them.");
  ImGui::EndPopup();
}

// On a narrow screen the tab bar would squeeze six titles into slivers: the demos become
// buttons that wrap into rows, the shown one highlighted.
void App::draw_demo_buttons() {
  for (std::size_t i = 0; i < demos_.size(); ++i) {
    const bool shown = i == active_;
    if (shown)
      ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
    const bool pressed = i == 0 ? button(demos_[i].title) : row_button(demos_[i].title);
    if (shown) ImGui::PopStyleColor();
    if (pressed) {
      active_ = i;
      select_tab_ = true;             // a wider screen's tab bar then opens on this demo
      screen::set_front_page(false);  // the reader chose a demo: it may play
    }
  }
  ImGui::Separator();
}

void App::record_frame_cost(double cost_ms, double ended_at_ms) {
  if (first_frame_at_ms_ == 0) first_frame_at_ms_ = ended_at_ms;
  if (recent_costs_.size() < kCostWindow)
    recent_costs_.push_back(cost_ms);
  else
    recent_costs_[next_cost_] = cost_ms;
  next_cost_ = (next_cost_ + 1) % kCostWindow;
}

nlohmann::json App::state() const {
  const Demo& d = demos_[active_];
  nlohmann::json s = d.panel ? d.panel->state() : nlohmann::json{{"demo", d.id}};
  s["frame"] = frames_;
  s["embed"] = embed_;
  s["keys_sheet"] = keys_sheet_open_;
  // Whether a control shows the keyboard's focus frame (Dear ImGui's navigation highlight).
  s["keyboard_focus"] = GImGui->NavId != 0 && !GImGui->NavDisableHighlight;
  s["reduced_motion"] = screen::reduced_motion();
  s["theme"] = plot::palette().dark ? "dark" : "light";
  const auto hex = [](ImU32 c) {
    char out[8];
    std::snprintf(out, sizeof out, "#%02x%02x%02x", c & 0xFF, (c >> 8) & 0xFF, (c >> 16) & 0xFF);
    return std::string(out);
  };
  const plot::Palette& colors = plot::palette();
  s["palette"] = {{"background", hex(colors.window_bg)},
                  {"plot", hex(colors.area_bg)},
                  {"alive", hex(colors.alive)},
                  {"suspect", hex(colors.suspect)},
                  {"dead", hex(colors.dead)},
                  {"left", hex(colors.left)}};
  nlohmann::json layout = layout::report(screen::dpr());
  layout["narrow"] = screen::narrow();
  layout["touch"] = screen::touch();
  layout["css_width"] = screen::css_width();
  s["layout"] = std::move(layout);
  std::vector<double> costs = recent_costs_;
  std::sort(costs.begin(), costs.end());
  const auto at = [&](double q) {
    return costs.empty() ? 0.0 : costs[static_cast<std::size_t>(q * (costs.size() - 1))];
  };
  s["app_perf"] = {
      {"first_frame_at_ms", first_frame_at_ms_},
      {"frame_cost_ms_median", at(0.5)},
      {"frame_cost_ms_p95", at(0.95)},
      // A demo that simulates in slices (a large SWIM cluster) pays in a few frames:
      // the median hides that, the mean does not.
      {"frame_cost_ms_mean", costs.empty() ? 0.0
                                           : std::accumulate(costs.begin(), costs.end(), 0.0) /
                                                 static_cast<double>(costs.size())},
      {"frames_measured", costs.size()},
      {"advance_ms_total", advance_ms_total_}};
  return s;
}

nlohmann::json App::describe() const {
  const Demo& d = demos_[active_];
  if (!d.panel) return {{"title", d.title}, {"summary", ""}, {"events", ""}};
  const nlohmann::json s = d.panel->state();
  return {{"title", d.title}, {"summary", summarize_demo(s)}, {"events", summary_events(s)}};
}

}  // namespace vigil::web
