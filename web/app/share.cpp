#include "app/share.hpp"

#include <emscripten.h>
#include <imgui.h>

#include <algorithm>

#include "ui/url_params.hpp"
#include "ui/widgets.hpp"

namespace vigil::web {

namespace {

// The page's address without its query: where this app is served.
std::string page_address() {
  const char* href = emscripten_run_script_string("location.origin + location.pathname");
  return href ? href : "";
}

std::string directory_of(const std::string& address) {
  const auto slash = address.rfind('/');
  return slash == std::string::npos ? address : address.substr(0, slash + 1);
}

std::string html_attribute(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '<':
        out += "&lt;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

void copy_to_clipboard(const std::string& text) {
  // The click that asked for it is a moment old: browsers still count it as the user's gesture.
  // clang-format reads the JavaScript as C++ and would split its "=>": left as written.
  // clang-format off
  EM_ASM({
    const text = UTF8ToString($0);
    if (navigator.clipboard) navigator.clipboard.writeText(text).catch(() => {});
  }, text.c_str());
  // clang-format on
}

void copyable(const char* id, const std::string& text, float lines) {
  ImGui::PushID(id);
  // ImGui wants a mutable buffer even when read-only; the copy is small.
  std::string buffer = text;
  ImGui::InputTextMultiline(
      "##text", buffer.data(), buffer.size() + 1,
      ImVec2(-1, ImGui::GetTextLineHeight() * lines + ImGui::GetStyle().FramePadding.y * 2),
      ImGuiInputTextFlags_ReadOnly);
  if (button("copy")) copy_to_clipboard(text);
  ImGui::PopID();
}

}  // namespace

ShareTexts share_texts(const std::string& demo, const std::string& query) {
  const std::string address = page_address();
  UrlParams params = UrlParams::parse(query);
  params.erase("demo");
  params.erase("embed");
  ShareTexts t;
  t.link = address + "?" + query;
  t.embed = "<script src=\"" + directory_of(address) +
            "embed.js\" async></script>\n"
            "<div data-vigil-demo=\"" +
            demo + "\" data-params=\"" + html_attribute(params.query()) + "\"></div>";
  return t;
}

void draw_share_popup(const ShareTexts& texts) {
  const ImGuiViewport* viewport = ImGui::GetMainViewport();
  ImGui::SetNextWindowSize(
      ImVec2(std::min(viewport->WorkSize.x * 0.95f, ImGui::GetFontSize() * 40), 0));
  ImGui::SetNextWindowPos(ImVec2(viewport->WorkPos.x + viewport->WorkSize.x * 0.5f,
                                 viewport->WorkPos.y + ImGui::GetFontSize() * 3),
                          ImGuiCond_Always, ImVec2(0.5f, 0.0f));
  if (!ImGui::BeginPopup("share")) return;
  ImGui::TextUnformatted("Link to this demo as it is now");
  copyable("link", texts.link, 2.5f);
  ImGui::Spacing();
  ImGui::TextWrapped(
      "Embed it in a page: the frame loads when scrolled near, sleeps off-screen and sizes "
      "itself.");
  copyable("embed", texts.embed, 4.5f);
  if (button("close")) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
}

}  // namespace vigil::web
