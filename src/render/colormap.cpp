// Colour maps by name (tables generated from matplotlib: scripts/gen_colormaps.py).
#include "dudley/render/colormap.hpp"

#include <cmath>

#include <fmt/format.h>

#include "dudley/core/error.hpp"
#include "render/colormap_tables.hpp"

namespace dudley::render {

namespace {

struct Named {
  const char* name;
  const uint8_t (*table)[3];
};

constexpr Named kMaps[] = {
    {"viridis", tables::kViridis}, {"magma", tables::kMagma}, {"inferno", tables::kInferno},
    {"cividis", tables::kCividis}, {"grey", tables::kGrey},   {"coolwarm", tables::kCoolwarm},
};

}  // namespace

Colormap Colormap::named(std::string_view name, bool reversed) {
  if (name == "gray") name = "grey";
  for (const Named& m : kMaps) {
    if (name == m.name) return Colormap(m.name, m.table, reversed);
  }
  throw Error(ErrorCategory::kUsage, fmt::format("no colour map called '{}' (there are {})", name,
                                                 fmt::join(names(), ", ")));
}

std::vector<std::string> Colormap::names() {
  std::vector<std::string> out;
  for (const Named& m : kMaps) out.emplace_back(m.name);
  return out;
}

Rgb Colormap::entry(int i) const {
  const int at = reversed_ ? 255 - i : i;
  return Rgb{table_[at][0], table_[at][1], table_[at][2]};
}

Rgb Colormap::at(double t) const {
  // matplotlib: x * N truncated, N - 1 for x == 1, ends for values beyond them.
  int i = 0;
  if (t >= 1.0) {
    i = 255;
  } else if (t > 0.0) {
    i = static_cast<int>(t * 256.0);
  }
  return entry(i);
}

}  // namespace dudley::render
