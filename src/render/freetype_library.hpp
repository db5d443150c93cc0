// FreeType's functions, the library opened the first time text is drawn (with libpng's
// reasons: see png_library.hpp; FreeType maps brotli and libpng of its own too).
#pragma once

#include <ft2build.h>
#include FT_FREETYPE_H

namespace dudley::render {

struct FreeType {
  decltype(&FT_Init_FreeType) init;
  decltype(&FT_Done_FreeType) done;
  decltype(&FT_New_Memory_Face) new_memory_face;
  decltype(&FT_Done_Face) done_face;
  decltype(&FT_Set_Pixel_Sizes) set_pixel_sizes;
  decltype(&FT_Load_Char) load_char;
};

/// FreeType (libfreetype.so.6), opened on first use. Throws Error(kIo) when it cannot be.
const FreeType& freetype();

}  // namespace dudley::render
