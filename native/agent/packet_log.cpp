#include "agent/packet_log.hpp"

#include <sstream>

#include <vigil/wire/codec.hpp>
#include "cli/printable.hpp"
#include "http/prometheus_text.hpp"

namespace vigil::native {

wire::PacketSummary summarize_wire_datagram(const swim::Node& node,
                                            std::span<const std::uint8_t> bytes) {
  auto labelled = wire::strip_label(bytes);
  if (!labelled || labelled->label != node.config().label) return {};
  if (!node.cipher()) return wire::summarize_datagram(labelled->rest);
  const std::string& label = node.config().label;
  const std::span<const std::uint8_t> aad(reinterpret_cast<const std::uint8_t*>(label.data()),
                                          label.size());
  auto plain = node.cipher()->open(labelled->rest, aad);
  if (!plain) return {};
  return wire::summarize_datagram(*plain);
}

wire::PacketSummary summarize_stream_message(std::span<const std::uint8_t> plaintext) {
  wire::PacketSummary summary = wire::summarize_stream(plaintext);
  // memberlist's TCP fallback probe sends a ping (and gets an ack) on a stream: one message.
  if (summary.kind == wire::PacketKind::unknown) summary = wire::summarize_datagram(plaintext);
  return summary;
}

nlohmann::json packet_json(const PacketSighting& s, const wire::PacketSummary& summary,
                           const std::string& peer) {
  nlohmann::json j = {{"t", s.at.count()},
                      {"dir", s.outgoing ? "out" : "in"},
                      {"via", s.stream ? "tcp" : "udp"},
                      {"kind", std::string(wire::packet_kind_name(summary.kind))},
                      {"peer", peer},
                      {"address", s.address.to_string()},
                      {"size", s.size},
                      {"dropped", s.dropped}};
  if (s.delay > Millis{0}) j["delay_ms"] = s.delay.count();
  switch (summary.kind) {
    case wire::PacketKind::ping:
    case wire::PacketKind::ping_req:
      j["target"] = summary.target;
      [[fallthrough]];
    case wire::PacketKind::ack:
    case wire::PacketKind::nack:
      j["seq"] = summary.seq_no;
      break;
    default:
      break;
  }
  if (!summary.rumours.empty()) {
    nlohmann::json rumours = nlohmann::json::array();
    for (const auto& r : summary.rumours)
      rumours.push_back({{"kind", std::string(wire::packet_kind_name(r.kind))},
                         {"node", r.node},
                         {"incarnation", r.incarnation}});
    j["rumours"] = std::move(rumours);
  }
  return j;
}

void PacketLog::subscribe(LwsHost::ClientId viewer, bool on) {
  if (!on) {
    viewers_.erase(viewer);
    return;
  }
  viewers_.try_emplace(viewer);
}

void PacketLog::skip(Viewer& v, std::uint64_t n) {
  v.skipped += n;
  v.skipped_total += n;
  counters_.skipped += n;
}

void PacketLog::record(Millis at, const std::function<nlohmann::json()>& describe) {
  // Decide who takes it before describing it: a packet nobody will be sent costs a token check.
  std::vector<Viewer*> taking;
  for (auto& [id, v] : viewers_) {
    if (v.pending.size() >= PacketLogLimits::kMaxPendingBytes || !v.bucket.take(at)) {
      skip(v, 1);
      continue;
    }
    taking.push_back(&v);
  }
  if (taking.empty()) return;
  // Names inside are peers' bytes, not always UTF-8.
  const std::string entry = cli::json_text(describe());
  ++counters_.logged;
  for (Viewer* v : taking) {
    if (!v->pending.empty()) v->pending += ',';
    v->pending += entry;
    ++v->pending_count;
  }
}

std::vector<std::pair<LwsHost::ClientId, std::string>> PacketLog::flush(
    Millis now, const std::function<std::size_t(LwsHost::ClientId)>& queued) {
  std::vector<std::pair<LwsHost::ClientId, std::string>> out;
  for (auto& [id, v] : viewers_) {
    if (v.pending_count > 0 && queued(id) > PacketLogLimits::kMaxViewerQueueBytes) {
      skip(v, v.pending_count);
      v.pending.clear();
      v.pending_count = 0;
      continue;  // the skipped count goes with a later batch, once the viewer has caught up
    }
    if (v.pending_count == 0 && v.skipped == 0) continue;
    if (v.pending_count == 0 && queued(id) > PacketLogLimits::kMaxViewerQueueBytes) continue;
    std::string batch = "{\"type\":\"packets\",\"at_ms\":" + std::to_string(now.count()) +
                        ",\"packets\":[" + v.pending +
                        "],\"skipped\":" + std::to_string(v.skipped) +
                        ",\"skipped_total\":" + std::to_string(v.skipped_total) + "}";
    counters_.sent += v.pending_count;
    ++counters_.batches;
    v.pending.clear();
    v.pending_count = 0;
    v.skipped = 0;
    out.emplace_back(id, std::move(batch));
  }
  return out;
}

std::string packet_log_metrics_text(const PacketLog::Counters& c, std::size_t viewers) {
  std::ostringstream out;
  write_counter(
      out, "vigil_packet_log_logged_total",
      "Packets described for the packet log (once each, however many viewers were sent them).",
      c.logged);
  write_counter(out, "vigil_packet_log_sent_total",
                "Packet log entries sent to viewers, counted per viewer.", c.sent);
  write_counter(
      out, "vigil_packet_log_skipped_total",
      "Packet log entries not sent to a viewer: over 200 a second, or the viewer not keeping up.",
      c.skipped);
  write_counter(out, "vigil_packet_log_batches_total", "Packet log batches sent to viewers.",
                c.batches);
  write_gauge(out, "vigil_packet_log_viewers", "Viewers that asked for the packet log.", viewers);
  return out.str();
}

}  // namespace vigil::native
