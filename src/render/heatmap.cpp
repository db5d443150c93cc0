// Heatmaps with a colour bar, and RGB pictures: values to pixels, nearest element per pixel.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "dudley/core/error.hpp"
#include "dudley/render/figure.hpp"
#include "render/axes.hpp"

namespace dudley::render {

namespace {

using detail::Fonts;
using detail::kInk;
using detail::kTickLength;

constexpr int kBarWidth = 18;
constexpr int kBarGap = 20;

// The colour bar's tick values: round numbers on a linear scale, decades on a log one, 0
// and decades either side on a symlog one.
std::vector<double> bar_ticks(const Scale& s, int wanted) {
  if (s.kind == ScaleKind::kLinear) return nice_ticks(s.vmin, s.vmax, wanted);
  std::vector<double> out;
  const double top = std::max(std::abs(s.vmin), std::abs(s.vmax));
  const double bottom = s.kind == ScaleKind::kLog ? s.vmin : s.linthresh;
  for (int k = static_cast<int>(std::ceil(std::log10(bottom) - 1e-9));
       k <= static_cast<int>(std::floor(std::log10(top) + 1e-9)) && out.size() < 64; ++k) {
    const double v = std::pow(10.0, k);
    if (s.kind == ScaleKind::kSymlog && -v >= s.vmin) out.insert(out.begin(), -v);
    if (v >= s.vmin && v <= s.vmax) out.push_back(v);
  }
  if (s.kind == ScaleKind::kSymlog && s.vmin <= 0 && s.vmax >= 0) {
    out.insert(std::lower_bound(out.begin(), out.end(), 0.0), 0.0);
  }
  if (out.size() < 2) return nice_ticks(s.vmin, s.vmax, wanted);
  // Every n-th, so that labels do not overlap.
  const size_t every = (out.size() + static_cast<size_t>(wanted) - 1) / static_cast<size_t>(wanted);
  std::vector<double> thinned;
  for (size_t i = 0; i < out.size(); i += std::max<size_t>(every, 1)) thinned.push_back(out[i]);
  return thinned;
}

int widest_tick(Fonts& fonts, const std::vector<std::string>& texts) {
  int w = 0;
  for (const std::string& t : texts) w = std::max(w, fonts.ticks.width(t));
  return w;
}

// The plot area inside the margins: square cells when asked, as large as fits.
FigureLayout place(const FigureOptions& o, const detail::Margins& m, int64_t rows, int64_t cols) {
  detail::check_room(o.width, o.height, m);
  FigureLayout l;
  const int area_w = o.width - m.left - m.right, area_h = o.height - m.top - m.bottom;
  l.plot_x = m.left;
  l.plot_y = m.top;
  l.plot_width = area_w;
  l.plot_height = area_h;
  if (o.keep_aspect) {
    const double cell =
        std::min(area_w / static_cast<double>(cols), area_h / static_cast<double>(rows));
    l.plot_width =
        std::clamp(static_cast<int>(std::lround(cell * static_cast<double>(cols))), 1, area_w);
    l.plot_height =
        std::clamp(static_cast<int>(std::lround(cell * static_cast<double>(rows))), 1, area_h);
    l.plot_x += (area_w - l.plot_width) / 2;
  }
  return l;
}

// The margins of a figure with `y` ticks on the left and `right` pixels beside the plot.
detail::Margins margins(Fonts& fonts, const FigureOptions& o, const Axis& y, int64_t rows,
                        int right) {
  std::vector<std::string> texts;
  for (const detail::Tick& t : detail::axis_ticks(y, rows, std::max(2, (o.height - 90) / 60))) {
    texts.push_back(t.text);
  }
  detail::Margins m;
  m.top = o.title.empty() ? 14 : 36;
  m.bottom = kTickLength + 3 + fonts.ticks.cap_height() + 8 + fonts.names.cap_height() + 16;
  m.left = 12 + fonts.names.cap_height() + 10 + widest_tick(fonts, texts) + kTickLength + 4;
  m.right = right;
  return m;
}

// Element of `count` under pixel `p` of `pixels`: the nearest, by the pixel's centre.
int64_t element_at(int p, int pixels, int64_t count) {
  return std::min<int64_t>(count - 1, static_cast<int64_t>((p + 0.5) * static_cast<double>(count) /
                                                           static_cast<double>(pixels)));
}

void check_grid(int64_t rows, int64_t cols, size_t have, size_t unit) {
  if (rows < 1 || cols < 1) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("nothing to draw: the values are {} x {}", rows, cols));
  }
  if (static_cast<uint64_t>(rows) * static_cast<uint64_t>(cols) * unit != have) {
    throw Error(ErrorCategory::kUsage, "the values do not fill their rows and columns");
  }
}

}  // namespace

Canvas heatmap_figure(const Grid& grid, const Axis& y, const Axis& x, const FigureOptions& o,
                      FigureLayout* layout) {
  check_grid(grid.rows, grid.cols, grid.values.size(), 1);
  if (!grid.masked.empty() && grid.masked.size() != grid.values.size()) {
    throw Error(ErrorCategory::kUsage, "the mask does not cover the values");
  }
  const Colormap map = Colormap::named(o.colormap, o.reversed);
  const Scale scale = fit_scale(o.scale, grid.values, o.vmin, o.vmax);
  Fonts fonts;
  std::vector<std::string> bar_texts;
  const std::vector<double> ticks = bar_ticks(scale, std::max(2, (o.height - 90) / 50));
  bar_texts.reserve(ticks.size());
  for (double v : ticks) bar_texts.push_back(detail::tick_text(v));
  const int right = kBarGap + kBarWidth + kTickLength + 4 + widest_tick(fonts, bar_texts) + 12;
  FigureLayout l = place(o, margins(fonts, o, y, grid.rows, right), grid.rows, grid.cols);
  l.scale = scale;
  Canvas canvas(o.width, o.height);
  // Each pixel takes the element under its centre; a row's columns are looked up once.
  std::vector<int64_t> col_of(static_cast<size_t>(l.plot_width));
  for (int px = 0; px < l.plot_width; ++px)
    col_of[static_cast<size_t>(px)] = element_at(px, l.plot_width, grid.cols);
  const bool any_masked = !grid.masked.empty();
  for (int py = 0; py < l.plot_height; ++py) {
    const int64_t first = element_at(py, l.plot_height, grid.rows) * grid.cols;
    const double* row = grid.values.data() + first;
    for (int px = 0; px < l.plot_width; ++px) {
      const int64_t c = col_of[static_cast<size_t>(px)];
      if (any_masked && grid.masked[static_cast<size_t>(first + c)] != 0) {
        canvas.set(l.plot_x + px, l.plot_y + py, kMasked);
        continue;
      }
      const double p = scale.position(row[c]);
      canvas.set(l.plot_x + px, l.plot_y + py, std::isnan(p) ? kNotANumber : map.at(p));
    }
  }
  detail::draw_axes(canvas, fonts, l, x, grid.cols, &y, grid.rows, o.title);
  // The colour bar: the map from vmin (bottom) to vmax (top), the ticks at their places.
  const int bar_x = l.plot_x + l.plot_width + kBarGap, bar_h = l.plot_height;
  for (int py = 0; py < bar_h; ++py) {
    const Rgb c = map.at(1.0 - (py + 0.5) / bar_h);
    canvas.fill(bar_x, l.plot_y + py, kBarWidth, 1, c);
  }
  canvas.line(bar_x - 1, l.plot_y - 1, bar_x + kBarWidth, l.plot_y - 1, kInk);
  canvas.line(bar_x - 1, l.plot_y + bar_h, bar_x + kBarWidth, l.plot_y + bar_h, kInk);
  canvas.line(bar_x - 1, l.plot_y - 1, bar_x - 1, l.plot_y + bar_h, kInk);
  canvas.line(bar_x + kBarWidth, l.plot_y - 1, bar_x + kBarWidth, l.plot_y + bar_h, kInk);
  for (size_t i = 0; i < ticks.size(); ++i) {
    const double p = scale.position(ticks[i]);
    if (!(p >= 0 && p <= 1)) continue;
    const int py = l.plot_y + static_cast<int>(std::lround((1.0 - p) * (bar_h - 1)));
    canvas.line(bar_x + kBarWidth, py, bar_x + kBarWidth + kTickLength, py, kInk);
    fonts.ticks.draw(canvas, bar_texts[i], bar_x + kBarWidth + kTickLength + 4, py, kInk,
                     Align::kStart, Align::kCentre);
  }
  if (layout) *layout = l;
  return canvas;
}

Canvas rgb_figure(const std::vector<uint8_t>& rgb, int64_t rows, int64_t cols, const Axis& y,
                  const Axis& x, const FigureOptions& o, FigureLayout* layout) {
  check_grid(rows, cols, rgb.size(), 3);
  Fonts fonts;
  const FigureLayout l = place(o, margins(fonts, o, y, rows, 24), rows, cols);
  Canvas canvas(o.width, o.height);
  for (int py = 0; py < l.plot_height; ++py) {
    const int64_t r = element_at(py, l.plot_height, rows);
    for (int px = 0; px < l.plot_width; ++px) {
      const size_t at = static_cast<size_t>((r * cols + element_at(px, l.plot_width, cols)) * 3);
      canvas.set(l.plot_x + px, l.plot_y + py, Rgb{rgb[at], rgb[at + 1], rgb[at + 2]});
    }
  }
  detail::draw_axes(canvas, fonts, l, x, cols, &y, rows, o.title);
  if (layout) *layout = l;
  return canvas;
}

}  // namespace dudley::render
