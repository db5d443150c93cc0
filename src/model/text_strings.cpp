#include "dudley/model/text_strings.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "dudley/core/text.hpp"
#include "dudley/core/vlen.hpp"
#include "dudley/model/read_pieces.hpp"

namespace dudley::model {
namespace {

class FixedTextAsStrings final : public ArraySource {
 public:
  FixedTextAsStrings(std::shared_ptr<ArraySource> source, DType type, std::vector<int64_t> shape)
      : source_(std::move(source)), type_(std::move(type)), shape_(std::move(shape)) {}

  NDArray read() override { return read(Hyperslab::all(shape_)); }

  // Read in pieces of at most kPieceBytes of fixed text (one string at least), so that the
  // memory held follows the strings' lengths, not the fixed size: 10,000 strings of 16 MiB,
  // all empty, are 160 GB fixed and nothing as strings.
  NDArray read(const Hyperslab& slab) override {
    const std::vector<int64_t> shape = slab.result_shape();
    VLenArrayBuilder out(utf8_strings_type(), *Shape(shape).element_count());
    for_each_piece(slab, type_.size(), source_->read_unit(), kPieceBytes, [&](const Piece& piece) {
      const NDArray fixed = source_->read(piece.slab);
      const auto* base = static_cast<const std::byte*>(fixed.data());
      for (uint64_t i = 0, n = fixed.element_count(); i < n; ++i) {
        const std::string text = fixed_text_utf8(type_, base + i * type_.size());
        out.append(text.data(), text.size());
      }
      return true;
    });
    return out.finish(Shape(shape));
  }

  void verify() override { source_->verify(); }
  ReadUnit read_unit() const override { return source_->read_unit(); }

  // The source's chunks, its fill value as the string it reads as: a writer of strings then
  // skips what was never written as it does for the fixed text.
  std::optional<StoredChunks> stored_chunks() override {
    std::optional<StoredChunks> stored = source_->stored_chunks();
    if (!stored) return std::nullopt;
    if (stored->fill.size() != type_.size()) return std::nullopt;
    const std::string fill = fixed_text_utf8(type_, stored->fill.data());
    const auto* bytes = reinterpret_cast<const std::byte*>(fill.data());
    stored->fill.assign(bytes, bytes + fill.size());
    return stored;
  }

 private:
  std::shared_ptr<ArraySource> source_;
  DType type_;
  std::vector<int64_t> shape_;
};

// The units of an array of one more dimension, read as strings of its last dimension.
class JoinedUnits final : public ArraySource {
 public:
  JoinedUnits(std::shared_ptr<ArraySource> source, DType strings, int64_t length,
              std::vector<int64_t> shape)
      : source_(std::move(source)),
        strings_(std::move(strings)),
        length_(length),
        shape_(std::move(shape)) {}

  NDArray read() override { return read(Hyperslab::all(shape_)); }
  NDArray read(const Hyperslab& slab) override {
    NDArray out(strings_, Shape(slab.result_shape()));
    read_into(slab, out.mutable_data());
    return out;
  }
  void read_into(const Hyperslab& slab, void* out) override {
    Hyperslab units = slab;
    units.start.push_back(0);
    units.count.push_back(length_);
    if (!units.stride.empty()) units.stride.push_back(1);
    if (!units.dropped.empty()) units.dropped.push_back(false);
    source_->read_into(units, out);  // the same bytes, C order
  }
  void verify() override { source_->verify(); }

 private:
  std::shared_ptr<ArraySource> source_;
  DType strings_;
  int64_t length_;
  std::vector<int64_t> shape_;
};

// Variable-length text read as fixed-length strings of `fixed` (ASCII S<n> or UTF-32 U<n>,
// native order), padded with zero units as numpy pads them.
class StringsAsFixedText final : public ArraySource {
 public:
  StringsAsFixedText(std::shared_ptr<ArraySource> source, DType fixed, std::vector<int64_t> shape)
      : source_(std::move(source)), fixed_(std::move(fixed)), shape_(std::move(shape)) {}

  NDArray read() override { return read(Hyperslab::all(shape_)); }
  NDArray read(const Hyperslab& slab) override {
    const NDArray strings = source_->read(slab);
    NDArray out(fixed_, Shape(slab.result_shape()));
    auto* to = static_cast<std::byte*>(out.mutable_data());
    std::memset(to, 0, out.byte_size());
    const uint64_t size = fixed_.size();
    for (const VLenElement& e : vlen_elements(strings)) {
      const std::string_view bytes = e.bytes(1);
      if (fixed_.encoding() == TextEncoding::kUtf32) {
        const std::u32string code = utf8_to_utf32(bytes).value_or(std::u32string());
        std::memcpy(to, code.data(), std::min<uint64_t>(code.size() * 4, size));
      } else if (!bytes.empty()) {
        std::memcpy(to, bytes.data(), std::min<uint64_t>(bytes.size(), size));
      }
      to += size;
    }
    return out;
  }
  void verify() override { source_->verify(); }
  ReadUnit read_unit() const override { return source_->read_unit(); }

 private:
  std::shared_ptr<ArraySource> source_;
  DType fixed_;
  std::vector<int64_t> shape_;
};

}  // namespace

std::string fixed_text_utf8(const DType& type, const std::byte* element) {
  const uint64_t unit = type.unit_size();
  uint64_t used = type.size() / unit;
  auto zero = [&](uint64_t u) {
    for (uint64_t b = 0; b < unit; ++b)
      if (element[u * unit + b] != std::byte{0}) return false;
    return true;
  };
  while (used > 0 && zero(used - 1)) --used;
  if (unit == 4) {
    std::vector<uint32_t> code(used);
    if (used > 0) std::memcpy(code.data(), element, used * 4);
    return decode_utf32(code.data(), code.size());
  }
  if (unit == 2) {
    std::vector<uint16_t> code(used);
    if (used > 0) std::memcpy(code.data(), element, used * 2);
    return decode_utf16(code.data(), code.size());
  }
  return {reinterpret_cast<const char*>(element), used};
}

bool is_text_strings(const DType& type) {
  return type.kind() == DTypeKind::kVLen && type.base().joins_units() &&
         (type.base().encoding() == TextEncoding::kUtf8 ||
          type.base().encoding() == TextEncoding::kAscii);
}

std::unique_ptr<Node> as_fixed_text_node(const Node& n) {
  if (!n.data) return nullptr;
  // The longest string, in characters (UTF-8) or bytes (ASCII), read piece by piece.
  const bool ascii = n.dtype.base().encoding() == TextEncoding::kAscii;
  uint64_t longest = 1;
  bool valid = true;
  for_each_piece(n.shape, n.dtype.size(), n.data->read_unit(), kPieceBytes,
                 [&](const Piece& piece) {
                   const NDArray strings = n.data->read(piece.slab);
                   for (const VLenElement& e : vlen_elements(strings)) {
                     uint64_t length = e.count;
                     if (!ascii) {
                       const std::optional<std::u32string> code = utf8_to_utf32(e.bytes(1));
                       valid = valid && code.has_value();
                       length = code ? code->size() : 0;
                     }
                     longest = std::max(longest, length);
                   }
                   return valid;
                 });
  if (!valid) return nullptr;
  std::unique_ptr<Node> out = copy_array_node(n);
  out->dtype = DType::string(ascii ? TextEncoding::kAscii : TextEncoding::kUtf32, longest);
  out->storage.order = ascii ? ByteOrder::kNotApplicable : native_byte_order();
  out->data = std::make_shared<StringsAsFixedText>(n.data, out->dtype, n.shape);
  return out;
}

bool has_joined_units(const Node& n) {
  return n.kind == NodeKind::kArray && n.dtype.joins_units() && !n.shape.empty() &&
         n.shape.back() > 0;
}

std::unique_ptr<Node> as_joined_strings_node(const Node& n) {
  std::unique_ptr<Node> out = copy_array_node(n);
  out->shape.pop_back();
  out->dtype = DType::string(n.dtype.encoding(), static_cast<uint64_t>(n.shape.back()),
                             n.dtype.byte_order());
  if (n.data) {
    out->data = std::make_shared<JoinedUnits>(n.data, out->dtype, n.shape.back(), out->shape);
  }
  return out;
}

bool is_fixed_text(const DType& type) {
  return type.kind() == DTypeKind::kText;
}

DType utf8_strings_type() {
  return DType::vlen(DType::text(TextEncoding::kUtf8));
}

std::shared_ptr<ArraySource> fixed_text_as_strings(std::shared_ptr<ArraySource> source,
                                                   const DType& type, std::vector<int64_t> shape) {
  return std::make_shared<FixedTextAsStrings>(std::move(source), type, std::move(shape));
}

std::unique_ptr<Node> as_strings_node(const Node& n) {
  std::unique_ptr<Node> out = copy_array_node(n);
  out->storage.order = ByteOrder::kNotApplicable;
  out->dtype = utf8_strings_type();
  if (n.data) out->data = fixed_text_as_strings(n.data, n.dtype, n.shape);
  return out;
}

}  // namespace dudley::model
