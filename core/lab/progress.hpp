// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <functional>

namespace vigil::lab {

// Called by long experiments after each unit of work (a run, a trial), for hosts that show
// progress; core itself never prints.
using Progress = std::function<void(int done, int total)>;

}  // namespace vigil::lab
