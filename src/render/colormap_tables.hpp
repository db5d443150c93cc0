// The colour maps' 256 colours each (generated: src/render/colormap_tables.cpp).
#pragma once

#include <cstdint>

namespace dudley::render::tables {

extern const uint8_t kViridis[256][3];
extern const uint8_t kMagma[256][3];
extern const uint8_t kInferno[256][3];
extern const uint8_t kCividis[256][3];
extern const uint8_t kGrey[256][3];
extern const uint8_t kCoolwarm[256][3];

}  // namespace dudley::render::tables
