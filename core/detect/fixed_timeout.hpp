#pragma once

#include <string>

#include <vigil/base/result.hpp>
#include <vigil/detect/detector.hpp>

namespace vigil::detect {

// Suspect once the sender has been silent for longer than T: what most deployed code does.
class FixedTimeout final : public Detector {
 public:
  static Result<FixedTimeout> create(Millis timeout, std::string name = {});

  const std::string& name() const override { return name_; }
  void heartbeat(Millis) override {}
  double suspicion_delay_ms() const override { return static_cast<double>(timeout_.count()); }
  Millis timeout() const { return timeout_; }

 private:
  FixedTimeout(Millis timeout, std::string name) : timeout_(timeout), name_(std::move(name)) {}
  Millis timeout_;
  std::string name_;
};

}  // namespace vigil::detect
