// PNG encoding through libpng, into memory; files written whole or not at all.
#include "dudley/render/png.hpp"

#include <csetjmp>

#include "dudley/core/error.hpp"
#include "dudley/core/file_io.hpp"
#include "render/png_library.hpp"

namespace dudley::render {

namespace {

void append(png_structp png, png_bytep data, png_size_t length) {
  auto* out = static_cast<std::string*>(render::png().get_io_ptr(png));
  out->append(reinterpret_cast<const char*>(data), length);
}

void no_flush(png_structp) {}

// libpng reports errors by longjmp after calling this; the message is kept for the Error.
void on_error(png_structp png, png_const_charp message) {
  auto* kept = static_cast<std::string*>(render::png().get_error_ptr(png));
  *kept = message;
  render::png().longjmp(png, 1);
}

void on_warning(png_structp, png_const_charp) {}

// The encoding itself, apart so that no object with a destructor lives across setjmp.
bool encode(png_structp png, png_infop info, const Canvas& canvas, const PngText& text, bool fast,
            std::string& out, std::vector<png_text>& chunks, std::vector<png_bytep>& rows) {
  const Png& lib = render::png();
  // png_jmpbuf(png), spelled out: libpng is called through pointers.
  if (setjmp(*lib.set_longjmp_fn(png, longjmp, sizeof(jmp_buf)))) return false;
  lib.set_write_fn(png, &out, append, no_flush);
  lib.set_IHDR(png, info, static_cast<png_uint_32>(canvas.width()),
               static_cast<png_uint_32>(canvas.height()), 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (fast) {
    lib.set_compression_level(png, 1);
    lib.set_filter(png, 0, PNG_FILTER_NONE);
  }
  for (const auto& [key, value] : text) {
    png_text t{};
    t.compression = PNG_TEXT_COMPRESSION_NONE;
    t.key = const_cast<char*>(key.c_str());
    t.text = const_cast<char*>(value.c_str());
    t.text_length = value.size();
    chunks.push_back(t);
  }
  if (!chunks.empty()) lib.set_text(png, info, chunks.data(), static_cast<int>(chunks.size()));
  lib.set_rows(png, info, rows.data());
  lib.write_png(png, info, PNG_TRANSFORM_IDENTITY, nullptr);
  return true;
}

}  // namespace

std::string encode_png(const Canvas& canvas, const PngText& text, bool fast) {
  std::string message;
  const Png& lib = render::png();
  png_structp png = lib.create_write_struct(PNG_LIBPNG_VER_STRING, &message, on_error, on_warning);
  if (png == nullptr) throw Error(ErrorCategory::kIo, "libpng: cannot start a PNG");
  png_infop info = lib.create_info_struct(png);
  std::string out;
  std::vector<png_text> chunks;
  std::vector<png_bytep> rows(static_cast<size_t>(canvas.height()));
  auto* pixels = const_cast<uint8_t*>(canvas.pixels().data());
  for (size_t y = 0; y < rows.size(); ++y) {
    rows[y] = pixels + y * static_cast<size_t>(canvas.width()) * 3;
  }
  const bool ok = info != nullptr && encode(png, info, canvas, text, fast, out, chunks, rows);
  lib.destroy_write_struct(&png, info ? &info : nullptr);
  if (!ok) throw Error(ErrorCategory::kIo, "libpng: " + (message.empty() ? "no memory" : message));
  return out;
}

void write_png(const std::string& path, const Canvas& canvas, const PngText& text) {
  write_file_atomically(path, encode_png(canvas, text));
}

}  // namespace dudley::render
