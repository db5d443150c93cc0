// libpng's functions, the library opened the first time a PNG is made: only `plot` and the
// viewer draw, and every other command would pay for mapping libpng at start.
#pragma once

#include <png.h>

namespace dudley::render {

struct Png {
  decltype(&png_create_write_struct) create_write_struct;
  decltype(&png_create_info_struct) create_info_struct;
  decltype(&png_destroy_write_struct) destroy_write_struct;
  decltype(&png_set_longjmp_fn) set_longjmp_fn;
  decltype(&png_longjmp) longjmp;
  decltype(&png_get_io_ptr) get_io_ptr;
  decltype(&png_get_error_ptr) get_error_ptr;
  decltype(&png_set_write_fn) set_write_fn;
  decltype(&png_set_IHDR) set_IHDR;
  decltype(&png_set_compression_level) set_compression_level;
  decltype(&png_set_filter) set_filter;
  decltype(&png_set_text) set_text;
  decltype(&png_set_rows) set_rows;
  decltype(&png_write_png) write_png;
};

/// libpng (libpng16.so.16), opened on first use. Throws Error(kIo) when it cannot be.
const Png& png();

}  // namespace dudley::render
