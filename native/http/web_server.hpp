#pragma once

#include <memory>
#include <string>

#include "base/result.hpp"

struct lws_context;

namespace vigil::native {

struct WebServerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;
  std::string web_dir;  // served at "/", index.html by default
};

// An HTTP server on libwebsockets that serves the built web app. Single-threaded: the owner
// calls service() from its loop.
class WebServer {
 public:
  static Result<std::unique_ptr<WebServer>> start(const WebServerOptions& options);
  ~WebServer();
  WebServer(const WebServer&) = delete;
  WebServer& operator=(const WebServer&) = delete;

  // Handles pending network events, waiting at most until something happens (a signal wakes it).
  // Returns false once the server can no longer run.
  bool service();

  std::string url() const;

 private:
  WebServer() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace vigil::native
