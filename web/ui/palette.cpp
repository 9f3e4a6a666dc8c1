#include "ui/palette.hpp"

namespace vigil::plot {

namespace {

constexpr Palette kDark{
    .dark = true,
    .blue = IM_COL32(86, 180, 233, 255),
    .orange = IM_COL32(230, 159, 0, 255),
    .green = IM_COL32(0, 170, 125, 255),
    .red = IM_COL32(236, 102, 40, 255),
    .yellow = IM_COL32(240, 228, 66, 255),
    .purple = IM_COL32(204, 121, 167, 255),
    .grey = IM_COL32(150, 150, 160, 255),
    .alive = IM_COL32(0, 170, 125, 255),
    .suspect = IM_COL32(240, 200, 60, 255),
    .dead = IM_COL32(236, 92, 30, 255),
    .left = IM_COL32(138, 143, 153, 255),
    .unknown = IM_COL32(40, 42, 48, 255),
    .self = IM_COL32(70, 72, 80, 255),
    .window_bg = IM_COL32(20, 22, 27, 255),
    .frame_bg = IM_COL32(24, 26, 32, 255),
    .area_bg = IM_COL32(16, 18, 22, 255),
    .grid = IM_COL32(255, 255, 255, 28),
    .axis = IM_COL32(255, 255, 255, 60),
    .ink = IM_COL32(200, 200, 210, 255),
    .ink_dim = IM_COL32(130, 130, 140, 255),
    .legend_bg = IM_COL32(20, 22, 28, 210),
    .cell_ink = IM_COL32(20, 20, 24, 230),
    .accent = IM_COL32(166, 191, 255, 255),
    .error = IM_COL32(255, 110, 100, 255),
};

constexpr Palette kLight{
    .dark = false,
    .blue = IM_COL32(0, 114, 178, 255),
    .orange = IM_COL32(181, 110, 0, 255),
    .green = IM_COL32(0, 122, 90, 255),
    .red = IM_COL32(200, 60, 20, 255),
    .yellow = IM_COL32(130, 115, 0, 255),
    .purple = IM_COL32(160, 70, 125, 255),
    .grey = IM_COL32(105, 105, 118, 255),
    .alive = IM_COL32(0, 122, 90, 255),
    .suspect = IM_COL32(181, 122, 0, 255),
    .dead = IM_COL32(166, 52, 0, 255),
    .left = IM_COL32(100, 104, 120, 255),
    .unknown = IM_COL32(222, 223, 228, 255),
    .self = IM_COL32(200, 202, 210, 255),
    .window_bg = IM_COL32(246, 246, 243, 255),
    .frame_bg = IM_COL32(236, 236, 232, 255),
    .area_bg = IM_COL32(253, 253, 251, 255),
    .grid = IM_COL32(0, 0, 0, 26),
    .axis = IM_COL32(0, 0, 0, 80),
    .ink = IM_COL32(45, 47, 56, 255),
    .ink_dim = IM_COL32(120, 122, 132, 255),
    .legend_bg = IM_COL32(255, 255, 255, 225),
    .cell_ink = IM_COL32(255, 255, 255, 240),
    .accent = IM_COL32(30, 80, 170, 255),
    .error = IM_COL32(190, 30, 20, 255),
};

const Palette* g_palette = &kDark;

}  // namespace

const Palette& palette() {
  return *g_palette;
}

void use_palette(bool dark) {
  g_palette = dark ? &kDark : &kLight;
}

}  // namespace vigil::plot
