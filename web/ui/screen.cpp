#include "ui/screen.hpp"

namespace vigil::web::screen {

namespace {
float g_css_width = 1280, g_dpr = 1;
bool g_touch = false;
bool g_embedded = false;
bool g_in_view = true;  // a page that says nothing shows the demo
bool g_reduced_motion = false;
bool g_front_page = false;
}  // namespace

void set(float css_width, float dpr) {
  g_css_width = css_width;
  g_dpr = dpr;
}

bool narrow() {
  return g_css_width < kNarrowBelowCss;
}
float dpr() {
  return g_dpr;
}
float css_width() {
  return g_css_width;
}

void set_embedded(bool embedded) {
  g_embedded = embedded;
}
bool embedded() {
  return g_embedded;
}

void set_touch(bool touch) {
  g_touch = touch;
}
bool touch() {
  return g_touch;
}

void set_in_view(bool in_view) {
  g_in_view = in_view;
}
bool in_view() {
  return g_in_view;
}

void set_reduced_motion(bool reduce) {
  g_reduced_motion = reduce;
}
bool reduced_motion() {
  return g_reduced_motion;
}

void set_front_page(bool front) {
  g_front_page = front;
}

bool front_page() {
  return g_front_page;
}

bool autoplay_allowed() {
  return !g_reduced_motion && !g_front_page;
}

bool may_autostart() {
  return g_in_view && autoplay_allowed();
}

}  // namespace vigil::web::screen
