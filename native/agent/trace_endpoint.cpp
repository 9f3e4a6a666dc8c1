#include "agent/trace_endpoint.hpp"

#include <nlohmann/json.hpp>

#include "http/query_string.hpp"

namespace vigil::native {

namespace {

HttpResponse error(int status, const std::string& message, const std::string& peer = {}) {
  nlohmann::json j = {{"error", message}};
  if (!peer.empty()) j["peer"] = peer;
  // A peer name is the client's bytes: dump() must not throw on invalid UTF-8.
  return {status, "application/json",
          j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)};
}

}  // namespace

std::string trace_file_name(std::string_view peer) {
  std::string name;
  for (const char c : peer.substr(0, 64)) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == '_' || c == '-';
    name += safe ? c : '_';
  }
  // Never a hidden file nor "..": the name always starts with "trace-".
  return "trace-" + name + ".csv";
}

HttpResponse trace_response(AckTrace& trace, std::string_view target, const swim::Node& node) {
  const auto peer = query_value(target, "peer");
  if (!peer) return error(400, "give the peer: /v1/trace?peer=NAME (percent-encoded)");
  if (peer->empty()) return error(400, "the peer name is empty");
  if (peer->size() > kMaxTracePeerName)
    return error(400,
                 "the peer name is longer than " + std::to_string(kMaxTracePeerName) + " bytes");
  for (const char c : *peer)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      return error(400, "the peer name holds a control character");
  if (!trace.has(*peer) && !node.member(*peer))
    return error(404, "no trace of a peer named '" + *peer + "': not a member this agent knows",
                 *peer);
  trace.count_export();
  HttpResponse r{200, "text/csv; charset=utf-8",
                 trace.csv(node.name(), *peer, node.config().probe_interval)};
  r.headers.push_back(
      {"content-disposition:", "attachment; filename=\"" + trace_file_name(*peer) + "\""});
  return r;
}

}  // namespace vigil::native
