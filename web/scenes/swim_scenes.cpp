#include "scenes/swim_scenes.hpp"

#include <algorithm>
#include <utility>

namespace vigil::web {

namespace {

Millis ms(std::int64_t v) {
  return Millis{v};
}

SwimSceneSpec spec_of(std::string_view name) {
  SwimSceneSpec s;
  s.name = std::string(name);
  if (name == "crash") {
    s.seed = 3;
    s.focus = 2;
  } else if (name == "indirect-probe") {
    s.seed = 3;
    s.focus = 3;
  } else if (name == "refutation") {
    s.seed = 1;
    s.focus = 4;
  } else if (name == "lifeguard") {
    s.seed = 1;
    s.focus = 1;
  } else if (name == "partition") {
    s.seed = 6;
    s.speed =
        0.5;  // a partition takes several suspicion timeouts to settle and a reconnect to heal
    s.focus = 0;
    s.observer =
        0;  // across a partition there is no consensus to show: one side's view is the story
  }
  return s;
}

// Collects a story's beats. A beat may also change the tempo: slow motion while the packets that
// matter fly, fast forward while a timer runs down.
class Beats {
 public:
  explicit Beats(std::function<void(double)> tempo) : tempo_(std::move(tempo)) {}

  void operator()(std::int64_t at, std::string caption, std::function<void()> action = {},
                  double new_tempo = 0) {
    beats_.push_back(
        {ms(at), std::move(caption), [action = std::move(action), tempo = tempo_, new_tempo] {
           if (action) action();
           if (new_tempo > 0 && tempo) tempo(new_tempo);
         }});
  }

  std::vector<SceneBeat> take() { return std::move(beats_); }

 private:
  std::function<void(double)> tempo_;
  std::vector<SceneBeat> beats_;
};

using ClusterAccess = std::function<sim::SwimCluster&()>;

// A member crashes: probe, ping-req, suspicion, death.
void crash_beats(Beats& beat, const ClusterAccess& cluster, std::size_t f, const std::string& who) {
  beat(0,
       "Six healthy members. Each period every member pings one other (blue dot) and waits for "
       "its ack "
       "(blue ring).",
       {}, 1);
  beat(1500, who + " crashes. Nobody has noticed yet.", [cluster, f] { cluster().kill(f); });
  beat(1880, "node-3 pings " + who + ". No ack comes back within the probe timeout (200 ms).", {},
       0.35);
  beat(2080, "So node-3 asks node-5 to ping " + who + " for it: a ping-req (purple diamond).");
  beat(2330, "node-5 gets no answer either and says so: a nack (hollow diamond).");
  beat(
      2880,
      "The period ends without an ack: node-3 suspects " + who + " and gossips it (yellow badges).",
      {}, 0.6);
  beat(3400,
       "Suspicion is not death: " + who + " could still refute. It cannot; the timer runs down.",
       {}, 2.5);
  beat(5880,
       "The suspicion timeout expires: " + who +
           " is declared dead (red badges) and the news spreads.",
       {}, 0.6);
  beat(7000, "Every survivor now holds " + who + " dead, about 5 s after the crash.", {}, 1);
}

// A broken link, not a dead member: the indirect probe gets through.
void indirect_probe_beats(Beats& beat, const ClusterAccess& cluster, std::size_t f,
                          const std::string& who) {
  beat(0, "Six healthy members. Watch node-0 and " + who + ".", {}, 1);
  beat(1000,
       "The link between node-0 and " + who +
           " breaks both ways (dashed red): packets on it are lost.",
       [cluster, f] {
         cluster().network().block(0, f);
         cluster().network().block(f, 0);
       });
  beat(1380, "node-0 pings " + who + ": the ping dies on the broken link (cross).", {}, 0.35);
  beat(1585, "No ack within the timeout: node-0 sends a ping-req to node-5, which pings " + who +
                 " for it.");
  beat(1685, who + " answers node-5, and node-5 relays the ack to node-0.");
  beat(1760, who + " is reachable after all: nobody suspects it.", {}, 1);
  beat(2600,
       "Indirect probes tell a broken link from a dead member: SWIM suspects only when every "
       "path fails.");
}

// A long pause: suspected, the member refutes by raising its incarnation.
void refutation_beats(Beats& beat, const ClusterAccess& cluster, std::size_t f,
                      const std::string& who) {
  beat(0, "Six healthy members, each at incarnation #1 (under its name).", {}, 1);
  beat(1000,
       who + " stops for 2.5 s, like a long garbage-collection pause: it neither reads nor sends.",
       [cluster, f] { cluster().pause(f, ms(2500)); });
  beat(1190,
       "node-2's ping got no ack, so node-2 asks node-5 to try (ping-req); node-5 gets nothing "
       "(nack).",
       {}, 0.5);
  beat(1990, "The period ends without an ack: node-2 suspects " + who + " (yellow badges spread).");
  beat(2600,
       "The others confirm the suspicion; " + who + " has until the timer runs out to refute.", {},
       1.5);
  beat(3490, who + " wakes up and reads the queued gossip: it is accused. Only it may refute...",
       {}, 0.35);
  beat(3560,
       "...by raising its own incarnation to #2 and gossiping alive (green badges). Alive #2 "
       "beats "
       "suspect #1.");
  beat(4000, "Every member holds " + who + " alive at #2 again; nobody declared it dead.", {}, 1);
}

// A slow member: Lifeguard's local health score makes it accuse less.
void lifeguard_beats(Beats& beat, const ClusterAccess& cluster, std::size_t f,
                     const std::string& who) {
  beat(0, "Six members with Lifeguard on. Watch " + who + ".", {}, 1);
  beat(1000, who + " turns slow: it reads every datagram 1.2 s late, acks included.",
       [cluster, f] { cluster().set_slow(f, ms(1200)); });
  beat(2230, who + "'s own probe seems to time out: it accuses a healthy member (yellow badge).",
       {}, 0.5);
  beat(3000,
       "Others, whose pings " + who +
           " answers late, suspect it in turn; it refutes, raising its "
           "incarnation.",
       {}, 1);
  beat(4600, "Lifeguard: probes that fail without any nack, and refuting, raise " + who +
                 "'s local health score...");
  beat(6500,
       "...which stretches its probe timeout and period: a member that doubts itself accuses "
       "less.",
       {}, 2);
  beat(12000, "Its false accusations grow rare while its score stays high: see its health below.",
       {}, 2);
}

// A partition: each half declares the other dead, then push-pull heals the split.
void partition_beats(Beats& beat, const ClusterAccess& cluster, std::size_t /*focus*/,
                     const std::string& /*who*/) {
  beat(0, "Six healthy members, about to be split in two halves.", {}, 1);
  beat(1000,
       "A partition: nodes 0-2 and 3-5 can no longer reach each other (dashed red links). "
       "Colours: node-0's view.",
       [cluster] {
         cluster().network().partition({{0, 1, 2}, {3, 4, 5}});
       });
  beat(2400, "Pings across the cut are lost; each side suspects the other half.");
  beat(5500, "The suspicions expire: each side declares the other half dead and carries on alone.");
  beat(11000, "Each half is a working cluster of three.");
  beat(
      12000, "The network heals. But who talks to members believed dead?",
      [cluster] { cluster().network().heal(); }, 0.5);
  beat(13400,
       "Periodically a member exchanges its whole state with one it holds dead (push-pull, grey "
       "square)...",
       {}, 0.3);
  beat(13700,
       "...the \"dead\" refute with higher incarnations, and the news spreads: one cluster again.",
       {}, 1);
}

}  // namespace

const std::vector<std::string>& swim_scene_names() {
  static const std::vector<std::string> names = {"crash", "indirect-probe", "refutation",
                                                 "lifeguard", "partition"};
  return names;
}

std::optional<SwimSceneSpec> swim_scene_spec(std::string_view name) {
  const auto& names = swim_scene_names();
  if (std::find(names.begin(), names.end(), name) == names.end()) return std::nullopt;
  return spec_of(name);
}

Scene make_swim_scene(const SwimSceneSpec& spec, std::function<sim::SwimCluster&()> cluster,
                      std::function<void(double)> tempo) {
  using Story = void (*)(Beats&, const ClusterAccess&, std::size_t, const std::string&);
  static const std::pair<std::string_view, Story> stories[] = {
      {"crash", crash_beats},           {"indirect-probe", indirect_probe_beats},
      {"refutation", refutation_beats}, {"lifeguard", lifeguard_beats},
      {"partition", partition_beats},
  };
  Beats beat(std::move(tempo));
  const auto f = static_cast<std::size_t>(spec.focus);
  const std::string who = "node-" + std::to_string(f);
  for (const auto& [name, story] : stories)
    if (spec.name == name) story(beat, cluster, f, who);
  return Scene(spec.name, beat.take());
}

}  // namespace vigil::web
