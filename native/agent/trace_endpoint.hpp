#pragma once

#include <string_view>

#include <vigil/swim/node.hpp>
#include "agent/ack_trace.hpp"
#include "http/lws_host.hpp"

namespace vigil::native {

// Longest peer name /v1/trace accepts (memberlist caps nothing; real names are host names).
inline constexpr std::size_t kMaxTracePeerName = 512;

// GET /v1/trace?peer=NAME: the peer's ack trace as CSV (docs/websocket.md), an attachment named
// after it. 400 without a valid name; 404 for a name that is neither traced nor a member (a
// member not acked yet gets the header alone).
HttpResponse trace_response(AckTrace& trace, std::string_view target, const swim::Node& node);

// The download's file name: trace-NAME.csv, NAME reduced to characters safe in any file system
// and header ([A-Za-z0-9._-], others '_'), at most 64 of them.
std::string trace_file_name(std::string_view peer);

}  // namespace vigil::native
