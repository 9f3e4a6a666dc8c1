// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

#include <vigil/base/result.hpp>
#include <vigil/detect/detector.hpp>

namespace vigil::detect {

// Suspect once the sender has been silent for longer than T: what most deployed code does.
class FixedTimeout final : public Detector {
 public:
  static Result<FixedTimeout> create(Millis timeout, std::string name = {});

  // Out of line, so that the vtable lives in the core library alone, with the type information
  // lab::replay_trace's dynamic_cast reads, even in a program built without RTTI (the web app).
  const std::string& name() const override;
  void heartbeat(Millis) override {}
  double suspicion_delay_ms() const override { return static_cast<double>(timeout_.count()); }
  Millis timeout() const { return timeout_; }

 private:
  FixedTimeout(Millis timeout, std::string name) : timeout_(timeout), name_(std::move(name)) {}
  Millis timeout_;
  std::string name_;
};

}  // namespace vigil::detect
