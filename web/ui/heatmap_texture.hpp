#pragma once

#include <cstdint>
#include <vector>

#include "ui/plot.hpp"

namespace vigil::plot {

// A rows x cols heat map whose picture is kept between frames, for matrices too large to redraw
// cell by cell every frame (a 1,000-member SWIM matrix is a million cells). The owner sets cells
// as they change; drawing costs one image, only changed blocks are recomputed, and a frame
// uploads at most once: the band of texel rows that changed.
//
// The picture follows plot::heatmap's rule: cells smaller than two pixels are grouped in blocks
// showing their highest-ranked cell (the first of them, row by row), so one dead member among a
// million views still shows. The image holds one texel per block and is rebuilt in full only when
// the block size changes (the plot was resized). Cells large enough for gaps between them are
// drawn as rectangles, exactly as plot::heatmap draws them.
//
// Needs the GL context the ImGui OpenGL3 backend renders with; the texture is released with the
// object.
class HeatmapTexture {
 public:
  // Every cell starts as `initial`.
  HeatmapTexture(int rows, int cols, HeatCell initial);
  ~HeatmapTexture();
  HeatmapTexture(const HeatmapTexture&) = delete;
  HeatmapTexture& operator=(const HeatmapTexture&) = delete;

  int rows() const { return rows_; }
  int cols() const { return cols_; }
  const HeatCell& cell(int row, int col) const { return cells_[index(row, col)]; }

  // Updates one cell, and the block that shows it if the picture exists.
  void set(int row, int col, HeatCell cell);

  // Draws the matrix over [x0, x1] x [y0, y1] in data units (row 0 at the top) of the current
  // plot, between plot::begin and plot::end; hovered_cell() then reports on it.
  void draw(double x0, double x1, double y0, double y1);

  // Block size of the last picture drawn from the texture (0 before any): how many cells each
  // texel stands for, down and across. Tests and the state readout use it.
  int block_rows() const { return block_rows_; }
  int block_cols() const { return block_cols_; }
  // The colour the last frame showed where cell (row, col) is (0 before the first draw).
  std::uint32_t shown_color(int row, int col) const;
  std::uint64_t uploads() const { return uploads_; }  // glTexSubImage2D calls so far

 private:
  std::size_t index(int row, int col) const {
    return static_cast<std::size_t>(row) * static_cast<std::size_t>(cols_) +
           static_cast<std::size_t>(col);
  }
  void rebuild(int block_rows, int block_cols);
  void refresh_block(int block_row, int block_col);
  void upload();
  void draw_rects(ImVec2 top_left, float cell_w, float cell_h);

  int rows_ = 0, cols_ = 0;
  std::vector<HeatCell> cells_;                                        // row-major
  enum class Drawn { nothing, cells, image } drawn_ = Drawn::nothing;  // in the last frame

  // The picture: one RGBA texel (an ImU32, which is R, G, B, A in memory) per block.
  int block_rows_ = 0, block_cols_ = 0;  // cells per texel, down and across
  int image_rows_ = 0, image_cols_ = 0;
  std::vector<std::uint32_t> image_;
  unsigned texture_ = 0;                     // GLuint; 0 until the first picture
  int texture_rows_ = 0, texture_cols_ = 0;  // the GL texture's allocated size
  int dirty_from_ = 0, dirty_to_ = 0;        // texel rows to upload, [from, to)
  std::uint64_t uploads_ = 0;
};

}  // namespace vigil::plot
