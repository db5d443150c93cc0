// Scales: values to positions in [0, 1], and their limits found in the data.
#include "dudley/render/scale.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "dudley/core/error.hpp"

namespace dudley::render {

namespace {

// matplotlib's symlog transform with base 10: linear inside [-linthresh, linthresh], then
// logarithmic, continuous at the threshold.
double symlog(double v, double linthresh) {
  const double a = std::abs(v);
  if (a <= linthresh) return v / linthresh;
  return std::copysign(1.0 + std::log10(a / linthresh), v);
}

double symlog_inverse(double y, double linthresh) {
  const double a = std::abs(y);
  if (a <= 1.0) return y * linthresh;
  return std::copysign(linthresh * std::pow(10.0, a - 1.0), y);
}

double forward(const Scale& s, double v) {
  switch (s.kind) {
    case ScaleKind::kLog:
      return v > 0 ? std::log10(v) : std::numeric_limits<double>::quiet_NaN();
    case ScaleKind::kSymlog:
      return symlog(v, s.linthresh);
    case ScaleKind::kLinear:
      break;
  }
  return v;
}

double inverse(const Scale& s, double y) {
  switch (s.kind) {
    case ScaleKind::kLog:
      return std::pow(10.0, y);
    case ScaleKind::kSymlog:
      return symlog_inverse(y, s.linthresh);
    case ScaleKind::kLinear:
      break;
  }
  return y;
}

}  // namespace

double Scale::position(double v) const {
  const double lo = forward(*this, vmin), hi = forward(*this, vmax), x = forward(*this, v);
  if (std::isnan(x)) return x;
  if (hi == lo) return 0.5;
  return (x - lo) / (hi - lo);
}

double Scale::value_at(double p) const {
  const double lo = forward(*this, vmin), hi = forward(*this, vmax);
  return inverse(*this, lo + p * (hi - lo));
}

ScaleKind scale_kind(std::string_view name) {
  if (name == "linear") return ScaleKind::kLinear;
  if (name == "log") return ScaleKind::kLog;
  if (name == "symlog") return ScaleKind::kSymlog;
  throw Error(ErrorCategory::kUsage,
              fmt::format("no scale called '{}' (there are linear, log, symlog)", name));
}

std::string scale_name(ScaleKind kind) {
  switch (kind) {
    case ScaleKind::kLog:
      return "log";
    case ScaleKind::kSymlog:
      return "symlog";
    case ScaleKind::kLinear:
      break;
  }
  return "linear";
}

Scale fit_scale(ScaleKind kind, std::span<const double> values, std::optional<double> vmin,
                std::optional<double> vmax) {
  if (vmin && vmax && *vmin > *vmax) {
    throw Error(ErrorCategory::kUsage, fmt::format("--vmin {} is above --vmax {}", *vmin, *vmax));
  }
  if (kind == ScaleKind::kLog && ((vmin && *vmin <= 0) || (vmax && *vmax <= 0))) {
    throw Error(ErrorCategory::kUsage, "a log scale's limits must be above 0");
  }
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  double smallest_magnitude = lo;  // symlog: the linear part's width
  for (double v : values) {
    if (!std::isfinite(v) || (kind == ScaleKind::kLog && v <= 0)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    if (v != 0) smallest_magnitude = std::min(smallest_magnitude, std::abs(v));
  }
  Scale s;
  s.kind = kind;
  if (lo > hi) {  // no usable value
    lo = kind == ScaleKind::kLog ? 1.0 : 0.0;
    hi = kind == ScaleKind::kLog ? 10.0 : 1.0;
  }
  s.vmin = vmin.value_or(lo);
  s.vmax = vmax.value_or(hi);
  if (s.vmin > s.vmax) {  // one limit given beyond the data's other end
    if (vmin)
      s.vmax = s.vmin;
    else
      s.vmin = s.vmax;
  }
  if (s.vmin == s.vmax) {
    if (kind == ScaleKind::kLog) {
      s.vmin /= 10;
      s.vmax *= 10;
    } else {
      s.vmin -= 0.5;
      s.vmax += 0.5;
    }
  }
  if (kind == ScaleKind::kSymlog) {
    // The linear part spans the smallest magnitude there is, at most a thousandth of the
    // largest, so that values near 0 still show apart and decades above it stay visible.
    const double largest = std::max(std::abs(s.vmin), std::abs(s.vmax));
    s.linthresh = std::isfinite(smallest_magnitude)
                      ? std::clamp(smallest_magnitude, largest * 1e-3, largest)
                      : 1.0;
    if (!(s.linthresh > 0)) s.linthresh = 1.0;
  }
  return s;
}

}  // namespace dudley::render
