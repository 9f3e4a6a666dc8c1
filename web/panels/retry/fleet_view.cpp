#include "panels/retry/fleet_view.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "panels/retry/retry_ui.hpp"
#include "ui/plot.hpp"
#include "ui/widgets.hpp"

namespace vigil::web {

namespace {

using namespace retry_ui;
namespace param = retry::fleet_param;

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

}  // namespace

FleetView::FleetView(const UrlParams& p, bool open) : TimeView(p, open, kSpeed) {
  retry::FleetOptions& o = options_;
  o.clients = url_param(p, param::clients, o.clients);
  o.backoff.base_s = url_param(p, param::base, o.backoff.base_s);
  o.backoff.cap_s = url_param(p, param::cap, o.backoff.cap_s);
  if (open) {
    o.seconds = url_param(p, param::seconds, o.seconds);
    o.capacity_rps = url_param(p, param::capacity, o.capacity_rps);
    o.seed =
        static_cast<std::uint32_t>(url_param(p, retry::kSeedParam, static_cast<double>(o.seed)));
  }
  for (std::size_t i = 0; i < kStrategies; ++i) runs_[i].strategy = kStrategyOrder[i];
  if (auto list = p.text("strategies")) {
    for (auto& run : runs_)
      run.shown = ("," + *list + ",").find("," + retry::backoff_name(run.strategy) + ",") !=
                  std::string::npos;
  }
  const std::string metric = p.text("metric").value_or("rate");
  metric_ = metric == "peak" ? 1 : metric == "waiting" ? 2 : 0;
  if (auto log = p.text("log")) log_ = *log != "0";
  restart();
  open_at(p, open);
}

void FleetView::save(UrlParams& p, bool open) const {
  save_param(p, param::clients, options_.clients);
  save_param(p, param::base, options_.backoff.base_s);
  save_param(p, param::cap, options_.backoff.cap_s);
  std::string shown;
  for (const auto& run : runs_)
    if (run.shown) shown += (shown.empty() ? "" : ",") + retry::backoff_name(run.strategy);
  p.set("strategies", shown);
  p.set("metric", metric_ == 1 ? "peak" : metric_ == 2 ? "waiting" : "rate");
  p.set("log", log_ ? "1" : "0");
  if (!open) return;
  save_param(p, param::seconds, options_.seconds);
  save_param(p, param::capacity, options_.capacity_rps);
  save_param(p, retry::kSeedParam, options_.seed);
  save_time(p, open);
}

// ---------------------------------------------------------------------------------- the run

void FleetView::restart() {
  error_.clear();
  drop_carry();
  for (auto& run : runs_) {
    run.fleet.reset();
    retry::FleetOptions o = options_;
    o.backoff.strategy = run.strategy;
    auto fleet = retry::Fleet::create(o);
    if (!fleet) {
      error_ = fleet.error().message;
      for (auto& r : runs_) r.fleet.reset();
      return;
    }
    run.fleet.emplace(std::move(fleet).value());
  }
}

void FleetView::next_seed() {
  ++options_.seed;
  restart();
}

void FleetView::run_second() {
  for (auto& run : runs_)
    if (run.fleet) run.fleet->run_second();
}

bool FleetView::finished() const {
  for (const auto& run : runs_)
    if (run.fleet && !run.fleet->finished()) return false;
  return true;
}

int FleetView::second() const {
  int second = 0;
  for (const auto& run : runs_)
    if (run.fleet) second = std::max(second, run.fleet->elapsed());
  return second;
}

Scene FleetView::make_scene() {
  restart();
  FleetSceneHooks hooks;
  hooks.read = [this] { return readout(); };
  hooks.show_three = [this] {
    for (auto& run : runs_)
      run.shown = run.strategy == retry::BackoffStrategy::none ||
                  run.strategy == retry::BackoffStrategy::exponential ||
                  run.strategy == retry::BackoffStrategy::full_jitter;
  };
  hooks.narrate = [this](std::string caption) { narrate(std::move(caption)); };
  return fleet_outage_scene(readout(), hooks);
}

FleetReadout FleetView::readout() const {
  FleetReadout r;
  r.clients = options_.clients;
  r.capacity_rps = options_.capacity_rps;
  for (const auto& run : runs_) {
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

std::vector<std::string> FleetView::cli() const {
  const auto& o = options_;
  std::vector<std::string> args = {"lab", "retry", "fleet"};
  cli_option(args, param::clients, o.clients);
  cli_option(args, param::seconds, o.seconds);
  cli_option(args, param::base, o.backoff.base_s);
  cli_option(args, param::cap, o.backoff.cap_s);
  cli_option(args, param::capacity, o.capacity_rps);
  cli_option(args, retry::kSeedParam, o.seed);
  return args;
}

// ---------------------------------------------------------------------------------- drawing

void FleetView::draw_controls() {
  ImGui::TextWrapped(
      "%d clients all fail at t = 0 and retry against a server that is "
      "back with %.0f req/s, one fleet per backoff strategy (Brooker, 2015). Synchronised retries "
      "arrive together and find room for a few; jitter spreads them out.",
      options_.clients, options_.capacity_rps);
  section("Run");
  draw_play_controls();
  show_error(error_);

  section("Plot");
  ImGui::RadioButton("calls / s", &metric_, 0);
  row_radio("peak 100 ms", &metric_, 1);
  row_radio("waiting", &metric_, 2);
  ImGui::Checkbox("log scale", &log_);

  section("Fleet");
  bool changed = false;
  retry::FleetOptions& o = options_;
  changed |= param_slider(param::clients, &o.clients);
  changed |= param_slider(param::capacity, &o.capacity_rps);
  changed |= param_slider(param::base, &o.backoff.base_s);
  changed |= param_slider(param::cap, &o.backoff.cap_s);
  changed |= param_slider(param::seconds, &o.seconds);
  if (changed) restart();
  hint("seed %u", o.seed);
  cli_line(cli(), "add --strategy NAME for each strategy; --format json for every number");
}

namespace {

// A strategy's results in a few words, for a phone: five columns do not fit one.
std::string results_line(double peak_rps, int peak_second, long long calls, long long waiting) {
  char line[200];
  std::snprintf(line, sizeof line,
                "peak %.0f req/s (busiest 100 ms) at %d s; %lld calls, first tries included; "
                "%lld clients still waiting",
                peak_rps, std::max(0, peak_second), calls, waiting);
  return line;
}
std::string results_line(const retry::Fleet& f) {
  return results_line(f.peak_rps(), f.peak_second(), static_cast<long long>(f.total_calls()),
                      static_cast<long long>(f.unfinished()));
}

}  // namespace

// On a phone the results read as a name and a wrapped line per strategy, under a plot of 16
// font heights: the plots' box grows to hold them all.
float FleetView::plots_em() const {
  if (!screen::narrow()) return TimeView::plots_em();
  const float font = ImGui::GetFontSize();
  const ImGuiStyle& style = ImGui::GetStyle();
  const float wrap = ImGui::GetContentRegionAvail().x - style.IndentSpacing;
  // Measured on the widest figures a run could reach, not this second's: a box that grew as the
  // figures did would move the controls under a reader's finger.
  const long long clients = static_cast<long long>(options_.clients);
  const std::string widest = results_line(9999999.0, 99, clients * 9999, clients);
  const float per_run = ImGui::GetTextLineHeight() + style.ItemSpacing.y * 2.0f +
                        ImGui::CalcTextSize(widest.c_str(), nullptr, false, wrap).y;
  const float results = per_run * static_cast<float>(std::size(runs_));
  // The legend's rows above the plot, and its axis' labels.
  const float legend = ImGui::GetTextLineHeightWithSpacing() * 3.0f;
  return std::max(TimeView::plots_em(), (font * 16.0f + legend + results) / font + 1.0f);
}

void FleetView::draw_plots() {
  const float font = ImGui::GetFontSize();
  legend_row({{"none", strategy_color(runs_[0].strategy), &runs_[0].shown},
              {"fixed", strategy_color(runs_[1].strategy), &runs_[1].shown},
              {"exponential", strategy_color(runs_[2].strategy), &runs_[2].shown},
              {"full-jitter", strategy_color(runs_[3].strategy), &runs_[3].shown},
              {"equal-jitter", strategy_color(runs_[4].strategy), &runs_[4].shown},
              {"decorrelated", strategy_color(runs_[5].strategy), &runs_[5].shown}});
  const float row_h = ImGui::GetTextLineHeight() + ImGui::GetStyle().CellPadding.y * 2.0f;
  const float table_h = row_h * 7.0f + ImGui::GetStyle().ItemSpacing.y * 2.0f + 2.0f;
  const float h = screen::narrow()
                      ? font * 16.0f
                      : std::max(font * 8.0f, ImGui::GetContentRegionAvail().y - table_h);
  const double seconds = options_.seconds;
  const double capacity = options_.capacity_rps;
  double y_max = metric_ == 2 ? 1.0 : capacity;
  for (const auto& run : runs_)
    if (run.fleet && run.shown)
      for (const auto& s : run.fleet->per_second())
        y_max = std::max(y_max, metric_ == 0   ? static_cast<double>(s.offered)
                                : metric_ == 1 ? s.peak_rps
                                               : static_cast<double>(s.waiting));
  // A phone's plot holds about 35 characters of title: the short forms there, whole.
  const char* titles[] = {screen::narrow() ? "calls/s reaching the server"
                                           : "retries reaching the server per second (calls/s)",
                          screen::narrow() ? "busiest 100 ms each second (req/s)"
                                           : "busiest 100 ms of each second, as req/s",
                          "clients still without an answer"};
  plot::Axis y{0, y_max * 1.12, titles[metric_]};
  if (log_) y = {1, y_max * 3.0, titles[metric_], true};
  plot::Options options;
  options.legend = false;
  if (plot::begin("fleet-plot", ImVec2(-1, h), {0, seconds, "seconds after the outage"}, y,
                  options)) {
    if (metric_ != 2) {
      char label[48];
      std::snprintf(label, sizeof label, "capacity %.0f req/s", capacity);
      plot::hline("", capacity, plot::colors::with_alpha(plot::palette().grey, 200), 1.0f);
      const ImVec2 at = plot::to_screen(seconds, capacity);
      const ImVec2 size = ImGui::CalcTextSize(label);
      plot::put_text(ImGui::GetWindowDrawList(), ImVec2(at.x - size.x - 4, at.y + 2),
                     plot::palette().grey, label);
    }
    for (const auto& run : runs_) {
      if (!run.fleet || !run.shown) continue;
      std::vector<double> xs, ys;
      for (const auto& s : run.fleet->per_second()) {
        const double v = metric_ == 0   ? static_cast<double>(s.offered)
                         : metric_ == 1 ? s.peak_rps
                                        : static_cast<double>(s.waiting);
        xs.push_back(s.second + 0.5);
        ys.push_back(log_ ? log_floor(v, y.min) : v);
      }
      plot::line(retry::backoff_name(run.strategy).c_str(), xs, ys, strategy_color(run.strategy),
                 2.0f);
    }
    if (second() == 0)
      plot::text(seconds * 0.3, log_ ? std::sqrt(y.max) : y.max * 0.6, plot::palette().grey,
                 "press play (or step) to run the fleets");
    plot::end();
  }

  const ImGuiTableFlags flags = ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg |
                                ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_BordersOuterH;
  if (screen::narrow()) {
    // Five columns do not fit a phone: their headings were cut and their numbers broken across
    // lines. A few words per strategy instead, each figure named.
    for (const auto& run : runs_) {
      if (!run.fleet) continue;
      const auto& f = *run.fleet;
      const ImU32 color = strategy_color(run.strategy);
      ImGui::TextColored(to_vec4(run.shown ? color : plot::colors::with_alpha(color, 110)), "%s",
                         retry::backoff_name(run.strategy).c_str());
      ImGui::Indent();
      ImGui::TextWrapped("%s", results_line(f).c_str());
      ImGui::Unindent();
    }
  } else if (ImGui::BeginTable("fleet-table", 5, flags)) {
    for (const char* h2 :
         {"strategy", "peak req/s (100 ms)", "peak at (s)", "calls", "still waiting"})
      ImGui::TableSetupColumn(h2);
    ImGui::TableHeadersRow();
    for (const auto& run : runs_) {
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

// ------------------------------------------------------------------------------------ state

void FleetView::state(nlohmann::json& s) const {
  nlohmann::json strategies = nlohmann::json::object();
  for (const auto& run : runs_) {
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
  const auto& o = options_;
  nlohmann::json j = {{"clients", o.clients},     {"capacity", o.capacity_rps},
                      {"base", o.backoff.base_s}, {"cap", o.backoff.cap_s},
                      {"seed", o.seed},           {"error", error_},
                      {"strategies", strategies}, {"cli", cli()}};
  state_time(j, s);
  s["fleet"] = j;
}

}  // namespace vigil::web
