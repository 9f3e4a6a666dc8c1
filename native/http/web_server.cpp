#include "http/web_server.hpp"

#include <libwebsockets.h>

#include <cstring>
#include <filesystem>

namespace vigil::native {

struct WebServer::Impl {
  WebServerOptions options;
  std::string origin;  // absolute path, kept alive for the mount
  lws_protocol_vhost_options wasm_mime{};
  lws_http_mount mount{};
  lws_context* context = nullptr;
};

Result<std::unique_ptr<WebServer>> WebServer::start(const WebServerOptions& options) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path dir = fs::absolute(options.web_dir, ec);
  if (ec || !fs::is_regular_file(dir / "index.html", ec))
    return Error{"no web app at '" + options.web_dir +
                 "' (index.html missing): build it first with scripts/build.sh"};
  if (options.port < 1 || options.port > 65535)
    return Error{"port must be in 1..65535, got " + std::to_string(options.port)};

  std::unique_ptr<WebServer> server(new WebServer());
  server->impl_ = std::make_unique<Impl>();
  Impl& impl = *server->impl_;
  impl.options = options;
  impl.origin = dir.string();

  // lws's built-in MIME table predates WebAssembly; browsers refuse to stream-compile a .wasm
  // served with any other type.
  impl.wasm_mime.name = ".wasm";
  impl.wasm_mime.value = "application/wasm";

  impl.mount.mountpoint = "/";
  impl.mount.mountpoint_len = 1;
  impl.mount.origin = impl.origin.c_str();
  impl.mount.def = "index.html";
  impl.mount.origin_protocol = LWSMPRO_FILE;
  impl.mount.extra_mimetypes = &impl.wasm_mime;

  lws_set_log_level(LLL_ERR, nullptr);
  lws_context_creation_info info;
  std::memset(&info, 0, sizeof info);
  info.port = options.port;
  info.iface = impl.options.host.c_str();
  info.mounts = &impl.mount;
  // Deliberately not LWS_SERVER_OPTION_HTTP_HEADERS_SECURITY_BEST_PRACTICES_ENFORCE: its
  // x-frame-options and CSP headers forbid the iframes and wasm the explainer needs.
  info.options = 0;
  impl.context = lws_create_context(&info);
  if (!impl.context)
    return Error{"cannot listen on " + options.host + ":" + std::to_string(options.port) +
                 " (address in use, or not an address of this machine?)"};
  return server;
}

WebServer::~WebServer() {
  if (impl_ && impl_->context) lws_context_destroy(impl_->context);
}

bool WebServer::service() {
  return lws_service(impl_->context, 0) >= 0;
}

std::string WebServer::url() const {
  return "http://" + impl_->options.host + ":" + std::to_string(impl_->options.port) + "/";
}

}  // namespace vigil::native
