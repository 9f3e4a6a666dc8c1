// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

#include <vigil/base/time.hpp>

namespace vigil::detect {

// A binary failure detector fed by heartbeat arrivals: after each heartbeat it trusts the sender
// until the silence reaches suspicion_delay_ms(), then suspects it until the next heartbeat.
class Detector {
 public:
  virtual ~Detector() = default;
  virtual const std::string& name() const = 0;
  virtual void heartbeat(Millis now) = 0;
  // Silence after the latest heartbeat at which this detector starts suspecting (+inf: never).
  virtual double suspicion_delay_ms() const = 0;
};

}  // namespace vigil::detect
