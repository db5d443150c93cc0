// Canvas: pixels and the drawing steps figures use.
#include "dudley/render/canvas.hpp"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "dudley/core/error.hpp"

namespace dudley::render {

Canvas::Canvas(int width, int height, Rgb background) : width_(width), height_(height) {
  if (width < 1 || height < 1 || width > kMaxSide || height > kMaxSide) {
    throw Error(ErrorCategory::kUsage, fmt::format("a picture of {} x {} pixels: each side must "
                                                   "be 1 to {}",
                                                   width, height, kMaxSide));
  }
  pixels_.resize(static_cast<size_t>(width) * static_cast<size_t>(height) * 3);
  for (size_t i = 0; i < pixels_.size(); i += 3) {
    pixels_[i] = background.r;
    pixels_[i + 1] = background.g;
    pixels_[i + 2] = background.b;
  }
}

Rgb Canvas::at(int x, int y) const {
  const size_t i =
      (static_cast<size_t>(y) * static_cast<size_t>(width_) + static_cast<size_t>(x)) * 3;
  return Rgb{pixels_.at(i), pixels_.at(i + 1), pixels_.at(i + 2)};
}

void Canvas::set(int x, int y, Rgb colour) {
  if (x < 0 || y < 0 || x >= width_ || y >= height_) return;
  const size_t i =
      (static_cast<size_t>(y) * static_cast<size_t>(width_) + static_cast<size_t>(x)) * 3;
  pixels_[i] = colour.r;
  pixels_[i + 1] = colour.g;
  pixels_[i + 2] = colour.b;
}

void Canvas::blend(int x, int y, Rgb colour, uint8_t coverage) {
  if (x < 0 || y < 0 || x >= width_ || y >= height_ || coverage == 0) return;
  const size_t i =
      (static_cast<size_t>(y) * static_cast<size_t>(width_) + static_cast<size_t>(x)) * 3;
  auto mix = [coverage](uint8_t under, uint8_t over) {
    return static_cast<uint8_t>((under * (255 - coverage) + over * coverage + 127) / 255);
  };
  pixels_[i] = mix(pixels_[i], colour.r);
  pixels_[i + 1] = mix(pixels_[i + 1], colour.g);
  pixels_[i + 2] = mix(pixels_[i + 2], colour.b);
}

void Canvas::fill(int x, int y, int w, int h, Rgb colour) {
  const int x0 = std::max(x, 0), y0 = std::max(y, 0);
  const int x1 = std::min(x + w, width_), y1 = std::min(y + h, height_);
  for (int row = y0; row < y1; ++row) {
    for (int col = x0; col < x1; ++col) set(col, row, colour);
  }
}

void Canvas::line(int x0, int y0, int x1, int y1, Rgb colour, int width) {
  // Bresenham's walk; each step stamps a width x width square.
  const int dx = std::abs(x1 - x0), dy = -std::abs(y1 - y0);
  const int sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
  const int half = (width - 1) / 2;
  int err = dx + dy;
  for (;;) {
    fill(x0 - half, y0 - half, width, width, colour);
    if (x0 == x1 && y0 == y1) break;
    const int e2 = 2 * err;
    if (e2 >= dy) {
      err += dy;
      x0 += sx;
    }
    if (e2 <= dx) {
      err += dx;
      y0 += sy;
    }
  }
}

}  // namespace dudley::render
