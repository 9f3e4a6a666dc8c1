#include <vigil/swim/awareness.hpp>

#include <algorithm>

namespace vigil::swim {

void Awareness::apply(int delta) {
  score_ = std::clamp(score_ + delta, 0, max_ - 1);
}

}  // namespace vigil::swim
