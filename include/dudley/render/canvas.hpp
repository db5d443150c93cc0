// A picture in memory: 8-bit RGB pixels, row by row from the top, and the few drawing steps
// figures need (rectangles, lines, blending a glyph's coverage).
#pragma once

#include <cstdint>
#include <vector>

#include "dudley/render/colormap.hpp"

namespace dudley::render {

class Canvas {
 public:
  /// The largest side a canvas may have: a figure is for a screen or a page.
  static constexpr int kMaxSide = 16384;

  /// A `width` x `height` canvas filled with `background`. Throws Error(kUsage) for a side
  /// below 1 or above kMaxSide.
  Canvas(int width, int height, Rgb background = {255, 255, 255});

  int width() const { return width_; }
  int height() const { return height_; }
  /// The pixel at (x, y); (0, 0) is the top left.
  Rgb at(int x, int y) const;
  /// Sets the pixel at (x, y); points outside the canvas are left alone.
  void set(int x, int y, Rgb colour);
  /// Mixes `colour` into the pixel at (x, y) by `coverage` of 255 (text edges).
  void blend(int x, int y, Rgb colour, uint8_t coverage);
  /// Fills the rectangle [x, x + w) x [y, y + h), clipped to the canvas.
  void fill(int x, int y, int w, int h, Rgb colour);
  /// A line from (x0, y0) to (x1, y1), `width` pixels wide, clipped to the canvas.
  void line(int x0, int y0, int x1, int y1, Rgb colour, int width = 1);
  /// The pixels, 3 bytes each, rows from the top.
  const std::vector<uint8_t>& pixels() const { return pixels_; }
  std::vector<uint8_t>& pixels() { return pixels_; }

 private:
  int width_, height_;
  std::vector<uint8_t> pixels_;
};

}  // namespace dudley::render
