#include "render/freetype_library.hpp"

#include "dudley/core/loaded_library.hpp"

namespace dudley::render {

const FreeType& freetype() {
  static const FreeType functions = [] {
    const LoadedLibrary lib("libfreetype.so.6", "drawing text in pictures");
    return FreeType{lib.function<decltype(&FT_Init_FreeType)>("FT_Init_FreeType"),
                    lib.function<decltype(&FT_Done_FreeType)>("FT_Done_FreeType"),
                    lib.function<decltype(&FT_New_Memory_Face)>("FT_New_Memory_Face"),
                    lib.function<decltype(&FT_Done_Face)>("FT_Done_Face"),
                    lib.function<decltype(&FT_Set_Pixel_Sizes)>("FT_Set_Pixel_Sizes"),
                    lib.function<decltype(&FT_Load_Char)>("FT_Load_Char")};
  }();
  return functions;
}

}  // namespace dudley::render
