// How values become positions in [0, 1] on a colour map or an axis: linear, logarithmic or
// symmetric logarithmic, between limits given or found in the data.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace dudley::render {

enum class ScaleKind { kLinear, kLog, kSymlog };

/// A scale between two limits.
struct Scale {
  ScaleKind kind = ScaleKind::kLinear;
  double vmin = 0.0;
  double vmax = 1.0;
  /// kSymlog: the half-width of the linear part around 0 (matplotlib's linthresh).
  double linthresh = 1.0;

  /// `v`'s position: 0 at vmin, 1 at vmax (below 0 or above 1 outside them). NaN for NaN,
  /// and for values a log scale cannot place (0 and below).
  double position(double v) const;
  /// The value at position `p` (the inverse of position), for ticks and colour bars.
  double value_at(double p) const;
};

/// The scale kind called `name` (linear, log, symlog). Throws Error(kUsage) for another.
ScaleKind scale_kind(std::string_view name);
/// The name of `kind`.
std::string scale_name(ScaleKind kind);

/// A scale of `kind` fitting `values`: limits given are kept, the others are the finite
/// values' least and greatest (a log scale's the least and greatest above 0); NaN and
/// infinities are skipped. Equal limits are widened (by 0.5 either side, or a factor of
/// 10 on a log scale) so that every position is defined. With no usable value: 0 to 1
/// (1 to 10 for log). Throws Error(kUsage) for limits that cannot be (vmin > vmax, or a log
/// limit at or below 0).
Scale fit_scale(ScaleKind kind, std::span<const double> values, std::optional<double> vmin = {},
                std::optional<double> vmax = {});

}  // namespace dudley::render
