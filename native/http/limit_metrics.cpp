#include "http/limit_metrics.hpp"

#include <sstream>

#include "http/prometheus_text.hpp"

namespace vigil::native {

std::string limit_metrics(const LwsHost::Refusals& r) {
  std::ostringstream out;
  auto counter = [&](const char* name, const char* help, std::uint64_t value) {
    write_counter(out, name, help, value);
  };
  counter("vigil_http_connections_refused_total",
          "Connections (and push-pull streams) closed as soon as accepted: as many open as "
          "allowed, or descriptors running out.",
          r.connections);
  counter("vigil_http_request_limit_total",
          "Connections closed after the most requests one connection may make.", r.request_limit);
  counter(
      "vigil_http_slow_readers_total",
      "Connections closed after an answer the client had not read (pipelining without reading).",
      r.slow_readers);
  counter("vigil_http_incomplete_total",
          "Connections that ended before a complete request: headers past their deadline, "
          "malformed, or the client left.",
          r.incomplete);
  counter("vigil_http_methods_refused_total", "API requests neither GET nor HEAD, answered 405.",
          r.methods);
  counter(
      "vigil_ws_upgrades_refused_total",
      "WebSocket upgrades refused: another path (404) or without the vigil.v1 subprotocol (400).",
      r.upgrades);
  counter("vigil_ws_viewers_busy_total",
          "WebSocket upgrades refused with 503: as many viewers as allowed.", r.viewers_busy);
  counter("vigil_ws_queue_overflows_total",
          "Viewers closed because the messages waiting for them passed their byte budget.",
          r.queue_overflows);
  counter("vigil_accept_paused_total",
          "Times a listener stopped accepting for a while because no descriptor was left.",
          r.accept_paused);
  return out.str();
}

}  // namespace vigil::native
