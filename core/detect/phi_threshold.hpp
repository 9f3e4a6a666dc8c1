// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

#include <vigil/base/result.hpp>
#include <vigil/detect/detector.hpp>
#include <vigil/detect/phi_accrual.hpp>

namespace vigil::detect {

// A phi-accrual detector used as a verdict: suspect while phi >= threshold. Different actions
// can read the same PhiAccrual with different thresholds; this is one of them.
class PhiThreshold final : public Detector {
 public:
  static Result<PhiThreshold> create(const PhiAccrualConfig& config, double threshold,
                                     std::string name = {});

  // Out of line, so that the vtable lives in the core library alone, with the type information
  // lab::replay_trace's dynamic_cast reads, even in a program built without RTTI (the web app).
  const std::string& name() const override;
  void heartbeat(Millis now) override { accrual_.heartbeat(now); }
  double suspicion_delay_ms() const override { return accrual_.silence_to_reach(threshold_); }

  const PhiAccrual& accrual() const { return accrual_; }
  double threshold() const { return threshold_; }

 private:
  PhiThreshold(PhiAccrual accrual, double threshold, std::string name)
      : accrual_(std::move(accrual)), threshold_(threshold), name_(std::move(name)) {}
  PhiAccrual accrual_;
  double threshold_;
  std::string name_;
};

}  // namespace vigil::detect
