// numcodecs' Delta filter as Zarr v2 stores it: the first element as it is, then each
// element's difference from the one before, stored as `astype` (xarray and zarr-python
// write it for slowly changing integers, such as time axes). Decoding is the running sum.
// Integers wrap as numpy's do (the sums are taken in unsigned arithmetic of the element's
// width); floats are summed in their own precision, one after another, as numpy's cumsum.
#include "dudley/core/dtype.hpp"
#include "element_values.hpp"
#include "settings.hpp"

namespace dudley::codec {
namespace {

DType element_type(const Configuration& c, const char* key, const std::string& fallback) {
  const std::string typestr = string_setting("numcodecs.delta", c, key, fallback);
  DType t;
  try {
    t = DType::from_typestr(typestr);
  } catch (const Error&) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("numcodecs.delta: {} '{}' is not a numpy typestr", key, typestr));
  }
  if (!t.is_integer() && t.kind() != DTypeKind::kFloat) {
    throw Error(
        ErrorCategory::kUsage,
        fmt::format("numcodecs.delta: {} '{}' is not an integer or float type", key, typestr));
  }
  return t;
}

class Delta final : public BytesCodec {
 public:
  Delta(DType type, DType stored) : type_(std::move(type)), stored_(std::move(stored)) {}
  std::string name() const override { return "numcodecs.delta"; }
  double widening() const override {
    return static_cast<double>(stored_.size()) / static_cast<double>(type_.size());
  }
  Configuration configuration() const override {
    return {{"dtype", type_.typestr()}, {"astype", stored_.typestr()}};
  }

  void encode_into(ByteView in, Bytes& out) const override {
    if (in.size() % type_.size() != 0) {  // a trailing part element would be dropped
      throw Error(ErrorCategory::kUsage,
                  fmt::format("numcodecs.delta: {} bytes are no whole number of {} elements",
                              in.size(), type_.typestr()));
    }
    const size_t n = in.size() / type_.size();
    out.resize(n * stored_.size());
    const auto* src = reinterpret_cast<const std::byte*>(in.data());
    auto* dst = reinterpret_cast<std::byte*>(out.data());
    if (type_.kind() == DTypeKind::kFloat) {
      // The difference in the element's own precision, as numpy's diff computes it.
      double before = 0;
      for (size_t i = 0; i < n; ++i) {
        const double v = load_float_element(src + i * type_.size(), type_);
        const double d =
            type_.size() == 4
                ? static_cast<double>(static_cast<float>(v) - static_cast<float>(before))
                : v - before;
        store_float_element(i == 0 ? v : d, dst + i * stored_.size(), stored_);
        before = v;
      }
      return;
    }
    uint64_t before = 0;
    for (size_t i = 0; i < n; ++i) {
      const uint64_t v = load_element(src + i * type_.size(), type_);
      store_element(v - before, dst + i * stored_.size(), stored_);
      before = v;
    }
  }

  std::optional<size_t> decode_to(ByteView in, MutableByteView out) const override {
    if (in.size() % stored_.size() != 0) {
      throw Error(ErrorCategory::kData,
                  fmt::format("numcodecs.delta: {} bytes are no whole number of {} elements",
                              in.size(), stored_.typestr()));
    }
    const size_t n = in.size() / stored_.size();
    if (n > out.size() / type_.size()) return std::nullopt;
    const auto* src = reinterpret_cast<const std::byte*>(in.data());
    auto* dst = reinterpret_cast<std::byte*>(out.data());
    if (type_.kind() == DTypeKind::kFloat) {
      float sum32 = 0;
      double sum64 = 0;
      for (size_t i = 0; i < n; ++i) {
        const double d = load_float_element(src + i * stored_.size(), stored_);
        if (type_.size() == 4) {
          sum32 += static_cast<float>(d);
          store_float_element(sum32, dst + i * type_.size(), type_);
        } else {
          sum64 += d;
          store_float_element(sum64, dst + i * type_.size(), type_);
        }
      }
      return n * type_.size();
    }
    uint64_t sum = 0;
    for (size_t i = 0; i < n; ++i) {
      sum += load_element(src + i * stored_.size(), stored_);
      store_element(sum, dst + i * type_.size(), type_);
    }
    return n * type_.size();
  }

 private:
  DType type_, stored_;
};

}  // namespace

std::unique_ptr<BytesCodec> make_delta(const Configuration& c) {
  DType type = element_type(c, "dtype", "");
  DType stored = element_type(c, "astype", type.typestr());
  const bool floats = type.kind() == DTypeKind::kFloat || stored.kind() == DTypeKind::kFloat;
  if ((floats && type.kind() != stored.kind()) || (floats && type.size() != stored.size()) ||
      (floats && type.size() != 4 && type.size() != 8)) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("numcodecs.delta: dtype {} with astype {} is not read by this build "
                            "(integers of any width, or float32/float64 stored as themselves)",
                            type.typestr(), stored.typestr()));
  }
  return std::make_unique<Delta>(std::move(type), std::move(stored));
}

}  // namespace dudley::codec
