// Colour maps: a value scaled to [0, 1] to a colour, as matplotlib maps it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dudley::render {

/// A colour of 8 bits a channel.
struct Rgb {
  uint8_t r = 0, g = 0, b = 0;
  bool operator==(const Rgb&) const = default;
};

/// One of the named colour maps, 256 colours from low to high (matplotlib's tables), maybe
/// reversed.
class Colormap {
 public:
  /// The map called `name` (viridis, magma, inferno, cividis, grey, coolwarm; "gray" is
  /// grey), reversed when `reversed`. Throws Error(kUsage) naming the maps for another name.
  static Colormap named(std::string_view name, bool reversed = false);
  /// The names `named` takes, the default (viridis) first.
  static std::vector<std::string> names();

  /// The colour of `t` in [0, 1]: entry min(floor(t * 256), 255), as matplotlib picks it;
  /// `t` outside [0, 1] takes the nearer end. NaN is not a colour here (see kNotANumber).
  Rgb at(double t) const;
  /// Colour i of 256, in the map's order (reversed maps reversed).
  Rgb entry(int i) const;
  const std::string& name() const { return name_; }
  bool reversed() const { return reversed_; }

 private:
  Colormap(std::string name, const uint8_t (*table)[3], bool reversed)
      : name_(std::move(name)), table_(table), reversed_(reversed) {}
  std::string name_;
  const uint8_t (*table_)[3];
  bool reversed_;
};

/// The colour of values that are not numbers (NaN), masked or the fill value: apart from
/// every map's colours (pure magenta, which none of the tables holds), as h5web and
/// matplotlib show "bad" values apart.
inline constexpr Rgb kNotANumber{255, 0, 255};

/// The colour of masked values (ASDF masks, as numpy's masked arrays hide them): cyan, apart
/// from every map's colours and from kNotANumber.
inline constexpr Rgb kMasked{0, 255, 255};

}  // namespace dudley::render
