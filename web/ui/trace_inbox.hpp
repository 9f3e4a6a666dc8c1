#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace vigil::web {

// A heartbeat trace the page hands to the app: a file the reader picked or dropped on the page,
// or the one named by the trace= URL parameter, which the page fetched. Nothing leaves the
// browser: the page reads the file and writes its bytes into the app's memory.
struct TraceFile {
  std::string name;  // the file's name, or the URL as given
  std::string text;  // the trace, or why the page could not read it
  bool ok = true;
  bool from_url = false;
};

// The hand-over: the page asks for room (reserve), writes the name's and then the text's UTF-8
// bytes into it, and delivers; the app takes the file at its next frame.
class TraceInbox {
 public:
  // Room for both, or nullptr when the text is over kMaxTraceBytes (the page checks first).
  char* reserve(std::size_t name_bytes, std::size_t text_bytes);
  void deliver(bool ok, bool from_url);
  std::optional<TraceFile> take();

 private:
  std::string buffer_;
  std::size_t name_bytes_ = 0;
  std::optional<TraceFile> ready_;
};

TraceInbox& trace_inbox();

}  // namespace vigil::web
