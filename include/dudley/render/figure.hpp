// Figures of array values: heatmaps with a colour bar, line plots, RGB images; each with
// axes whose ticks say the array's indexes or its coordinates, and the dimensions' names.
// `dudley plot` writes them as PNG; the viewer serves the same pictures.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dudley/render/canvas.hpp"
#include "dudley/render/colormap.hpp"
#include "dudley/render/scale.hpp"

namespace dudley::render {

/// One dimension of the values shown: element i is index start + i * step of the array.
struct Axis {
  std::string name;  ///< the dimension's name; empty: none known
  int64_t start = 0;
  int64_t step = 1;
  /// The coordinate of each shown element (the file's coordinate array); empty: ticks say
  /// indexes.
  std::vector<double> coordinates;
};

/// Values in rows and columns, row-major (row 0 is drawn at the top).
struct Grid {
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<double> values;  ///< rows * cols; NaN is shown apart (kNotANumber)
  /// One byte per value, non-zero where the value is masked (shown as kMasked); empty:
  /// none is.
  std::vector<uint8_t> masked;
};

/// What a figure looks like.
struct FigureOptions {
  int width = 800;
  int height = 600;
  std::string title;
  std::string colormap = "viridis";
  bool reversed = false;
  ScaleKind scale = ScaleKind::kLinear;
  std::optional<double> vmin, vmax;
  bool keep_aspect = true;  ///< heatmaps: square cells (false: fill the area)
};

/// Where a figure put the values, for programs that look at its pixels (and the viewer's
/// hover): the plot area, and the scale of the colours (heatmaps) or of the vertical axis
/// (line plots).
struct FigureLayout {
  int plot_x = 0, plot_y = 0, plot_width = 0, plot_height = 0;
  Scale scale;
};

/// A heatmap of `grid` with a colour bar. Throws Error(kUsage) for an empty grid or for
/// options that cannot be (a side too small for the axes, bad limits, an unknown map).
Canvas heatmap_figure(const Grid& grid, const Axis& y, const Axis& x, const FigureOptions& options,
                      FigureLayout* layout = nullptr);

/// A line plot of `values` (NaN leaves a gap); more values than pixel columns are drawn
/// as each column's least and greatest. Throws Error(kUsage) as heatmap_figure does.
Canvas line_figure(const std::vector<double>& values, const Axis& x, const FigureOptions& options,
                   FigureLayout* layout = nullptr);

/// An RGB picture of `rows` x `cols` pixels, 3 bytes each (an H x W x 3 uint8 array).
Canvas rgb_figure(const std::vector<uint8_t>& rgb, int64_t rows, int64_t cols, const Axis& y,
                  const Axis& x, const FigureOptions& options, FigureLayout* layout = nullptr);

/// Tick values for the range [lo, hi]: about `wanted` round numbers (1, 2 or 5 times a power
/// of ten apart) inside it.
std::vector<double> nice_ticks(double lo, double hi, int wanted);

}  // namespace dudley::render
