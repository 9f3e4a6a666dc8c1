// The vigil web app: Dear ImGui on GLFW + WebGL2, built with Emscripten.
#include <GLES3/gl3.h>
#include <GLFW/glfw3.h>
#include <emscripten.h>
#include <emscripten/html5.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "app/app.hpp"
#include "app/ui_font.hpp"
#include "app/url_params.hpp"

namespace {

struct Runtime {
  GLFWwindow* window = nullptr;
  std::unique_ptr<vigil::web::App> app;
  double last_ms = 0;
  std::string state_json;  // backing store for vigil_state_json()
  std::string query;       // backing store for vigil_query()
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

// A frame's worth of simulated time after the loop slept: the demo resumes where it stopped
// instead of jumping over the time nobody watched.
constexpr double kResumeStepMs = 1000.0 / 60.0;

// Draws one frame; true while the app wants more without further input.
bool frame(bool resumed) {
  const double now = emscripten_get_now();
  const double dt = (resumed || g_runtime.last_ms <= 0) ? kResumeStepMs : now - g_runtime.last_ms;
  g_runtime.last_ms = now;

  fit_canvas();
  glfwPollEvents();
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  // ImGui 1.86 asserts DeltaTime > 0; two frames can share a timestamp in a throttled browser.
  ImGuiIO& io = ImGui::GetIO();
  if (!(io.DeltaTime > 0.0f)) io.DeltaTime = 1.0f / 1000.0f;
  ImGui::NewFrame();
  g_runtime.app->frame(dt);
  ImGui::Render();

  int fb_w = 0, fb_h = 0;
  glfwGetFramebufferSize(g_runtime.window, &fb_w, &fb_h);
  glViewport(0, 0, fb_w, fb_h);
  glClearColor(0.08f, 0.09f, 0.11f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  const double end = emscripten_get_now();
  g_runtime.app->record_frame_cost(end - now, end);
  // A held slider or a text field being typed in changes without new events.
  return g_runtime.app->animating() || ImGui::IsAnyItemActive() || io.WantTextInput;
}

}  // namespace

// The page's frame loop (app-shell.js) calls this from requestAnimationFrame while the app is
// visible and has something to show; `resumed` is 1 for the first frame after a pause.
extern "C" EMSCRIPTEN_KEEPALIVE int vigil_frame(int resumed) {
  if (!g_runtime.app) return 0;
  return frame(resumed != 0) ? 1 : 0;
}

// The current demo's parameters as a query string: the page keeps them in its URL and tells its
// host, which can reload the demo as the reader left it.
extern "C" EMSCRIPTEN_KEEPALIVE const char* vigil_query() {
  if (!g_runtime.app) return "";
  g_runtime.query = g_runtime.app->query();
  return g_runtime.query.c_str();
}

// window.vigil.state() in the page reads this: the active demo's numbers as JSON.
extern "C" EMSCRIPTEN_KEEPALIVE const char* vigil_state_json() {
  if (!g_runtime.app) return "{}";
  g_runtime.state_json = g_runtime.app->state().dump();
  return g_runtime.state_json.c_str();
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
  io.IniFilename = nullptr;  // no filesystem state between visits
  ImGui::StyleColorsDark();
  const float dpr = static_cast<float>(emscripten_get_device_pixel_ratio());
  ImGui::GetStyle().ScaleAllSizes(dpr);
  ImGui::GetStyle().FrameRounding = 3.0f * dpr;
  vigil::web::load_ui_font(15.0f * dpr);

  ImGui_ImplGlfw_InitForOpenGL(g_runtime.window, true);
  ImGui_ImplOpenGL3_Init("#version 300 es");

  g_runtime.app = std::make_unique<vigil::web::App>(vigil::web::UrlParams::from_page());
  // No emscripten_set_main_loop: the page draws frames on demand through vigil_frame().
  return 0;
}
