// numcodecs' filters that store elements as another numeric type: AsType (encode_dtype on
// disk, decode_dtype in memory; narrowing is the writer's choice and loses what it loses)
// and Quantize (floats rounded to `digits` decimal digits when written, stored as `astype`,
// read back as `dtype`). Reading is numpy's astype: integers to integers wrap, floats round
// to the nearer float, floats to integers drop the fraction (saturating where numpy leaves
// the cast undefined).
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "element_values.hpp"
#include "settings.hpp"

namespace dudley::codec {
namespace {

// One element of `from` at `in` as one of `to` at `out`.
void convert_element(const std::byte* in, const DType& from, std::byte* out, const DType& to) {
  if (from.is_integer() && to.is_integer()) {
    store_element(load_element(in, from), out, to);  // exact, wrapping as numpy's astype
  } else {
    store_number(load_number(in, from), out, to);
  }
}

// numpy's cast of one value: integers to integers wrap, to floats round; floats to integers
// drop the fraction, saturating (and NaN as 0) where numpy leaves the cast undefined.
template <typename To, typename From>
To numpy_cast(From v) {
  if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    if (std::isnan(v)) return 0;
    if (v <= static_cast<From>(std::numeric_limits<To>::min()))
      return std::numeric_limits<To>::min();
    if (v >= static_cast<From>(std::numeric_limits<To>::max()))
      return std::numeric_limits<To>::max();
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

// Calls `f` with a value of the C++ type of `t` (an integer, float32 or float64 in this
// machine's order); false for any other type.
template <typename F>
bool with_native_type(const DType& t, F&& f) {
  if (t.needs_swap()) return false;
  const bool ints = t.kind() == DTypeKind::kInt;
  switch (t.kind() == DTypeKind::kFloat ? 100 + t.size() : t.size() + (ints ? 0 : 10)) {
    case 1:
      return f(int8_t{}), true;
    case 2:
      return f(int16_t{}), true;
    case 4:
      return f(int32_t{}), true;
    case 8:
      return f(int64_t{}), true;
    case 11:
      return f(uint8_t{}), true;
    case 12:
      return f(uint16_t{}), true;
    case 14:
      return f(uint32_t{}), true;
    case 18:
      return f(uint64_t{}), true;
    case 104:
      return f(float{}), true;
    case 108:
      return f(double{}), true;
    default:
      return false;
  }
}

// `n` elements of `from` at `in` as `to` at `out`, in a loop of the two C++ types: the
// common case (both in this machine's order), eight times faster than element by element.
bool convert_native(const std::byte* in, const DType& from, std::byte* out, const DType& to,
                    size_t n) {
  bool done = false;
  with_native_type(from, [&](auto source) {
    using From = decltype(source);
    with_native_type(to, [&](auto target) {
      using To = decltype(target);
      for (size_t i = 0; i < n; ++i) {
        From v;
        std::memcpy(&v, in + i * sizeof(From), sizeof(From));
        const To t = numpy_cast<To>(v);
        std::memcpy(out + i * sizeof(To), &t, sizeof(To));
      }
      done = true;
    });
  });
  return done;
}

void check_whole(const std::string& name, ByteView in, const DType& type, ErrorCategory category) {
  if (in.size() % type.size() != 0) {
    throw Error(category, fmt::format("{}: {} bytes are no whole number of {} elements", name,
                                      in.size(), type.typestr()));
  }
}

// Elements of `stored` on disk, of `type` in memory; `digits` >= 0 rounds when encoding
// (Quantize), as numpy computes it: around(scale * x) / scale in x's own precision.
class AsType final : public BytesCodec {
 public:
  AsType(std::string name, DType type, DType stored, std::optional<int> digits)
      : name_(std::move(name)),
        type_(std::move(type)),
        stored_(std::move(stored)),
        digits_(digits) {
    if (digits_) {
      // numcodecs: precision 10^-digits, its exponent rounded away from zero, then the
      // power of two at least 10^-exponent.
      const double exponent = -static_cast<double>(*digits_);
      const double whole = exponent < 0 ? std::floor(exponent) : std::ceil(exponent);
      scale_ = std::exp2(std::ceil(std::log2(std::pow(10.0, -whole))));
    }
  }
  std::string name() const override { return name_; }
  double widening() const override {
    return static_cast<double>(stored_.size()) / static_cast<double>(type_.size());
  }
  Configuration configuration() const override {
    if (digits_)
      return {{"digits", *digits_}, {"dtype", type_.typestr()}, {"astype", stored_.typestr()}};
    return {{"encode_dtype", stored_.typestr()}, {"decode_dtype", type_.typestr()}};
  }

  void encode_into(ByteView in, Bytes& out) const override {
    check_whole(name_, in, type_, ErrorCategory::kUsage);
    const size_t n = in.size() / type_.size();
    out.resize(n * stored_.size());
    for (size_t i = 0; i < n; ++i) {
      const std::byte* from = in.data() + i * type_.size();
      std::byte* to = out.data() + i * stored_.size();
      if (!digits_) {
        if (i == 0 && convert_native(in.data(), type_, out.data(), stored_, n)) return;
        convert_element(from, type_, to, stored_);
        continue;
      }
      const double x = load_number(from, type_);
      double rounded;
      if (type_.size() == 4) {
        const auto s = static_cast<float>(scale_);
        rounded = static_cast<double>(std::nearbyint(s * static_cast<float>(x)) / s);
      } else {
        rounded = std::nearbyint(scale_ * x) / scale_;
      }
      store_number(rounded, to, stored_);
    }
  }

  std::optional<size_t> decode_to(ByteView in, MutableByteView out) const override {
    check_whole(name_, in, stored_, ErrorCategory::kData);
    const size_t n = in.size() / stored_.size();
    if (n > out.size() / type_.size()) return std::nullopt;
    if (!convert_native(in.data(), stored_, out.data(), type_, n)) {
      for (size_t i = 0; i < n; ++i) {
        convert_element(in.data() + i * stored_.size(), stored_, out.data() + i * type_.size(),
                        type_);
      }
    }
    return n * type_.size();
  }

 private:
  std::string name_;
  DType type_, stored_;
  std::optional<int> digits_;
  double scale_ = 1;
};

}  // namespace

std::unique_ptr<BytesCodec> make_as_type(const std::string& name, const Configuration& c) {
  if (name == "numcodecs.quantize") {
    only_settings(name, c, {"digits", "dtype", "astype"});
    const DType type = element_type_setting(name, c, "dtype", "");
    const DType stored = element_type_setting(name, c, "astype", type.typestr());
    if (type.kind() != DTypeKind::kFloat || stored.kind() != DTypeKind::kFloat) {
      throw Error(ErrorCategory::kUsage, fmt::format("{}: dtype and astype must be floats", name));
    }
    const auto digits = static_cast<int>(int_setting(name, c, "digits", -1, 0, 300));
    if (digits < 0) throw Error(ErrorCategory::kUsage, fmt::format("{}: digits is missing", name));
    return std::make_unique<AsType>(name, type, stored, digits);
  }
  only_settings(name, c, {"encode_dtype", "decode_dtype"});
  const DType stored = element_type_setting(name, c, "encode_dtype", "");
  const DType type = element_type_setting(name, c, "decode_dtype", stored.typestr());
  return std::make_unique<AsType>(name, type, stored, std::nullopt);
}

}  // namespace dudley::codec
