#pragma once

#include <string>

namespace vigil::web {

// What a reader copies to share the demo as they see it: a link to this app with the current
// parameters, and the two lines that embed the same demo in another page (embed.js, served
// next to the app; see docs/embedding.md).
struct ShareTexts {
  std::string link;
  std::string embed;
};

// `demo` is the demo's id, `query` the app's current query string (App::query).
ShareTexts share_texts(const std::string& demo, const std::string& query);

// The popup opened with ImGui::OpenPopup("share"): both texts, selectable, each with a button
// that copies it to the clipboard.
void draw_share_popup(const ShareTexts& texts);

}  // namespace vigil::web
