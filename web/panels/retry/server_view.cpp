#include "panels/retry/server_view.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "panels/retry/retry_ui.hpp"
#include "ui/plot.hpp"
#include "ui/screen.hpp"
#include "ui/widgets.hpp"

namespace vigil::web {

namespace {

using namespace retry_ui;
namespace param = retry::server_param;

ServerRunReadout run_readout(const retry::OverloadServer& s, const retry::ServerOptions& o) {
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
  r.wasted_share = completed > 0
                       ? static_cast<double>(completed - useful) / static_cast<double>(completed)
                       : 0.0;
  if (s.per_second().empty()) return r;
  const auto& last = s.per_second().back();
  r.offered = last.offered;
  r.retries = last.retries;
  r.throughput = last.completed;
  r.goodput = last.goodput;
  r.queue = last.queue;
  return r;
}

nlohmann::json run_json(const retry::OverloadServer& s) {
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

ServerView::ServerView(const UrlParams& p, bool open) : TimeView(p, open, kSpeed) {
  retry::ServerOptions& s = options_;
  if (auto text = p.text("mitigations") ? p.text("mitigations") : p.text("mitigation"))
    if (auto parsed = retry::parse_mitigations(*text)) s.mitigations = *parsed;
  s.arrival_rps = url_param(p, param::arrival, s.arrival_rps);
  s.trigger_at_s = url_param(p, param::trigger_at, s.trigger_at_s);
  s.trigger_seconds = url_param(p, param::trigger_seconds, s.trigger_seconds);
  s.trigger_capacity = url_param(p, param::trigger_capacity, s.trigger_capacity);
  s.trigger_load = url_param(p, param::trigger_load, s.trigger_load);
  s.budget.ratio = url_param(p, param::budget_ratio, s.budget.ratio);
  if (open) {
    s.capacity_rps = url_param(p, param::capacity, s.capacity_rps);
    s.timeout_ms = url_param(p, param::timeout, s.timeout_ms);
    s.tries = url_param(p, param::tries, s.tries);
    s.seconds = url_param(p, param::seconds, s.seconds);
    s.seed =
        static_cast<std::uint32_t>(url_param(p, retry::kSeedParam, static_cast<double>(s.seed)));
  }
  if (auto c = p.text("compare")) compare_ = *c != "0";
  if (auto q = p.text("queue")) show_queue_ = *q != "0";
  restart();
  open_at(p, open);
}

void ServerView::save(UrlParams& p, bool open) const {
  const retry::ServerOptions& s = options_;
  p.set("mitigations", retry::mitigations_name(s.mitigations));
  save_param(p, param::arrival, s.arrival_rps);
  save_param(p, param::trigger_at, s.trigger_at_s);
  save_param(p, param::trigger_seconds, s.trigger_seconds);
  save_param(p, param::trigger_capacity, s.trigger_capacity);
  save_param(p, param::trigger_load, s.trigger_load);
  save_param(p, param::budget_ratio, s.budget.ratio);
  p.set("compare", compare_ ? "1" : "0");
  p.set("queue", show_queue_ ? "1" : "0");
  if (!open) return;
  save_param(p, param::capacity, s.capacity_rps);
  save_param(p, param::timeout, s.timeout_ms);
  save_param(p, param::tries, s.tries);
  save_param(p, param::seconds, s.seconds);
  save_param(p, retry::kSeedParam, s.seed);
  save_time(p, open);
}

// ---------------------------------------------------------------------------------- the run

void ServerView::restart() {
  error_.clear();
  drop_carry();
  server_.reset();
  baseline_.reset();
  auto server = retry::OverloadServer::create(options_);
  if (!server) {
    error_ = server.error().message;
    return;
  }
  server_.emplace(std::move(server).value());
  if (compare_ && options_.mitigations.any()) {
    retry::ServerOptions none = options_;
    none.mitigations = {};
    baseline_.emplace(retry::OverloadServer::create(none).value());
  }
}

void ServerView::next_seed() {
  ++options_.seed;
  restart();
}

void ServerView::run_second() {
  if (server_) server_->run_second();
  if (baseline_) baseline_->run_second();
}

Scene ServerView::make_scene() {
  // The story's timing: the default trigger, in runs of kServerSceneRunSeconds; act 1 without
  // mitigation.
  options_.trigger_at_s = param::trigger_at.def;
  options_.trigger_seconds = param::trigger_seconds.def;
  options_.seconds = kServerSceneRunSeconds;
  options_.mitigations = {};
  restart();
  ServerSceneHooks hooks;
  hooks.read = [this] { return readout(); };
  hooks.budget_act = [this] {
    options_.mitigations = {};
    options_.mitigations.budget = true;
    compare_ = true;
    restart();
  };
  hooks.narrate = [this](std::string caption) { narrate(std::move(caption)); };
  return server_outage_scene(readout(), hooks);
}

ServerReadout ServerView::readout() const {
  const auto& o = options_;
  ServerReadout r;
  r.arrival_rps = o.arrival_rps;
  r.capacity_rps = o.capacity_rps;
  r.timeout_ms = o.timeout_ms;
  r.trigger_at_s = o.trigger_at_s;
  r.trigger_seconds = o.trigger_seconds;
  r.trigger_capacity = o.trigger_capacity;
  r.budget_ratio = o.budget.ratio;
  if (server_) r.run = run_readout(*server_, o);
  if (baseline_) {
    r.has_baseline = true;
    r.baseline = run_readout(*baseline_, o);
  }
  return r;
}

std::vector<std::string> ServerView::cli(const retry::Mitigations& mitigations) const {
  const auto& o = options_;
  std::vector<std::string> args = {"lab", "retry", "server"};
  if (mitigations.any()) {
    args.push_back("--mitigation");
    args.push_back(retry::mitigations_name(mitigations));
  }
  cli_option(args, param::trigger_at, o.trigger_at_s);
  cli_option(args, param::trigger_seconds, o.trigger_seconds);
  cli_option(args, param::trigger_capacity, o.trigger_capacity);
  cli_option(args, param::trigger_load, o.trigger_load);
  cli_option(args, param::arrival, o.arrival_rps);
  cli_option(args, param::capacity, o.capacity_rps);
  cli_option(args, param::timeout, o.timeout_ms);
  cli_option(args, param::tries, o.tries);
  cli_option(args, param::seconds, o.seconds);
  cli_option(args, param::budget_ratio, o.budget.ratio);
  cli_option(args, retry::kSeedParam, o.seed);
  return args;
}

// ---------------------------------------------------------------------------------- drawing

void ServerView::draw_controls() {
  auto& o = options_;
  ImGui::TextWrapped(
      "One queue at %.0f%% load with a %.0f ms client timeout. At %.0f s a trigger leaves %.0f%% "
      "of its capacity for %.0f s; requests time out and clients retry, and the retries keep it "
      "overloaded once the trigger is gone: throughput stays at capacity while goodput "
      "collapses (a metastable failure).",
      100.0 * o.arrival_rps / o.capacity_rps, o.timeout_ms, o.trigger_at_s,
      100.0 * o.trigger_capacity, o.trigger_seconds);
  section("Run");
  draw_play_controls();
  show_error(error_);

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
  changed |= param_slider(param::arrival, &o.arrival_rps);
  changed |= param_slider(param::capacity, &o.capacity_rps);
  changed |= param_slider(param::timeout, &o.timeout_ms);
  changed |= param_slider(param::tries, &o.tries);
  changed |= param_slider(param::budget_ratio, &o.budget.ratio);
  section("Trigger");
  changed |= param_slider(param::trigger_at, &o.trigger_at_s);
  changed |= param_slider(param::trigger_seconds, &o.trigger_seconds);
  changed |= param_slider(param::trigger_capacity, &o.trigger_capacity);
  changed |= param_slider(param::trigger_load, &o.trigger_load);
  changed |= param_slider(param::seconds, &o.seconds);
  if (changed) restart();
  hint("seed %u", o.seed);
  cli_line(cli(o.mitigations));
}

void ServerView::draw_plot(const char* id, const retry::OverloadServer& server, const char* title,
                           float height) {
  const auto& o = options_;
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
    plot::text(o.trigger_at_s, y_max, plot::colors::with_alpha(plot::palette().red, 220),
               " trigger");
    // On a phone the trigger's label takes the room this one would need.
    plot::vline(screen::narrow() ? "" : "after: from here", after,
                plot::colors::with_alpha(plot::palette().grey, 150), 1.0f);
    if (show_capacity_) {
      const double cap = o.capacity_rps, low = cap * o.trigger_capacity;
      const std::vector<double> cap_x = {
          0, o.trigger_at_s, o.trigger_at_s, end, end, static_cast<double>(o.seconds)};
      const std::vector<double> cap_y = {cap, cap, low, low, cap, cap};
      plot::line("capacity", cap_x, cap_y, plot::colors::with_alpha(plot::palette().grey, 200),
                 1.0f);
    }
    if (show_offered_) plot::line("offered", xs, offered, plot::palette().purple, 1.5f);
    if (show_throughput_) plot::line("throughput", xs, throughput, plot::palette().blue, 2.0f);
    if (show_goodput_) plot::line("goodput", xs, goodput, plot::palette().green, 2.5f);
    if (server.elapsed() == 0)
      plot::text(o.seconds * 0.3, y_max * 0.6, plot::palette().grey, "press play (or step)");
    plot::end();
  }
}

void ServerView::draw_plots() {
  if (!server_) return;
  legend_row({{"capacity", plot::palette().grey, &show_capacity_},
              {"offered (tries + retries)", plot::palette().purple, &show_offered_},
              {"throughput (served)", plot::palette().blue, &show_throughput_},
              {"goodput (in time)", plot::palette().green, &show_goodput_}});
  const float font = ImGui::GetFontSize();
  const float gap = ImGui::GetStyle().ItemSpacing.y;
  const int runs = baseline_ ? 2 : 1;
  const float row_h = ImGui::GetTextLineHeight() + ImGui::GetStyle().CellPadding.y * 2.0f;
  const float table_rows = summary_on_side() ? 7.0f : static_cast<float>(runs + 1);
  const float table_h = row_h * table_rows + gap * 2.0f + 2.0f;
  const float avail = ImGui::GetContentRegionAvail().y - table_h;
  // On a phone the page scrolls past the plots: each takes a fixed height and the box grows to
  // hold them, the legend's wrapped rows and the summary table (see plots_em).
  const bool phone = screen::narrow();
  const float queue_h =
      show_queue_ ? (phone ? font * 7.0f : std::max(font * 7.0f, avail * 0.22f)) : 0.0f;
  const float plot_h =
      phone ? font * 8.0f : std::max(font * 8.0f, (avail - queue_h - gap * runs) / runs);
  const std::string mine = retry::mitigations_name(options_.mitigations);
  char title[96];
  std::snprintf(title, sizeof title, "req/s, mitigation: %s", mine.c_str());
  draw_plot("server-main", *server_, title, plot_h);
  if (baseline_) draw_plot("server-none", *baseline_, "req/s, mitigation: none", plot_h);

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
    // A phone's plot holds about 35 characters of title: the short form there, whole.
    const std::string queue_title =
        screen::narrow() ? "queue: blue " + mine + (baseline_ ? ", red none" : "")
                         : "requests queued at the end of each second (blue: " + mine +
                               (baseline_ ? ", red: none)" : ")");
    plot::Options options;
    options.legend = false;
    if (plot::begin("server-queue", ImVec2(-1, queue_h),
                    {0, static_cast<double>(options_.seconds), "simulated seconds"},
                    {0, q_max * 1.15, queue_title.c_str()}, options)) {
      const auto& o = options_;
      plot::rect(o.trigger_at_s, 0, o.trigger_end_s(), q_max * 1.15,
                 plot::colors::with_alpha(plot::palette().red, 38));
      const std::string label = "queue, " + mine;
      plot::line(label.c_str(), xs, queue, plot::palette().blue, 2.0f);
      if (baseline_) plot::line("queue, none", xs, base_queue, plot::palette().red, 2.0f);
      plot::end();
    }
  }

  draw_summary_table(mine);
  if (phone) narrow_plots_em_ = ImGui::GetCursorPosY() / font;
}

float ServerView::plots_em() const {
  return screen::narrow() ? std::max(TimeView::plots_em(), narrow_plots_em_) : TimeView::plots_em();
}

void ServerView::draw_summary_table(const std::string& mine) {
  using Cell = void (*)(const retry::OverloadServer&);
  struct Metric {
    const char* label;
    Cell draw;
  };
  static constexpr Metric metrics[] = {
      {"goodput before", [](const auto& s) { text_or_dash("%.0f", s.summary().goodput_before); }},
      {"during", [](const auto& s) { text_or_dash("%.0f", s.summary().goodput_during); }},
      {"after", [](const auto& s) { text_or_dash("%.0f", s.summary().goodput_after); }},
      {"retries / first", [](const auto& s) { ImGui::Text("%.2f", s.summary().retry_share); }},
      {"wasted", [](const auto& s) { ImGui::Text("%.0f%%", 100.0 * s.summary().wasted_share); }},
      {"recovered",
       [](const auto& s) {
         if (!s.finished())
           hint("...");
         else if (s.summary().recovered)
           ImGui::TextColored(to_vec4(plot::palette().green), "yes");
         else
           ImGui::TextColored(to_vec4(plot::palette().red), "no");
       }},
  };
  std::vector<std::pair<std::string, const retry::OverloadServer*>> runs = {{mine, &*server_}};
  if (baseline_) runs.emplace_back("none", &*baseline_);

  const ImGuiTableFlags flags = ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg |
                                ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_BordersOuterH;
  // Seven columns need about 32 characters' width; on a phone the table turns on its side, one
  // row per figure and one column per run.
  if (!summary_on_side()) {
    if (!ImGui::BeginTable("server-summary", 1 + std::size(metrics), flags)) return;
    ImGui::TableSetupColumn("mitigation");
    for (const auto& m : metrics) ImGui::TableSetupColumn(m.label);
    ImGui::TableHeadersRow();
    for (const auto& [name, server] : runs) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(name.c_str());
      for (const auto& m : metrics) {
        ImGui::TableNextColumn();
        m.draw(*server);
      }
    }
  } else {
    if (!ImGui::BeginTable("server-summary", 1 + static_cast<int>(runs.size()), flags)) return;
    ImGui::TableSetupColumn("mitigation");
    for (const auto& run : runs) ImGui::TableSetupColumn(run.first.c_str());
    ImGui::TableHeadersRow();
    for (const auto& m : metrics) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(m.label);
      for (const auto& run : runs) {
        ImGui::TableNextColumn();
        m.draw(*run.second);
      }
    }
  }
  ImGui::EndTable();
}

bool ServerView::summary_on_side() const {
  return ImGui::GetContentRegionAvail().x < ImGui::GetFontSize() * 32.0f;
}
// ------------------------------------------------------------------------------------ state

void ServerView::state(nlohmann::json& s) const {
  const auto& o = options_;
  nlohmann::json j = {{"mitigations", retry::mitigations_name(o.mitigations)},
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
                      {"error", error_},
                      {"cli", cli(o.mitigations)}};
  state_time(j, s);
  if (server_) {
    j["run"] = run_json(*server_);
    if (const auto& last = j["run"]; last.contains("last")) {
      j["goodput"] = last["last"]["goodput"];
      j["throughput"] = last["last"]["throughput"];
    }
    if (server_->finished()) j["summary"] = j["run"]["summary"];
  }
  if (baseline_) {
    j["baseline"] = run_json(*baseline_);
    j["baseline_cli"] = cli({});
  }
  s["server"] = j;
}

}  // namespace vigil::web
