// Frames, ticks, axis names and titles shared by every figure.
#include "render/axes.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "dudley/core/error.hpp"

namespace dudley::render {

std::vector<double> nice_ticks(double lo, double hi, int wanted) {
  std::vector<double> out;
  if (!std::isfinite(lo) || !std::isfinite(hi) || wanted < 1) return out;
  if (hi < lo) std::swap(lo, hi);
  if (hi == lo) return {lo};
  const double rough = (hi - lo) / wanted;
  const double power = std::pow(10.0, std::floor(std::log10(rough)));
  double step = power;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * power;
    if (step >= rough) break;
  }
  const double first = std::ceil(lo / step - 1e-9) * step;
  for (int i = 0; i < 1000; ++i) {
    const double v = first + i * step;
    if (v > hi + step * 1e-9) break;
    out.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
  }
  return out;
}

namespace detail {

std::string tick_text(double v) {
  if (v == std::floor(v) && std::abs(v) < 1e15) return fmt::format("{}", static_cast<int64_t>(v));
  return fmt::format("{:.4g}", v);
}

std::vector<Tick> axis_ticks(const Axis& axis, int64_t count, int wanted) {
  std::vector<Tick> out;
  if (count <= 0) return out;
  // Ticks at round array indexes; with coordinates each says the coordinate there.
  const double first = static_cast<double>(axis.start);
  const double last = first + static_cast<double>(count - 1) * static_cast<double>(axis.step);
  for (double index : nice_ticks(std::min(first, last), std::max(first, last), wanted)) {
    if (std::abs(index - std::round(index)) > 1e-9) continue;  // indexes are whole numbers
    const double element = (index - first) / static_cast<double>(axis.step);
    if (element < -1e-9 || element > static_cast<double>(count - 1) + 1e-9) continue;
    const double rounded = std::round(element);
    if (!axis.coordinates.empty()) {
      if (std::abs(element - rounded) > 1e-9) continue;  // between elements: no coordinate
      out.push_back({rounded, tick_text(axis.coordinates[static_cast<size_t>(rounded)])});
    } else {
      out.push_back({element, tick_text(index)});
    }
  }
  return out;
}

std::string axis_name(const Axis& axis, int dimension) {
  return axis.name.empty() ? fmt::format("axis {}", dimension) : axis.name;
}

void check_room(int width, int height, const Margins& m) {
  if (width - m.left - m.right < 16 || height - m.top - m.bottom < 16) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("a figure of {} x {} pixels leaves no room to plot in (at least {} x "
                            "{} with its axes)",
                            width, height, m.left + m.right + 16, m.top + m.bottom + 16));
  }
}

void draw_axes(Canvas& canvas, Fonts& fonts, const FigureLayout& l, const Axis& x, int64_t x_count,
               const Axis* y, int64_t y_count, const std::string& title) {
  const int left = l.plot_x - 1, top = l.plot_y - 1;
  const int right = l.plot_x + l.plot_width, bottom = l.plot_y + l.plot_height;
  canvas.line(left, top, right, top, kInk);
  canvas.line(left, bottom, right, bottom, kInk);
  canvas.line(left, top, left, bottom, kInk);
  canvas.line(right, top, right, bottom, kInk);
  const int x_wanted = std::max(2, l.plot_width / 90);
  for (const Tick& t : axis_ticks(x, x_count, x_wanted)) {
    const int px = l.plot_x + static_cast<int>(std::lround((t.element + 0.5) * l.plot_width /
                                                           static_cast<double>(x_count)));
    canvas.line(px, bottom, px, bottom + kTickLength, kInk);
    fonts.ticks.draw(canvas, t.text, px, bottom + kTickLength + 3, kInk, Align::kCentre,
                     Align::kStart);
  }
  fonts.names.draw(canvas, axis_name(x, y ? 1 : 0), l.plot_x + l.plot_width / 2,
                   bottom + kTickLength + 3 + fonts.ticks.cap_height() + 8, kInk, Align::kCentre,
                   Align::kStart);
  int widest = 0;
  if (y) {
    const int y_wanted = std::max(2, l.plot_height / 60);
    for (const Tick& t : axis_ticks(*y, y_count, y_wanted)) {
      const int py = l.plot_y + static_cast<int>(std::lround((t.element + 0.5) * l.plot_height /
                                                             static_cast<double>(y_count)));
      canvas.line(left - kTickLength, py, left, py, kInk);
      fonts.ticks.draw(canvas, t.text, left - kTickLength - 3, py, kInk, Align::kEnd,
                       Align::kCentre);
      widest = std::max(widest, fonts.ticks.width(t.text));
    }
    fonts.names.draw_upwards(canvas, axis_name(*y, 0),
                             left - kTickLength - 3 - widest - 6 - fonts.names.cap_height() / 2,
                             l.plot_y + l.plot_height / 2, kInk);
  }
  if (!title.empty()) {
    fonts.title.draw(canvas, title, l.plot_x + l.plot_width / 2, top - 8, kInk, Align::kCentre,
                     Align::kEnd);
  }
}

}  // namespace detail
}  // namespace dudley::render
