#include "render/png_library.hpp"

#include "dudley/core/loaded_library.hpp"

namespace dudley::render {

const Png& png() {
  // A failure to load throws out of the initialiser, so the next call tries again.
  static const Png functions = [] {
    const LoadedLibrary lib("libpng16.so.16", "writing PNG pictures");
    return Png{lib.function<decltype(&png_create_write_struct)>("png_create_write_struct"),
               lib.function<decltype(&png_create_info_struct)>("png_create_info_struct"),
               lib.function<decltype(&png_destroy_write_struct)>("png_destroy_write_struct"),
               lib.function<decltype(&png_set_longjmp_fn)>("png_set_longjmp_fn"),
               lib.function<decltype(&png_longjmp)>("png_longjmp"),
               lib.function<decltype(&png_get_io_ptr)>("png_get_io_ptr"),
               lib.function<decltype(&png_get_error_ptr)>("png_get_error_ptr"),
               lib.function<decltype(&png_set_write_fn)>("png_set_write_fn"),
               lib.function<decltype(&png_set_IHDR)>("png_set_IHDR"),
               lib.function<decltype(&png_set_compression_level)>("png_set_compression_level"),
               lib.function<decltype(&png_set_filter)>("png_set_filter"),
               lib.function<decltype(&png_set_text)>("png_set_text"),
               lib.function<decltype(&png_set_rows)>("png_set_rows"),
               lib.function<decltype(&png_write_png)>("png_write_png")};
  }();
  return functions;
}

}  // namespace dudley::render
