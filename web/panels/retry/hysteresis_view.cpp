#include "panels/retry/hysteresis_view.hpp"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "panels/retry/retry_ui.hpp"
#include "ui/plot.hpp"
#include "ui/widgets.hpp"

namespace vigil::web {

namespace {

using namespace retry_ui;
namespace param = retry::hysteresis_param;

// The sweep works in slices of RK4 steps: a simulated second at the defaults (1,000 steps), a
// millisecond or two of a stiff model's.
constexpr int kStepsPerSlice = 2000;

ImU32 up_color() {
  return plot::palette().blue;
}
ImU32 down_color() {
  return plot::palette().orange;
}
ImU32 collapse_color() {
  return plot::palette().red;
}
ImU32 recovery_color() {
  return plot::palette().green;
}
ImU32 stable_color() {
  return plot::colors::with_alpha(plot::palette().ink, 200);
}
ImU32 unstable_color() {
  return plot::palette().yellow;
}

}  // namespace

HysteresisView::HysteresisView(const UrlParams& p, bool open) {
  retry::HysteresisModel& m = options_.model;
  if (open) m.timeout_ms = url_param(p, param::timeout, m.timeout_ms);
  m.mu_max = url_param(p, param::mu_max, m.mu_max);
  m.l0_ms = url_param(p, param::l0, m.l0_ms);
  m.alpha = url_param(p, param::alpha, m.alpha);
  m.beta = url_param(p, param::beta, m.beta);
  m.gamma = url_param(p, param::gamma, m.gamma);
  m.kappa = url_param(p, param::kappa, m.kappa);
  m.eta = url_param(p, param::eta, m.eta);
  m.max_latency_ms = url_param(p, param::max_latency, m.max_latency_ms);
  options_.lambda_min = url_param(p, param::lambda_min, options_.lambda_min);
  options_.lambda_max = url_param(p, param::lambda_max, options_.lambda_max);
  options_.step = url_param(p, param::step, options_.step);
  show_equilibria_ = p.text("equilibria").value_or("1") != "0";
  restart();
}

void HysteresisView::save(UrlParams& p, bool open) const {
  const retry::HysteresisModel& m = options_.model;
  save_param(p, param::mu_max, m.mu_max);
  save_param(p, param::l0, m.l0_ms);
  save_param(p, param::alpha, m.alpha);
  save_param(p, param::beta, m.beta);
  save_param(p, param::gamma, m.gamma);
  save_param(p, param::kappa, m.kappa);
  save_param(p, param::eta, m.eta);
  save_param(p, param::max_latency, m.max_latency_ms);
  save_param(p, param::lambda_min, options_.lambda_min);
  save_param(p, param::lambda_max, options_.lambda_max);
  save_param(p, param::step, options_.step);
  p.set("equilibria", show_equilibria_ ? "1" : "0");
  if (open) save_param(p, param::timeout, m.timeout_ms);
}

// -------------------------------------------------------------------------------- the sweep

void HysteresisView::restart() {
  sweep_.reset();
  error_.clear();
  equilibria_.clear();
  compute_ms_ = 0;
  auto sweep = lab::HysteresisSweep::create(options_);
  if (!sweep) {
    error_ = sweep.error().message;
    return;
  }
  sweep_.emplace(std::move(sweep).value());
}

bool HysteresisView::equilibria_done() const {
  return !sweep_ || !show_equilibria_ || equilibria_.size() >= sweep_->loads().size();
}

bool HysteresisView::animating() const {
  return sweep_ && !(sweep_->done() && equilibria_done());
}

void HysteresisView::advance(double) {
  if (!sweep_ || (sweep_->done() && equilibria_done())) return;
  const auto start = std::chrono::steady_clock::now();
  double slowest = 0;  // the longest piece of work so far: do not start one that would overrun
  do {
    const auto piece = std::chrono::steady_clock::now();
    if (!sweep_->done()) {
      sweep_->step(kStepsPerSlice);
    } else if (!equilibria_done()) {
      // Once the sweep is drawn: the roots of offered = carried at each load of the grid.
      equilibria_.push_back(retry::equilibria(options_.model, sweep_->loads()[equilibria_.size()]));
    } else {
      break;
    }
    slowest = std::max(slowest, ms_since(piece));
  } while (ms_since(start) + slowest < kBudgetMs);
  compute_ms_ += ms_since(start);
}

std::vector<std::string> HysteresisView::cli() const {
  const auto& m = options_.model;
  std::vector<std::string> args = {"lab", "retry", "hysteresis"};
  cli_option(args, param::lambda_min, options_.lambda_min);
  cli_option(args, param::lambda_max, options_.lambda_max);
  cli_option(args, param::step, options_.step);
  cli_option(args, param::timeout, m.timeout_ms);
  cli_option(args, param::mu_max, m.mu_max);
  cli_option(args, param::l0, m.l0_ms);
  cli_option(args, param::alpha, m.alpha);
  cli_option(args, param::beta, m.beta);
  cli_option(args, param::gamma, m.gamma);
  cli_option(args, param::kappa, m.kappa);
  cli_option(args, param::eta, m.eta);
  cli_option(args, param::max_latency, m.max_latency_ms);
  return args;
}

// ---------------------------------------------------------------------------------- drawing

void HysteresisView::draw_controls() {
  ImGui::TextWrapped(
      "A fluid model of a retry storm: the offered load is raised step by step, then lowered "
      "again; at "
      "each load latency settles from where the previous one left it. Past the timeout clients "
      "retry (load x (1 + gamma)), which keeps latency up: the storm outlives the load that "
      "started it.");
  section("Result");
  show_error(error_);
  if (error_.empty() && sweep_) {
    const auto& r = sweep_->result();
    char overlay[64];
    if (sweep_->done())
      std::snprintf(overlay, sizeof overlay, "%d loads settled in %.0f ms", sweep_->total(),
                    compute_ms_);
    else
      std::snprintf(overlay, sizeof overlay, "settling load %d of %d", sweep_->visited() + 1,
                    sweep_->total());
    ImGui::ProgressBar(static_cast<float>(sweep_->visited()) / sweep_->total(), ImVec2(-1, 0),
                       overlay);
    const bool defaults = cli().size() == 3;  // the model's defaults, nothing changed
    if (r.collapse_load)
      ImGui::TextColored(to_vec4(collapse_color()), "collapse at %.0f req/s", *r.collapse_load);
    else
      hint(sweep_->done() ? "no collapse in this range" : "collapse: ...");
    if (defaults) {
      ImGui::SameLine();
      hint("(expected ~950)");
    }
    if (r.recovery_load)
      ImGui::TextColored(to_vec4(recovery_color()), "recovery at %.0f req/s", *r.recovery_load);
    else
      hint(sweep_->done() ? "no recovery in this range" : "recovery: ...");
    if (defaults) {
      ImGui::SameLine();
      hint("(expected ~320)");
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
  retry::HysteresisModel& m = options_.model;
  bool changed = false;
  for (auto [spec, field] :
       {std::pair{param::timeout, &m.timeout_ms}, std::pair{param::mu_max, &m.mu_max},
        std::pair{param::l0, &m.l0_ms}, std::pair{param::alpha, &m.alpha},
        std::pair{param::beta, &m.beta}, std::pair{param::gamma, &m.gamma},
        std::pair{param::kappa, &m.kappa}, std::pair{param::eta, &m.eta},
        std::pair{param::max_latency, &m.max_latency_ms}})
    changed |= param_slider(spec, field);
  section("Sweep");
  changed |= param_slider(param::lambda_min, &options_.lambda_min);
  changed |= param_slider(param::lambda_max, &options_.lambda_max);
  changed |= param_slider(param::step, &options_.step);
  ImGui::Checkbox("equilibria (roots of offered = carried)", &show_equilibria_);
  if (button("defaults")) {
    options_ = {};
    changed = true;
  }
  if (changed) restart();
  cli_line(cli());
}

void HysteresisView::draw_plots() {
  legend_row({{"load going up", up_color(), &show_up_},
              {"load going down", down_color(), &show_down_},
              {"stable equilibrium", stable_color(), &show_stable_},
              {"unstable equilibrium", unstable_color(), &show_unstable_}});
  const float h = ImGui::GetContentRegionAvail().y;
  const float gap = ImGui::GetStyle().ItemSpacing.y;
  const auto& m = options_.model;
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
  const double x_max = options_.lambda_max + options_.step;
  const double x_min = std::max(0.0, options_.lambda_min - options_.step);
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
      marker(sweep_->load(), goodput ? m.goodput(l) : l, plot::palette().yellow, true,
             font * 0.35f);
    }
  };

  char collapse_label[48] = "", recovery_label[48] = "";
  if (collapse) std::snprintf(collapse_label, sizeof collapse_label, "collapse %.0f", *collapse);
  if (recovery) std::snprintf(recovery_label, sizeof recovery_label, "recovery %.0f", *recovery);

  plot::Options options;
  options.legend = false;
  // A phone's plot holds about 35 characters of title: the short form there, whole.
  plot::Axis x{x_min, x_max,
               screen::narrow() ? "offered load lambda0 (req/s)"
                                : "offered load lambda0 (req/s of first attempts)"};
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
    plot::hline("queue limit", m.max_latency_ms,
                plot::colors::with_alpha(plot::palette().grey, 110), 1.0f);
    if (collapse) plot::vline("", *collapse, collapse_color(), 1.5f);
    if (recovery) plot::vline("", *recovery, recovery_color(), 1.5f);
    curves(up_lat, down_lat, false);
    plot::end();
  }
}

// ------------------------------------------------------------------------------------ state

void HysteresisView::state(nlohmann::json& s) const {
  const auto& m = options_.model;
  nlohmann::json h = {
      {"done", sweep_ && sweep_->done()},
      {"error", error_},
      {"progress", sweep_ ? static_cast<double>(sweep_->visited()) / sweep_->total() : 0.0},
      {"points", sweep_ ? sweep_->visited() : 0},
      {"total", sweep_ ? sweep_->total() : 0},
      {"compute_ms", compute_ms_},
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
        {"lambda_min", options_.lambda_min},
        {"lambda_max", options_.lambda_max},
        {"step", options_.step}}},
      {"cli", cli()}};
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
}

}  // namespace vigil::web
