#pragma once

#include <string>

#include "http/lws_host.hpp"

namespace vigil::native {

// The Prometheus lines for what the HTTP server's limits turned away (LwsHost::Options).
std::string limit_metrics(const LwsHost::Refusals& refusals, const LwsHost::Load& load);

}  // namespace vigil::native
