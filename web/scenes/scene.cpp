#include "scenes/scene.hpp"

#include <utility>

namespace vigil::web {

Scene::Scene(std::string name, std::vector<SceneBeat> beats)
    : name_(std::move(name)), beats_(std::move(beats)) {}

std::size_t Scene::run_due(Millis since_start) {
  std::size_t ran = 0;
  while (next_ < beats_.size() && beats_[next_].at <= since_start) {
    // Advance first: an action may rebuild what the caption describes, and must see this beat
    // as reached.
    auto& b = beats_[next_++];
    if (b.action) b.action();
    ++ran;
  }
  return ran;
}

Millis Scene::next_at() const {
  return finished() ? Millis::max() : beats_[next_].at;
}

const std::string& Scene::caption() const {
  static const std::string kNone;
  if (beats_.empty()) return kNone;
  return beats_[next_ == 0 ? 0 : next_ - 1].caption;
}

void Scene::set_caption(std::string caption) {
  if (next_ > 0) beats_[next_ - 1].caption = std::move(caption);
}

}  // namespace vigil::web
