#include "http/limit_metrics.hpp"

#include <sstream>

#include "http/prometheus_text.hpp"

namespace vigil::native {

std::string limit_metrics(const LwsHost::Refusals& r, const LwsHost::Load& load) {
  std::ostringstream out;
  auto counter = [&](const char* name, const char* help, std::uint64_t value) {
    write_counter(out, name, help, value);
  };
  counter("vigil_http_connections_refused_total",
          "Connections (and push-pull streams) closed as soon as accepted: as many open as "
          "allowed, or descriptors running out, and none idle to make room.",
          r.connections);
  counter("vigil_http_connections_evicted_total",
          "Idle HTTP connections (no request under way, no answer being sent, not a viewer) "
          "closed to make room for a new one.",
          r.evicted);
  write_gauge(out, "vigil_http_connections", "HTTP and WebSocket connections open now.",
              load.connections);
  counter("vigil_http_answers_busy_total",
          "API answers refused with 503: too many bytes of answers held for clients that had not "
          "read them.",
          r.answers_busy);
  write_gauge(out, "vigil_http_answer_bytes",
              "Bytes of API answers the sockets could not take at once, held until their "
              "connections end.",
              load.answer_bytes);
  counter("vigil_http_local_only_refused_total",
          "Requests for a path answered only on this machine, refused with 403: from another "
          "address, or naming another host.",
          r.local_only);
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
  counter("vigil_ws_viewers_evicted_total",
          "Viewers closed to let in one from an address holding fewer viewers, all places "
          "being taken.",
          r.viewers_evicted);
  counter("vigil_ws_queue_overflows_total",
          "Viewers closed because the messages waiting for them passed their byte budget.",
          r.queue_overflows);
  counter("vigil_accept_paused_total",
          "Times a listener stopped accepting for a while because no descriptor was left.",
          r.accept_paused);
  return out.str();
}

}  // namespace vigil::native
