// PNG files of canvases, through libpng.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "dudley/render/canvas.hpp"

namespace dudley::render {

/// Text kept in a PNG's tEXt chunks (keyword, text): what the figure shows, for programs.
using PngText = std::vector<std::pair<std::string, std::string>>;

/// `canvas` as PNG bytes (8-bit RGB), with `text` in tEXt chunks. `fast` trades size for
/// speed (zlib level 1, no row filters), for a viewer's images. Throws Error(kIo) when
/// libpng fails.
std::string encode_png(const Canvas& canvas, const PngText& text = {}, bool fast = false);

/// Writes `canvas` to `path` as PNG: into a temporary file beside it, renamed over `path`
/// when complete, so that a failure leaves no half-written picture. Throws Error(kIo)
/// naming the path.
void write_png(const std::string& path, const Canvas& canvas, const PngText& text = {});

}  // namespace dudley::render
