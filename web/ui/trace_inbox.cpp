#include "ui/trace_inbox.hpp"

#include "ui/phi_trace.hpp"

namespace vigil::web {

char* TraceInbox::reserve(std::size_t name_bytes, std::size_t text_bytes) {
  // A name is a file name or a URL; the page never sends more than a few hundred bytes of it.
  constexpr std::size_t kMaxNameBytes = 4096;
  if (text_bytes > kMaxTraceBytes || name_bytes > kMaxNameBytes) return nullptr;
  buffer_.assign(name_bytes + text_bytes, '\0');
  name_bytes_ = name_bytes;
  return buffer_.data();
}

void TraceInbox::deliver(bool ok, bool from_url) {
  TraceFile f;
  f.name = buffer_.substr(0, name_bytes_);
  f.text = buffer_.substr(name_bytes_);
  f.ok = ok;
  f.from_url = from_url;
  ready_ = std::move(f);
  buffer_.clear();
  buffer_.shrink_to_fit();  // up to 32 MB, not to be kept twice
}

std::optional<TraceFile> TraceInbox::take() {
  auto f = std::move(ready_);
  ready_.reset();
  return f;
}

TraceInbox& trace_inbox() {
  static TraceInbox inbox;
  return inbox;
}

}  // namespace vigil::web
