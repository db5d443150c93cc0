#include "dudley/core/byte_swap.hpp"

#include <cstring>

namespace dudley {

namespace {
// Loops written over memcpy'd words so the compiler vectorises them and alignment never matters.
template <typename Word, Word (*Swap)(Word)>
void swap_words(unsigned char* p, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) {
    Word w;
    std::memcpy(&w, p + i * sizeof(Word), sizeof(Word));
    w = Swap(w);
    std::memcpy(p + i * sizeof(Word), &w, sizeof(Word));
  }
}
uint16_t bswap16(uint16_t v) {
  return __builtin_bswap16(v);
}
uint32_t bswap32(uint32_t v) {
  return __builtin_bswap32(v);
}
uint64_t bswap64(uint64_t v) {
  return __builtin_bswap64(v);
}
}  // namespace

void swap_units(void* data, uint64_t unit_count, unsigned unit) {
  auto* p = static_cast<unsigned char*>(data);
  switch (unit) {
    case 2:
      swap_words<uint16_t, bswap16>(p, unit_count);
      break;
    case 4:
      swap_words<uint32_t, bswap32>(p, unit_count);
      break;
    case 8:
      swap_words<uint64_t, bswap64>(p, unit_count);
      break;
    case 16:
      for (uint64_t i = 0; i < unit_count; ++i) {
        unsigned char* w = p + i * 16;
        for (int k = 0; k < 8; ++k) std::swap(w[k], w[15 - k]);
      }
      break;
    default:
      break;  // one-byte units never swap
  }
}

void swap_elements(void* data, uint64_t count, const DType& type) {
  if (!type.needs_swap() || count == 0) return;
  auto* p = static_cast<unsigned char*>(data);
  switch (type.kind()) {
    case DTypeKind::kCompound: {
      // Fields may overlap (a union, or netCDF record variables at one address): bytes that
      // one field swapped are not swapped back by another laid over the same bytes.
      const auto& fields = type.fields();
      for (size_t f = 0; f < fields.size(); ++f) {
        const auto& field = fields[f];
        if (!field.type->needs_swap()) continue;
        bool done = false;
        for (size_t e = 0; e < f && !done; ++e) {
          done = fields[e].offset == field.offset && *fields[e].type == *field.type &&
                 fields[e].shape == field.shape;
        }
        if (done) continue;
        uint64_t per_element = 1;
        for (int64_t d : field.shape) per_element *= static_cast<uint64_t>(d);
        for (uint64_t i = 0; i < count; ++i) {
          swap_elements(p + i * type.size() + field.offset, per_element, *field.type);
        }
      }
      return;
    }
    case DTypeKind::kFixedArray: {
      uint64_t per_element = type.size() / (type.base().size() ? type.base().size() : 1);
      swap_elements(p, count * per_element, type.base());
      return;
    }
    default:
      swap_units(p, count * (type.size() / type.unit_size()), type.unit_size());
      return;
  }
}

}  // namespace dudley
