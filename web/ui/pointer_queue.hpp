#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>

namespace vigil::web {

// Where the pointer is and whether it is pressed, as the UI sees it in one frame.
struct PointerState {
  static constexpr float kAway = -3.0e38f;  // no pointer over the canvas (ImGui's -FLT_MAX)
  float x = kAway;
  float y = kAway;
  bool down = false;
};

// Touch input, fed to the UI one change per frame. Dear ImGui 1.86 reads the pointer once per
// frame and has no input queue of its own: a finger that lands and presses within one frame is
// seen pressing where the pointer was before, so taps miss and drags grab the previous widget.
// Here a press or a release always gets a frame of its own, after the frame that moved the
// pointer to where it happened; moves between two button changes collapse into the last one.
class PointerQueue {
 public:
  // Consecutive moves are merged, so only button changes make the queue grow; beyond this many
  // pending changes the oldest are dropped (a page that stopped drawing frames for a while).
  static constexpr std::size_t kMaxPending = 64;

  void move(float x, float y);
  void press();
  void release();
  void leave();  // the finger lifted: nothing is under the pointer any more
  void clear();

  bool empty() const { return pending_.empty(); }
  std::size_t size() const { return pending_.size(); }
  std::uint64_t dropped() const { return dropped_; }

  // The state for the next frame: `current` with either every move up to the next button
  // change applied, or that one button change.
  PointerState next(PointerState current);

 private:
  enum class Kind { move, press, release };
  struct Change {
    Kind kind;
    float x = 0, y = 0;
  };
  void push(Change change);

  std::deque<Change> pending_;
  std::uint64_t dropped_ = 0;
};

}  // namespace vigil::web
