// Text on pictures: DejaVu Sans, built into the program, drawn by FreeType.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "dudley/render/canvas.hpp"

namespace dudley::render {

/// Where a text's point (x, y) is: horizontally its left, centre or right end; vertically
/// the top of its capital letters, their middle, or the baseline.
enum class Align { kStart, kCentre, kEnd };

/// The built-in font at one pixel size. Not thread-safe: one per thread.
class Font {
 public:
  /// The font at `pixels` high (an em). Throws Error(kIo) when FreeType cannot load it.
  explicit Font(int pixels);
  ~Font();
  Font(const Font&) = delete;
  Font& operator=(const Font&) = delete;

  /// The width `text` (UTF-8) takes, in pixels.
  int width(std::string_view text);
  /// The height of capital letters above the baseline, in pixels.
  int cap_height() const { return cap_height_; }
  /// Draws `text` so that (x, y) is where `horizontal` and `vertical` say; `vertical`
  /// kStart is the capitals' top, kCentre their middle, kEnd the baseline.
  void draw(Canvas& canvas, std::string_view text, int x, int y, Rgb colour,
            Align horizontal = Align::kStart, Align vertical = Align::kEnd);
  /// The same, turned a quarter left (reading upwards), for a vertical axis's name: (x, y)
  /// is the middle of the text's run and the capitals' middle across it.
  void draw_upwards(Canvas& canvas, std::string_view text, int x, int y, Rgb colour);

 private:
  struct Face;
  std::unique_ptr<Face> face_;
  int cap_height_ = 0;
};

}  // namespace dudley::render
