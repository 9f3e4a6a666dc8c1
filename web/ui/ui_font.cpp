#include "ui/ui_font.hpp"

#include <imgui.h>

#include <cstddef>

// Defined in the source that web/ui_font_source.cmake generates from the font subset.
namespace vigil::web::ui_font_data {
extern const unsigned char kTtf[];
extern const std::size_t kTtfSize;
extern const ImWchar kGlyphRanges[];
}  // namespace vigil::web::ui_font_data

namespace vigil::web {

ImFont* load_ui_font(float size_px) {
  ImFontConfig config;
  // The bytes live in the app's static data for its whole life: the atlas must not free them.
  config.FontDataOwnedByAtlas = false;
  // The font is rasterised at the screen's own pixel size (size_px includes the device pixel
  // ratio), so ImGui's default 3x horizontal oversampling buys nothing visible; it tripled the
  // atlas built during the first frame, the page's longest task on a phone.
  config.OversampleH = 1;
  // ImGui takes a mutable pointer but only reads the font.
  void* ttf = const_cast<unsigned char*>(ui_font_data::kTtf);
  return ImGui::GetIO().Fonts->AddFontFromMemoryTTF(ttf, static_cast<int>(ui_font_data::kTtfSize),
                                                    size_px, &config, ui_font_data::kGlyphRanges);
}

}  // namespace vigil::web
