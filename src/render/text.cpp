// Text through FreeType, in the font built into the program (font_data.S).
#include "dudley/render/text.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include <fmt/format.h>
#include "dudley/core/error.hpp"
#include "render/freetype_library.hpp"

extern "C" const unsigned char dudley_font_data[];
extern "C" const uint64_t dudley_font_size;

namespace dudley::render {

struct Font::Face {
  FT_Library library = nullptr;
  FT_Face face = nullptr;
  ~Face() {
    if (face) freetype().done_face(face);
    if (library) freetype().done(library);
  }
};

namespace {

// The code points of UTF-8 `text`; a byte that starts no valid sequence stands for itself
// (Latin-1), so that any name prints as something.
std::vector<uint32_t> code_points(std::string_view text) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    const size_t more = b >= 0xC2 && b < 0xE0   ? 1
                        : b >= 0xE0 && b < 0xF0 ? 2
                        : b >= 0xF0 && b < 0xF5 ? 3
                                                : 0;
    uint32_t cp = b & (0x7Fu >> more);
    bool whole = more > 0 && i + more < text.size();
    for (size_t k = 1; whole && k <= more; ++k) {
      const auto c = static_cast<unsigned char>(text[i + k]);
      whole = (c & 0xC0) == 0x80;
      cp = (cp << 6) | (c & 0x3Fu);
    }
    out.push_back(whole ? cp : b);
    i += whole ? more + 1 : 1;
  }
  return out;
}

}  // namespace

Font::Font(int pixels) : face_(std::make_unique<Face>()) {
  if (freetype().init(&face_->library) != 0 ||
      freetype().new_memory_face(face_->library, dudley_font_data,
                                 static_cast<FT_Long>(dudley_font_size), 0, &face_->face) != 0 ||
      freetype().set_pixel_sizes(face_->face, 0,
                                 static_cast<FT_UInt>(std::clamp(pixels, 4, 512))) != 0) {
    throw Error(ErrorCategory::kIo, "FreeType could not load the built-in font");
  }
  if (freetype().load_char(face_->face, 'H', FT_LOAD_DEFAULT) == 0) {
    cap_height_ = static_cast<int>(face_->face->glyph->metrics.horiBearingY >> 6);
  }
}

Font::~Font() = default;

int Font::width(std::string_view text) {
  int pen = 0;
  for (uint32_t cp : code_points(text)) {
    if (freetype().load_char(face_->face, cp, FT_LOAD_DEFAULT) != 0) continue;
    pen += static_cast<int>(face_->face->glyph->advance.x >> 6);
  }
  return pen;
}

void Font::draw(Canvas& canvas, std::string_view text, int x, int y, Rgb colour, Align horizontal,
                Align vertical) {
  if (horizontal == Align::kCentre) x -= width(text) / 2;
  if (horizontal == Align::kEnd) x -= width(text);
  if (vertical == Align::kStart) y += cap_height_;
  if (vertical == Align::kCentre) y += cap_height_ / 2;
  int pen = x;
  for (uint32_t cp : code_points(text)) {
    if (freetype().load_char(face_->face, cp, FT_LOAD_RENDER) != 0) continue;
    const FT_GlyphSlot g = face_->face->glyph;
    const FT_Bitmap& bm = g->bitmap;
    for (unsigned row = 0; row < bm.rows; ++row) {
      for (unsigned col = 0; col < bm.width; ++col) {
        const uint8_t coverage = bm.buffer[static_cast<long>(row) * bm.pitch + col];
        canvas.blend(pen + g->bitmap_left + static_cast<int>(col),
                     y - g->bitmap_top + static_cast<int>(row), colour, coverage);
      }
    }
    pen += static_cast<int>(g->advance.x >> 6);
  }
}

void Font::draw_upwards(Canvas& canvas, std::string_view text, int x, int y, Rgb colour) {
  // Drawn flat on a scratch canvas, then copied turned: the scratch's (cx, cy) lands on
  // (x - h/2 + cy, y + w/2 - cx).
  const int w = std::max(width(text), 1), h = cap_height_ * 2 + 4;
  Canvas scratch(std::min(w + 2, Canvas::kMaxSide), std::min(h, Canvas::kMaxSide), {0, 0, 0});
  draw(scratch, text, 1, h / 2, {255, 255, 255}, Align::kStart, Align::kCentre);
  for (int cy = 0; cy < scratch.height(); ++cy) {
    for (int cx = 0; cx < scratch.width(); ++cx) {
      const uint8_t coverage = scratch.at(cx, cy).r;
      canvas.blend(x - h / 2 + cy, y + w / 2 - cx, colour, coverage);
    }
  }
}

}  // namespace dudley::render
