// The vigil web app: Dear ImGui on GLFW + WebGL2, built with Emscripten.
#include <GLES3/gl3.h>
#include <GLFW/glfw3.h>
#include <emscripten.h>
#include <emscripten/html5.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>
#include <imgui_internal.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "app/app.hpp"
#include "ui/layout_report.hpp"
#include "ui/page_caption.hpp"
#include "ui/palette.hpp"
#include "ui/plot.hpp"
#include "ui/pointer_queue.hpp"
#include "ui/screen.hpp"
#include "ui/shortcuts.hpp"
#include "ui/trace_inbox.hpp"
#include "ui/ui_font.hpp"
#include "ui/ui_style.hpp"
#include "ui/url_params.hpp"

namespace {

struct Runtime {
  GLFWwindow* window = nullptr;
  std::unique_ptr<vigil::web::App> app;
  double last_ms = 0;
  std::string state_json;            // backing store for vigil_state_json()
  std::string query;                 // backing store for vigil_query()
  std::string share_json;            // backing store for vigil_share_json()
  vigil::web::UiStyle style_wanted;  // what the page asked for (theme, touch)
  vigil::web::UiStyle style_applied;
  bool style_set = false;
  // Touch input: while a finger drives the UI, the pointer ImGui sees comes from this queue
  // instead of GLFW's mouse emulation (see PointerQueue).
  vigil::web::PointerQueue touches;
  vigil::web::PointerState finger;
  bool finger_drives = false;
  std::string describe_json;  // backing store for vigil_describe_json()
  std::string caption_json;   // backing store for vigil_caption_json()
  // Keys pressed since the last frame began, and releases held back for them (see on_key).
  std::vector<int> pressed_since_frame;
  std::vector<std::array<int, 3>> held_releases;  // key, scancode, mods
  // A frame built (ImGui's draw data ready) but not drawn yet, and when it began (see draw()).
  bool undrawn = false;
  double frame_began_ms = 0;
};

Runtime g_runtime;

// The canvas is sized by CSS; its drawing buffer must follow that size times the device pixel
// ratio, and ImGui 1.86's GLFW backend does not do this by itself. glfwSetWindowSize cannot be
// used: Emscripten 3.1.6 turns a request for exactly the screen's size into a fullscreen request,
// which throws outside a user gesture. So the canvas and GLFW's record of it are set directly.
void fit_canvas() {
  double css_w = 0, css_h = 0;
  emscripten_get_element_css_size("#canvas", &css_w, &css_h);
  const double dpr = emscripten_get_device_pixel_ratio();
  vigil::web::screen::set(static_cast<float>(css_w), static_cast<float>(dpr));
  const int w = std::max(1, static_cast<int>(std::lround(css_w * dpr)));
  const int h = std::max(1, static_cast<int>(std::lround(css_h * dpr)));
  int cur_w = 0, cur_h = 0;
  glfwGetWindowSize(g_runtime.window, &cur_w, &cur_h);
  if (cur_w == w && cur_h == h) return;
  emscripten_set_canvas_element_size("#canvas", w, h);
  EM_ASM(
      {
        if (GLFW.active) {
          GLFW.active.width = $0;
          GLFW.active.height = $1;
        }
      },
      w, h);
}

// Dear ImGui 1.86 reads keys as held or not once per frame, so a key pressed and released
// between two frames (a quick tap, or a test's key press) would never reach it. A release that
// comes before any frame saw its key down is held back until the next frame has seen it.
void on_key(GLFWwindow* window, int key, int scancode, int action, int mods) {
  auto& pressed = g_runtime.pressed_since_frame;
  if (action == GLFW_PRESS) pressed.push_back(key);
  if (action == GLFW_RELEASE && std::find(pressed.begin(), pressed.end(), key) != pressed.end()) {
    g_runtime.held_releases.push_back({key, scancode, mods});
    return;
  }
  ImGui_ImplGlfw_KeyCallback(window, key, scancode, action, mods);
}

// A frame's worth of simulated time after the loop slept: the demo resumes where it stopped
// instead of jumping over the time nobody watched.
constexpr double kResumeStepMs = 1000.0 / 60.0;

// Builds one frame (input, simulation, layout) for draw() to draw; true while the app wants more
// without further input.
bool frame(bool resumed) {
  const double now = emscripten_get_now();
  const double dt = (resumed || g_runtime.last_ms <= 0) ? kResumeStepMs : now - g_runtime.last_ms;
  g_runtime.last_ms = now;

  fit_canvas();
  g_runtime.style_wanted.dpr = vigil::web::screen::dpr();
  if (!g_runtime.style_set || !(g_runtime.style_wanted == g_runtime.style_applied)) {
    vigil::web::apply_ui_style(g_runtime.style_wanted);
    g_runtime.style_applied = g_runtime.style_wanted;
    g_runtime.style_set = true;
  }
  vigil::web::screen::set_touch(g_runtime.style_applied.touch);
  glfwPollEvents();
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  // ImGui 1.86 asserts DeltaTime > 0; two frames can share a timestamp in a throttled browser.
  ImGuiIO& io = ImGui::GetIO();
  if (!(io.DeltaTime > 0.0f)) io.DeltaTime = 1.0f / 1000.0f;
  if (g_runtime.finger_drives) {
    g_runtime.finger = g_runtime.touches.next(g_runtime.finger);
    io.MousePos = ImVec2(g_runtime.finger.x, g_runtime.finger.y);
    for (bool& down : io.MouseDown) down = false;
    io.MouseDown[0] = g_runtime.finger.down;
  }
  vigil::web::layout::begin_frame();
  vigil::plot::new_frame();
  ImGui::NewFrame();
  // Keys that arrive from here on are news for the next frame; this one has seen the others.
  const auto seen = std::move(g_runtime.pressed_since_frame);
  g_runtime.pressed_since_frame.clear();
  g_runtime.app->frame(dt);
  ImGui::Render();
  g_runtime.undrawn = true;
  g_runtime.frame_began_ms = now;
  // The held releases of keys this frame saw down.
  std::vector<std::array<int, 3>> still_held;
  for (const auto& r : g_runtime.held_releases) {
    if (std::find(seen.begin(), seen.end(), r[0]) != seen.end())
      ImGui_ImplGlfw_KeyCallback(g_runtime.window, r[0], r[1], GLFW_RELEASE, r[2]);
    else
      still_held.push_back(r);
  }
  g_runtime.held_releases = std::move(still_held);
  // A held slider or a text field being typed in changes without new events.
  return g_runtime.app->animating() || ImGui::IsAnyItemActive() || io.WantTextInput ||
         !g_runtime.touches.empty();
}

// Draws the last frame built, if not drawn yet. The page sometimes builds several frames in one
// task (the first layout frames, a frame again after the canvas grew) and the browser shows only
// the last: drawing the others would be wasted, and drawing the canvas is most of a frame's cost
// where WebGL is rendered in software.
void draw() {
  if (!g_runtime.undrawn) return;
  g_runtime.undrawn = false;
  int fb_w = 0, fb_h = 0;
  glfwGetFramebufferSize(g_runtime.window, &fb_w, &fb_h);
  glViewport(0, 0, fb_w, fb_h);
  const ImVec4 bg = vigil::plot::to_vec4(vigil::plot::palette().window_bg);
  glClearColor(bg.x, bg.y, bg.z, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  const double end = emscripten_get_now();
  g_runtime.app->record_frame_cost(end - g_runtime.frame_began_ms, end);
}

float device_px(float css) {
  return css * vigil::web::screen::dpr();
}

}  // namespace

// The page's frame loop (app-shell.js) calls this from requestAnimationFrame while the app is
// visible and has something to show, then vigil_draw() once the task's last frame is built;
// `resumed` is 1 for the first frame after a pause.
extern "C" EMSCRIPTEN_KEEPALIVE int vigil_frame(int resumed) {
  if (!g_runtime.app) return 0;
  return frame(resumed != 0) ? 1 : 0;
}

extern "C" EMSCRIPTEN_KEEPALIVE void vigil_draw() {
  if (g_runtime.app) draw();
}

// The page's theme: 1 dark, 0 light (theme=auto resolved by the page, or the host's vigil:theme).
extern "C" EMSCRIPTEN_KEEPALIVE void vigil_set_theme(int dark) {
  g_runtime.style_wanted.dark = dark != 0;
}

// 1 when the page's main pointer is a finger (pointer: coarse), before any touch arrives.
extern "C" EMSCRIPTEN_KEEPALIVE void vigil_set_touch(int touch) {
  g_runtime.style_wanted.touch = touch != 0;
}

// 1 when at least half of the canvas is on screen (see screen::in_view).
extern "C" EMSCRIPTEN_KEEPALIVE void vigil_set_in_view(int in_view) {
  vigil::web::screen::set_in_view(in_view != 0);
}

// A real mouse moved: GLFW drives the pointer again and widgets return to mouse size.
extern "C" EMSCRIPTEN_KEEPALIVE void vigil_mouse_used() {
  g_runtime.finger_drives = false;
  g_runtime.touches.clear();
  g_runtime.style_wanted.touch = false;
}

// A finger landed at (x, y), CSS pixels in the canvas. Draws a frame with the pointer there
// and answers whether a control is under it: 1 and the page keeps the touch (no scrolling),
// the press following in the next frame; 0 and the page lets the browser scroll, as it does
// for a finger on a plot's background.
// `resumed` as for vigil_frame.
extern "C" EMSCRIPTEN_KEEPALIVE int vigil_touch_begin(float x, float y, int resumed) {
  if (!g_runtime.app) return 0;
  g_runtime.finger_drives = true;
  g_runtime.style_wanted.touch = true;
  g_runtime.touches.clear();
  g_runtime.finger = {device_px(x), device_px(y), false};
  frame(resumed != 0);
  draw();
  const ImGuiID hovered = GImGui->HoveredId;
  const bool control = hovered != 0 && hovered != vigil::plot::background_under_pointer();
  if (control)
    g_runtime.touches.press();
  else
    g_runtime.touches.leave();
  return control ? 1 : 0;
}

extern "C" EMSCRIPTEN_KEEPALIVE void vigil_touch_move(float x, float y) {
  if (g_runtime.finger_drives) g_runtime.touches.move(device_px(x), device_px(y));
}

extern "C" EMSCRIPTEN_KEEPALIVE void vigil_touch_end() {
  if (!g_runtime.finger_drives) return;
  g_runtime.touches.release();
  g_runtime.touches.leave();
}

// The height the demo's content needs at the canvas' width, CSS pixels: the page sizes the
// canvas (or asks its host to size the frame) to it.
extern "C" EMSCRIPTEN_KEEPALIVE int vigil_content_height() {
  // Rounded up: a frame half a pixel short of its content would show a scrollbar, narrowing the
  // content, which then wraps into a taller layout.
  return static_cast<int>(
      std::ceil(vigil::web::layout::content_height() / vigil::web::screen::dpr()));
}

// 1 when the demo is laid out in one column (narrow canvas): the page then lets it grow.
extern "C" EMSCRIPTEN_KEEPALIVE int vigil_narrow() {
  return vigil::web::screen::narrow() ? 1 : 0;
}

// The current demo's parameters as a query string: the page keeps them in its URL and tells its
// host, which can reload the demo as the reader left it.
extern "C" EMSCRIPTEN_KEEPALIVE const char* vigil_query() {
  if (!g_runtime.app) return "";
  g_runtime.query = g_runtime.app->query();
  return g_runtime.query.c_str();
}

// window.vigil.share() in the page reads this: what the share / embed popup offers, as JSON.
extern "C" EMSCRIPTEN_KEEPALIVE const char* vigil_share_json() {
  if (!g_runtime.app) return "{}";
  const vigil::web::ShareTexts texts = g_runtime.app->share();
  g_runtime.share_json = nlohmann::json{{"link", texts.link}, {"embed", texts.embed}}.dump();
  return g_runtime.share_json.c_str();
}

// window.vigil.state() in the page reads this: the active demo's numbers as JSON.
// The page hands over a heartbeat trace (assets/trace-input.js): room for its name and text,
// then the delivery once both are written; ok = 0 carries the page's reason instead of a trace.
extern "C" EMSCRIPTEN_KEEPALIVE char* vigil_trace_buffer(int name_bytes, int text_bytes) {
  if (name_bytes < 0 || text_bytes < 0) return nullptr;
  return vigil::web::trace_inbox().reserve(static_cast<std::size_t>(name_bytes),
                                           static_cast<std::size_t>(text_bytes));
}

extern "C" EMSCRIPTEN_KEEPALIVE void vigil_trace_deliver(int ok, int from_url) {
  vigil::web::trace_inbox().deliver(ok != 0, from_url != 0);
}

extern "C" EMSCRIPTEN_KEEPALIVE const char* vigil_state_json() {
  if (!g_runtime.app) return "{}";
  g_runtime.state_json = g_runtime.app->state().dump();
  return g_runtime.state_json.c_str();
}

// A key the page offers as a shortcut (its KeyboardEvent.key's character): 1 when the demo
// takes it (the page then keeps it from the browser), 0 when it has no use for it now.
extern "C" EMSCRIPTEN_KEEPALIVE int vigil_shortcut(int key) {
  if (!g_runtime.app || key <= 0 || key > 127) return 0;
  const auto s = vigil::web::shortcut_for_key(static_cast<char>(key));
  return s && vigil::web::post_shortcut(*s) ? 1 : 0;
}

// 1 while a text field has the keyboard: every key is then typing, none a shortcut.
extern "C" EMSCRIPTEN_KEEPALIVE int vigil_typing() {
  return ImGui::GetCurrentContext() && ImGui::GetIO().WantTextInput ? 1 : 0;
}

// 1 when the reader asked for reduced motion (prefers-reduced-motion, or motion=reduce).
extern "C" EMSCRIPTEN_KEEPALIVE void vigil_set_reduced_motion(int reduce) {
  vigil::web::screen::set_reduced_motion(reduce != 0);
}

// What the page tells assistive technology about the demo, as JSON (App::describe).
extern "C" EMSCRIPTEN_KEEPALIVE const char* vigil_describe_json() {
  if (!g_runtime.app) return "{}";
  g_runtime.describe_json = g_runtime.app->describe().dump();
  return g_runtime.describe_json.c_str();
}

// The scene caption the page shows over the canvas this frame, as JSON (ui/page_caption.hpp).
extern "C" EMSCRIPTEN_KEEPALIVE const char* vigil_caption_json() {
  g_runtime.caption_json = vigil::web::page_caption_json(vigil::web::screen::dpr()).dump();
  return g_runtime.caption_json.c_str();
}

// The height the page's caption took, CSS pixels: the room left for it follows.
extern "C" EMSCRIPTEN_KEEPALIVE void vigil_caption_measured(float css_height) {
  vigil::web::set_page_caption_height(css_height, vigil::web::screen::dpr());
}

int main() {
  if (!glfwInit()) {
    std::fprintf(stderr, "vigil: glfwInit failed\n");
    return 1;
  }
  glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
  g_runtime.window = glfwCreateWindow(1280, 720, "vigil", nullptr, nullptr);
  if (!g_runtime.window) {
    std::fprintf(stderr, "vigil: cannot create a WebGL2 context\n");
    return 1;
  }
  glfwMakeContextCurrent(g_runtime.window);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;            // no filesystem state between visits
  GImGui->TestEngineHookItems = true;  // the layout report (ui/layout_report.hpp)
  const float dpr = static_cast<float>(emscripten_get_device_pixel_ratio());
  vigil::web::load_ui_font(15.0f * dpr);

  ImGui_ImplGlfw_InitForOpenGL(g_runtime.window, true);
  glfwSetKeyCallback(g_runtime.window, on_key);  // forwards to ImGui's, releases held a frame
  // The keyboard moves between controls (arrow keys) and presses them. Space belongs to the
  // demos (play / pause, ui/shortcuts.hpp) and Tab to the page (leaving the demo), so Enter
  // is what activates the control in focus.
  io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
  io.KeyMap[ImGuiKey_Space] = GLFW_KEY_ENTER;
  ImGui_ImplOpenGL3_Init("#version 300 es");

  g_runtime.app = std::make_unique<vigil::web::App>(vigil::web::UrlParams::from_page());
  // No emscripten_set_main_loop: the page draws frames on demand through vigil_frame().
  return 0;
}
