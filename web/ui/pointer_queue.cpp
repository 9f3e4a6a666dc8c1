#include "ui/pointer_queue.hpp"

namespace vigil::web {

void PointerQueue::push(Change change) {
  if (pending_.size() >= kMaxPending) {
    pending_.pop_front();
    ++dropped_;
  }
  pending_.push_back(change);
}

void PointerQueue::move(float x, float y) {
  if (!pending_.empty() && pending_.back().kind == Kind::move) {
    pending_.back().x = x;
    pending_.back().y = y;
    return;
  }
  push({Kind::move, x, y});
}

void PointerQueue::press() {
  push({Kind::press});
}
void PointerQueue::release() {
  push({Kind::release});
}
void PointerQueue::leave() {
  move(PointerState::kAway, PointerState::kAway);
}
void PointerQueue::clear() {
  pending_.clear();
}

PointerState PointerQueue::next(PointerState current) {
  if (pending_.empty()) return current;
  const Change first = pending_.front();
  pending_.pop_front();
  switch (first.kind) {
    case Kind::move:
      // move() merges neighbours, so the next change, if any, is a button.
      current.x = first.x;
      current.y = first.y;
      break;
    case Kind::press:
      current.down = true;
      break;
    case Kind::release:
      current.down = false;
      break;
  }
  return current;
}

}  // namespace vigil::web
