// numcodecs' FixedScaleOffset filter: values stored as round((x - offset) * scale) in a
// narrower type `astype` (xarray and zarr-python write it to pack measurements into small
// integers). Decoding is x = stored / scale + offset, then the cast to `dtype`, computed in
// the precision numpy computes it in: float64 for integers stored, the stored float's own
// precision for floats; a cast of a float to an integer drops the fraction, as numpy's
// astype does.
#include <cmath>
#include <limits>

#include "dudley/core/dtype.hpp"
#include "element_values.hpp"
#include "settings.hpp"

namespace dudley::codec {
namespace {

constexpr const char* kName = "numcodecs.fixedscaleoffset";

double number_setting(const Configuration& c, const char* key, double fallback) {
  if (!c.is_object() || !c.contains(key)) return fallback;
  if (!c[key].is_number() || !std::isfinite(c[key].get<double>())) {
    throw Error(ErrorCategory::kUsage, fmt::format("{}: setting '{}' must be a finite number, "
                                                   "not {}",
                                                   kName, key, c[key].dump()));
  }
  return c[key].get<double>();
}

class FixedScaleOffset final : public BytesCodec {
 public:
  FixedScaleOffset(DType type, DType stored, double scale, double offset)
      : type_(std::move(type)), stored_(std::move(stored)), scale_(scale), offset_(offset) {}
  std::string name() const override { return kName; }
  double widening() const override {
    return static_cast<double>(stored_.size()) / static_cast<double>(type_.size());
  }
  Configuration configuration() const override {
    return {{"dtype", type_.typestr()},
            {"astype", stored_.typestr()},
            {"scale", scale_},
            {"offset", offset_}};
  }

  void encode_into(ByteView in, Bytes& out) const override {
    if (in.size() % type_.size() != 0) {
      throw Error(ErrorCategory::kUsage,
                  fmt::format("{}: {} bytes are no whole number of {} elements", kName, in.size(),
                              type_.typestr()));
    }
    const size_t n = in.size() / type_.size();
    out.resize(n * stored_.size());
    const bool single = type_.kind() == DTypeKind::kFloat && type_.size() == 4;
    for (size_t i = 0; i < n; ++i) {
      const double x = load_number(in.data() + i * type_.size(), type_);
      // (x - offset) * scale, rounded half to even as numpy.around, in x's precision.
      double e = single
                     ? static_cast<double>((static_cast<float>(x) - static_cast<float>(offset_)) *
                                           static_cast<float>(scale_))
                     : (x - offset_) * scale_;
      e = std::nearbyint(e);
      store_number(e, out.data() + i * stored_.size(), stored_);
    }
  }

  std::optional<size_t> decode_to(ByteView in, MutableByteView out) const override {
    if (in.size() % stored_.size() != 0) {
      throw Error(ErrorCategory::kData,
                  fmt::format("{}: {} bytes are no whole number of {} elements", kName, in.size(),
                              stored_.typestr()));
    }
    const size_t n = in.size() / stored_.size();
    if (n > out.size() / type_.size()) return std::nullopt;
    const bool single = stored_.kind() == DTypeKind::kFloat && stored_.size() == 4;
    for (size_t i = 0; i < n; ++i) {
      const double e = load_number(in.data() + i * stored_.size(), stored_);
      const double x =
          single ? static_cast<double>(static_cast<float>(e) / static_cast<float>(scale_) +
                                       static_cast<float>(offset_))
                 : e / scale_ + offset_;
      store_number(x, out.data() + i * type_.size(), type_);
    }
    return n * type_.size();
  }

 private:
  DType type_, stored_;
  double scale_, offset_;
};

}  // namespace

std::unique_ptr<BytesCodec> make_fixed_scale_offset(const Configuration& c) {
  if (c.is_object()) {
    for (const auto& [key, value] : c.items()) {
      if (key != "dtype" && key != "astype" && key != "scale" && key != "offset") {
        throw Error(ErrorCategory::kUsage, fmt::format("{}: unknown setting '{}'", kName, key));
      }
    }
  }
  DType type = element_type_setting(kName, c, "dtype", "");
  DType stored = element_type_setting(kName, c, "astype", type.typestr());
  const double scale = number_setting(c, "scale", 1);
  const double offset = number_setting(c, "offset", 0);
  if (scale == 0) throw Error(ErrorCategory::kUsage, fmt::format("{}: scale is 0", kName));
  return std::make_unique<FixedScaleOffset>(std::move(type), std::move(stored), scale, offset);
}

}  // namespace dudley::codec
