#include "panels/phi_tail_panel.hpp"

#include <emscripten.h>
#include <imgui.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>
#include <vector>

#include <vigil/detect/params.hpp>
#include <vigil/detect/phi.hpp>
#include <vigil/lab/trace_tune.hpp>
#include <vigil/sim/heartbeat_params.hpp>
#include "panels/panel_layout.hpp"
#include "panels/param_ui.hpp"
#include "panels/param_url.hpp"
#include "scenes/scene_strip.hpp"
#include "ui/plot.hpp"
#include "ui/widgets.hpp"

namespace vigil::web {

namespace {

constexpr detect::TailModel kModelOrder[] = {detect::TailModel::normal, detect::TailModel::logistic,
                                             detect::TailModel::exponential,
                                             detect::TailModel::empirical};
constexpr const char* kModelNames[] = {"normal", "logistic", "exponential", "empirical"};
ImU32 model_color(std::size_t i) {
  const ImU32 all[] = {plot::palette().blue, plot::palette().purple, plot::palette().orange,
                       plot::palette().green};
  return all[i];
}
namespace phi_param = detect::phi_param;
namespace stream_param = sim::heartbeat_param;

constexpr double kHistorySeconds = 10.0;
constexpr double kTimeouts[] = {300.0, 1000.0, 3000.0};
ImU32 detector_color(std::size_t i) {
  const ImU32 all[] = {plot::palette().orange, plot::palette().yellow, plot::palette().grey,
                       plot::palette().blue, plot::palette().purple};
  return all[i];
}
// A tab in the background gets no frames; on return, skip ahead rather than replay a burst.
constexpr double kMaxStepMs = 100.0;
// Trace time per wall-clock time: a day-long trace plays in minutes at the top speed.
constexpr int kTraceSpeeds[] = {1, 10, 100, 1000};
constexpr const char* kTraceSpeedNames[] = {"1x", "10x", "100x", "1000x"};
namespace tune_param = lab::tune_param;

// Opens the browser's file picker; assets/trace-input.js reads the file and hands it over.
void pick_trace_file() {
  emscripten_run_script("window.vigilTrace && window.vigilTrace.pick()");
}

double normal_pdf(double x, double mean, double sd) {
  const double z = (x - mean) / sd;
  return std::exp(-0.5 * z * z) / (sd * std::sqrt(2.0 * std::numbers::pi));
}

}  // namespace

PhiTailPanel::PhiTailPanel(const UrlParams& params) {
  mean_ms_ = url_param(params, phi_param::mean);
  std_ms_ = url_param(params, phi_param::std_dev);
  pause_ms_ = url_param(params, phi_param::pause);
  silence_ms_ = url_param(params, phi_param::silence);
  if (auto m = params.text("model"))
    if (auto parsed = detect::parse_tail_model(*m)) model_ = static_cast<int>(parsed.value());
  follow_live_ = params.flag("follow");
  log_density_ = params.flag("log");
  interval_ms_ = url_param(params, stream_param::interval);
  delay_ms_ = url_param(params, stream_param::delay);
  jitter_ms_ = url_param(params, stream_param::jitter);
  loss_ = url_param(params, stream_param::loss);
  seed_ = static_cast<std::uint32_t>(url_param(params, stream_param::seed));
  thresholds_[0] = url_param(params, phi_param::threshold_a);
  thresholds_[1] = url_param(params, phi_param::threshold_b);
  budget_ = url_param(params, tune_param::budget);
  confidence_ = url_param(params, tune_param::confidence);
  // trace= itself is fetched by the page, which hands the file over like a dropped one.
  trace_url_ = params.text("trace").value_or("");
  trace_sender_ = params.text("sender").value_or("");
  if (auto u = params.text("unit"))
    if (auto parsed = detect::parse_time_unit(*u)) trace_unit_ = *parsed;
  if (auto speed = params.text("speed"))
    for (int i = 0; i < static_cast<int>(std::size(kTraceSpeeds)); ++i)
      if (*speed == kTraceSpeedNames[i] || *speed == std::to_string(kTraceSpeeds[i]))
        trace_speed_ = i;
  live_playing_ = screen::autoplay_allowed();
  restart_live();
  if (params.text("scene").value_or("") == kPauseCrashScene) start_scene();
}

void PhiTailPanel::start_scene() {
  // The same stream every time the story is told.
  restarts_ = 0;
  restart_live();
  // The reference plot then shows the live fit and its tail growing with the silence.
  follow_live_ = true;
  scene_playing_ = true;
  PhiSceneHooks hooks;
  hooks.mark = [this] {
    scene_peak_phi_ = 0;
    scene_false_ms_ = 0;
  };
  hooks.pause_sender = [this](Millis d) { stream_->pause(now_, d); };
  hooks.crash_sender = [this] { stream_->crash(now_); };
  hooks.read = [this] { return scene_readout(); };
  hooks.narrate = [this](std::string caption) { scene_.set_caption(std::move(caption)); };
  hooks.hold = [this] { scene_playing_ = false; };
  scene_ = pause_crash_scene(interval_ms_, hooks);
}

PhiReadout PhiTailPanel::scene_readout() const {
  const std::size_t model = static_cast<std::size_t>(model_);
  const auto& d = *detectors_[model];
  PhiReadout r;
  r.threshold = thresholds_[0];
  r.phi = d.phi(now_);
  r.peak_phi = std::max(scene_peak_phi_, r.phi);
  r.false_suspicion_ms = scene_false_ms_;
  r.mean_ms = d.mean_ms();
  r.std_ms = d.effective_stddev_ms();
  for (double g : d.window().unordered()) r.longest_gap_ms = std::max(r.longest_gap_ms, g);
  r.false_alarms = trackers_[3].false_alarms();  // phi above threshold A
  // After a crash nothing arrives: phi reaches the threshold at a silence the detector can
  // tell, whether or not a frame fell on that instant.
  const auto crash = stream_->config().crash_at;
  const auto last = d.last_heartbeat();
  const double reach = d.silence_to_reach(thresholds_[0]);
  if (crash && last && std::isfinite(reach)) {
    const Millis at = *last + Millis{static_cast<std::int64_t>(std::ceil(reach))};
    if (at <= now_) {
      r.detection_ms = static_cast<double>(std::max(Millis{0}, at - *crash).count());
      r.silence_at_detection_ms = std::ceil(reach);
    }
  }
  return r;
}

void PhiTailPanel::note_silence_end(Millis arrived) {
  const auto& d = *detectors_[static_cast<std::size_t>(model_)];
  const auto last = d.last_heartbeat();
  if (!last) return;
  scene_peak_phi_ = std::max(scene_peak_phi_, d.phi(arrived));
  const double reach = d.silence_to_reach(thresholds_[0]);
  const double silence = static_cast<double>((arrived - *last).count());
  if (std::isfinite(reach) && silence > std::ceil(reach))
    scene_false_ms_ += silence - std::ceil(reach);
}

bool PhiTailPanel::animating() const {
  if (trace_) return trace_playing_;
  if (!scene_.active()) return live_playing_;
  // Waiting for the reader: the page wakes the app when the demo comes into view.
  if (!scene_.started()) return screen::may_autostart();
  return scene_playing_;
}

void PhiTailPanel::save(UrlParams& p) const {
  save_param(p, phi_param::mean, mean_ms_);
  save_param(p, phi_param::std_dev, std_ms_);
  save_param(p, phi_param::pause, pause_ms_);
  save_param(p, phi_param::silence, silence_ms_);
  p.set("model", std::string(detect::to_string(kModelOrder[model_])));
  p.set_flag("follow", follow_live_);
  p.set_flag("log", log_density_);
  save_param(p, stream_param::interval, interval_ms_);
  save_param(p, stream_param::delay, delay_ms_);
  save_param(p, stream_param::jitter, jitter_ms_);
  save_param(p, stream_param::loss, loss_);
  save_param(p, stream_param::seed, seed_);
  save_param(p, phi_param::threshold_a, thresholds_[0]);
  save_param(p, phi_param::threshold_b, thresholds_[1]);
  save_param(p, tune_param::budget, budget_);
  save_param(p, tune_param::confidence, confidence_);
  // A trace from a file cannot travel in a link; one from a URL can.
  if (!trace_url_.empty()) {
    p.set("trace", trace_url_);
    p.set("speed", kTraceSpeedNames[trace_speed_]);
    if (trace_ && !trace_->sender().sender.empty()) p.set("sender", trace_->sender().sender);
    if (trace_unit_ != detect::TimeUnit::automatic)
      p.set("unit", std::string(detect::to_string(trace_unit_)));
  } else {
    p.erase("trace");
    p.erase("sender");
    p.erase("unit");
    p.erase("speed");
  }
}

bool PhiTailPanel::load_trace(const TraceFile& file) {
  if (file.from_url && file.name != trace_url_) trace_sender_.clear();
  if (!file.ok) {
    trace_error_ = file.name + ": " + file.text;
    return true;
  }
  auto loaded = PhiTrace::load(file.name, file.text, file.from_url ? trace_sender_ : "",
                               file.from_url ? trace_unit_ : detect::TimeUnit::automatic);
  if (!loaded) {
    trace_error_ = file.name + ": " + loaded.error().message;
    return true;
  }
  trace_error_.clear();
  trace_url_ = file.from_url ? file.name : "";
  if (!file.from_url) trace_unit_ = detect::TimeUnit::automatic;
  scene_ = Scene{};  // a story told on the simulated stream has no place on a trace
  trace_ = std::move(*loaded);
  trace_playing_ = true;
  seek_trace(Millis{0});
  return true;
}

void PhiTailPanel::close_trace() {
  trace_.reset();
  trace_url_.clear();
  trace_error_.clear();
  restart_live();
}

// Replays the trace from its start to `t` with the detectors fed every arrival on the way, so
// that the counts below the plots cover the whole of it, then fills the plots' window.
void PhiTailPanel::seek_trace(Millis t) {
  t = std::clamp(t, Millis{0}, trace_->duration());
  reset_detectors();
  trace_next_ = 0;
  trace_cut_.reset();
  const double window_ms = history_seconds() * 1000.0;
  const Millis from{std::max<std::int64_t>(0, t.count() - static_cast<std::int64_t>(window_ms))};
  simulate_to(from);
  constexpr int kSamples = 400;
  for (int i = 1; i <= kSamples && t > from; ++i)
    simulate_to(from + Millis{static_cast<std::int64_t>((t - from).count() * i / kSamples)});
}

TraceDetectors PhiTailPanel::trace_detectors() const {
  return {kModelOrder[model_], thresholds_[0], thresholds_[1]};
}

void PhiTailPanel::restart_live() {
  sim::HeartbeatConfig c;
  c.interval = Millis{std::llround(interval_ms_)};
  c.delay = sim::DelayModel::normal(delay_ms_, jitter_ms_);
  c.loss = loss_;
  stream_ = sim::HeartbeatStream::create(c, Rng(seed_).fork(restarts_++)).value();
  reset_detectors();
}

void PhiTailPanel::reset_detectors() {
  // As the lab configures phi (lab::trace_phi_config), for the stream's or the trace's cadence.
  for (std::size_t i = 0; i < kModels; ++i)
    detectors_[i] =
        detect::PhiAccrual::create(lab::trace_phi_config(cadence_ms(), kModelOrder[i])).value();
  now_ = Millis{0};
  carry_ms_ = 0;
  received_ = 0;
  history_.clear();
  for (auto& t : trackers_) t.reset();
  trackers_at_.fill(Millis{-1});
}

void PhiTailPanel::apply_link() {
  auto s = stream_->reconfigure(Millis{std::llround(interval_ms_)},
                                sim::DelayModel::normal(delay_ms_, jitter_ms_), loss_);
  link_error_ = s ? "" : s.error().message;
}

// The end of the trace; after a cut, long enough past it for the slowest detector to notice.
Millis PhiTailPanel::trace_end() const {
  if (!trace_cut_) return trace_->duration();
  return std::max(trace_->duration(),
                  *trace_cut_ + Millis{std::llround(trace_->timeout_ms(2) * 1.5)});
}

double PhiTailPanel::cadence_ms() const {
  return trace_ ? trace_->interval_ms() : interval_ms_;
}

double PhiTailPanel::timeout_ms(std::size_t i) const {
  return trace_ ? trace_->timeout_ms(i) : kTimeouts[i];
}

// The plots show the last hundred heartbeats or ten seconds, whichever is longer.
double PhiTailPanel::history_seconds() const {
  return std::max(kHistorySeconds, trace_ ? 100.0 * trace_->interval_ms() / 1000.0 : 0.0);
}

const char* PhiTailPanel::time_label() const {
  return trace_ ? "time in the trace (s)" : "simulated time (s)";
}

std::optional<Millis> PhiTailPanel::crash_at() const {
  return trace_ ? trace_cut_ : stream_->config().crash_at;
}

bool PhiTailPanel::sender_crashed() const {
  const auto at = crash_at();
  return at && *at <= now_;
}

void PhiTailPanel::take_arrivals(std::vector<Millis>& out) {
  out.clear();
  if (!trace_) {
    for (const auto& hb : stream_->advance(now_)) out.push_back(hb.arrived);
    return;
  }
  const auto arrivals = trace_->arrivals();
  while (trace_next_ < arrivals.size() && arrivals[trace_next_] <= now_ &&
         !(trace_cut_ && arrivals[trace_next_] >= *trace_cut_))
    out.push_back(arrivals[trace_next_++]);
}

std::optional<double> PhiTailPanel::live_silence_ms() const {
  const auto last = detectors_[0]->last_heartbeat();
  if (!last) return std::nullopt;
  return static_cast<double>((now_ - *last).count());
}

void PhiTailPanel::follow_live() {
  const auto& d = *detectors_[0];
  mean_ms_ = d.mean_ms();
  std_ms_ = d.effective_stddev_ms();
  silence_ms_ = live_silence_ms().value_or(0.0);
}

void PhiTailPanel::advance(double real_ms) {
  if (scene_.active()) {
    if (!scene_.started()) {
      // The story holds at time zero until it is seen (or played, under reduced motion).
      if (!screen::may_autostart()) return;
      begin_scene();
      return;
    }
    if (!scene_playing_) return;
  }
  if (trace_ && !trace_playing_) return;
  if (!scene_.active() && !trace_ && !live_playing_) return;
  carry_ms_ += std::clamp(real_ms, 0.0, kMaxStepMs) * (trace_ ? kTraceSpeeds[trace_speed_] : 1);
  const double whole = std::floor(carry_ms_);
  carry_ms_ -= whole;
  Millis to = now_ + Millis{static_cast<std::int64_t>(whole)};
  if (trace_ && to >= trace_end()) {
    to = trace_end();
    trace_playing_ = false;
  }
  run_to(to);
}

void PhiTailPanel::run_to(Millis t) {
  while (scene_.active() && scene_.started() && scene_.next_at() <= t) {
    simulate_to(std::max(now_, scene_.next_at()));
    scene_.run_due(now_);
  }
  if (t > now_ || history_.empty()) simulate_to(t);
}

void PhiTailPanel::begin_scene() {
  scene_.start();
  carry_ms_ = 0;
  run_to(now_);
}

void PhiTailPanel::step_scene() {
  if (!scene_.started()) scene_.start();
  scene_playing_ = false;
  carry_ms_ = 0;
  const std::uint64_t before = received_;
  // After the last beat there is nothing to wait for: a step is then a second of silence.
  const Millis limit = scene_.finished() ? now_ + Millis{1000} : std::max(now_, scene_.next_at());
  const std::size_t beat = scene_.beat();
  while (received_ == before && scene_.beat() == beat && now_ < limit) run_to(now_ + Millis{1});
}

void PhiTailPanel::simulate_to(Millis t) {
  now_ = t;
  const auto crash = crash_at();
  const auto crashed_by = [&](Millis t) { return (crash && *crash <= t) ? crash : std::nullopt; };
  take_arrivals(arrived_);
  for (const Millis at : arrived_) {
    // A suspicion can begin and end between two frames: note when each detector began to
    // suspect during the silence this heartbeat ends, so that the counts do not depend on the
    // frame rate.
    if (const auto last = detectors_[0]->last_heartbeat())
      for (std::size_t i = 0; i < kDetectors; ++i) {
        const double delay = suspicion_delay_ms(i);
        if (!std::isfinite(delay)) continue;
        const Millis start = *last + Millis{static_cast<std::int64_t>(std::ceil(delay))};
        if (start < at && start > trackers_at_[i]) {
          trackers_[i].observe(start, true, crashed_by(start));
          trackers_at_[i] = start;
        }
      }
    if (scene_.active()) note_silence_end(at);
    for (auto& d : detectors_) d->heartbeat(at);
    ++received_;
    for (std::size_t i = 0; i < kDetectors; ++i) {
      if (at < trackers_at_[i]) continue;
      trackers_[i].observe(at, false, crashed_by(at));  // heard from: trusted
      trackers_at_[i] = at;
    }
  }
  Sample s{static_cast<double>(now_.count()) / 1000.0, {}, 0};
  for (std::size_t i = 0; i < kModels; ++i) s.phi[i] = detectors_[i]->phi(now_);
  for (std::size_t i = 0; i < kDetectors; ++i) {
    const bool suspects = detector_suspects(i);
    // A suspicion that began since the last frame began at a silence the detector can tell:
    // note that instant, so that the counts and the detection time do not depend on the frame rate.
    if (suspects && !trackers_[i].suspecting())
      if (const auto last = detectors_[0]->last_heartbeat()) {
        const double delay = suspicion_delay_ms(i);
        if (std::isfinite(delay)) {
          const Millis start = *last + Millis{static_cast<std::int64_t>(std::ceil(delay))};
          if (start > trackers_at_[i] && start < now_)
            trackers_[i].observe(start, true, crashed_by(start));
        }
      }
    trackers_[i].observe(now_, suspects, crashed_by(now_));
    trackers_at_[i] = now_;
    if (suspects) s.suspecting = static_cast<std::uint8_t>(s.suspecting | (1u << i));
  }
  history_.push_back(s);
  while (!history_.empty() && history_.front().t_s < s.t_s - history_seconds())
    history_.pop_front();
  if (follow_live_) follow_live();
}

double PhiTailPanel::suspicion_delay_ms(std::size_t i) const {
  // Fixed timeouts suspect once the silence is over the timeout, phi once it reaches the threshold.
  if (i < 3) return timeout_ms(i) + 1.0;
  return detectors_[static_cast<std::size_t>(model_)]->silence_to_reach(thresholds_[i - 3]);
}

bool PhiTailPanel::detector_suspects(std::size_t i) const {
  const auto silence = live_silence_ms();
  if (!silence) return false;
  if (i < 3) return *silence > timeout_ms(i);
  // The phi rows follow the tail model picked above, so switching models changes who suspects.
  return detectors_[static_cast<std::size_t>(model_)]->phi(now_) >= thresholds_[i - 3];
}

std::string PhiTailPanel::detector_name(std::size_t i) const {
  if (trace_) return trace_->detector_name(trace_detectors(), i);
  static const char* kFixed[] = {"timeout 300 ms", "timeout 1 s", "timeout 3 s"};
  if (i < 3) return kFixed[i];
  char buf[32];
  std::snprintf(buf, sizeof buf, "phi(%s) > %.1f", kModelNames[model_], thresholds_[i - 3]);
  return buf;
}

double PhiTailPanel::reference_phi() const {
  const auto model = kModelOrder[model_];
  if (model == detect::TailModel::empirical)
    return detect::phi_empirical(silence_ms_, detectors_[3]->window().unordered(), pause_ms_);
  // Sliders keep every input in range, so the checked function cannot fail here.
  // A silence followed live may outgrow the formula's range; phi is infinite long before.
  const double silence = std::min(silence_ms_, phi_param::silence.max);
  return detect::phi(silence, mean_ms_, std_ms_, pause_ms_, model).value();
}

void PhiTailPanel::draw_scene() {
  const SceneInput in = draw_scene_strip(scene_, scene_playing_ && scene_.started(),
                                         "to the next heartbeat", caption_room_);
  if (in.replay) {
    // A reader stepping through a paused story starts over paused; a told story plays again.
    const bool play = scene_playing_ || scene_.finished() || !scene_.started();
    start_scene();
    if (screen::in_view()) begin_scene();  // the reader pressed it: begin at once
    scene_playing_ = play;
  }
  if (in.step) step_scene();
  if (in.toggle_play) {
    if (!scene_.started()) {
      begin_scene();
      scene_playing_ = true;
    } else {
      scene_playing_ = !scene_playing_;
      carry_ms_ = 0;
    }
  }
}

void PhiTailPanel::draw() {
  if (scene_.active()) draw_scene();
  // A stream that has never played (the front page, or reduced motion) offers play above the
  // plots, where a phone shows it without opening the controls.
  if (!scene_.active() && !trace_ && !live_playing_ && received_ == 0 &&
      key_button("play the heartbeat stream", Shortcut::kPlayPause, nullptr,
                 /*first_in_row=*/true)) {
    live_playing_ = true;
    carry_ms_ = 0;
  }
  // A trace dropped on the demo is refused here, above the plots, where the reader is looking:
  // on a phone the controls are folded away.
  if (!trace_error_.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, plot::to_vec4(plot::palette().error));
    ImGui::TextWrapped("%s", trace_error_.c_str());
    ImGui::PopStyleColor();
  }
  panel_layout(
      {"phi", 22.0f, 0.4f, 46.0f}, [&] { draw_controls(); },
      [&](float h) {
        const float gap = ImGui::GetStyle().ItemSpacing.y;
        if (trace_) {
          // The trace's own figures first: its frontier, then the playback.
          draw_frontier_plot(h * 0.30f - gap);
          draw_live_phi_plot(h * 0.26f - gap);
          draw_timeline(h * 0.22f - gap);
          draw_histogram_plot(h * 0.22f - gap);
          return;
        }
        draw_reference_plot(h * 0.27f - gap);
        draw_live_phi_plot(h * 0.29f - gap);
        draw_timeline(h * 0.22f - gap);
        draw_histogram_plot(h * 0.22f - gap);
      });
}

void PhiTailPanel::draw_controls() {
  const float label_width = ImGui::GetFontSize() * 8.5f;
  ImGui::TextWrapped(
      "phi = -log10 P(a live sender stays silent this long). It measures how unusual "
      "the silence is, not the chance the sender is dead.");
  ImGui::Spacing();
  // A trace's own figures come first; the live stream's controls have no use then.
  if (trace_) draw_trace_controls();
  section("Reference distribution");
  ImGui::PushItemWidth(-label_width);
  ImGui::Combo("tail model", &model_, kModelNames, static_cast<int>(kModels));
  ImGui::BeginDisabled(follow_live_);
  param_slider(phi_param::mean, &mean_ms_);
  param_slider(phi_param::std_dev, &std_ms_);
  param_slider(phi_param::silence, &silence_ms_);
  ImGui::EndDisabled();
  param_slider(phi_param::pause, &pause_ms_);
  ImGui::PopItemWidth();
  ImGui::Checkbox("follow the live stream's fit", &follow_live_);
  ImGui::Checkbox("log density axis", &log_density_);

  const double phi = reference_phi();
  ImGui::Spacing();
  ImGui::SetWindowFontScale(1.6f);
  if (std::isinf(phi))
    ImGui::Text("φ = ∞");
  else
    ImGui::Text("φ = %.2f", phi);
  ImGui::SetWindowFontScale(1.0f);
  ImGui::Text("P(gap > silence) = %.3g", std::pow(10.0, -phi));
  for (double threshold : {8.0, 12.0}) {
    const bool over = phi >= threshold;
    const ImVec4 color =
        ImGui::ColorConvertU32ToFloat4(over ? plot::palette().red : plot::palette().green);
    if (over)
      ImGui::TextColored(color, "phi >= %.0f: suspect", threshold);
    else
      ImGui::TextColored(color, "phi < %.0f: trust", threshold);
    if (threshold == 8.0) ImGui::SameLine(0, label_width * 0.3f);
  }

  ImGui::Spacing();
  if (trace_) return;
  section("Live heartbeat stream");
  ImGui::PushItemWidth(-label_width);
  bool link = false;
  link |= param_slider(stream_param::interval, &interval_ms_);
  link |= param_slider(stream_param::delay, &delay_ms_);
  link |= param_slider(stream_param::jitter, &jitter_ms_);
  link |= param_slider(stream_param::loss, &loss_);
  ImGui::PopItemWidth();
  if (link) apply_link();
  if (!link_error_.empty())
    ImGui::TextColored(plot::to_vec4(plot::palette().error), "%s", link_error_.c_str());
  if (!scene_.active() &&
      key_button(live_playing_ ? "pause" : "play", Shortcut::kPlayPause, "the simulation",
                 /*first_in_row=*/true)) {
    live_playing_ = !live_playing_;
    carry_ms_ = 0;
  }
  if (scene_.active() ? button("pause sender 600 ms") : row_button("pause sender 600 ms"))
    stream_->pause(now_, Millis{600});
  if (row_button("crash")) stream_->crash(now_);
  if (key_button("restart", Shortcut::kReplay)) scene_.active() ? start_scene() : restart_live();
  ImGui::Text("received %llu heartbeats%s", static_cast<unsigned long long>(received_),
              sender_crashed() ? " (sender crashed)" : "");
  if (auto s = live_silence_ms()) ImGui::Text("silent for %.0f ms", *s);
  draw_detector_table();
  ImGui::Spacing();
  section("Your own heartbeats");
  ImGui::TextWrapped(
      "Replay a recorded trace through these detectors and tune them to it: arrival times as "
      "text, CSV or JSON (as vigil trace exports them). It stays in this page; nothing is "
      "uploaded.");
  if (button("open a trace file")) pick_trace_file();
  hint("or drop one on the page");
  if (!trace_error_.empty())
    ImGui::TextColored(plot::to_vec4(plot::palette().error), "%s", trace_error_.c_str());
}

void PhiTailPanel::draw_trace_controls() {
  const float label_width = ImGui::GetFontSize() * 8.5f;
  section("Your trace");
  const auto& t = *trace_;
  ImGui::TextWrapped("%s", t.name().c_str());
  // The lab and the explainer quote the scored hours: the first heartbeats only train the
  // detectors, so both figures are shown.
  ImGui::TextWrapped("%zu heartbeats over %.2f h (%.2f h scored), median gap %.0f ms",
                     t.arrivals().size(), static_cast<double>(t.duration().count()) / 3.6e6,
                     trace_->tune(budget_, confidence_).scored_hours, t.interval_ms());
  const auto& sender = t.sender();
  if (sender.duplicates || sender.out_of_order)
    hint("%zu duplicates dropped, %zu out of order sorted", sender.duplicates, sender.out_of_order);
  ImGui::PushItemWidth(-label_width);
  if (t.parsed().senders.size() > 1) {
    std::vector<const char*> names;
    for (const auto& s : t.parsed().senders) names.push_back(s.sender.c_str());
    int chosen = static_cast<int>(t.sender_index());
    if (ImGui::Combo("sender", &chosen, names.data(), static_cast<int>(names.size()))) {
      if (auto ok = trace_->choose_sender(static_cast<std::size_t>(chosen)); ok) {
        trace_sender_ = names[static_cast<std::size_t>(chosen)];
        trace_error_.clear();
        seek_trace(Millis{0});
      } else {
        trace_error_ = ok.error().message;
      }
    }
  }
  ImGui::Combo("speed", &trace_speed_, kTraceSpeedNames,
               static_cast<int>(std::size(kTraceSpeedNames)));
  float at_s = static_cast<float>(static_cast<double>(now_.count()) / 1000.0);
  const float end_s = static_cast<float>(static_cast<double>(t.duration().count()) / 1000.0);
  if (ImGui::SliderFloat("position (s)", &at_s, 0.0f, end_s, "%.0f"))
    seek_trace(Millis{std::llround(static_cast<double>(at_s) * 1000.0)});
  ImGui::PopItemWidth();
  if (key_button(trace_playing_ ? "pause" : "play", Shortcut::kPlayPause, nullptr,
                 /*first_in_row=*/true)) {
    if (!trace_playing_ && now_ >= trace_end()) seek_trace(Millis{0});
    trace_playing_ = !trace_playing_;
    carry_ms_ = 0;
  }
  if (row_button("cut here (crash)") && !trace_cut_) {
    trace_cut_ = now_;
    trace_playing_ = true;  // on, to the silence that follows
  }
  if (row_button("close trace")) {
    close_trace();
    return;
  }
  if (auto s = live_silence_ms())
    ImGui::Text("silent for %.0f ms%s", *s, trace_cut_ ? " (trace cut)" : "");
  draw_detector_table();
  draw_trace_table();
  if (!trace_error_.empty())
    ImGui::TextColored(plot::to_vec4(plot::palette().error), "%s", trace_error_.c_str());
}

// The five detectors over the whole trace, as `vigil lab detectors --trace` reports them.
void PhiTailPanel::draw_trace_table() {
  ImGui::Spacing();
  section("On the whole trace");
  const auto& rows = trace_->replay(trace_detectors());
  // Each row's cells as text, to measure them first: a column narrower than its widest cell
  // would cut it (on a phone, and in the controls column beside the plots).
  constexpr std::size_t kColumns = 4;
  const char* headers[kColumns] = {"detector", "wrong/h", "wrong ms", "detects"};
  std::vector<std::array<std::string, kColumns>> cells;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    char per_hour[32], wrong[32], detects[32];
    std::snprintf(per_hour, sizeof per_hour, "%.1f", rows[i].mistakes_per_hour());
    std::snprintf(wrong, sizeof wrong, "%.0f", rows[i].mean_mistake_ms());
    std::snprintf(detects, sizeof detects, "%.0f ms", rows[i].detection_mean_ms);
    cells.push_back({detector_name(i), per_hour, wrong, detects});
  }
  std::vector<float> widths;
  for (std::size_t c = 0; c < kColumns; ++c) {
    widths.push_back(ImGui::CalcTextSize(headers[c]).x);
    for (const auto& row : cells)
      widths.back() = std::max(widths.back(), ImGui::CalcTextSize(row[c].c_str()).x);
  }
  if (!columns_fit(widths)) {
    // Too narrow for the table: a detector a line, its figures named under it.
    for (std::size_t i = 0; i < cells.size(); ++i) {
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(detector_color(i)), "%s",
                         cells[i][0].c_str());
      ImGui::Indent();
      ImGui::TextWrapped("%s wrong/h, %s ms wrong, detects in %s", cells[i][1].c_str(),
                         cells[i][2].c_str(), cells[i][3].c_str());
      ImGui::Unindent();
    }
  } else if (ImGui::BeginTable("whole-trace", kColumns,
                               ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg)) {
    for (const char* h : headers) ImGui::TableSetupColumn(h);
    ImGui::TableHeadersRow();
    for (std::size_t i = 0; i < cells.size(); ++i) {
      ImGui::TableNextRow();
      for (std::size_t c = 0; c < kColumns; ++c) {
        ImGui::TableNextColumn();
        if (c == 0)
          ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(detector_color(i)), "%s",
                             cells[i][c].c_str());
        else
          ImGui::TextUnformatted(cells[i][c].c_str());
      }
    }
    ImGui::EndTable();
  }
  ImGui::Spacing();
  section("Tune it");
  const float label_width = ImGui::GetFontSize() * 8.5f;
  ImGui::PushItemWidth(-label_width);
  // Tuning replays every family: only when a slider is let go, not on every step of a drag.
  double budget = budget_, confidence = confidence_;
  param_slider(tune_param::budget, &budget);
  if (ImGui::IsItemDeactivatedAfterEdit() || !ImGui::IsItemActive()) budget_ = budget;
  param_slider(tune_param::confidence, &confidence);
  if (ImGui::IsItemDeactivatedAfterEdit() || !ImGui::IsItemActive()) confidence_ = confidence;
  ImGui::PopItemWidth();
  const auto& tuned = trace_->tune(budget_, confidence_);
  const auto family = PhiTrace::family_of(kModelOrder[model_]);
  const lab::TuneFamily* f = nullptr;
  for (const auto& candidate : tuned.families)
    if (candidate.family == family) f = &candidate;
  if (!f) {
    hint("tuning covers the normal, logistic and exponential tails");
  } else if (!f->best) {
    ImGui::TextWrapped(
        "No threshold is proven within %.1f mistakes/h: the trace scores %.2f h and needs %.2f h "
        "at this confidence.",
        budget_, tuned.scored_hours, lab::hours_needed(budget_, confidence_));
  } else {
    const auto& best = *f->best;
    ImGui::TextWrapped(
        "Recommended: phi(%s) > %.2f, detecting a crash in %.0f ms on average (%.1f "
        "mistakes/h on this trace).",
        kModelNames[model_], best.parameter, best.replay.detection_mean_ms,
        best.replay.mistakes_per_hour());
    if (button("use it for threshold A"))
      thresholds_[0] =
          std::clamp(best.parameter, phi_param::threshold_a.min, phi_param::threshold_a.max);
  }
}

void PhiTailPanel::draw_reference_plot(float height) {
  const auto model = kModelOrder[model_];
  const double shift = pause_ms_;
  std::vector<double> xs, ys;
  double x_max = 0, y_max = 0;
  const auto gaps = detectors_[3]->window().unordered();

  if (model == detect::TailModel::empirical) {
    double longest = 1;
    for (double g : gaps) longest = std::max(longest, g);
    x_max = std::max(longest + shift, silence_ms_) * 1.15;
  } else if (model == detect::TailModel::exponential) {
    x_max = std::max(shift + 5 * mean_ms_, silence_ms_ * 1.15);
  } else {
    x_max = std::max(mean_ms_ + shift + 4.5 * std_ms_, silence_ms_ * 1.15);
  }

  std::vector<double> bar_x, bar_y, tail_x, tail_y;
  double bin = 0;
  if (model == detect::TailModel::empirical) {
    // A density histogram of the live window, shifted by the pause margin; bars beyond the
    // silence are the tail the empirical phi counts.
    bin = plot::nice_step(x_max, 30);
    const int bins = static_cast<int>(std::ceil(x_max / bin));
    std::vector<double> counts(static_cast<std::size_t>(bins), 0.0);
    for (double g : gaps) {
      const int b = static_cast<int>((g + shift) / bin);
      if (b >= 0 && b < bins) counts[static_cast<std::size_t>(b)] += 1;
    }
    for (int b = 0; b < bins; ++b) {
      const double center = (b + 0.5) * bin;
      const double density =
          gaps.empty() ? 0 : counts[static_cast<std::size_t>(b)] / (gaps.size() * bin);
      auto& bx = center - bin / 2 >= silence_ms_ ? tail_x : bar_x;
      auto& by = center - bin / 2 >= silence_ms_ ? tail_y : bar_y;
      bx.push_back(center);
      by.push_back(density);
      y_max = std::max(y_max, density);
    }
  } else {
    const int n = 400;
    for (int i = 0; i <= n; ++i) {
      const double x = x_max * i / n;
      const double y = model == detect::TailModel::exponential
                           ? (x < shift ? 0.0 : std::exp(-(x - shift) / mean_ms_) / mean_ms_)
                           : normal_pdf(x, mean_ms_ + shift, std_ms_);
      xs.push_back(x);
      ys.push_back(y);
      y_max = std::max(y_max, y);
    }
  }
  if (!(y_max > 0)) y_max = 1e-3;
  // On the log axis the tail is visible down to 1e-12 of the peak (phi 12 territory).
  const plot::Axis y_axis = log_density_
                                ? plot::Axis{y_max * 1e-12, y_max * 3, "density (log)", true}
                                : plot::Axis{0, y_max * 1.15, "density"};

  if (plot::begin("reference", ImVec2(-1, height), {0, x_max, "gap between heartbeats (ms)"},
                  y_axis)) {
    if (model == detect::TailModel::empirical) {
      plot::bars("live gaps", bar_x, bar_y, bin,
                 plot::colors::with_alpha(plot::palette().blue, 200));
      plot::bars("longer than the silence", tail_x, tail_y, bin,
                 plot::colors::with_alpha(plot::palette().orange, 220));
    } else {
      plot::shade_under(xs, ys, silence_ms_, x_max,
                        plot::colors::with_alpha(plot::palette().orange, 150));
      plot::line(kModelNames[model_], xs, ys, plot::palette().blue);
    }
    plot::vline("silence", silence_ms_, plot::palette().yellow);
    plot::end();
  }
}

void PhiTailPanel::draw_live_phi_plot(float height) {
  const double window = history_seconds();
  const double t_end = history_.empty() ? window : std::max(window, history_.back().t_s);
  std::vector<double> ts;
  std::array<std::vector<double>, kModels> phis;
  for (const auto& s : history_) {
    ts.push_back(s.t_s);
    for (std::size_t i = 0; i < kModels; ++i) phis[i].push_back(s.phi[i]);
  }
  // Phi 16 is a silence of one in 10^16; a trace's tuning can ask for far more under the normal
  // tail, whose phi grows with the square of the silence: the axis then reaches the threshold.
  const double highest = std::max(16.0, std::max(thresholds_[0], thresholds_[1]));
  const double top = highest > 16.0 ? 1.15 * highest : 16.0;
  if (plot::begin("live-phi", ImVec2(-1, height), {t_end - window, t_end, time_label()},
                  {0, top, trace_ ? "φ over time (your trace)" : "φ over time (live stream)"})) {
    for (std::size_t i = 0; i < kModels; ++i)
      plot::line(kModelNames[i], ts, phis[i], model_color(i));
    // The thresholds are the two phi detectors of the table: drag them to see the trade-off
    // (not above the axis' own top, which would then grow under the finger).
    plot::drag_hline("threshold A (drag)", &thresholds_[0],
                     plot::colors::with_alpha(plot::palette().red, 180), phi_param::threshold_a.min,
                     highest);
    plot::drag_hline("threshold B (drag)", &thresholds_[1],
                     plot::colors::with_alpha(plot::palette().red, 240), phi_param::threshold_b.min,
                     highest);
    plot::end();
  }
}

void PhiTailPanel::draw_timeline(float height) {
  const double window = history_seconds();
  const double t_end = history_.empty() ? window : std::max(window, history_.back().t_s);
  const double t_start = t_end - window;
  plot::Options options;
  options.zoom = false;
  std::array<std::string, kDetectors> names;
  std::array<const char*, kDetectors> name_ptrs;
  for (std::size_t d = 0; d < kDetectors; ++d) {
    names[d] = detector_name(d);
    name_ptrs[d] = names[d].c_str();
  }
  plot::Axis y{0, static_cast<double>(kDetectors), "who suspects when (same time axis)"};
  y.index_ticks = true;
  y.tick_names = name_ptrs.data();
  if (!plot::begin("timeline", ImVec2(-1, height), {t_start, t_end, time_label()}, y, options))
    return;
  for (std::size_t d = 0; d < kDetectors; ++d) {
    const double row_top = static_cast<double>(kDetectors - d) - 0.1, row_bottom = row_top - 0.8;
    // Spans of consecutive samples in which detector d suspected.
    double span_start = -1;
    for (std::size_t k = 0; k < history_.size(); ++k) {
      const bool on = history_[k].suspecting & (1u << d);
      if (on && span_start < 0) span_start = history_[k].t_s;
      if ((!on || k + 1 == history_.size()) && span_start >= 0) {
        plot::rect(span_start, row_bottom, history_[k].t_s, row_top, detector_color(d));
        span_start = -1;
      }
    }
  }
  plot::end();
}

void PhiTailPanel::draw_detector_table() {
  if (!ImGui::BeginTable("detectors", 4, ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg))
    return;
  ImGui::TableSetupColumn("detector");
  ImGui::TableSetupColumn("alarms");
  ImGui::TableSetupColumn("wrong ms");
  ImGui::TableSetupColumn("detects");
  ImGui::TableHeadersRow();
  for (std::size_t i = 0; i < kDetectors; ++i) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(detector_color(i)), "%s",
                       detector_name(i).c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%zu", trackers_[i].false_alarms());
    ImGui::TableNextColumn();
    ImGui::Text("%.0f", trackers_[i].false_suspicion_ms());
    ImGui::TableNextColumn();
    if (auto d = trackers_[i].detection_ms())
      ImGui::Text("%.0f ms", *d);
    else
      hint(sender_crashed() ? "waiting" : "-");
  }
  ImGui::EndTable();
}

void PhiTailPanel::draw_histogram_plot(float height) {
  const auto& d = *detectors_[0];
  const auto gaps = d.window().unordered();
  double longest = cadence_ms() * 2;
  for (double g : gaps) longest = std::max(longest, g);
  const double x_max = longest * 1.1;
  const double bin = plot::nice_step(x_max, 40);
  const int bins = static_cast<int>(std::ceil(x_max / bin));
  std::vector<double> centers, counts(static_cast<std::size_t>(bins), 0.0);
  for (int b = 0; b < bins; ++b) centers.push_back((b + 0.5) * bin);
  for (double g : gaps) {
    const int b = std::min(bins - 1, static_cast<int>(g / bin));
    if (b >= 0) counts[static_cast<std::size_t>(b)] += 1;
  }
  // The fitted densities, scaled to expected counts per bin.
  std::vector<double> xs, normal, exponential;
  double y_max = 1;
  for (double c : counts) y_max = std::max(y_max, c);
  const double n = static_cast<double>(gaps.size());
  for (int i = 0; i <= 300; ++i) {
    const double x = x_max * i / 300;
    xs.push_back(x);
    normal.push_back(n * bin * normal_pdf(x, d.mean_ms(), d.effective_stddev_ms()));
    exponential.push_back(n * bin * std::exp(-x / d.mean_ms()) / d.mean_ms());
  }
  if (plot::begin("histogram", ImVec2(-1, height),
                  {0, x_max, "inter-arrival gap (ms), live window of 100"},
                  {0, y_max * 1.2, "gaps"})) {
    plot::bars("observed", centers, counts, bin,
               plot::colors::with_alpha(plot::palette().grey, 200));
    plot::line("normal fit", xs, normal, plot::palette().blue);
    plot::line("exponential fit", xs, exponential, plot::palette().orange);
    if (auto s = live_silence_ms()) plot::vline("now silent", *s, plot::palette().yellow);
    plot::end();
  }
}

namespace {
ImU32 family_color(std::string_view family) {
  if (family == "phi-normal") return plot::palette().blue;
  if (family == "phi-logistic") return plot::palette().purple;
  if (family == "phi-exponential") return plot::palette().orange;
  if (family == "phi-normal-pause") return plot::palette().green;
  return plot::palette().grey;  // the fixed timeout
}
}  // namespace

// vigil tune's frontier on the trace: per detector family, the mean detection time each mistake
// budget buys; with the budget asked and where threshold A stands on this trace.
void PhiTailPanel::draw_frontier_plot(float height) {
  const auto& tuned = trace_->tune(budget_, confidence_);
  const auto& a = trace_->replay(trace_detectors())[3];
  // Rates span decades; a rate of zero, which a log axis cannot show, sits on its left edge.
  constexpr double kMinRate = 0.05;
  double x_max = std::max({2.0 * budget_, 2.0 * a.mistakes_per_hour(), 10.0});
  double y_max = 0.0;
  for (const auto& f : tuned.families)
    for (const auto& p : f.frontier) {
      x_max = std::max(x_max, 1.5 * p.replay.mistakes_per_hour());
      y_max = std::max(y_max, p.replay.detection_mean_ms);
    }
  if (!(y_max > 0)) y_max = trace_->interval_ms();
  // Threshold A far behind the frontier would flatten it: its point then rides the top edge.
  if (std::isfinite(a.detection_mean_ms))
    y_max = std::max(y_max, std::min(a.detection_mean_ms, 2 * y_max));
  plot::Axis x{kMinRate, x_max, "mistakes per hour on the trace (log)", true};
  if (!plot::begin("frontier", ImVec2(-1, height), x,
                   {0, y_max * 1.15, "mean detection (ms), best per budget"}))
    return;
  for (const auto& f : tuned.families) {
    std::vector<double> xs, ys;
    for (const auto& p : f.frontier) {
      xs.push_back(std::max(kMinRate, p.replay.mistakes_per_hour()));
      ys.push_back(p.replay.detection_mean_ms);
    }
    plot::line(f.family.c_str(), xs, ys, family_color(f.family));
    plot::markers("", xs, ys, family_color(f.family), 3.0f);
  }
  plot::vline("budget", std::max(kMinRate, budget_),
              plot::colors::with_alpha(plot::palette().red, 200));
  const double ax[] = {std::max(kMinRate, a.mistakes_per_hour())};
  const double ay[] = {std::min(a.detection_mean_ms, y_max * 1.1)};
  plot::markers("threshold A", ax, ay, plot::palette().yellow, 6.0f);
  plot::end();
}

nlohmann::json PhiTailPanel::trace_json() const {
  auto& t = *trace_;
  nlohmann::json detectors = nlohmann::json::array();
  for (const auto& r : t.replay(trace_detectors()))
    detectors.push_back({{"name", r.detector},
                         {"mistakes", r.mistakes},
                         {"mistakes_per_hour", r.mistakes_per_hour()},
                         {"mean_mistake_ms", r.mean_mistake_ms()},
                         {"detection_mean_ms", r.detection_mean_ms}});
  const auto& tuned = t.tune(budget_, confidence_);
  nlohmann::json frontier = nlohmann::json::object();
  nlohmann::json recommended;
  for (const auto& f : tuned.families) {
    nlohmann::json points = nlohmann::json::array();
    for (const auto& p : f.frontier)
      points.push_back({{"setting", p.parameter},
                        {"mistakes_per_hour", p.replay.mistakes_per_hour()},
                        {"detection_mean_ms", p.replay.detection_mean_ms}});
    frontier[f.family] = points;
    if (f.family == PhiTrace::family_of(kModelOrder[model_]) && f.best)
      recommended = {{"threshold", f.best->parameter},
                     {"mistakes_per_hour", f.best->replay.mistakes_per_hour()},
                     {"detection_mean_ms", f.best->replay.detection_mean_ms}};
  }
  return {{"name", t.name()},
          {"url", trace_url_},
          {"sender", t.sender().sender},
          {"senders", t.parsed().senders.size()},
          {"heartbeats", t.arrivals().size()},
          {"interval_ms", t.interval_ms()},
          {"duration_ms", t.duration().count()},
          {"position_ms", now_.count()},
          {"playing", trace_playing_},
          {"speed", kTraceSpeeds[trace_speed_]},
          {"cut_ms", trace_cut_ ? nlohmann::json(trace_cut_->count()) : nlohmann::json()},
          {"detectors", detectors},
          {"budget", budget_},
          {"confidence", confidence_},
          {"allowed_mistakes",
           tuned.allowed_mistakes ? nlohmann::json(*tuned.allowed_mistakes) : nlohmann::json()},
          {"recommended", recommended},
          {"frontier", frontier}};
}

nlohmann::json PhiTailPanel::detectors_json() const {
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t i = 0; i < kDetectors; ++i) {
    nlohmann::json row = {{"name", detector_name(i)},
                          {"false_alarms", trackers_[i].false_alarms()},
                          {"false_suspicion_ms", trackers_[i].false_suspicion_ms()},
                          {"suspecting", trackers_[i].suspecting()}};
    if (auto d = trackers_[i].detection_ms()) row["detection_ms"] = *d;
    out.push_back(row);
  }
  return out;
}

nlohmann::json PhiTailPanel::state() const {
  nlohmann::json live_phi = nlohmann::json::object();
  for (std::size_t i = 0; i < kModels; ++i)
    live_phi[kModelNames[i]] = history_.empty() ? 0.0 : history_.back().phi[i];
  const double phi = reference_phi();
  const bool scene = scene_.active();
  return {
      {"demo", "phi"},
      {"scene", scene ? nlohmann::json(scene_.name()) : nlohmann::json()},
      {"step", scene ? scene_.current() : 0},
      {"beats", scene_.beats()},
      {"caption", scene && scene_.started() ? scene_.caption() : ""},
      {"scene_started", scene_.started()},
      {"scene_playing", scene && scene_.started() && scene_playing_},
      {"phi", phi},
      {"tail", std::pow(10.0, -phi)},
      {"mean", mean_ms_},
      {"std", std_ms_},
      {"silence", silence_ms_},
      {"pause", pause_ms_},
      {"model", kModelNames[model_]},
      {"follow", follow_live_},
      {"live_playing", live_playing_},
      {"trace", trace_ ? trace_json() : nlohmann::json()},
      {"trace_error", trace_error_},
      {"live",
       {{"sim_ms", now_.count()},
        {"received", received_},
        {"silence_ms", live_silence_ms().value_or(0.0)},
        {"mean", detectors_[0]->mean_ms()},
        {"std", detectors_[0]->effective_stddev_ms()},
        {"crashed", sender_crashed()},
        {"phi", live_phi},
        {"thresholds", {thresholds_[0], thresholds_[1]}},
        {"detectors", detectors_json()}}},
  };
}

}  // namespace vigil::web
