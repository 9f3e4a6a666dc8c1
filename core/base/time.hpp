// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstdint>

namespace vigil {

// Engine time: whole milliseconds since an origin the host chooses. Core never reads a clock;
// the native agent passes a steady clock, the browser and the labs pass virtual time.
using Millis = std::chrono::duration<std::int64_t, std::milli>;

// Statistical quantities (means, deviations, detection delays) need fractions of a millisecond.
using FractionalMillis = std::chrono::duration<double, std::milli>;

}  // namespace vigil
