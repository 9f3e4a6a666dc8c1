#include "panels/retry_panel.hpp"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "panels/panel_layout.hpp"
#include "panels/widgets.hpp"
#include "scenes/scene_strip.hpp"

namespace vigil::web {

namespace {

// Work done in one frame while sweeping or playing, at least one step: the page stays
// responsive whatever the parameters.
constexpr double kBudgetMs = 20;
// RK4 steps per simulated second grow with eta * mu_max^2 (see retry::settle): with these
// bounds one simulated second stays near the frame budget.
constexpr double kMaxEta = 5;
// The sweep works in slices of RK4 steps: a simulated second at the defaults (1,000 steps), a
// millisecond or two of a stiff model's.
constexpr int kStepsPerSlice = 2000;
// A background tab gets no frames; on return, play on rather than replay the lost seconds.
constexpr double kMaxFrameMs = 250;

constexpr const char* kViewNames[] = {"hysteresis", "chain", "fleet", "server"};
constexpr const char* kViewTitles[] = {"Hysteresis loop", "Chain amplification", "Client fleet",
                                       "Metastable server"};

constexpr retry::BackoffStrategy kStrategyOrder[] = {
    retry::BackoffStrategy::none,         retry::BackoffStrategy::fixed,
    retry::BackoffStrategy::exponential,  retry::BackoffStrategy::full_jitter,
    retry::BackoffStrategy::equal_jitter, retry::BackoffStrategy::decorrelated};

ImU32 strategy_color(retry::BackoffStrategy s) {
  switch (s) {
    case retry::BackoffStrategy::none:
      return plot::palette().red;
    case retry::BackoffStrategy::fixed:
      return plot::palette().yellow;
    case retry::BackoffStrategy::exponential:
      return plot::palette().orange;
    case retry::BackoffStrategy::full_jitter:
      return plot::palette().green;
    case retry::BackoffStrategy::equal_jitter:
      return plot::palette().blue;
    case retry::BackoffStrategy::decorrelated:
      return plot::palette().purple;
  }
  return plot::palette().grey;
}

ImU32 up_color() { return plot::palette().blue; }
ImU32 down_color() { return plot::palette().orange; }
ImU32 collapse_color() { return plot::palette().red; }
ImU32 recovery_color() { return plot::palette().green; }
ImU32 stable_color() { return plot::colors::with_alpha(plot::palette().ink, 200); }
ImU32 unstable_color() { return plot::palette().yellow; }

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

ImVec4 to_vec4(ImU32 c) {
  return ImGui::ColorConvertU32ToFloat4(c);
}

// The shortest text that reads back as the same double, so a command line built from it runs
// exactly the parameters the page shows.
std::string num(double x) {
  char buf[40];
  if (x == std::trunc(x) && std::abs(x) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f", x);
    return buf;
  }
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  return buf;
}

nlohmann::json number_or_null(double x) {
  return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json();
}

nlohmann::json optional_json(const std::optional<double>& x) {
  return x ? nlohmann::json(*x) : nlohmann::json();
}

std::string join(const std::vector<std::string>& args) {
  std::string out = "vigil";
  for (const auto& a : args) out += " " + a;
  return out;
}

// Adds "--name value" when the value differs from the CLI's default.
void option(std::vector<std::string>& args, const char* name, double value, double fallback) {
  if (value == fallback) return;
  args.push_back(std::string("--") + name);
  args.push_back(num(value));
}

// Arrowheads along a curve in screen space: on every `every`-th segment (from `phase`) and on
// every long one (a jump between branches), pointing from point i to point i + 1.
void arrowheads(const std::vector<ImVec2>& pts, ImU32 color, int every, int phase) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float size = ImGui::GetFontSize() * 0.45f;
  for (std::size_t i = 0; i + 1 < pts.size(); ++i) {
    const ImVec2 a = pts[i], b = pts[i + 1];
    const float dx = b.x - a.x, dy = b.y - a.y;
    const float len = std::sqrt(dx * dx + dy * dy);
    const bool periodic = static_cast<int>(i % static_cast<std::size_t>(every)) == phase;
    if (len < size * 1.5f || !(periodic || len > size * 8.0f)) continue;
    const float ux = dx / len, uy = dy / len;
    const ImVec2 tip(a.x + dx * 0.5f + ux * size, a.y + dy * 0.5f + uy * size);
    const ImVec2 back(tip.x - ux * size * 2.0f, tip.y - uy * size * 2.0f);
    dl->AddTriangleFilled(tip, ImVec2(back.x - uy * size, back.y + ux * size),
                          ImVec2(back.x + uy * size, back.y - ux * size), color);
  }
}

void marker(double x, double y, ImU32 color, bool filled, float radius) {
  const ImVec2 p = plot::to_screen(x, y);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  if (filled)
    dl->AddCircleFilled(p, radius, color, 12);
  else
    dl->AddCircle(p, radius, color, 12, 1.8f);
}

// A legend entry without a line: bars() with nothing to draw still adds one.
void legend_entry(const char* label, ImU32 color) {
  plot::bars(label, {}, {}, 0.0, color);
}

// A legend above the plots, on as many lines as it needs, so that it never covers a curve or a
// label however small the plots get. A click on an entry hides or shows its series.
struct LegendItem {
  const char* label;
  ImU32 color;
  bool* shown;
};

void legend_row(std::initializer_list<LegendItem> items) {
  const float font = ImGui::GetFontSize();
  const float spacing = ImGui::GetStyle().ItemSpacing.x;
  const float avail = ImGui::GetContentRegionAvail().x;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  float used = 0;
  bool first = true;
  for (const auto& item : items) {
    const float w = font * 1.4f + ImGui::CalcTextSize(item.label).x + font * 0.6f;
    if (!first && used + spacing + w <= avail) {
      ImGui::SameLine();
      used += spacing;
    } else {
      used = 0;
    }
    first = false;
    used += w;
    ImGui::PushID(item.label);
    const ImVec2 p = ImGui::GetCursorScreenPos();
    if (ImGui::InvisibleButton("##legend", ImVec2(w, font * 1.3f))) *item.shown = !*item.shown;
    const bool shown = *item.shown;
    if (ImGui::IsItemHovered()) {
      dl->AddRectFilled(p, ImVec2(p.x + w, p.y + font * 1.3f), plot::colors::with_alpha(plot::palette().ink, 18), 3.0f);
      ImGui::SetTooltip("click to %s", shown ? "hide" : "show");
    }
    dl->AddRectFilled(ImVec2(p.x + font * 0.3f, p.y + font * 0.35f),
                      ImVec2(p.x + font * 1.0f, p.y + font * 1.0f),
                      shown ? item.color : plot::colors::with_alpha(item.color, 50));
    plot::put_text(dl, ImVec2(p.x + font * 1.3f, p.y + font * 0.15f),
                shown ? plot::palette().ink : plot::palette().ink_dim, item.label);
    ImGui::PopID();
  }
}

// On a log axis a zero cannot be drawn: put it just below the axis, so the line drops out of
// sight steeply instead of heading for a point far off the plot.
double log_floor(double v, double axis_min) {
  return v > 0 ? v : axis_min * 0.5;
}

// Integer sliders and checkboxes on one line each, in the column's width.
bool slider_int(const char* label, int* v, int lo, int hi, bool log = false) {
  return ImGui::SliderInt(label, v, lo, hi, "%d",
                          ImGuiSliderFlags_AlwaysClamp | (log ? ImGuiSliderFlags_Logarithmic : 0));
}

bool log_slider(const char* label, double* v, double lo, double hi, const char* fmt) {
  return ImGui::SliderScalar(label, ImGuiDataType_Double, v, &lo, &hi, fmt,
                             ImGuiSliderFlags_AlwaysClamp | ImGuiSliderFlags_Logarithmic);
}

void cli_line(const std::vector<std::string>& args, const char* note = nullptr) {
  section("The same on the command line");
  ImGui::PushStyleColor(ImGuiCol_Text, to_vec4(plot::palette().grey));
  ImGui::TextWrapped("%s", join(args).c_str());
  if (note) ImGui::TextWrapped("%s", note);
  ImGui::PopStyleColor();
}

void text_or_dash(const char* fmt, double x) {
  if (std::isfinite(x))
    ImGui::Text(fmt, x);
  else
    hint("-");
}

}  // namespace

// ------------------------------------------------------------------------------ construction

RetryPanel::RetryPanel(const UrlParams& p) {
  const std::string view = p.text("view").value_or("hysteresis");
  for (int i = 0; i < 4; ++i)
    if (view == kViewNames[i]) view_ = static_cast<View>(i);
  // Keys more than one view knows (timeout, capacity, tries, seconds, seed, speed) configure
  // the view the URL opens; the others keep their defaults.
  auto mine = [&](View v) { return view_ == v; };

  retry::HysteresisModel& m = hyst_.model;
  if (mine(View::hysteresis)) m.timeout_ms = p.number("timeout", m.timeout_ms, 2, 500);
  m.mu_max = p.number("mu-max", p.number("mu", m.mu_max, 100, 5000), 100, 5000);
  m.l0_ms = p.number("l0", m.l0_ms, 1, 200);
  m.alpha = p.number("alpha", m.alpha, 0, 1);
  m.beta = p.number("beta", m.beta, 0, 4);
  m.gamma = p.number("gamma", m.gamma, 0, 10);
  m.kappa = p.number("kappa", m.kappa, 0.02, 5);
  m.eta = p.number("eta", m.eta, 0.05, kMaxEta);
  m.max_latency_ms = p.number("max-latency", m.max_latency_ms, 100, 10000);
  hyst_.lambda_min = p.number("lambda-min", hyst_.lambda_min, 5, 5000);
  hyst_.lambda_max = p.number("lambda-max", hyst_.lambda_max, 50, 10000);
  hyst_.step = p.number("step", hyst_.step, 5, 250);
  show_equilibria_ = p.text("equilibria").value_or("1") != "0";

  chain_.depth = static_cast<int>(p.number("depth", chain_.depth, 1, 20));
  chain_.tries =
      static_cast<int>(p.number("tries", p.number("retries", chain_.tries, 1, 10), 1, 10));
  chain_.fail = p.number("fail", p.number("p", 0.3, 0, 1), 0, 1);

  fleet_options_.clients = static_cast<int>(p.number("clients", fleet_options_.clients, 10, 20000));
  fleet_options_.backoff.base_s = p.number("base", fleet_options_.backoff.base_s, 0.01, 10);
  fleet_options_.backoff.cap_s = p.number("cap", fleet_options_.backoff.cap_s, 0.1, 120);
  if (mine(View::fleet)) {
    fleet_options_.seconds = static_cast<int>(p.number("seconds", fleet_options_.seconds, 5, 120));
    fleet_options_.capacity_rps = p.number("capacity", fleet_options_.capacity_rps, 10, 10000);
    fleet_options_.seed =
        static_cast<std::uint32_t>(p.number("seed", fleet_options_.seed, 0, 4294967295.0));
    fleet_speed_ = p.number("speed", fleet_speed_, 0.5, 60);
  }
  for (std::size_t i = 0; i < kStrategies; ++i) fleets_[i].strategy = kStrategyOrder[i];
  if (auto list = p.text("strategies")) {
    for (auto& run : fleets_)
      run.shown = ("," + *list + ",").find("," + retry::backoff_name(run.strategy) + ",") !=
                  std::string::npos;
  }
  const std::string metric = p.text("metric").value_or("rate");
  fleet_metric_ = metric == "peak" ? 1 : metric == "waiting" ? 2 : 0;
  if (auto log = p.text("log")) fleet_log_ = *log != "0";

  retry::ServerOptions& s = server_options_;
  if (auto text = p.text("mitigations") ? p.text("mitigations") : p.text("mitigation"))
    if (auto parsed = retry::parse_mitigations(*text)) s.mitigations = *parsed;
  s.arrival_rps = p.number("arrival", s.arrival_rps, 50, 5000);
  s.trigger_at_s = p.number("trigger-at", s.trigger_at_s, 1, 100);
  s.trigger_seconds = p.number("trigger-seconds", s.trigger_seconds, 0, 60);
  s.trigger_capacity = p.number("trigger-capacity", s.trigger_capacity, 0.05, 2);
  s.trigger_load = p.number("trigger-load", s.trigger_load, 0, 5);
  s.budget.ratio = p.number("budget-ratio", s.budget.ratio, 0, 1);
  if (mine(View::server)) {
    s.capacity_rps = p.number("capacity", s.capacity_rps, 100, 5000);
    s.timeout_ms = p.number("timeout", s.timeout_ms, 5, 2000);
    s.tries = static_cast<int>(p.number("tries", s.tries, 1, 10));
    s.seconds = static_cast<int>(p.number("seconds", s.seconds, 20, 300));
    s.seed = static_cast<std::uint32_t>(p.number("seed", s.seed, 0, 4294967295.0));
    server_speed_ = p.number("speed", server_speed_, 0.5, 60);
  }
  if (auto c = p.text("compare")) compare_ = *c != "0";
  if (auto q = p.text("queue")) show_queue_ = *q != "0";

  fleet_playing_ = server_playing_ = p.flag("autoplay");
  reference_rows_ = lab::reference_chain_rows();
  restart_sweep();
  recompute_chain();
  restart_fleets();
  restart_server();
  // &second=k opens the time view k simulated seconds in, for pages that embed a moment.
  const int second = static_cast<int>(p.number("second", 0, 0, 600));
  for (int i = 0; i < second; ++i) {
    if (view_ == View::fleet && !fleets_finished()) step_fleets();
    if (view_ == View::server && !server_finished()) step_server();
  }
  if (p.text("scene").value_or("") == kOutageStormScene && (mine(View::fleet) || mine(View::server))) {
    scene_view_ = view_;
    start_scene();
  }
}

// ------------------------------------------------------------------------------------ scene

void RetryPanel::start_scene() {
  scene_seconds_ = 0;
  carry_ = 0;
  if (scene_view_ == View::fleet) {
    fleet_playing_ = false;
    restart_fleets();
    FleetSceneHooks hooks;
    hooks.read = [this] { return fleet_readout(); };
    hooks.show_three = [this] {
      for (auto& run : fleets_)
        run.shown = run.strategy == retry::BackoffStrategy::none ||
                    run.strategy == retry::BackoffStrategy::exponential ||
                    run.strategy == retry::BackoffStrategy::full_jitter;
    };
    hooks.narrate = [this](std::string caption) { scene_.set_caption(std::move(caption)); };
    scene_ = fleet_outage_scene(fleet_readout(), hooks);
    return;
  }
  // The story's timing: a slowdown at 10 s for 5 s, in runs of 30 s; act 1 without mitigation.
  server_playing_ = false;
  server_options_.trigger_at_s = 10;
  server_options_.trigger_seconds = 5;
  server_options_.seconds = kServerSceneRunSeconds;
  server_options_.mitigations = {};
  restart_server();
  ServerSceneHooks hooks;
  hooks.read = [this] { return server_readout(); };
  hooks.budget_act = [this] {
    server_options_.mitigations = {};
    server_options_.mitigations.budget = true;
    compare_ = true;
    restart_server();
  };
  hooks.narrate = [this](std::string caption) { scene_.set_caption(std::move(caption)); };
  scene_ = server_outage_scene(server_readout(), hooks);
}

void RetryPanel::begin_scene() {
  scene_.start();
  scene_.run_due(Millis{0});
  (scene_view_ == View::fleet ? fleet_playing_ : server_playing_) = true;
  carry_ = 0;
}

void RetryPanel::step_time_view() {
  view_ == View::fleet ? step_fleets() : step_server();
  if (scene_shown() && scene_.started()) {
    ++scene_seconds_;
    scene_.run_due(Millis{static_cast<std::int64_t>(scene_seconds_) * 1000});
  }
}

FleetReadout RetryPanel::fleet_readout() const {
  FleetReadout r;
  r.clients = fleet_options_.clients;
  r.capacity_rps = fleet_options_.capacity_rps;
  for (const auto& run : fleets_) {
    if (!run.fleet) continue;
    const auto& f = *run.fleet;
    FleetRunReadout one{f.per_second().empty() ? 0 : f.per_second().back().offered, f.total_calls(),
                        f.unfinished(), f.peak_rps()};
    if (run.strategy == retry::BackoffStrategy::none) r.none = one;
    if (run.strategy == retry::BackoffStrategy::exponential) r.exponential = one;
    if (run.strategy == retry::BackoffStrategy::full_jitter) r.full_jitter = one;
  }
  return r;
}

namespace {

ServerRunReadout server_run_readout(const retry::OverloadServer& s, const retry::ServerOptions& o) {
  ServerRunReadout r;
  r.second = s.elapsed();
  std::int64_t completed = 0, useful = 0;
  for (const auto& sec : s.per_second()) {
    completed += sec.completed;
    useful += sec.goodput;
    // "Recovered" as the summary means it: goodput within 90 % of the arrivals.
    if (r.recovered_second < 0 && sec.second >= o.trigger_end_s() &&
        static_cast<double>(sec.goodput) >= 0.9 * o.arrival_rps)
      r.recovered_second = sec.second;
  }
  r.wasted_share = completed > 0 ? static_cast<double>(completed - useful) / static_cast<double>(completed) : 0.0;
  if (s.per_second().empty()) return r;
  const auto& last = s.per_second().back();
  r.offered = last.offered;
  r.retries = last.retries;
  r.throughput = last.completed;
  r.goodput = last.goodput;
  r.queue = last.queue;
  return r;
}

}  // namespace

ServerReadout RetryPanel::server_readout() const {
  const auto& o = server_options_;
  ServerReadout r;
  r.arrival_rps = o.arrival_rps;
  r.capacity_rps = o.capacity_rps;
  r.timeout_ms = o.timeout_ms;
  r.trigger_at_s = o.trigger_at_s;
  r.trigger_seconds = o.trigger_seconds;
  r.trigger_capacity = o.trigger_capacity;
  r.budget_ratio = o.budget.ratio;
  if (server_) r.run = server_run_readout(*server_, o);
  if (baseline_) {
    r.has_baseline = true;
    r.baseline = server_run_readout(*baseline_, o);
  }
  return r;
}

void RetryPanel::draw_scene() {
  const bool fleet = scene_view_ == View::fleet;
  bool& playing = fleet ? fleet_playing_ : server_playing_;
  const SceneInput in = draw_scene_strip(scene_, playing, "one simulated second", caption_room_);
  if (in.replay) {
    // A reader stepping through a paused story starts over paused; a told story plays again.
    const bool play = playing || scene_.finished() || !scene_.started();
    start_scene();
    if (screen::in_view()) begin_scene();
    playing = play;
  }
  if (in.step) {
    if (!scene_.started()) begin_scene();
    playing = false;
    if (!(fleet ? fleets_finished() : server_finished())) step_time_view();
  }
  if (in.toggle_play) {
    if (!scene_.started()) {
      begin_scene();
    } else if (fleet ? fleets_finished() : server_finished()) {
      start_scene();  // nothing left to play: play the story again
      begin_scene();
    } else {
      playing = !playing;
    }
    carry_ = playing ? 1.0 : 0.0;  // the first second at once
  }
}

bool RetryPanel::animating() const {
  switch (view_) {
    case View::hysteresis: return sweep_ && !(sweep_->done() && equilibria_done());
    case View::chain: return false;
    case View::fleet:
      if (scene_shown() && !scene_.started()) return screen::in_view();  // the page wakes us
      return fleet_playing_ && !fleets_finished();
    case View::server:
      if (scene_shown() && !scene_.started()) return screen::in_view();
      return server_playing_ && !server_finished();
  }
  return false;
}

void RetryPanel::save(UrlParams& p) const {
  p.set("view", kViewNames[static_cast<int>(view_)]);
  const retry::HysteresisModel& m = hyst_.model;
  p.set("mu-max", m.mu_max);
  p.set("l0", m.l0_ms);
  p.set("alpha", m.alpha);
  p.set("beta", m.beta);
  p.set("gamma", m.gamma);
  p.set("kappa", m.kappa);
  p.set("eta", m.eta);
  p.set("max-latency", m.max_latency_ms);
  p.set("lambda-min", hyst_.lambda_min);
  p.set("lambda-max", hyst_.lambda_max);
  p.set("step", hyst_.step);
  p.set("equilibria", show_equilibria_ ? "1" : "0");
  p.set("depth", static_cast<double>(chain_.depth));
  p.set("fail", chain_.fail);
  p.set("clients", static_cast<double>(fleet_options_.clients));
  p.set("base", fleet_options_.backoff.base_s);
  p.set("cap", fleet_options_.backoff.cap_s);
  std::string shown;
  for (const auto& run : fleets_)
    if (run.shown) shown += (shown.empty() ? "" : ",") + retry::backoff_name(run.strategy);
  p.set("strategies", shown);
  p.set("metric", fleet_metric_ == 1 ? "peak" : fleet_metric_ == 2 ? "waiting" : "rate");
  p.set("log", fleet_log_ ? "1" : "0");
  const retry::ServerOptions& s = server_options_;
  p.set("mitigations", retry::mitigations_name(s.mitigations));
  p.set("arrival", s.arrival_rps);
  p.set("trigger-at", s.trigger_at_s);
  p.set("trigger-seconds", s.trigger_seconds);
  p.set("trigger-capacity", s.trigger_capacity);
  p.set("trigger-load", s.trigger_load);
  p.set("budget-ratio", s.budget.ratio);
  p.set("compare", compare_ ? "1" : "0");
  p.set("queue", show_queue_ ? "1" : "0");
  // Keys several views share mean the open view's value, as the constructor reads them.
  for (const char* key : {"timeout", "capacity", "tries", "seconds", "seed", "speed", "second"}) p.erase(key);
  p.erase("autoplay");
  switch (view_) {
    case View::hysteresis:
      p.set("timeout", m.timeout_ms);
      break;
    case View::chain:
      p.set("tries", static_cast<double>(chain_.tries));
      break;
    case View::fleet:
      p.set("seconds", static_cast<double>(fleet_options_.seconds));
      p.set("capacity", fleet_options_.capacity_rps);
      p.set("seed", static_cast<double>(fleet_options_.seed));
      p.set("speed", fleet_speed_);
      p.set_flag("autoplay", fleet_playing_);
      if (fleet_second() > 0) p.set("second", static_cast<double>(fleet_second()));
      break;
    case View::server:
      p.set("capacity", s.capacity_rps);
      p.set("timeout", s.timeout_ms);
      p.set("tries", static_cast<double>(s.tries));
      p.set("seconds", static_cast<double>(s.seconds));
      p.set("seed", static_cast<double>(s.seed));
      p.set("speed", server_speed_);
      p.set_flag("autoplay", server_playing_);
      if (server_ && server_->elapsed() > 0) p.set("second", static_cast<double>(server_->elapsed()));
      break;
  }
  // Aliases the constructor also accepts would shadow nothing, but would confuse a reader.
  for (const char* key : {"mu", "retries", "p", "mitigation"}) p.erase(key);
}

// ------------------------------------------------------------------------------- hysteresis

void RetryPanel::restart_sweep() {
  sweep_.reset();
  sweep_error_.clear();
  equilibria_.clear();
  sweep_ms_ = 0;
  auto sweep = lab::HysteresisSweep::create(hyst_);
  if (!sweep) {
    sweep_error_ = sweep.error().message;
    return;
  }
  sweep_.emplace(std::move(sweep).value());
}

bool RetryPanel::equilibria_done() const {
  return !sweep_ || !show_equilibria_ || equilibria_.size() >= sweep_->loads().size();
}

void RetryPanel::compute_sweep(double budget_ms) {
  if (!sweep_ || (sweep_->done() && equilibria_done())) return;
  const auto start = std::chrono::steady_clock::now();
  double slowest = 0;  // the longest piece of work so far: do not start one that would overrun
  do {
    const auto piece = std::chrono::steady_clock::now();
    if (!sweep_->done()) {
      sweep_->step(kStepsPerSlice);
    } else if (!equilibria_done()) {
      // Once the sweep is drawn: the roots of offered = carried at each load of the grid.
      equilibria_.push_back(retry::equilibria(hyst_.model, sweep_->loads()[equilibria_.size()]));
    } else {
      break;
    }
    slowest = std::max(slowest, ms_since(piece));
  } while (ms_since(start) + slowest < budget_ms);
  sweep_ms_ += ms_since(start);
}

// ------------------------------------------------------------------------------------ chain

void RetryPanel::recompute_chain() {
  // The sliders keep N, k and p within Chain's limits.
  amp_ = retry::amplify(chain_).value();
  chain_p_.clear();
  chain_amp_.clear();
  constexpr int kPoints = 200;
  for (int i = 0; i <= kPoints; ++i) {
    retry::Chain c = chain_;
    c.fail = static_cast<double>(i) / kPoints;
    chain_p_.push_back(c.fail);
    chain_amp_.push_back(retry::amplify(c).value().amplification);
  }
}

// ------------------------------------------------------------------------------------ fleet

void RetryPanel::restart_fleets() {
  fleet_error_.clear();
  carry_ = 0;
  for (auto& run : fleets_) {
    run.fleet.reset();
    retry::FleetOptions o = fleet_options_;
    o.backoff.strategy = run.strategy;
    auto fleet = retry::Fleet::create(o);
    if (!fleet) {
      fleet_error_ = fleet.error().message;
      for (auto& r : fleets_) r.fleet.reset();
      return;
    }
    run.fleet.emplace(std::move(fleet).value());
  }
}

void RetryPanel::step_fleets() {
  const auto start = std::chrono::steady_clock::now();
  for (auto& run : fleets_)
    if (run.fleet) run.fleet->run_second();
  step_ms_ = ms_since(start);
}

bool RetryPanel::fleets_finished() const {
  for (const auto& run : fleets_)
    if (run.fleet && !run.fleet->finished()) return false;
  return true;
}

int RetryPanel::fleet_second() const {
  int second = 0;
  for (const auto& run : fleets_)
    if (run.fleet) second = std::max(second, run.fleet->elapsed());
  return second;
}

// ----------------------------------------------------------------------------------- server

void RetryPanel::restart_server() {
  server_error_.clear();
  carry_ = 0;
  server_.reset();
  baseline_.reset();
  auto server = retry::OverloadServer::create(server_options_);
  if (!server) {
    server_error_ = server.error().message;
    return;
  }
  server_.emplace(std::move(server).value());
  if (compare_ && server_options_.mitigations.any()) {
    retry::ServerOptions none = server_options_;
    none.mitigations = {};
    baseline_.emplace(retry::OverloadServer::create(none).value());
  }
}

void RetryPanel::step_server() {
  const auto start = std::chrono::steady_clock::now();
  if (server_) server_->run_second();
  if (baseline_) baseline_->run_second();
  step_ms_ = ms_since(start);
}

bool RetryPanel::server_finished() const {
  return !server_ || server_->finished();
}

// ---------------------------------------------------------------------------------- frames

void RetryPanel::play(double real_ms) {
  const bool fleet = view_ == View::fleet;
  bool& playing = fleet ? fleet_playing_ : server_playing_;
  auto finished = [&] { return fleet ? fleets_finished() : server_finished(); };
  if (!playing || finished()) {
    playing = false;
    return;
  }
  carry_ += std::clamp(real_ms, 0.0, kMaxFrameMs) / 1000.0 * (fleet ? fleet_speed_ : server_speed_);
  const int whole = static_cast<int>(std::floor(carry_));
  carry_ -= whole;
  const auto start = std::chrono::steady_clock::now();
  int ran = 0;
  while (ran < whole && !finished()) {
    step_time_view();
    ++ran;
    // step_ms_ is what the second just run cost: do not start one that would overrun.
    if (ms_since(start) + step_ms_ > kBudgetMs) break;
  }
  if (ran < whole) carry_ = 0;  // past the budget: play slower rather than stutter
  if (finished()) playing = false;
}

void RetryPanel::advance(double real_ms) {
  const auto start = std::chrono::steady_clock::now();
  if (view_ == View::hysteresis)
    compute_sweep(kBudgetMs);
  else if (view_ == View::fleet || view_ == View::server) {
    // A scene holds at second 0 until the reader sees it.
    if (scene_shown() && !scene_.started()) {
      if (!screen::in_view()) return;
      begin_scene();
    }
    play(real_ms);
  }
  advance_ms_ = ms_since(start);
  advance_ms_max_ = std::max(advance_ms_max_, advance_ms_);
}

void RetryPanel::draw() {
  const auto start = std::chrono::steady_clock::now();
  draw_view_selector();
  if (scene_shown()) draw_scene();
  const float label_width = ImGui::GetFontSize() * 8.0f;
  // Each view's controls and its plots, which size themselves to the space left in their window.
  using Draw = void (RetryPanel::*)();
  static constexpr std::pair<Draw, Draw> kViews[] = {
      {&RetryPanel::draw_hysteresis_controls, &RetryPanel::draw_hysteresis_plots},
      {&RetryPanel::draw_chain_controls, &RetryPanel::draw_chain_plots},
      {&RetryPanel::draw_fleet_controls, &RetryPanel::draw_fleet_plots},
      {&RetryPanel::draw_server_controls, &RetryPanel::draw_server_plots},
  };
  const std::pair<Draw, Draw>& shown = kViews[static_cast<int>(view_)];
  const auto controls = [&] {
    ImGui::PushItemWidth(-label_width);
    (this->*shown.first)();
    ImGui::PopItemWidth();
  };
  const auto plots = [&](float) { (this->*shown.second)(); };
  panel_layout({"retry", 21.0f, 0.36f, 36.0f}, controls, plots);
  draw_ms_ = ms_since(start);
}

void RetryPanel::draw_view_selector() {
  int view = static_cast<int>(view_);
  for (int i = 0; i < 4; ++i) {
    if (i > 0) row_radio(kViewTitles[i], &view, i);
    else ImGui::RadioButton(kViewTitles[i], &view, i);
  }
  if (view != static_cast<int>(view_)) {
    view_ = static_cast<View>(view);
    carry_ = 0;
    advance_ms_max_ = 0;
  }
}

void RetryPanel::draw_play_controls(bool finished, int second, int seconds) {
  const bool fleet = view_ == View::fleet;
  bool& playing = fleet ? fleet_playing_ : server_playing_;
  ImGui::BeginDisabled(finished);
  if (button(playing ? "pause" : "play")) {
    playing = !playing;
    carry_ = playing ? 1.0 : 0.0;  // the first second at once
  }
  if (row_button("step 1 s")) step_time_view();
  ImGui::EndDisabled();
  if (row_button("restart")) {
    if (scene_shown()) start_scene();
    else fleet ? restart_fleets() : restart_server();
  }
  if (row_button("new seed")) {
    if (fleet) {
      ++fleet_options_.seed;
      restart_fleets();
    } else {
      ++server_options_.seed;
      restart_server();
    }
  }
  slider("sim s / real s", fleet ? &fleet_speed_ : &server_speed_, 0.5, 60, "%.1f");
  char overlay[48];
  std::snprintf(overlay, sizeof overlay, "t = %d s of %d%s", second, seconds,
                finished ? ", done" : "");
  ImGui::ProgressBar(seconds > 0 ? static_cast<float>(second) / static_cast<float>(seconds) : 0.0f,
                     ImVec2(-1, 0), overlay);
}

// ------------------------------------------------------------------------ hysteresis views

void RetryPanel::draw_hysteresis_controls() {
  ImGui::TextWrapped(
      "A fluid model of a retry storm: the offered load is raised step by step, then lowered again; at "
      "each load latency settles from where the previous one left it. Past the timeout clients "
      "retry (load x (1 + gamma)), which keeps latency up: the storm outlives the load that "
      "started it.");
  section("Result");
  if (!sweep_error_.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, to_vec4(plot::palette().red));
    ImGui::TextWrapped("%s", sweep_error_.c_str());
    ImGui::PopStyleColor();
  } else if (sweep_) {
    const auto& r = sweep_->result();
    char overlay[64];
    if (sweep_->done())
      std::snprintf(overlay, sizeof overlay, "%d loads settled in %.0f ms", sweep_->total(),
                    sweep_ms_);
    else
      std::snprintf(overlay, sizeof overlay, "settling load %d of %d", sweep_->visited() + 1,
                    sweep_->total());
    ImGui::ProgressBar(static_cast<float>(sweep_->visited()) / sweep_->total(), ImVec2(-1, 0),
                       overlay);
    const bool defaults = hysteresis_cli().size() == 3;  // the model's defaults, nothing changed
    if (r.collapse_load)
      ImGui::TextColored(to_vec4(collapse_color()), "collapse at %.0f req/s", *r.collapse_load);
    else
      hint(sweep_->done() ? "no collapse in this range" : "collapse: ...");
    if (defaults) {
      ImGui::SameLine();
      hint("(reference ~950)");
    }
    if (r.recovery_load)
      ImGui::TextColored(to_vec4(recovery_color()), "recovery at %.0f req/s", *r.recovery_load);
    else
      hint(sweep_->done() ? "no recovery in this range" : "recovery: ...");
    if (defaults) {
      ImGui::SameLine();
      hint("(reference ~320)");
    }
    if (r.collapse_load && r.recovery_load)
      ImGui::Text("stuck in the storm for %.0f req/s", *r.collapse_load - *r.recovery_load);
    int unsettled = 0;
    for (const auto& row : r.sweep) unsettled += !row.settled;
    if (unsettled)
      ImGui::TextColored(to_vec4(plot::palette().yellow), "%d loads ran out of time (near a fold)",
                         unsettled);
  }

  section("Model");
  retry::HysteresisModel& m = hyst_.model;
  bool changed = false;
  changed |= slider("timeout (ms)", &m.timeout_ms, 2, 500, "%.0f");
  changed |= slider("mu_max (req/s)", &m.mu_max, 100, 5000, "%.0f");
  changed |= slider("L0 (ms)", &m.l0_ms, 1, 200, "%.1f");
  changed |= slider("alpha", &m.alpha, 0, 1, "%.2f");
  changed |= slider("beta", &m.beta, 0, 4, "%.2f");
  changed |= slider("gamma", &m.gamma, 0, 10, "%.2f");
  changed |= log_slider("kappa (1/ms)", &m.kappa, 0.02, 5, "%.3f");
  changed |= log_slider("eta", &m.eta, 0.05, kMaxEta, "%.2f");
  changed |= log_slider("max latency (ms)", &m.max_latency_ms, 100, 10000, "%.0f");
  section("Sweep");
  changed |= slider("lambda0 from", &hyst_.lambda_min, 5, 5000, "%.0f");
  changed |= slider("lambda0 to", &hyst_.lambda_max, 50, 10000, "%.0f");
  changed |= slider("step (req/s)", &hyst_.step, 5, 250, "%.0f");
  ImGui::Checkbox("equilibria (roots of offered = carried)", &show_equilibria_);
  if (button("defaults")) {
    hyst_ = {};
    changed = true;
  }
  if (changed) restart_sweep();
  cli_line(hysteresis_cli());
}

void RetryPanel::draw_hysteresis_plots() {
  legend_row({{"load going up", up_color(), &show_up_},
              {"load going down", down_color(), &show_down_},
              {"stable equilibrium", stable_color(), &show_stable_},
              {"unstable equilibrium", unstable_color(), &show_unstable_}});
  const float h = ImGui::GetContentRegionAvail().y;
  const float gap = ImGui::GetStyle().ItemSpacing.y;
  const auto& m = hyst_.model;
  std::vector<double> up_x, up_good, up_lat, down_x, down_good, down_lat;
  if (sweep_)
    for (const auto& row : sweep_->result().sweep) {
      (row.up ? up_x : down_x).push_back(row.lambda0);
      (row.up ? up_good : down_good).push_back(row.goodput);
      (row.up ? up_lat : down_lat).push_back(row.latency_ms);
    }
  // Ascending in load for the hover readout; the arrows still point downwards.
  std::reverse(down_x.begin(), down_x.end());
  std::reverse(down_good.begin(), down_good.end());
  std::reverse(down_lat.begin(), down_lat.end());
  const std::optional<double> collapse = sweep_ ? sweep_->result().collapse_load : std::nullopt;
  const std::optional<double> recovery = sweep_ ? sweep_->result().recovery_load : std::nullopt;
  const double x_max = hyst_.lambda_max + hyst_.step;
  const double x_min = std::max(0.0, hyst_.lambda_min - hyst_.step);
  const float font = ImGui::GetFontSize();

  auto curves = [&](const std::vector<double>& up_y, const std::vector<double>& down_y,
                    bool goodput) {
    std::vector<ImVec2> pts;
    if (show_up_) {
      plot::line("load going up", up_x, up_y, up_color(), 2.5f);
      for (std::size_t i = 0; i < up_x.size(); ++i)
        pts.push_back(plot::to_screen(up_x[i], up_y[i]));
      arrowheads(pts, up_color(), 6, 3);
    }
    if (show_down_) {
      plot::line("load going down", down_x, down_y, down_color(), 2.5f);
      pts.clear();
      for (std::size_t i = down_x.size(); i-- > 0;)
        pts.push_back(plot::to_screen(down_x[i], down_y[i]));
      arrowheads(pts, down_color(), 6, 0);
    }
    if (show_equilibria_) {
      const float r = font * 0.22f;
      for (std::size_t i = 0; i < equilibria_.size(); ++i)
        for (const auto& e : equilibria_[i]) {
          const double y = goodput ? m.goodput(e.latency_ms) : e.latency_ms;
          if (e.stable && show_stable_) marker(sweep_->loads()[i], y, stable_color(), true, r);
          if (!e.stable && show_unstable_)
            marker(sweep_->loads()[i], y, unstable_color(), false, r * 1.6f);
        }
    }
    if (sweep_ && !sweep_->done()) {
      const double l = sweep_->latency_ms();
      marker(sweep_->load(), goodput ? m.goodput(l) : l, plot::palette().yellow, true, font * 0.35f);
    }
  };

  char collapse_label[48] = "", recovery_label[48] = "";
  if (collapse) std::snprintf(collapse_label, sizeof collapse_label, "collapse %.0f", *collapse);
  if (recovery) std::snprintf(recovery_label, sizeof recovery_label, "recovery %.0f", *recovery);

  plot::Options options;
  options.legend = false;
  plot::Axis x{x_min, x_max, "offered load lambda0 (req/s of first attempts)"};
  if (plot::begin("hyst-goodput", ImVec2(-1, h * 0.56f - gap), x,
                  {0, m.mu_max * 1.18, "goodput (req/s answered within the timeout)"}, options)) {
    plot::hline("capacity mu_max", m.mu_max, plot::colors::with_alpha(plot::palette().grey, 150),
                1.0f);
    if (collapse) plot::vline(collapse_label, *collapse, collapse_color(), 1.5f);
    if (recovery) plot::vline(recovery_label, *recovery, recovery_color(), 1.5f);
    curves(up_good, down_good, true);
    plot::end();
  }
  const double lat_lo = m.l0_ms * 0.7, lat_hi = m.max_latency_ms * 1.8;
  if (plot::begin("hyst-latency", ImVec2(-1, 0), x,
                  {lat_lo, lat_hi, "latency where it settles (ms, log)", true}, options)) {
    char timeout_label[48];
    std::snprintf(timeout_label, sizeof timeout_label, "timeout %.0f ms", m.timeout_ms);
    plot::hline(timeout_label, m.timeout_ms, plot::colors::with_alpha(plot::palette().grey, 170),
                1.0f);
    plot::hline("queue limit", m.max_latency_ms, plot::colors::with_alpha(plot::palette().grey, 110),
                1.0f);
    if (collapse) plot::vline("", *collapse, collapse_color(), 1.5f);
    if (recovery) plot::vline("", *recovery, recovery_color(), 1.5f);
    curves(up_lat, down_lat, false);
    plot::end();
  }
}

// ----------------------------------------------------------------------------- chain views

void RetryPanel::draw_chain_controls() {
  ImGui::TextWrapped(
      "A request passes through N services; each hop makes up to k attempts at the next one "
      "(the first call included). When the last service fails with probability p, every hop "
      "above it multiplies the calls: the last one sees E[C]^(N-1) calls per request, and "
      "k^(N-1) when it is down.");
  section("Chain");
  bool changed = false;
  changed |= slider_int("N services", &chain_.depth, 1, 20);
  changed |= slider_int("k attempts", &chain_.tries, 1, 10);
  changed |= slider("p (last hop fails)", &chain_.fail, 0, 1, "%.3f");
  if (changed) recompute_chain();

  section("Result");
  ImGui::Text("calls per hop E[C]: %.4g", amp_.calls_per_request);
  ImGui::TextColored(to_vec4(plot::palette().blue), "amplification E[C]^(N-1): %.4gx",
                     amp_.amplification);
  ImGui::TextColored(to_vec4(plot::palette().red), "worst case k^(N-1): %.4gx", amp_.worst_case);
  ImGui::TextColored(to_vec4(plot::palette().green), "success (1 - p^k)^N: %.4g%%",
                     100.0 * amp_.success);
  hint("E[C] = (1 - p^k) / (1 - p)");
  cli_line(chain_cli());
}

void RetryPanel::draw_chain_plots() {
  const float font = ImGui::GetFontSize();
  const ImGuiTableFlags flags = ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg |
                                ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_BordersOuterH;
  hint("Click a row of the reference table to load it.");
  if (ImGui::BeginTable("chain-table", 8, flags)) {
    for (const char* h : {"", "N", "k", "p", "E[C]", "amplification", "worst k^(N-1)", "success"})
      ImGui::TableSetupColumn(h);
    ImGui::TableHeadersRow();
    auto row = [&](const char* what, const retry::Chain& c, const retry::ChainAmplification& a,
                   bool current) {
      ImGui::TableNextRow();
      if (current)
        ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1,
                               plot::colors::with_alpha(plot::palette().blue, 70));
      ImGui::TableNextColumn();
      const bool clicked = ImGui::Selectable(what, false, ImGuiSelectableFlags_SpanAllColumns);
      ImGui::TableNextColumn();
      ImGui::Text("%d", c.depth);
      ImGui::TableNextColumn();
      ImGui::Text("%d", c.tries);
      ImGui::TableNextColumn();
      ImGui::Text("%.3g", c.fail);
      ImGui::TableNextColumn();
      ImGui::Text("%.2f", a.calls_per_request);
      ImGui::TableNextColumn();
      ImGui::Text("%.2fx", a.amplification);
      ImGui::TableNextColumn();
      ImGui::Text("%.0fx", a.worst_case);
      ImGui::TableNextColumn();
      ImGui::Text("%.2f%%", 100.0 * a.success);
      return clicked;
    };
    row("now", chain_, amp_, true);
    for (std::size_t i = 0; i < reference_rows_.size(); ++i) {
      const auto& r = reference_rows_[i];
      const bool same = r.chain.depth == chain_.depth && r.chain.tries == chain_.tries &&
                        r.chain.fail == chain_.fail;
      ImGui::PushID(static_cast<int>(i));
      if (row("table", r.chain, r.result, same)) {
        chain_ = r.chain;
        recompute_chain();
      }
      ImGui::PopID();
    }
    ImGui::EndTable();
  }
  ImGui::Spacing();
  const double top = std::max(amp_.worst_case, 1.0) * 4.0;
  char title[96];
  std::snprintf(title, sizeof title, "calls reaching service %d per request, N = %d, k = %d (log)",
                chain_.depth, chain_.depth, chain_.tries);
  plot::Options options;
  options.zoom = false;
  if (plot::begin("chain-plot", ImVec2(-1, std::max(font * 8.0f, ImGui::GetContentRegionAvail().y)),
                  {0, 1, "p, failure probability of the last service"}, {0.5, top, title, true},
                  options)) {
    plot::hline("worst case k^(N-1)", amp_.worst_case, plot::palette().red, 1.0f);
    plot::line("E[C]^(N-1)", chain_p_, chain_amp_, plot::palette().blue, 2.5f);
    if (chain_.tries == 3) {
      legend_entry("reference table", plot::palette().yellow);
      if (plot::visible("reference table"))
        for (const auto& r : reference_rows_)
          if (r.chain.depth == chain_.depth)
            marker(r.chain.fail, r.result.amplification, plot::palette().yellow, false, font * 0.35f);
    }
    if (plot::drag_vline("p", &chain_.fail, plot::colors::with_alpha(plot::palette().green, 200), 0,
                         1))
      recompute_chain();
    marker(chain_.fail, amp_.amplification, plot::palette().green, true, font * 0.3f);
    char value[48];
    std::snprintf(value, sizeof value, "  p = %.3g: %.3gx", chain_.fail, amp_.amplification);
    plot::text(chain_.fail, amp_.amplification, plot::palette().green, value);
    plot::end();
  }
}

// ----------------------------------------------------------------------------- fleet views

void RetryPanel::draw_fleet_controls() {
  ImGui::TextWrapped(
      "%d clients all fail at t = 0 and retry against a server that is "
      "back with %.0f req/s, one fleet per backoff strategy (Brooker, 2015). Synchronised retries "
      "arrive together and find room for a few; jitter spreads them out.",
      fleet_options_.clients, fleet_options_.capacity_rps);
  section("Run");
  draw_play_controls(fleets_finished(), fleet_second(), fleet_options_.seconds);
  if (!fleet_error_.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, to_vec4(plot::palette().red));
    ImGui::TextWrapped("%s", fleet_error_.c_str());
    ImGui::PopStyleColor();
  }

  section("Plot");
  ImGui::RadioButton("calls / s", &fleet_metric_, 0);
  row_radio("peak 100 ms", &fleet_metric_, 1);
  row_radio("waiting", &fleet_metric_, 2);
  ImGui::Checkbox("log scale", &fleet_log_);

  section("Fleet");
  bool changed = false;
  retry::FleetOptions& o = fleet_options_;
  changed |= slider_int("clients", &o.clients, 10, 20000, true);
  changed |= log_slider("capacity (req/s)", &o.capacity_rps, 10, 10000, "%.0f");
  changed |= log_slider("backoff base (s)", &o.backoff.base_s, 0.01, 10, "%.2f");
  changed |= log_slider("backoff cap (s)", &o.backoff.cap_s, 0.1, 120, "%.1f");
  changed |= slider_int("seconds", &o.seconds, 5, 120);
  if (changed) restart_fleets();
  hint("seed %u", o.seed);
  cli_line(fleet_cli(), "add --strategy NAME for each strategy; --format json for every number");
}

void RetryPanel::draw_fleet_plots() {
  const float font = ImGui::GetFontSize();
  legend_row({{"none", strategy_color(fleets_[0].strategy), &fleets_[0].shown},
              {"fixed", strategy_color(fleets_[1].strategy), &fleets_[1].shown},
              {"exponential", strategy_color(fleets_[2].strategy), &fleets_[2].shown},
              {"full-jitter", strategy_color(fleets_[3].strategy), &fleets_[3].shown},
              {"equal-jitter", strategy_color(fleets_[4].strategy), &fleets_[4].shown},
              {"decorrelated", strategy_color(fleets_[5].strategy), &fleets_[5].shown}});
  const float row_h = ImGui::GetTextLineHeight() + ImGui::GetStyle().CellPadding.y * 2.0f;
  const float table_h = row_h * 7.0f + ImGui::GetStyle().ItemSpacing.y * 2.0f + 2.0f;
  const float h = std::max(font * 8.0f, ImGui::GetContentRegionAvail().y - table_h);
  const double seconds = fleet_options_.seconds;
  const double capacity = fleet_options_.capacity_rps;
  double y_max = fleet_metric_ == 2 ? 1.0 : capacity;
  for (const auto& run : fleets_)
    if (run.fleet && run.shown)
      for (const auto& s : run.fleet->per_second())
        y_max = std::max(y_max, fleet_metric_ == 0   ? static_cast<double>(s.offered)
                                : fleet_metric_ == 1 ? s.peak_rps
                                                     : static_cast<double>(s.waiting));
  const char* titles[] = {"retries reaching the server per second (calls/s)",
                          "busiest 100 ms of each second, as req/s",
                          "clients still without an answer"};
  plot::Axis y{0, y_max * 1.12, titles[fleet_metric_]};
  if (fleet_log_) y = {1, y_max * 3.0, titles[fleet_metric_], true};
  plot::Options options;
  options.legend = false;
  if (plot::begin("fleet-plot", ImVec2(-1, h), {0, seconds, "seconds after the outage"}, y,
                  options)) {
    if (fleet_metric_ != 2) {
      char label[48];
      std::snprintf(label, sizeof label, "capacity %.0f req/s", capacity);
      plot::hline("", capacity, plot::colors::with_alpha(plot::palette().grey, 200), 1.0f);
      const ImVec2 at = plot::to_screen(seconds, capacity);
      const ImVec2 size = ImGui::CalcTextSize(label);
      plot::put_text(ImGui::GetWindowDrawList(), ImVec2(at.x - size.x - 4, at.y + 2), plot::palette().grey,
                                          label);
    }
    for (const auto& run : fleets_) {
      if (!run.fleet || !run.shown) continue;
      std::vector<double> xs, ys;
      for (const auto& s : run.fleet->per_second()) {
        const double v = fleet_metric_ == 0   ? static_cast<double>(s.offered)
                         : fleet_metric_ == 1 ? s.peak_rps
                                              : static_cast<double>(s.waiting);
        xs.push_back(s.second + 0.5);
        ys.push_back(fleet_log_ ? log_floor(v, y.min) : v);
      }
      plot::line(retry::backoff_name(run.strategy).c_str(), xs, ys, strategy_color(run.strategy),
                 2.0f);
    }
    if (fleet_second() == 0)
      plot::text(seconds * 0.3, fleet_log_ ? std::sqrt(y.max) : y.max * 0.6, plot::palette().grey,
                 "press play (or step) to run the fleets");
    plot::end();
  }

  const ImGuiTableFlags flags = ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg |
                                ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_BordersOuterH;
  if (ImGui::BeginTable("fleet-table", 5, flags)) {
    for (const char* h2 :
         {"strategy", "peak req/s (100 ms)", "peak at (s)", "calls (retries)", "still waiting"})
      ImGui::TableSetupColumn(h2);
    ImGui::TableHeadersRow();
    for (const auto& run : fleets_) {
      if (!run.fleet) continue;
      const auto& f = *run.fleet;
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      const ImU32 color = strategy_color(run.strategy);
      ImGui::TextColored(to_vec4(run.shown ? color : plot::colors::with_alpha(color, 110)), "%s",
                         retry::backoff_name(run.strategy).c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%.0f", f.peak_rps());
      ImGui::TableNextColumn();
      if (f.peak_second() >= 0)
        ImGui::Text("%d", f.peak_second());
      else
        hint("-");
      ImGui::TableNextColumn();
      ImGui::Text("%lld", static_cast<long long>(f.total_calls()));
      ImGui::TableNextColumn();
      if (f.unfinished() == 0)
        ImGui::TextColored(to_vec4(plot::palette().green), "0");
      else if (f.finished())  // never answered within the run
        ImGui::TextColored(to_vec4(plot::palette().red), "%lld",
                           static_cast<long long>(f.unfinished()));
      else
        ImGui::Text("%lld", static_cast<long long>(f.unfinished()));
    }
    ImGui::EndTable();
  }
}

// ---------------------------------------------------------------------------- server views

void RetryPanel::draw_server_controls() {
  auto& o = server_options_;
  ImGui::TextWrapped(
      "One queue at %.0f%% load with a %.0f ms client timeout. At %.0f s a trigger leaves %.0f%% "
      "of its capacity for %.0f s; requests time out and clients retry, and the retries keep it "
      "overloaded once the trigger is gone: throughput stays at capacity while goodput "
      "collapses (a metastable failure).",
      100.0 * o.arrival_rps / o.capacity_rps, o.timeout_ms, o.trigger_at_s,
      100.0 * o.trigger_capacity, o.trigger_seconds);
  section("Run");
  draw_play_controls(server_finished(), server_ ? server_->elapsed() : 0, o.seconds);
  if (!server_error_.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, to_vec4(plot::palette().red));
    ImGui::TextWrapped("%s", server_error_.c_str());
    ImGui::PopStyleColor();
  }

  section("Mitigations");
  bool changed = false;
  retry::Mitigations& m = o.mitigations;
  changed |= ImGui::Checkbox("retry budget", &m.budget);
  ImGui::SameLine(ImGui::GetContentRegionAvail().x * 0.5f + ImGui::GetCursorPosX());
  changed |= ImGui::Checkbox("retry quota", &m.quota);
  changed |= ImGui::Checkbox("deadline", &m.deadline);
  ImGui::SameLine(ImGui::GetContentRegionAvail().x * 0.5f + ImGui::GetCursorPosX());
  changed |= ImGui::Checkbox("load shedding", &m.shed);
  if (button("none")) {
    m = {};
    changed = true;
  }
  if (row_button("all")) {
    m = {true, true, true, true};
    changed = true;
  }
  if (row_checkbox("vs. none", &compare_)) {
    baseline_.reset();
    if (compare_ && server_ && m.any()) {
      // Catch up with the run on screen rather than start both again.
      retry::ServerOptions none = o;
      none.mitigations = {};
      baseline_.emplace(retry::OverloadServer::create(none).value());
      while (baseline_->elapsed() < server_->elapsed()) baseline_->run_second();
    }
  }
  row_checkbox("queue", &show_queue_);
  hint("budget: retries <= %.0f%% of first attempts", 100.0 * o.budget.ratio);

  section("Load");
  changed |= slider("arrivals (req/s)", &o.arrival_rps, 50, 5000, "%.0f");
  changed |= slider("capacity (req/s)", &o.capacity_rps, 100, 5000, "%.0f");
  changed |= log_slider("timeout (ms)", &o.timeout_ms, 5, 2000, "%.0f");
  changed |= slider_int("tries", &o.tries, 1, 10);
  changed |= slider("budget ratio", &o.budget.ratio, 0, 1, "%.2f");
  section("Trigger");
  changed |= slider("starts at (s)", &o.trigger_at_s, 1, 100, "%.0f");
  changed |= slider("lasts (s)", &o.trigger_seconds, 0, 60, "%.0f");
  changed |= slider("capacity share", &o.trigger_capacity, 0.05, 2, "%.2f");
  changed |= slider("load x", &o.trigger_load, 0, 5, "%.2f");
  changed |= slider_int("run (s)", &o.seconds, 20, 300);
  if (changed) restart_server();
  hint("seed %u", o.seed);
  cli_line(server_cli(o.mitigations),
           o.trigger_at_s == 10.0 ? nullptr : "(the CLI's trigger always starts at 10 s)");
}

void RetryPanel::draw_server_plot(const char* id, const retry::OverloadServer& server,
                                  const char* title, float height) {
  const auto& o = server_options_;
  std::vector<double> xs, offered, throughput, goodput;
  for (const auto& s : server.per_second()) {
    xs.push_back(s.second + 0.5);
    offered.push_back(static_cast<double>(s.offered));
    throughput.push_back(static_cast<double>(s.completed));
    goodput.push_back(static_cast<double>(s.goodput));
  }
  // One scale for both runs, so that the storm and its mitigation compare at a glance.
  double y_max = o.capacity_rps * std::max(1.0, o.trigger_capacity) * 1.15;
  for (const auto* run : {&*server_, baseline_ ? &*baseline_ : nullptr})
    if (run)
      for (const auto& s : run->per_second())
        y_max =
            std::max(y_max, static_cast<double>(show_offered_ ? s.offered : s.completed) * 1.05);
  // A line of headroom for the labels along the top.
  const float font = ImGui::GetFontSize();
  y_max *= 1.0 + 1.4 * font / std::max(font, height - font * 4.0f);
  const double end = o.trigger_end_s();
  const double after = end + o.settle_seconds;
  plot::Options options;
  options.legend = false;
  if (plot::begin(id, ImVec2(-1, height), {0, static_cast<double>(o.seconds), "simulated seconds"},
                  {0, y_max, title}, options)) {
    plot::rect(o.trigger_at_s, 0, end, y_max, plot::colors::with_alpha(plot::palette().red, 38));
    plot::text(o.trigger_at_s, y_max, plot::colors::with_alpha(plot::palette().red, 220), " trigger");
    // On a phone the trigger's label takes the room this one would need.
    plot::vline(screen::narrow() ? "" : "after: from here", after,
                plot::colors::with_alpha(plot::palette().grey, 150), 1.0f);
    if (show_capacity_) {
      const double cap = o.capacity_rps, low = cap * o.trigger_capacity;
      const std::vector<double> cap_x = {
          0, o.trigger_at_s, o.trigger_at_s, end, end, static_cast<double>(o.seconds)};
      const std::vector<double> cap_y = {cap, cap, low, low, cap, cap};
      plot::line("capacity", cap_x, cap_y, plot::colors::with_alpha(plot::palette().grey, 200), 1.0f);
    }
    if (show_offered_) plot::line("offered", xs, offered, plot::palette().purple, 1.5f);
    if (show_throughput_) plot::line("throughput", xs, throughput, plot::palette().blue, 2.0f);
    if (show_goodput_) plot::line("goodput", xs, goodput, plot::palette().green, 2.5f);
    if (server.elapsed() == 0)
      plot::text(o.seconds * 0.3, y_max * 0.6, plot::palette().grey,
                 "press play (or step) to run the server");
    plot::end();
  }
}

void RetryPanel::draw_server_plots() {
  if (!server_) return;
  legend_row({{"capacity", plot::palette().grey, &show_capacity_},
              {"offered (tries + retries)", plot::palette().purple, &show_offered_},
              {"throughput (served)", plot::palette().blue, &show_throughput_},
              {"goodput (in time)", plot::palette().green, &show_goodput_}});
  const float font = ImGui::GetFontSize();
  const float gap = ImGui::GetStyle().ItemSpacing.y;
  const int runs = baseline_ ? 2 : 1;
  const float row_h = ImGui::GetTextLineHeight() + ImGui::GetStyle().CellPadding.y * 2.0f;
  const float table_h = row_h * static_cast<float>(runs + 1) + gap * 2.0f + 2.0f;
  const float avail = ImGui::GetContentRegionAvail().y - table_h;
  const float queue_h = show_queue_ ? std::max(font * 7.0f, avail * 0.22f) : 0.0f;
  const float plot_h = std::max(font * 8.0f, (avail - queue_h - gap * runs) / runs);
  const std::string mine = retry::mitigations_name(server_options_.mitigations);
  char title[96];
  std::snprintf(title, sizeof title, "req/s, mitigation: %s", mine.c_str());
  draw_server_plot("server-main", *server_, title, plot_h);
  if (baseline_) draw_server_plot("server-none", *baseline_, "req/s, mitigation: none", plot_h);

  if (show_queue_) {
    std::vector<double> xs, queue, base_queue;
    double q_max = 10;
    for (const auto& s : server_->per_second()) {
      xs.push_back(s.second + 0.5);
      queue.push_back(static_cast<double>(s.queue));
      q_max = std::max(q_max, queue.back());
    }
    if (baseline_)
      for (const auto& s : baseline_->per_second()) {
        base_queue.push_back(static_cast<double>(s.queue));
        q_max = std::max(q_max, base_queue.back());
      }
    const std::string queue_title = "requests queued at the end of each second (blue: " + mine +
                                    (baseline_ ? ", red: none)" : ")");
    plot::Options options;
    options.legend = false;
    if (plot::begin("server-queue", ImVec2(-1, queue_h),
                    {0, static_cast<double>(server_options_.seconds), "simulated seconds"},
                    {0, q_max * 1.15, queue_title.c_str()}, options)) {
      const auto& o = server_options_;
      plot::rect(o.trigger_at_s, 0, o.trigger_end_s(), q_max * 1.15,
                 plot::colors::with_alpha(plot::palette().red, 38));
      const std::string label = "queue, " + mine;
      plot::line(label.c_str(), xs, queue, plot::palette().blue, 2.0f);
      if (baseline_) plot::line("queue, none", xs, base_queue, plot::palette().red, 2.0f);
      plot::end();
    }
  }

  const ImGuiTableFlags flags = ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg |
                                ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_BordersOuterH;
  if (ImGui::BeginTable("server-summary", 7, flags)) {
    for (const char* h : {"mitigation", "goodput before", "during", "after", "retries / first",
                          "wasted", "recovered"})
      ImGui::TableSetupColumn(h);
    ImGui::TableHeadersRow();
    auto row = [&](const std::string& name, const retry::OverloadServer& s) {
      const auto sum = s.summary();
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(name.c_str());
      ImGui::TableNextColumn();
      text_or_dash("%.0f", sum.goodput_before);
      ImGui::TableNextColumn();
      text_or_dash("%.0f", sum.goodput_during);
      ImGui::TableNextColumn();
      text_or_dash("%.0f", sum.goodput_after);
      ImGui::TableNextColumn();
      ImGui::Text("%.2f", sum.retry_share);
      ImGui::TableNextColumn();
      ImGui::Text("%.0f%%", 100.0 * sum.wasted_share);
      ImGui::TableNextColumn();
      if (!s.finished())
        hint("...");
      else if (sum.recovered)
        ImGui::TextColored(to_vec4(plot::palette().green), "yes");
      else
        ImGui::TextColored(to_vec4(plot::palette().red), "no");
    };
    row(mine, *server_);
    if (baseline_) row("none", *baseline_);
    ImGui::EndTable();
  }
}

// ------------------------------------------------------------------------------------- CLI

std::vector<std::string> RetryPanel::hysteresis_cli() const {
  const lab::HysteresisOptions d;
  const auto &m = hyst_.model, &dm = d.model;
  std::vector<std::string> args = {"lab", "retry", "hysteresis"};
  option(args, "lambda-min", hyst_.lambda_min, d.lambda_min);
  option(args, "lambda-max", hyst_.lambda_max, d.lambda_max);
  option(args, "step", hyst_.step, d.step);
  option(args, "timeout", m.timeout_ms, dm.timeout_ms);
  option(args, "mu-max", m.mu_max, dm.mu_max);
  option(args, "l0", m.l0_ms, dm.l0_ms);
  option(args, "alpha", m.alpha, dm.alpha);
  option(args, "beta", m.beta, dm.beta);
  option(args, "gamma", m.gamma, dm.gamma);
  option(args, "kappa", m.kappa, dm.kappa);
  option(args, "eta", m.eta, dm.eta);
  option(args, "max-latency", m.max_latency_ms, dm.max_latency_ms);
  return args;
}

std::vector<std::string> RetryPanel::chain_cli() const {
  return {"lab",
          "retry",
          "chain",
          "--depth",
          std::to_string(chain_.depth),
          "--retries",
          std::to_string(chain_.tries),
          "--fail",
          num(chain_.fail)};
}

std::vector<std::string> RetryPanel::fleet_cli() const {
  const retry::FleetOptions d;
  const auto& o = fleet_options_;
  std::vector<std::string> args = {"lab", "retry", "fleet"};
  option(args, "clients", o.clients, d.clients);
  option(args, "seconds", o.seconds, d.seconds);
  option(args, "base", o.backoff.base_s, d.backoff.base_s);
  option(args, "cap", o.backoff.cap_s, d.backoff.cap_s);
  option(args, "capacity", o.capacity_rps, d.capacity_rps);
  option(args, "seed", o.seed, d.seed);
  return args;
}

std::vector<std::string> RetryPanel::server_cli(const retry::Mitigations& mitigations) const {
  const retry::ServerOptions d;
  const auto& o = server_options_;
  std::vector<std::string> args = {"lab", "retry", "server"};
  if (mitigations.any()) {
    args.push_back("--mitigation");
    args.push_back(retry::mitigations_name(mitigations));
  }
  option(args, "trigger-seconds", o.trigger_seconds, d.trigger_seconds);
  option(args, "trigger-capacity", o.trigger_capacity, d.trigger_capacity);
  option(args, "trigger-load", o.trigger_load, d.trigger_load);
  option(args, "arrival", o.arrival_rps, d.arrival_rps);
  option(args, "capacity", o.capacity_rps, d.capacity_rps);
  option(args, "timeout", o.timeout_ms, d.timeout_ms);
  option(args, "tries", o.tries, d.tries);
  option(args, "seconds", o.seconds, d.seconds);
  option(args, "budget-ratio", o.budget.ratio, d.budget.ratio);
  option(args, "seed", o.seed, d.seed);
  return args;
}

// ----------------------------------------------------------------------------------- state

namespace {

nlohmann::json server_json(const retry::OverloadServer& s) {
  nlohmann::json j = {{"second", s.elapsed()}, {"finished", s.finished()}};
  nlohmann::json offered = nlohmann::json::array(), throughput = nlohmann::json::array(),
                 goodput = nlohmann::json::array(), queue = nlohmann::json::array();
  for (const auto& sec : s.per_second()) {
    offered.push_back(sec.offered);
    throughput.push_back(sec.completed);
    goodput.push_back(sec.goodput);
    queue.push_back(sec.queue);
  }
  j["offered"] = offered;
  j["throughput"] = throughput;
  j["goodput"] = goodput;
  j["queue"] = queue;
  if (!s.per_second().empty()) {
    const auto& last = s.per_second().back();
    j["last"] = {{"offered", last.offered},   {"throughput", last.completed},
                 {"goodput", last.goodput},   {"queue", last.queue},
                 {"retries", last.retries},   {"dropped", last.dropped},
                 {"rejected", last.rejected}, {"denied", last.denied}};
  }
  j["first_attempts"] = s.first_attempts();
  j["retries"] = s.retries();
  if (s.finished()) {
    const auto sum = s.summary();
    j["summary"] = {{"goodput_before", number_or_null(sum.goodput_before)},
                    {"goodput_during", number_or_null(sum.goodput_during)},
                    {"goodput_after", number_or_null(sum.goodput_after)},
                    {"throughput_before", number_or_null(sum.throughput_before)},
                    {"throughput_after", number_or_null(sum.throughput_after)},
                    {"retry_share", sum.retry_share},
                    {"wasted_share", sum.wasted_share},
                    {"recovered", sum.recovered}};
  }
  return j;
}

}  // namespace

nlohmann::json RetryPanel::state() const {
  nlohmann::json s = {
      {"demo", "retry"},
      {"view", kViewNames[static_cast<int>(view_)]},
      {"perf",
       {{"advance_ms", advance_ms_}, {"advance_ms_max", advance_ms_max_}, {"draw_ms", draw_ms_}}}};
  const bool scene = scene_shown();
  s["scene"] = scene ? nlohmann::json(scene_.name()) : nlohmann::json();
  s["step"] = scene ? scene_.current() : 0;
  s["beats"] = scene ? scene_.beats() : 0;
  s["caption"] = scene && scene_.started() ? scene_.caption() : "";
  s["scene_started"] = scene && scene_.started();
  s["scene_second"] = scene ? scene_seconds_ : 0;
  switch (view_) {
    case View::hysteresis: {
      const auto& m = hyst_.model;
      nlohmann::json h = {
          {"done", sweep_ && sweep_->done()},
          {"error", sweep_error_},
          {"progress", sweep_ ? static_cast<double>(sweep_->visited()) / sweep_->total() : 0.0},
          {"points", sweep_ ? sweep_->visited() : 0},
          {"total", sweep_ ? sweep_->total() : 0},
          {"compute_ms", sweep_ms_},
          {"equilibria_done", equilibria_done()},
          {"params",
           {{"timeout", m.timeout_ms},
            {"mu_max", m.mu_max},
            {"l0", m.l0_ms},
            {"alpha", m.alpha},
            {"beta", m.beta},
            {"gamma", m.gamma},
            {"kappa", m.kappa},
            {"eta", m.eta},
            {"max_latency", m.max_latency_ms},
            {"lambda_min", hyst_.lambda_min},
            {"lambda_max", hyst_.lambda_max},
            {"step", hyst_.step}}},
          {"cli", hysteresis_cli()}};
      nlohmann::json lambda = nlohmann::json::array(), latency = nlohmann::json::array(),
                     goodput = nlohmann::json::array(), up = nlohmann::json::array();
      if (sweep_) {
        h["collapse_load"] = optional_json(sweep_->result().collapse_load);
        h["recovery_load"] = optional_json(sweep_->result().recovery_load);
        for (const auto& row : sweep_->result().sweep) {
          lambda.push_back(row.lambda0);
          latency.push_back(row.latency_ms);
          goodput.push_back(row.goodput);
          up.push_back(row.up);
        }
      }
      h["sweep"] = {{"lambda0", lambda}, {"latency_ms", latency}, {"goodput", goodput}, {"up", up}};
      int stable = 0, unstable = 0;
      for (const auto& roots : equilibria_)
        for (const auto& e : roots) (e.stable ? stable : unstable) += 1;
      h["equilibria"] = {{"loads", equilibria_.size()}, {"stable", stable}, {"unstable", unstable}};
      s["hysteresis"] = h;
      break;
    }
    case View::chain: {
      int match = -1;
      for (std::size_t i = 0; i < reference_rows_.size(); ++i)
        if (const auto& c = reference_rows_[i].chain;
            c.depth == chain_.depth && c.tries == chain_.tries && c.fail == chain_.fail)
          match = static_cast<int>(i);
      s["chain"] = {{"depth", chain_.depth},
                    {"tries", chain_.tries},
                    {"fail", chain_.fail},
                    {"calls_per_request", amp_.calls_per_request},
                    {"amplification", amp_.amplification},
                    {"worst_case", amp_.worst_case},
                    {"success", amp_.success},
                    {"reference_row", match},
                    {"reference_rows", reference_rows_.size()},
                    {"cli", chain_cli()}};
      break;
    }
    case View::fleet: {
      nlohmann::json strategies = nlohmann::json::object();
      for (const auto& run : fleets_) {
        if (!run.fleet) continue;
        const auto& f = *run.fleet;
        nlohmann::json offered = nlohmann::json::array(), peak = nlohmann::json::array();
        for (const auto& sec : f.per_second()) {
          offered.push_back(sec.offered);
          peak.push_back(sec.peak_rps);
        }
        strategies[retry::backoff_name(run.strategy)] = {{"peak_rps", f.peak_rps()},
                                                         {"peak_second", f.peak_second()},
                                                         {"total_calls", f.total_calls()},
                                                         {"unfinished", f.unfinished()},
                                                         {"offered", offered},
                                                         {"peak_per_second", peak}};
      }
      const auto& o = fleet_options_;
      s["fleet"] = {{"second", fleet_second()},      {"seconds", o.seconds},
                    {"finished", fleets_finished()}, {"playing", fleet_playing_},
                    {"speed", fleet_speed_},         {"clients", o.clients},
                    {"capacity", o.capacity_rps},    {"base", o.backoff.base_s},
                    {"cap", o.backoff.cap_s},        {"seed", o.seed},
                    {"error", fleet_error_},         {"step_ms", step_ms_},
                    {"strategies", strategies},      {"cli", fleet_cli()}};
      break;
    }
    case View::server: {
      const auto& o = server_options_;
      nlohmann::json j = {{"second", server_ ? server_->elapsed() : 0},
                          {"seconds", o.seconds},
                          {"finished", server_finished()},
                          {"playing", server_playing_},
                          {"speed", server_speed_},
                          {"mitigations", retry::mitigations_name(o.mitigations)},
                          {"arrival", o.arrival_rps},
                          {"capacity", o.capacity_rps},
                          {"timeout", o.timeout_ms},
                          {"tries", o.tries},
                          {"trigger_at", o.trigger_at_s},
                          {"trigger_seconds", o.trigger_seconds},
                          {"trigger_capacity", o.trigger_capacity},
                          {"trigger_load", o.trigger_load},
                          {"budget_ratio", o.budget.ratio},
                          {"seed", o.seed},
                          {"error", server_error_},
                          {"step_ms", step_ms_},
                          {"cli", server_cli(o.mitigations)}};
      if (server_) {
        j["run"] = server_json(*server_);
        if (const auto& last = j["run"]; last.contains("last")) {
          j["goodput"] = last["last"]["goodput"];
          j["throughput"] = last["last"]["throughput"];
        }
        if (server_->finished()) j["summary"] = j["run"]["summary"];
      }
      if (baseline_) {
        j["baseline"] = server_json(*baseline_);
        j["baseline_cli"] = server_cli({});
      }
      s["server"] = j;
      break;
    }
  }
  return s;
}

}  // namespace vigil::web
