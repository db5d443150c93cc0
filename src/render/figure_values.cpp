// The values a figure draws, as doubles.
#include "dudley/render/figure_values.hpp"

#include <complex>

#include <fmt/format.h>

#include "dudley/core/error.hpp"
#include "dudley/core/float16.hpp"

namespace dudley::render {

namespace {

template <typename T>
void widen(const void* data, size_t n, std::vector<double>& out) {
  const auto* p = static_cast<const T*>(data);
  for (size_t i = 0; i < n; ++i) out.push_back(static_cast<double>(p[i]));
}

}  // namespace

std::vector<double> figure_values(const NDArray& a, bool phase, const std::string& label) {
  const DType& t = a.dtype().kind() == DTypeKind::kEnum ? a.dtype().base() : a.dtype();
  const size_t n = a.element_count();
  std::vector<double> out;
  out.reserve(n);
  const void* d = a.data();
  const size_t size = t.size();
  switch (t.kind()) {
    case DTypeKind::kBool:
      for (size_t i = 0; i < n; ++i) out.push_back(static_cast<const uint8_t*>(d)[i] != 0);
      return out;
    case DTypeKind::kInt:
      if (size == 1) widen<int8_t>(d, n, out);
      if (size == 2) widen<int16_t>(d, n, out);
      if (size == 4) widen<int32_t>(d, n, out);
      if (size == 8) widen<int64_t>(d, n, out);
      return out;
    case DTypeKind::kUInt:
      if (size == 1) widen<uint8_t>(d, n, out);
      if (size == 2) widen<uint16_t>(d, n, out);
      if (size == 4) widen<uint32_t>(d, n, out);
      if (size == 8) widen<uint64_t>(d, n, out);
      return out;
    case DTypeKind::kFloat:
      if (size == 2) {
        for (size_t i = 0; i < n; ++i) {
          out.push_back(half_to_float(static_cast<const uint16_t*>(d)[i]));
        }
      }
      if (size == 4) widen<float>(d, n, out);
      if (size == 8) widen<double>(d, n, out);
      return out;
    case DTypeKind::kComplex:
      for (size_t i = 0; i < n; ++i) {
        std::complex<double> z;
        if (size == 8) {
          const auto* p = static_cast<const float*>(d) + 2 * i;
          z = {p[0], p[1]};
        } else if (size == 16) {
          const auto* p = static_cast<const double*>(d) + 2 * i;
          z = {p[0], p[1]};
        } else {
          const auto* p = static_cast<const uint16_t*>(d) + 2 * i;
          z = {half_to_float(p[0]), half_to_float(p[1])};
        }
        out.push_back(phase ? std::arg(z) : std::abs(z));
      }
      return out;
    default:
      break;
  }
  check_figure_type(t, label);
  return out;
}

void check_figure_type(const DType& dtype, const std::string& what) {
  const DTypeKind k = (dtype.kind() == DTypeKind::kEnum ? dtype.base() : dtype).kind();
  if (k == DTypeKind::kBool || k == DTypeKind::kInt || k == DTypeKind::kUInt ||
      k == DTypeKind::kFloat || k == DTypeKind::kComplex) {
    return;
  }
  throw Error(ErrorCategory::kUsage,
              fmt::format("{} holds {} values: a figure draws numbers (integers, floats, complex "
                          "numbers, booleans)",
                          what, dtype.to_string()));
}

}  // namespace dudley::render
