#include "ui/heatmap_texture.hpp"

#include <GLES3/gl3.h>

#include <algorithm>
#include <cstdint>

namespace vigil::plot {

HeatmapTexture::HeatmapTexture(int rows, int cols, HeatCell initial)
    : rows_(std::max(0, rows)),
      cols_(std::max(0, cols)),
      cells_(static_cast<std::size_t>(rows_) * static_cast<std::size_t>(cols_), initial) {}

HeatmapTexture::~HeatmapTexture() {
  if (texture_ != 0) {
    const GLuint t = texture_;
    glDeleteTextures(1, &t);
  }
}

void HeatmapTexture::set(int row, int col, HeatCell cell) {
  HeatCell& stored = cells_[index(row, col)];
  if (stored.color == cell.color && stored.rank == cell.rank) return;
  stored = cell;
  if (block_rows_ > 0) refresh_block(row / block_rows_, col / block_cols_);
}

std::uint32_t HeatmapTexture::shown_color(int row, int col) const {
  if (drawn_ == Drawn::nothing) return 0;
  if (drawn_ == Drawn::cells) return cells_[index(row, col)].color;
  return image_[static_cast<std::size_t>(row / block_rows_) *
                    static_cast<std::size_t>(image_cols_) +
                static_cast<std::size_t>(col / block_cols_)];
}

// The block's texel is its highest-ranked cell, the first one row by row on ties: the same pick
// as plot::heatmap's, so both draw the same picture.
void HeatmapTexture::refresh_block(int block_row, int block_col) {
  const int r0 = block_row * block_rows_, c0 = block_col * block_cols_;
  const int r1 = std::min(rows_, r0 + block_rows_), c1 = std::min(cols_, c0 + block_cols_);
  const HeatCell* best = nullptr;
  for (int r = r0; r < r1; ++r)
    for (int c = c0; c < c1; ++c) {
      const HeatCell& v = cells_[index(r, c)];
      if (!best || v.rank > best->rank) best = &v;
    }
  image_[static_cast<std::size_t>(block_row) * static_cast<std::size_t>(image_cols_) +
         static_cast<std::size_t>(block_col)] = best ? best->color : 0;
  if (dirty_from_ == dirty_to_) {
    dirty_from_ = block_row;
    dirty_to_ = block_row + 1;
  } else {
    dirty_from_ = std::min(dirty_from_, block_row);
    dirty_to_ = std::max(dirty_to_, block_row + 1);
  }
}

void HeatmapTexture::rebuild(int block_rows, int block_cols) {
  block_rows_ = block_rows;
  block_cols_ = block_cols;
  image_rows_ = (rows_ + block_rows - 1) / block_rows;
  image_cols_ = (cols_ + block_cols - 1) / block_cols;
  image_.assign(static_cast<std::size_t>(image_rows_) * static_cast<std::size_t>(image_cols_), 0);
  for (int br = 0; br < image_rows_; ++br)
    for (int bc = 0; bc < image_cols_; ++bc) refresh_block(br, bc);
}

// One glTexSubImage2D of the changed texel rows (whole rows: they are contiguous in image_).
void HeatmapTexture::upload() {
  if (dirty_from_ == dirty_to_) return;
  GLint previous = 0;
  glGetIntegerv(GL_TEXTURE_BINDING_2D, &previous);
  if (texture_ == 0) {
    GLuint t = 0;
    glGenTextures(1, &t);
    texture_ = t;
  }
  glBindTexture(GL_TEXTURE_2D, texture_);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
  if (texture_rows_ != image_rows_ || texture_cols_ != image_cols_) {
    // A new size: allocate it, and the whole image is uploaded below.
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, image_cols_, image_rows_, 0, GL_RGBA, GL_UNSIGNED_BYTE,
                 nullptr);
    texture_rows_ = image_rows_;
    texture_cols_ = image_cols_;
    dirty_from_ = 0;
    dirty_to_ = image_rows_;
  }
  glTexSubImage2D(GL_TEXTURE_2D, 0, 0, dirty_from_, image_cols_, dirty_to_ - dirty_from_, GL_RGBA,
                  GL_UNSIGNED_BYTE,
                  image_.data() + static_cast<std::size_t>(dirty_from_) *
                                      static_cast<std::size_t>(image_cols_));
  glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(previous));
  dirty_from_ = dirty_to_ = 0;
  ++uploads_;
}

void HeatmapTexture::draw_rects(ImVec2 top_left, float cell_w, float cell_h) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (int r = 0; r < rows_; ++r)
    for (int c = 0; c < cols_; ++c) {
      const HeatCell& v = cells_[index(r, c)];
      if ((v.color >> 24) == 0) continue;
      const ImVec2 a(top_left.x + static_cast<float>(c) * cell_w,
                     top_left.y + static_cast<float>(r) * cell_h);
      dl->AddRectFilled(a, ImVec2(a.x + cell_w - 1.0f, a.y + cell_h - 1.0f), v.color);
    }
}

void HeatmapTexture::draw(double x0, double x1, double y0, double y1) {
  if (rows_ == 0 || cols_ == 0) return;
  cell_grid(rows_, cols_, x0, x1, y0, y1);
  const ImVec2 top_left = to_screen(x0, y1), bottom_right = to_screen(x1, y0);
  const float w = (bottom_right.x - top_left.x) / static_cast<float>(cols_);
  const float h = (bottom_right.y - top_left.y) / static_cast<float>(rows_);
  if (cells_have_gaps(w, h)) {
    draw_rects(top_left, w, h);
    drawn_ = Drawn::cells;
    return;
  }
  drawn_ = Drawn::image;
  const int block_rows = cells_per_block(h), block_cols = cells_per_block(w);
  if (block_rows != block_rows_ || block_cols != block_cols_) rebuild(block_rows, block_cols);
  upload();
  // Texel edges fall on cell edges: the last block may hold fewer cells than the others, so the
  // image is cut where the cells end rather than stretched over them.
  const ImVec2 uv_max(static_cast<float>(cols_) / static_cast<float>(image_cols_ * block_cols_),
                      static_cast<float>(rows_) / static_cast<float>(image_rows_ * block_rows_));
  ImGui::GetWindowDrawList()->AddImage(
      reinterpret_cast<ImTextureID>(static_cast<std::uintptr_t>(texture_)), top_left, bottom_right,
      ImVec2(0, 0), uv_max);
}

}  // namespace vigil::plot
