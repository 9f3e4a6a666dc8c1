// The browser half of UrlParams: reading the page's own query string. Kept apart so that the
// parsing and writing in url_params.cpp build and are tested natively.
#include <emscripten.h>

#include "ui/url_params.hpp"

namespace vigil::web {

UrlParams UrlParams::from_page() {
  // The returned buffer belongs to Emscripten and is only valid until the next call.
  const char* query = emscripten_run_script_string("window.location.search || ''");
  return parse(query ? query : "");
}

}  // namespace vigil::web
