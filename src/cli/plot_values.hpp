// What `dudley plot` (and the viewer) draws of an item: its selection read as a line, a grid
// or an RGB picture, decimated to about the pixels there are, with its axes' names and
// coordinates from the file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/deadline_read.hpp"
#include "cli/dump_items.hpp"
#include "dudley/model/tree.hpp"
#include "dudley/render/figure.hpp"

namespace dudley::cli {

/// An item's values, ready to draw.
struct PlotValues {
  enum class Kind { kLine, kHeatmap, kRgb };
  Kind kind = Kind::kHeatmap;
  std::string label;              ///< the item as given ("/x[0, :, :]")
  DType dtype;                    ///< the array's type
  std::vector<int64_t> selected;  ///< the selection's shape before decimation
  std::vector<int64_t> step;      ///< the decimation step of each shown dimension (1: none)
  render::Grid grid;              ///< kLine: one row; kHeatmap: rows x cols
  std::vector<uint8_t> rgb;       ///< kRgb: rows x cols x 3
  render::Axis y, x;              ///< kLine: x only
  uint64_t not_numbers = 0;       ///< NaN values among those shown (masked ones aside)
  /// Values a mask hides (ASDF masks): NaN in grid.values, so that limits ignore them as
  /// numpy's masked arrays do, and flagged in grid.masked to be shown apart.
  uint64_t masked = 0;
  /// Of those, values equal to the array's `_FillValue` or `missing_value` attribute: data
  /// missing as netCDF and CF say (numpy's masked arrays from netCDF4 and xarray hide them).
  uint64_t missing = 0;
};

/// How `plot_values` reads: at most about `max_rows` x `max_cols` values are read (every
/// k-th element along a longer dimension), complex values as their amplitude or phase.
struct PlotRead {
  int max_rows = 1200;
  int max_cols = 1600;
  /// A 1-D selection is read whole up to this many values (each pixel column then draws
  /// its least and greatest), every k-th element beyond.
  int64_t max_line_values = int64_t{1} << 24;
  bool phase = false;
  /// The viewer's: the read stops there, throwing OutOfTime (deadline_read.hpp), `limit`
  /// being the time it was given, for the message. None: read to the end.
  std::optional<Deadline> deadline;
  std::chrono::milliseconds limit{0};
};

/// Resolves `item` in `tree` (`file` names it in messages) and reads what a figure of it
/// shows: a 1-D selection as a line, 2-D as a heatmap, H x W x 3 of uint8 as RGB. Throws
/// Error(kUsage) naming the item for anything else (with the selection to try), for types
/// that are not numbers, and Error(kData) for an array that cannot be read.
PlotValues plot_values(const model::Tree& tree, const std::string& item, const std::string& file,
                       const PlotRead& how = {});

/// The same for `array` (a node of `tree` at `path`) with the fields and selection of
/// `spec`, already resolved (a notebook's array: no item text to parse).
PlotValues plot_array(const model::Tree& tree, const model::Node& array, const std::string& path,
                      const ItemSpec& spec, const std::string& file, const PlotRead& how = {});

/// The selection a preview of a whole array of `dtype` and `shape` draws: the last two
/// dimensions at index 0 of the others ("[0, :, :]"); "" (everything) for 1-D and 2-D
/// arrays and H x W x 3 uint8 pictures.
std::string preview_selection(const DType& dtype, const std::vector<int64_t>& shape);

/// "line", "heatmap" or "rgb".
const char* kind_name(PlotValues::Kind kind);

/// The figure of `values` (a line plot, a heatmap or an RGB picture as their kind says),
/// laid out as `layout` then tells. Throws as render's figures do.
render::Canvas draw_figure(const PlotValues& values, const render::FigureOptions& options,
                           render::FigureLayout* layout = nullptr);

}  // namespace dudley::cli
