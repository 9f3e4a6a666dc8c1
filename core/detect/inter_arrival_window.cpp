#include <vigil/detect/inter_arrival_window.hpp>

#include <cmath>

namespace vigil::detect {

InterArrivalWindow::InterArrivalWindow(std::size_t capacity) : capacity_(capacity) {
  gaps_.reserve(capacity);
}

void InterArrivalWindow::push(double gap_ms) {
  if (capacity_ == 0) return;
  if (gaps_.size() < capacity_) {
    gaps_.push_back(gap_ms);
  } else {
    gaps_[oldest_] = gap_ms;
    oldest_ = (oldest_ + 1) % capacity_;
  }
  double sum = 0.0;
  for (double g : gaps_) sum += g;
  mean_ = sum / static_cast<double>(gaps_.size());
  double squares = 0.0;
  for (double g : gaps_) squares += (g - mean_) * (g - mean_);
  stddev_ = std::sqrt(squares / static_cast<double>(gaps_.size()));
}

std::vector<double> InterArrivalWindow::chronological() const {
  std::vector<double> out;
  out.reserve(gaps_.size());
  for (std::size_t i = 0; i < gaps_.size(); ++i) out.push_back(gaps_[(oldest_ + i) % gaps_.size()]);
  return out;
}

}  // namespace vigil::detect
