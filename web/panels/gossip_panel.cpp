#include "panels/gossip_panel.hpp"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>

#include <vigil/gossip/theory.hpp>
#include "panels/panel_layout.hpp"
#include "panels/param_ui.hpp"
#include "panels/param_url.hpp"
#include "ui/widgets.hpp"

namespace vigil::web {

namespace {

constexpr gossip::Mode kModes[] = {gossip::Mode::push, gossip::Mode::pull, gossip::Mode::push_pull};
constexpr const char* kModeLabels[] = {"push", "pull", "push-pull"};

namespace spread = gossip::spread_param;
namespace membership = gossip::membership_param;

// How fast the page plays, a knob of the page alone.
constexpr ParamSpec kRate{.key = "rate",
                          .label = "rounds / s",
                          .unit = "rounds/s",
                          .help = "rounds played per second",
                          .def = 2,
                          .min = 0.25,
                          .max = 30,
                          .view_min = 0.25,
                          .view_max = 30,
                          .digits = 2};
constexpr int kTheoryHorizon = 100'000;
// A background tab gets no frames; on return, play on rather than replay the lost seconds.
constexpr double kMaxFrameMs = 250;
constexpr double kStepBudgetMs = 8;  // rounds run in one frame while playing, at least one
// The heat map calls back once per drawn cell per frame: beyond this many a side, draw blocks.
constexpr int kMaxImageSide = 256;
// Blocks at least this wide on screen, so the plot never merges them again by its own rule.
constexpr float kMinBlockPx = 2.5f;
// A block still waiting for news shows at most this much of its colour: fully lit means done.
constexpr double kPartialLight = 0.6;
constexpr double kMembershipBudgetMs = 25;

// Heat map ranks: a block of tiny cells shows its highest, so the stragglers stand out.
constexpr int kEmptyRank = -1;  // grid positions past the last member
constexpr int kDeadRank = INT_MAX - 1;
constexpr int kUninformedRank = INT_MAX;

ImU32 uninformed_color() {
  return plot::palette().unknown;
}
ImU32 dead_color() {
  return plot::palette().dead;
}

// Early rounds bright and warm, late ones cool and dark, so the last to learn read as "late"
// without being mistaken for the uninformed grey or the dead red.
ImU32 mix(ImU32 a, ImU32 b, double t) {
  auto channel = [&](int shift) {
    const double x = ((a >> shift) & 0xFF) + (((b >> shift) & 0xFF) - ((a >> shift) & 0xFF)) * t;
    return static_cast<ImU32>(std::lround(x)) << shift;
  };
  return channel(IM_COL32_R_SHIFT) | channel(IM_COL32_G_SHIFT) | channel(IM_COL32_B_SHIFT) |
         (0xFFu << IM_COL32_A_SHIFT);
}

ImU32 ramp(double t) {
  static constexpr float kStops[][3] = {
      {253, 231, 80}, {140, 210, 90}, {40, 170, 150}, {50, 110, 200}, {130, 70, 200}};
  constexpr int kLast = 4;
  t = std::clamp(t, 0.0, 1.0) * kLast;
  const int i = std::min(kLast - 1, static_cast<int>(t));
  const float f = static_cast<float>(t - i);
  auto between = [&](int c) {
    return static_cast<int>(std::lround(kStops[i][c] + (kStops[i + 1][c] - kStops[i][c]) * f));
  };
  return IM_COL32(between(0), between(1), between(2), 255);
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

ImVec4 to_vec4(ImU32 c) {
  return ImGui::ColorConvertU32ToFloat4(c);
}

}  // namespace

GossipPanel::GossipPanel(const UrlParams& params) : rate_(url_param(params, kRate)) {
  nodes_ = url_param(params, spread::nodes, nodes_);
  fanout_ = url_param(params, spread::fanout, fanout_);
  if (auto m = params.text("mode"))
    if (auto parsed = gossip::parse_mode(*m))
      mode_ = static_cast<int>(std::find(std::begin(kModes), std::end(kModes), parsed.value()) -
                               std::begin(kModes));
  loss_ = url_param(params, spread::loss, loss_);
  dead_ = url_param(params, spread::dead, dead_);  // restart() keeps it below nodes_
  seed_ = static_cast<std::uint32_t>(url_param(params, spread::seed, static_cast<double>(seed_)));
  playing_ = params.flag("autoplay") && screen::autoplay_allowed();
  log_tail_ = params.flag("log");
  if (params.text("view").value_or("spread") == "membership") view_ = View::membership;
  // One n for both views, capped to the membership view's slider.
  if (params.text(std::string(membership::nodes.url_key())))
    members_ = std::clamp(nodes_, static_cast<int>(membership::nodes.view_min),
                          static_cast<int>(membership::nodes.view_max));
  trials_ = url_param(params, membership::trials, trials_);
  watched_ = url_param(params, membership::rounds, watched_);
  selected_tfail_ = url_param(params, membership::t_fail, selected_tfail_);
  restart();
  // &round=k opens k rounds in (any k past the end: finished), for pages that embed a moment.
  const double start_round = params.number("round", 0, 0, 1e9);
  if (start_round > 0) step_rounds(static_cast<int>(std::min<double>(start_round, run_->cap())));
}

bool GossipPanel::animating() const {
  if (view_ == View::membership)
    return !editing_ && membership_.size() < kTfails && membership_error_.empty();
  return playing_ && !run_->done();
}

void GossipPanel::save(UrlParams& p) const {
  const bool membership = view_ == View::membership;
  p.set("view", membership ? "membership" : "spread");
  // One n for both views, as the constructor reads it.
  save_param(p, spread::nodes, membership ? members_ : nodes_);
  save_param(p, spread::fanout, fanout_);
  p.set("mode", gossip::mode_name(kModes[mode_]));
  save_param(p, spread::loss, loss_);
  save_param(p, spread::dead, dead_);
  save_param(p, spread::seed, seed_);
  save_param(p, kRate, rate_);
  p.set_flag("autoplay", playing_);
  p.set_flag("log", log_tail_);
  save_param(p, membership::trials, trials_);
  save_param(p, membership::rounds, watched_);
  save_param(p, membership::t_fail, selected_tfail_);
  if (run_->round() > 0)
    p.set("round", static_cast<double>(run_->round()));
  else
    p.erase("round");
}

gossip::SpreadOptions GossipPanel::spread_options() const {
  gossip::SpreadOptions o;
  o.nodes = static_cast<std::size_t>(nodes_);
  o.fanout = fanout_;
  o.mode = kModes[mode_];
  o.loss = loss_;
  o.dead = static_cast<std::size_t>(dead_);
  return o;
}

void GossipPanel::restart() {
  dead_ = std::clamp(dead_, 0, nodes_ - 1);
  const gossip::SpreadOptions o = spread_options();
  // Sliders keep every option in range, so creation cannot fail.
  run_ = gossip::SpreadRun::create(o, Rng(seed_)).value();
  carry_ = 0;

  const double live = static_cast<double>(nodes_ - dead_);
  theory_.clear();
  for (double informed : gossip::mean_field_curve(o, kTheoryHorizon))
    theory_.push_back(informed / live);
  theory_rounds_ = gossip::mean_field_rounds(o, kTheoryHorizon);
  pittel_rounds_.reset();
  if (o.mode == gossip::Mode::push && live > 1) {
    // As the lab's gossip experiment: only pushes that arrive at a live member count.
    const double effective = fanout_ * (1.0 - o.loss) * (live - 1.0) / (nodes_ - 1.0);
    pittel_rounds_ = gossip::pittel_rounds(live, effective);
  }

  cols_ = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(nodes_))));
  rows_ = (nodes_ + cols_ - 1) / cols_;
  // draw_grid() refines the block size once it knows the plot's size in pixels.
  set_block((std::max(cols_, rows_) + kMaxImageSide - 1) / kMaxImageSide);
  after_step();
}

void GossipPanel::set_block(int block) {
  block_ = std::max(1, block);
  image_cols_ = (cols_ + block_ - 1) / block_;
  image_rows_ = (rows_ + block_ - 1) / block_;
}

int GossipPanel::step_rounds(int rounds, double budget_ms) {
  const auto start = std::chrono::steady_clock::now();
  int ran = 0;
  while (ran < rounds && run_->step()) {
    ++ran;
    if (ms_since(start) > budget_ms) break;
  }
  if (ran == 0) return 0;
  step_ms_ = ms_since(start) / ran;
  after_step();
  return ran;
}

void GossipPanel::after_step() {
  const double live = static_cast<double>(run_->live());
  measured_.clear();
  for (std::uint32_t informed : run_->informed_by_round()) measured_.push_back(informed / live);
  colour_rounds_ = std::max({1, run_->round(), static_cast<int>(std::ceil(theory_rounds_))});
  const std::size_t axis = std::max(theory_.size(), measured_.size()) + 2;
  while (round_axis_.size() < axis) round_axis_.push_back(static_cast<double>(round_axis_.size()));
  rebuild_image();
}

ImU32 GossipPanel::rank_color(int rank) const {
  if (rank == kEmptyRank) return 0;
  if (rank == kUninformedRank) return uninformed_color();
  if (rank == kDeadRank) return dead_color();
  return ramp(static_cast<double>(rank) / colour_rounds_);
}

void GossipPanel::rebuild_image() {
  const auto start = std::chrono::steady_clock::now();
  blocks_.assign(static_cast<std::size_t>(image_cols_) * image_rows_, Block{});
  const auto learned = run_->learned_rounds();
  const std::size_t n = learned.size(), live = run_->live();
  std::size_t i = 0;
  for (int r = 0; r < rows_ && i < n; ++r) {
    Block* block_row = &blocks_[static_cast<std::size_t>(r / block_) * image_cols_];
    for (int c = 0; c < cols_ && i < n; ++c, ++i) {
      Block& b = block_row[c / block_];
      if (i >= live) {
        ++b.dead;
        continue;
      }
      ++b.live;
      if (learned[i] == gossip::SpreadRun::kNever) continue;
      ++b.informed;
      b.latest = std::max(b.latest, static_cast<int>(learned[i]));
    }
  }
  image_.resize(blocks_.size());
  for (std::size_t k = 0; k < blocks_.size(); ++k) {
    const Block& b = blocks_[k];
    plot::HeatCell& cell = image_[k];
    if (b.live == 0) {
      cell = b.dead ? plot::HeatCell{dead_color(), kDeadRank} : plot::HeatCell{0, kEmptyRank};
    } else if (b.informed == b.live) {
      cell = {rank_color(b.latest), b.latest};
    } else {
      // Partly lit by the share that knows, never fully, so a block holding a straggler stays
      // visibly darker than its finished neighbours.
      const double lit = b.informed == 0 ? 0.0 : kPartialLight * b.informed / b.live;
      cell = {mix(uninformed_color(), rank_color(std::max(b.latest, 0)), lit), kUninformedRank};
    }
  }
  image_ms_ = ms_since(start);
}

plot::HeatCell GossipPanel::heat_cell(int row, int col, void* self) {
  const auto* panel = static_cast<const GossipPanel*>(self);
  return panel->image_[static_cast<std::size_t>(row) * panel->image_cols_ + col];
}

// ------------------------------------------------------------------------------ membership

void GossipPanel::invalidate_membership() {
  membership_.clear();
  membership_error_.clear();
  membership_ms_ = 0;
}

void GossipPanel::compute_membership(double budget_ms) {
  // One T_fail per call of run_membership: its trial t draws from Rng(seed).fork(t) whatever the
  // other T_fail values, so the rows equal `vigil lab membership` with the whole list.
  const auto start = std::chrono::steady_clock::now();
  while (membership_.size() < kTfails && membership_error_.empty()) {
    lab::MembershipOptions o;
    o.nodes = static_cast<std::size_t>(members_);
    o.fanout = fanout_;
    o.t_fail = {static_cast<int>(membership_.size()) + 1};
    o.trials = trials_;
    o.rounds = watched_;
    o.loss = loss_;
    o.seed = seed_;
    auto rows = lab::run_membership(o);
    if (!rows) {
      membership_error_ = rows.error().message;
      break;
    }
    membership_.push_back(rows->front());
    if (ms_since(start) > budget_ms) break;
  }
  membership_ms_ += ms_since(start);
}

const lab::MembershipRow* GossipPanel::selected_row() const {
  const auto i = static_cast<std::size_t>(selected_tfail_ - 1);
  return i < membership_.size() ? &membership_[i] : nullptr;
}

// ---------------------------------------------------------------------------------- frames

void GossipPanel::advance(double real_ms) {
  if (view_ == View::membership) {
    if (!editing_) compute_membership(kMembershipBudgetMs);
    return;
  }
  if (playing_ && !run_->done()) {
    carry_ += std::clamp(real_ms, 0.0, kMaxFrameMs) / 1000.0 * rate_;
    const int whole = static_cast<int>(std::floor(carry_));
    carry_ -= whole;
    // A million members take 10-20 ms a round: past the budget, play slower rather than stutter.
    if (whole > 0 && step_rounds(whole, kStepBudgetMs) < whole) carry_ = 0;
  }
  if (run_->done()) playing_ = false;
}

void GossipPanel::draw() {
  const auto start = std::chrono::steady_clock::now();
  panel_layout(
      {"gossip", 21.0f, 0.36f, 34.0f}, [&] { draw_controls(); },
      [&](float h) {
        const float gap = ImGui::GetStyle().ItemSpacing.y;
        if (view_ == View::spread) {
          draw_grid(h * 0.6f - gap);
          draw_curve(h * 0.4f - gap);
        } else {
          draw_false_suspicions(h * 0.4f - gap);
          draw_agreement(h * 0.3f - gap);
          draw_false_by_round(h * 0.3f - gap);
        }
      });
  draw_ms_ = ms_since(start);
}

void GossipPanel::draw_controls() {
  const float label_width = ImGui::GetFontSize() * 7.5f;
  int view = static_cast<int>(view_);
  ImGui::RadioButton("rumour spread", &view, 0);
  row_radio("membership", &view, 1);
  view_ = static_cast<View>(view);
  if (view_ == View::spread)
    draw_spread_controls(label_width);
  else
    draw_membership_controls(label_width);
  editing_ = ImGui::IsAnyItemActive();
}

void GossipPanel::draw_spread_controls(float label_width) {
  ImGui::TextWrapped(
      "Member 0 knows a rumour. Each round members contact `fanout` others at random: push tells, "
      "pull asks, push-pull does both. The informed count grows exponentially; then push needs "
      "about ln(n)/f more rounds to find the last few, while pull and push-pull sweep them up "
      "in one or two.");
  section("Rumour");
  ImGui::PushItemWidth(-label_width);
  bool changed = false;
  param_slider(spread::nodes, &nodes_);
  // Rebuilding a million members at every drag step would stall the slider.
  changed |= ImGui::IsItemDeactivatedAfterEdit();
  changed |= ImGui::Combo("mode", &mode_, kModeLabels, 3);
  changed |= param_slider(spread::fanout, &fanout_);
  changed |= param_slider(spread::loss, &loss_);
  {
    // Up to every member but the first: the rumour starts at a live one.
    const std::string label(spread::dead.label);
    changed |= ImGui::SliderInt(
        label.c_str(), &dead_, static_cast<int>(spread::dead.view_min),
        std::min(static_cast<int>(spread::dead.view_max), nodes_ - 1), "%d",
        ImGuiSliderFlags_AlwaysClamp | (spread::dead.log ? ImGuiSliderFlags_Logarithmic : 0));
  }
  ImGui::PopItemWidth();
  if (changed) {
    invalidate_membership();
    restart();
  }

  section("Run");
  const bool done = run_->done();
  ImGui::BeginDisabled(done);
  if (key_button("step", Shortcut::kStep, "one round", /*first_in_row=*/true)) step_rounds(1);
  if (key_button(playing_ ? "pause" : "play", Shortcut::kPlayPause)) {
    playing_ = !playing_;
    carry_ = playing_ ? 1.0 : 0.0;  // the first round at once, not a period later
  }
  ImGui::EndDisabled();
  if (key_button("restart", Shortcut::kReplay)) restart();
  if (row_button("new seed")) {
    ++seed_;
    invalidate_membership();
    restart();
  }
  ImGui::PushItemWidth(-label_width);
  param_slider(kRate, &rate_);
  ImGui::PopItemWidth();
  ImGui::Checkbox("uninformed fraction, log scale", &log_tail_);

  section("So far");
  const auto& run = *run_;
  ImGui::Text("round %d", run.round());
  const double live = static_cast<double>(run.live());
  ImGui::Text("informed %u of %zu live (%.2f%%)", run.informed(), run.live(),
              100.0 * run.informed() / live);
  if (run.live() < run.nodes()) ImGui::Text("%zu dead members (red)", run.nodes() - run.live());
  const double n = static_cast<double>(run.nodes());
  ImGui::Text("messages per member: %.2f", static_cast<double>(run.messages()) / n);
  if (run.round() > 0) {
    const auto& sent = run.messages_by_round();
    ImGui::Text("  last round: %.2f",
                static_cast<double>(sent[sent.size() - 1] - sent[sent.size() - 2]) / n);
  }
  ImGui::TextColored(to_vec4(plot::palette().orange), "mean field: %.2f rounds", theory_rounds_);
  if (pittel_rounds_)
    ImGui::TextColored(to_vec4(plot::palette().grey), "Pittel: log_(f+1) n + ln(n)/f = %.2f",
                       *pittel_rounds_);
  if (run.finished())
    ImGui::TextColored(to_vec4(plot::palette().green), "every live member knows after %d rounds",
                       run.round());
  else if (done)
    ImGui::TextColored(to_vec4(plot::palette().red), "stopped at the round cap (%d)", run.cap());
  hint("seed %u", seed_);
}

void GossipPanel::draw_membership_controls(float label_width) {
  ImGui::TextWrapped(
      "Van Renesse et al. (1998): each member bumps its own heartbeat counter every round and "
      "sends its whole list to `fanout` others, who keep the larger counters. An entry that has "
      "not grown for T_fail rounds is suspected: a small T_fail suspects members that are alive; "
      "a large one is slow to agree that a crashed member is gone.");
  section("Cluster");
  ImGui::PushItemWidth(-label_width);
  bool changed = false, shared = false;  // fanout, loss and seed are the spread view's too
  changed |= param_slider(membership::nodes, &members_);
  shared |= param_slider(membership::fanout, &fanout_);
  shared |= param_slider(membership::loss, &loss_);
  changed |= param_slider(membership::trials, &trials_);
  changed |= param_slider(membership::rounds, &watched_);
  param_slider(membership::t_fail, &selected_tfail_);
  ImGui::PopItemWidth();
  if (button("new seed")) {
    ++seed_;
    shared = true;
  }
  if (changed || shared) invalidate_membership();
  if (shared) restart();
  ImGui::TextWrapped(
      "Each trial starts from lists of zeros, watches %d rounds for false suspicions, then crashes "
      "one member and runs until every other holds it failed (T_cleanup = 2 T_fail).",
      watched_);

  section("Result");
  if (!membership_error_.empty()) {
    ImGui::TextColored(to_vec4(plot::palette().red), "%s", membership_error_.c_str());
  } else if (!membership_ready()) {
    ImGui::Text("computing T_fail %zu of %zu...", membership_.size() + 1, kTfails);
  } else {
    hint("%zu T_fail values x %d trials in %.0f ms, seed %u", kTfails, trials_, membership_ms_,
         seed_);
  }
  if (const auto* row = selected_row()) {
    ImGui::Text("T_fail = %d (T_cleanup %d):", row->t_fail, row->t_cleanup);
    ImGui::Text("  false suspicions: %.1f node-rounds a trial",
                static_cast<double>(row->false_suspicion_node_rounds) / trials_);
    ImGui::Text("  = %.4f%% of observer-member-rounds", row->false_suspicion_pct);
    if (row->agree_dead_rounds_mean)
      ImGui::TextColored(to_vec4(plot::palette().orange), "  all agree on a crash: %.2f rounds",
                         *row->agree_dead_rounds_mean);
    if (row->detect_rounds_mean)
      ImGui::TextColored(to_vec4(plot::palette().blue), "  each member notices: %.2f rounds",
                         *row->detect_rounds_mean);
    ImGui::Text("  messages a round: %.0f (n x fanout)", row->messages_per_round);
  }
}

// ----------------------------------------------------------------------------------- plots

void GossipPanel::draw_grid(float height) {
  const float font = ImGui::GetFontSize();
  const float key_width = font * 11.0f;
  const float avail = ImGui::GetContentRegionAvail().x;
  // Square cells: the plot's data area is its size less about 4.4 x 4 font heights of margins.
  const float area_h = std::max(font, height - font * 4.0f);
  const float square = area_h * static_cast<float>(cols_) / static_cast<float>(rows_) + font * 4.4f;
  const float width = std::max(font * 10.0f, std::min(square, avail - key_width));

  plot::Options options;
  options.legend = false;
  options.zoom = false;
  plot::Axis x{0, static_cast<double>(cols_), "column"};
  // The numbering goes under the key: in the axis title it is cut to "row (member = ro..." once
  // the grid is phone-narrow.
  plot::Axis y{0, static_cast<double>(rows_), "row"};
  x.index_ticks = y.index_ticks = true;
  // One block per kMinBlockPx pixels at most: finer cells would be merged by the plot by rank
  // alone, which leaves a block dark until every one of its members knows.
  const float cell_px = std::min((width - font * 4.4f) / cols_, area_h / rows_);
  int block = (std::max(cols_, rows_) + kMaxImageSide - 1) / kMaxImageSide;
  if (cell_px < kMinBlockPx)
    block = std::max(block, static_cast<int>(std::ceil(kMinBlockPx / cell_px)));
  if (block != block_) {
    set_block(block);
    rebuild_image();
  }
  if (plot::begin("grid", ImVec2(width, height), x, y, options)) {
    // Blocks past the edge are clipped: the last column or row of blocks may hold fewer cells.
    plot::heatmap(image_rows_, image_cols_, 0, static_cast<double>(image_cols_) * block_,
                  rows_ - static_cast<double>(image_rows_) * block_, rows_, &GossipPanel::heat_cell,
                  this);
    if (block_ == 1 && cell_px >= font * 1.6f) {
      const auto learned = run_->learned_rounds();
      for (std::size_t i = 0; i < learned.size(); ++i) {
        const double c = static_cast<double>(i % cols_), r = static_cast<double>(i / cols_);
        char label[16] = "x";
        if (!run_->is_dead(i)) {
          if (learned[i] == gossip::SpreadRun::kNever) continue;
          std::snprintf(label, sizeof label, "%u", learned[i]);
        }
        const ImVec2 size = ImGui::CalcTextSize(label);
        const ImVec2 centre = plot::to_screen(c + 0.5, rows_ - r - 0.5);
        const ImU32 ink = run_->is_dead(i) || learned[i] * 2 > static_cast<unsigned>(colour_rounds_)
                              ? plot::palette().ink
                              : plot::palette().cell_ink;
        plot::put_text(ImGui::GetWindowDrawList(),
                       ImVec2(centre.x - size.x * 0.5f, centre.y - size.y * 0.5f), ink, label);
      }
    }
    int row = 0, col = 0;
    if (plot::hovered_cell(&row, &col)) grid_tooltip(row, col);
    plot::end();
  }
  ImGui::SameLine();
  ImGui::BeginChild("gossip-key", ImVec2(0, height), false);
  draw_key();
  ImGui::EndChild();
}

void GossipPanel::grid_tooltip(int image_row, int image_col) const {
  const std::size_t n = run_->nodes();
  int informed = 0, uninformed = 0, dead = 0, members = 0;
  std::uint32_t latest = 0;
  std::size_t first = n;
  for (int r = image_row * block_; r < std::min(rows_, (image_row + 1) * block_); ++r)
    for (int c = image_col * block_; c < std::min(cols_, (image_col + 1) * block_); ++c) {
      const auto i = static_cast<std::size_t>(r) * cols_ + c;
      if (i >= n) continue;
      first = std::min(first, i);
      ++members;
      if (run_->is_dead(i)) {
        ++dead;
      } else if (run_->learned_round(i) == gossip::SpreadRun::kNever) {
        ++uninformed;
      } else {
        ++informed;
        latest = std::max(latest, run_->learned_round(i));
      }
    }
  if (members == 0) return;
  ImGui::BeginTooltip();
  if (members == 1) {
    ImGui::Text("member %zu", first);
    if (dead)
      ImGui::Text("dead: never asks or answers; contacts to it are wasted");
    else if (uninformed)
      ImGui::Text("does not know yet");
    else
      ImGui::Text("learnt in round %u", latest);
  } else {
    ImGui::Text("%d members in this %dx%d block (from member %zu)", members, block_, block_, first);
    ImGui::Text("informed %d, last in round %u", informed, latest);
    ImGui::Text("uninformed %d, dead %d", uninformed, dead);
  }
  ImGui::EndTooltip();
}

void GossipPanel::draw_key() {
  const float font = ImGui::GetFontSize();
  ImGui::TextUnformatted("learnt in round");
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float w = std::max(font * 4.0f, ImGui::GetContentRegionAvail().x - font * 0.5f);
  const float h = font * 0.9f;
  const int steps = std::max(1, colour_rounds_ + 1);
  for (int s = 0; s < steps; ++s) {
    const float x0 = p.x + w * s / steps, x1 = p.x + w * (s + 1) / steps;
    dl->AddRectFilled(ImVec2(x0, p.y), ImVec2(x1, p.y + h), rank_color(s));
  }
  ImGui::Dummy(ImVec2(w, h));
  ImGui::Text("0");
  char last[16];
  std::snprintf(last, sizeof last, "%d", colour_rounds_);
  ImGui::SameLine(std::max(0.0f, w - ImGui::CalcTextSize(last).x));
  ImGui::TextUnformatted(last);
  auto swatch = [&](ImU32 color, const char* label) {
    const ImVec2 q = ImGui::GetCursorScreenPos();
    dl->AddRectFilled(ImVec2(q.x, q.y + font * 0.15f),
                      ImVec2(q.x + font * 0.8f, q.y + font * 0.95f), color);
    ImGui::Dummy(ImVec2(font, font));
    ImGui::SameLine();
    ImGui::TextUnformatted(label);
  };
  swatch(uninformed_color(), "not yet informed");
  swatch(dead_color(), "dead");
  ImGui::Spacing();
  hint("%d x %d grid: member = row x %d + column", rows_, cols_, cols_);
  if (block_ > 1) {
    ImGui::TextWrapped(
        "Each square is a %dx%d block of members: once all know, the colour of the last one's "
        "round; before that dimmer, by the share that knows.",
        block_, block_);
  }
}

void GossipPanel::draw_curve(float height) {
  const auto& run = *run_;
  const double live = static_cast<double>(run.live());
  const double x_max =
      std::max<double>({run.round() + 1.0, std::ceil(theory_rounds_ * 1.3) + 1.0, 5.0});
  const std::size_t points = std::min(theory_.size(), static_cast<std::size_t>(x_max) + 1);
  const std::span<const double> axis(round_axis_);
  const std::span<const double> theory(theory_.data(), points);

  if (log_tail_) {
    // The uninformed fraction on a log axis: push shrinks it e^f-fold a round near the end,
    // pull squares it; a member short of everyone is 1 / live.
    std::vector<double> measured_tail, theory_tail;
    for (double f : measured_) measured_tail.push_back(f < 1.0 ? 1.0 - f : NAN);
    for (double f : theory) theory_tail.push_back(1.0 - f);
    const double floor_y = std::min(0.3, 0.3 / live);
    if (plot::begin("curve", ImVec2(-1, height), {0, x_max, "round"},
                    {floor_y, 1.5, "uninformed fraction of the live members (log)", true})) {
      plot::line("mean field", axis.first(theory_tail.size()), theory_tail,
                 plot::colors::with_alpha(plot::palette().orange, 220));
      plot::line("this run", axis.first(measured_tail.size()), measured_tail, plot::palette().blue,
                 2.5f);
      plot::hline("one member", 1.0 / live, plot::colors::with_alpha(plot::palette().grey, 160));
      plot::vline("now", run.round(), plot::colors::with_alpha(plot::palette().yellow, 160), 1.0f);
      plot::end();
    }
    return;
  }
  if (plot::begin("curve", ImVec2(-1, height), {0, x_max, "round"},
                  // Headroom above 1: the vertical lines' labels sit there, not on the curve.
                  {0, 1.25, "informed fraction of the live members"})) {
    plot::line("mean field", axis.first(theory.size()), theory,
               plot::colors::with_alpha(plot::palette().orange, 220));
    plot::line("this run", axis.first(measured_.size()), measured_, plot::palette().blue, 2.5f);
    char label[48];
    std::snprintf(label, sizeof label, "mean field: %.1f rounds", theory_rounds_);
    plot::vline(label, theory_rounds_, plot::colors::with_alpha(plot::palette().orange, 140), 1.0f);
    // Unlabelled when it would write over the mean-field label.
    const float apart =
        std::abs(plot::to_screen(run.round(), 0).x - plot::to_screen(theory_rounds_, 0).x);
    const bool crowded =
        apart < ImGui::CalcTextSize(label).x + ImGui::CalcTextSize("now").x + ImGui::GetFontSize();
    plot::vline(crowded ? "" : "now", run.round(),
                plot::colors::with_alpha(plot::palette().yellow, 160), 1.0f);
    plot::end();
  }
}

void GossipPanel::draw_false_suspicions(float height) {
  std::vector<double> xs, ys, sel_x, sel_y;
  double y_max = 1;
  for (const auto& row : membership_) {
    const double per_trial = static_cast<double>(row.false_suspicion_node_rounds) / trials_;
    (row.t_fail == selected_tfail_ ? sel_x : xs).push_back(row.t_fail);
    (row.t_fail == selected_tfail_ ? sel_y : ys).push_back(per_trial);
    y_max = std::max(y_max, per_trial);
  }
  char title[96];
  if (screen::narrow())  // a phone's plot holds about 35 characters of title
    std::snprintf(title, sizeof title, "false suspicions per trial (log)");
  else
    std::snprintf(title, sizeof title, "false-suspicion node-rounds per trial, %d rounds (log)",
                  watched_);
  plot::Options options;
  options.zoom = false;
  if (plot::begin("false", ImVec2(-1, height), {0.4, kTfails + 0.6, "T_fail (rounds)"},
                  {0.5, y_max * 4, title, true}, options)) {
    plot::bars("false suspicions", xs, ys, 0.7,
               plot::colors::with_alpha(plot::palette().blue, 210));
    plot::bars("selected T_fail", sel_x, sel_y, 0.7, plot::palette().orange);
    for (const auto& row : membership_)
      if (row.false_suspicion_node_rounds == 0)
        plot::text(row.t_fail - 0.1, 0.9, plot::palette().grey, "0");
    if (plot::hovered()) {
      const int t = static_cast<int>(std::lround(plot::mouse_x()));
      if (t >= 1 && static_cast<std::size_t>(t) <= membership_.size()) {
        const auto& row = membership_[static_cast<std::size_t>(t - 1)];
        ImGui::BeginTooltip();
        ImGui::Text("T_fail %d: %.1f node-rounds a trial (%.4f%%)", t,
                    static_cast<double>(row.false_suspicion_node_rounds) / trials_,
                    row.false_suspicion_pct);
        ImGui::EndTooltip();
        if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) selected_tfail_ = t;
      }
    }
    plot::end();
  }
}

void GossipPanel::draw_agreement(float height) {
  std::vector<double> xs, agree, detect, floor_line;
  double y_max = kTfails + 2.0;
  for (const auto& row : membership_) {
    xs.push_back(row.t_fail);
    agree.push_back(row.agree_dead_rounds_mean.value_or(NAN));
    detect.push_back(row.detect_rounds_mean.value_or(NAN));
    floor_line.push_back(row.t_fail);
    y_max = std::max({y_max, row.agree_dead_rounds_mean.value_or(0) * 1.15,
                      row.detect_rounds_mean.value_or(0) * 1.15});
  }
  if (plot::begin("agree", ImVec2(-1, height), {0.4, kTfails + 0.6, "T_fail (rounds)"},
                  {0, y_max, "rounds from a crash until..."})) {
    plot::line("T_fail itself", xs, floor_line, plot::colors::with_alpha(plot::palette().grey, 160),
               1.0f);
    plot::line("each member notices (avg)", xs, detect, plot::palette().blue);
    plot::line("all agree it failed", xs, agree, plot::palette().orange);
    plot::vline("", selected_tfail_, plot::colors::with_alpha(plot::palette().yellow, 120), 1.0f);
    plot::end();
  }
}

void GossipPanel::draw_false_by_round(float height) {
  const auto* row = selected_row();
  std::vector<double> xs, ys;
  double y_max = 1;
  if (row)
    for (std::size_t r = 0; r < row->false_by_round.size(); ++r) {
      xs.push_back(static_cast<double>(r));
      ys.push_back(row->false_by_round[r] / trials_);
      y_max = std::max(y_max, ys.back() * 1.15);
    }
  char title[96];
  // A phone's plot holds about 35 characters of title: the short form there, whole.
  std::snprintf(title, sizeof title,
                screen::narrow() ? "false suspicions, T_fail = %d"
                                 : "false suspicions after each round, T_fail = %d (per trial)",
                selected_tfail_);
  if (plot::begin("false-by-round", ImVec2(-1, height), {0, static_cast<double>(watched_), "round"},
                  {0, y_max, title})) {
    plot::line("held failed, yet alive", xs, ys, plot::palette().red);
    plot::end();
  }
}

// ---------------------------------------------------------------------------------- state

nlohmann::json GossipPanel::state() const {
  const auto& run = *run_;
  nlohmann::json s = {
      {"demo", "gossip"},
      {"view", view_ == View::spread ? "spread" : "membership"},
      {"mode", gossip::mode_name(kModes[mode_])},
      {"n", run.nodes()},
      {"fanout", fanout_},
      {"loss", loss_},
      {"dead", run.nodes() - run.live()},
      {"seed", seed_},
      {"round", run.round()},
      {"cap", run.cap()},
      {"informed", run.informed()},
      {"live", run.live()},
      {"done", run.done()},
      {"finished", run.finished()},
      {"playing", playing_},
      {"rate", rate_},
      {"messages", run.messages()},
      {"messages_per_node", static_cast<double>(run.messages()) / run.nodes()},
      {"theory_rounds", theory_rounds_},
      {"informed_by_round", run.informed_by_round()},
      {"grid", {{"cols", cols_}, {"rows", rows_}, {"block", block_}}},
      {"perf", {{"step_ms", step_ms_}, {"image_ms", image_ms_}, {"draw_ms", draw_ms_}}},
  };
  if (pittel_rounds_) s["pittel_rounds"] = *pittel_rounds_;
  if (view_ == View::membership) {
    nlohmann::json t_fail = nlohmann::json::array(), false_rounds = nlohmann::json::array(),
                   false_pct = nlohmann::json::array(), agree = nlohmann::json::array(),
                   detect = nlohmann::json::array();
    for (const auto& row : membership_) {
      t_fail.push_back(row.t_fail);
      false_rounds.push_back(row.false_suspicion_node_rounds);
      false_pct.push_back(row.false_suspicion_pct);
      agree.push_back(row.agree_dead_rounds_mean ? nlohmann::json(*row.agree_dead_rounds_mean)
                                                 : nlohmann::json());
      detect.push_back(row.detect_rounds_mean ? nlohmann::json(*row.detect_rounds_mean)
                                              : nlohmann::json());
    }
    s["membership"] = {{"n", members_},
                       {"fanout", fanout_},
                       {"loss", loss_},
                       {"trials", trials_},
                       {"rounds", watched_},
                       {"seed", seed_},
                       {"ready", membership_ready()},
                       {"error", membership_error_},
                       {"selected_t_fail", selected_tfail_},
                       {"t_fail", t_fail},
                       {"false_suspicion_node_rounds", false_rounds},
                       {"false_suspicion_pct", false_pct},
                       {"agree_dead_rounds_mean", agree},
                       {"detect_rounds_mean", detect},
                       {"compute_ms", membership_ms_}};
  }
  return s;
}

}  // namespace vigil::web
