// Line plots of 1-D values: a polyline, or each pixel column's least and greatest value when
// there are more values than columns.
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "dudley/core/error.hpp"
#include "dudley/render/figure.hpp"
#include "render/axes.hpp"

namespace dudley::render {

namespace {

constexpr Rgb kLine{31, 119, 180};  // matplotlib's first line colour

}  // namespace

Canvas line_figure(const std::vector<double>& values, const Axis& x, const FigureOptions& o,
                   FigureLayout* layout) {
  if (values.empty()) throw Error(ErrorCategory::kUsage, "nothing to draw: no values");
  Scale scale = fit_scale(o.scale, values, o.vmin, o.vmax);
  if (!o.vmin && !o.vmax && scale.kind == ScaleKind::kLinear) {  // room above and below
    const double pad = (scale.vmax - scale.vmin) * 0.05;
    scale.vmin -= pad;
    scale.vmax += pad;
  }
  detail::Fonts fonts;
  const int wanted = std::max(2, (o.height - 90) / 60);
  std::vector<double> ticks = nice_ticks(scale.vmin, scale.vmax, wanted);
  if (scale.kind != ScaleKind::kLinear) {
    ticks.clear();
    for (int k = -300; k <= 300; ++k) {
      const double v = std::pow(10.0, k);
      if (scale.kind == ScaleKind::kSymlog && -v >= scale.vmin && -v <= scale.vmax)
        ticks.push_back(-v);
      if (v >= scale.vmin && v <= scale.vmax) ticks.push_back(v);
    }
    if (scale.kind == ScaleKind::kSymlog && scale.vmin <= 0 && scale.vmax >= 0) ticks.push_back(0);
    std::sort(ticks.begin(), ticks.end());
  }
  int widest = 0;
  for (double t : ticks) widest = std::max(widest, fonts.ticks.width(detail::tick_text(t)));
  detail::Margins m;
  m.top = o.title.empty() ? 14 : 36;
  m.bottom = detail::kTickLength + 3 + fonts.ticks.cap_height() + 8 + fonts.names.cap_height() + 16;
  m.left = 12 + widest + detail::kTickLength + 4;
  m.right = 24;
  detail::check_room(o.width, o.height, m);
  FigureLayout l;
  l.plot_x = m.left;
  l.plot_y = m.top;
  l.plot_width = o.width - m.left - m.right;
  l.plot_height = o.height - m.top - m.bottom;
  l.scale = scale;
  Canvas canvas(o.width, o.height);
  const auto n = static_cast<int64_t>(values.size());
  // A value's row: clamped just outside the area, so that lines leaving it stay short.
  auto row_of = [&](double v) {
    const double p = scale.position(v);
    const double y = l.plot_y + (1.0 - p) * (l.plot_height - 1);
    return static_cast<int>(
        std::lround(std::clamp(y, l.plot_y - 2.0, l.plot_y + l.plot_height + 1.0)));
  };
  auto column_of = [&](int64_t i) {
    return l.plot_x +
           static_cast<int>((static_cast<double>(i) + 0.5) * l.plot_width / static_cast<double>(n));
  };
  if (n > l.plot_width) {
    // Each pixel column: a stroke from its least to its greatest value, joined to the next.
    int last_row = -1, last_col = -1;
    for (int px = 0; px < l.plot_width; ++px) {
      const auto first =
          static_cast<int64_t>(static_cast<double>(px) * static_cast<double>(n) / l.plot_width);
      const auto end =
          static_cast<int64_t>(static_cast<double>(px + 1) * static_cast<double>(n) / l.plot_width);
      double lo = std::numeric_limits<double>::infinity(), hi = -lo;
      for (int64_t i = first; i < end; ++i) {
        const double v = values[static_cast<size_t>(i)];
        if (std::isnan(scale.position(v))) continue;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
      if (lo > hi) {
        last_row = -1;
        continue;
      }
      const int col = l.plot_x + px;
      if (last_row >= 0)
        canvas.line(last_col, last_row, col, row_of(values[static_cast<size_t>(first)]), kLine);
      canvas.line(col, row_of(lo), col, row_of(hi), kLine);
      last_row = row_of(values[static_cast<size_t>(end - 1)]);
      last_col = col;
    }
  } else {
    for (int64_t i = 0; i + 1 < n; ++i) {
      const double a = values[static_cast<size_t>(i)], b = values[static_cast<size_t>(i + 1)];
      if (std::isnan(scale.position(a)) || std::isnan(scale.position(b))) continue;
      canvas.line(column_of(i), row_of(a), column_of(i + 1), row_of(b), kLine, 2);
    }
    if (n == 1 && !std::isnan(scale.position(values[0]))) {
      canvas.fill(column_of(0) - 2, row_of(values[0]) - 2, 5, 5, kLine);
    }
  }
  // The frame's inside is redrawn clear of lines that ran over it, then the axes.
  canvas.fill(0, 0, o.width, l.plot_y - 1, {255, 255, 255});
  canvas.fill(0, l.plot_y + l.plot_height + 1, o.width, o.height, {255, 255, 255});
  detail::draw_axes(canvas, fonts, l, x, n, nullptr, 0, o.title);
  for (double t : ticks) {
    const int py = row_of(t);
    if (py < l.plot_y || py >= l.plot_y + l.plot_height) continue;
    canvas.line(l.plot_x - 1 - detail::kTickLength, py, l.plot_x - 1, py, detail::kInk);
    fonts.ticks.draw(canvas, detail::tick_text(t), l.plot_x - detail::kTickLength - 4, py,
                     detail::kInk, Align::kEnd, Align::kCentre);
  }
  if (layout) *layout = l;
  return canvas;
}

}  // namespace dudley::render
