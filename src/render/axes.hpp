// The parts every figure shares: its frame, title, ticks and the names of its axes.
#pragma once

#include <string>
#include <vector>

#include "dudley/render/figure.hpp"
#include "dudley/render/text.hpp"

namespace dudley::render::detail {

inline constexpr Rgb kInk{34, 34, 34};  ///< text, frames and ticks
inline constexpr int kTickLength = 5;

/// The fonts of a figure: ticks, axis names, title.
struct Fonts {
  Font ticks{12};
  Font names{14};
  Font title{15};
};

/// The tick labels of an axis of `count` shown elements: (element position, text) pairs.
struct Tick {
  double element = 0;  ///< fractional element index: 0 is the first element's centre
  std::string text;
};
std::vector<Tick> axis_ticks(const Axis& axis, int64_t count, int wanted);

/// A number as ticks print it: short (4 significant digits), no trailing zeros.
std::string tick_text(double v);

/// The margins a figure leaves around its plot area for ticks, names and title.
struct Margins {
  int left = 0, right = 0, top = 0, bottom = 0;
};

/// Throws Error(kUsage) when the plot area left by `m` in a `width` x `height` figure is too
/// small to draw in.
void check_room(int width, int height, const Margins& m);

/// Draws the frame around the plot area, the ticks and labels of `x` (below) and `y` (left;
/// none when `y` is null), the axes' names and the title.
void draw_axes(Canvas& canvas, Fonts& fonts, const FigureLayout& layout, const Axis& x,
               int64_t x_count, const Axis* y, int64_t y_count, const std::string& title);

/// The name an axis shows: its dimension's name, or "axis N".
std::string axis_name(const Axis& axis, int dimension);

}  // namespace dudley::render::detail
