#pragma once

#include <string>
#include <vector>

#include <vigil/lab/retry_experiments.hpp>
#include <vigil/retry/chain.hpp>
#include "panels/retry/retry_view.hpp"

namespace vigil::web {

// Amplification through a chain of N services retrying k times, in closed form, beside the
// reference table `vigil lab retry chain --table` prints. Recomputed when N, k or p move.
class ChainView : public RetryView {
 public:
  ChainView(const UrlParams& p, bool open);

  void advance(double) override {}
  void draw_controls() override;
  void draw_plots() override;
  bool animating() const override { return false; }
  void state(nlohmann::json& s) const override;
  void save(UrlParams& p, bool open) const override;

 private:
  void recompute();
  std::vector<std::string> cli() const;

  retry::Chain chain_;
  retry::ChainAmplification amp_;
  std::vector<lab::ChainRow> reference_rows_;
  std::vector<double> p_, amplification_;  // amplification against p for the current N, k
};

}  // namespace vigil::web
