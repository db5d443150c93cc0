#include "dudley/model/text_strings.hpp"

#include <cstring>
#include <string>

#include "dudley/core/text.hpp"
#include "dudley/core/vlen.hpp"

namespace dudley::model {
namespace {

class FixedTextAsStrings final : public ArraySource {
 public:
  FixedTextAsStrings(std::shared_ptr<ArraySource> source, DType type, std::vector<int64_t> shape)
      : source_(std::move(source)), type_(std::move(type)), shape_(std::move(shape)) {}

  NDArray read() override {
    Hyperslab all;
    for (int64_t d : shape_) {
      all.start.push_back(0);
      all.count.push_back(d);
    }
    return read(all);
  }

  NDArray read(const Hyperslab& slab) override {
    const NDArray fixed = source_->read(slab);
    const uint64_t n = fixed.element_count();
    const uint64_t unit = type_.unit_size();
    const uint64_t units = type_.size() / unit;
    VLenArrayBuilder out(utf8_strings_type(), n);
    const auto* base = static_cast<const std::byte*>(fixed.data());
    std::string text;
    for (uint64_t i = 0; i < n; ++i) {
      const std::byte* at = base + i * type_.size();
      // The string ends before its trailing zero units (numpy's padding).
      uint64_t used = units;
      while (used > 0) {
        bool zero = true;
        for (uint64_t b = 0; b < unit; ++b)
          zero = zero && at[(used - 1) * unit + b] == std::byte{0};
        if (!zero) break;
        --used;
      }
      if (unit == 4) {
        std::vector<uint32_t> code(used);
        std::memcpy(code.data(), at, used * 4);
        text = decode_utf32(code.data(), code.size());
      } else if (unit == 2) {
        std::vector<uint16_t> code(used);
        std::memcpy(code.data(), at, used * 2);
        text = decode_utf16(code.data(), code.size());
      } else {
        text.assign(reinterpret_cast<const char*>(at), used);
      }
      out.append(text.data(), text.size());
    }
    return out.finish(Shape(slab.result_shape()));
  }

  void verify() override { source_->verify(); }
  ReadUnit read_unit() const override { return source_->read_unit(); }

 private:
  std::shared_ptr<ArraySource> source_;
  DType type_;
  std::vector<int64_t> shape_;
};

}  // namespace

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
  auto out = std::make_unique<Node>();
  out->kind = n.kind;
  out->name = n.name;
  out->doc = n.doc;
  out->attributes = n.attributes;
  out->shape = n.shape;
  out->empty = n.empty;
  out->link = n.link;
  out->storage = n.storage;
  out->storage.order = ByteOrder::kNotApplicable;
  out->error = n.error;
  out->dtype = utf8_strings_type();
  if (n.data) out->data = fixed_text_as_strings(n.data, n.dtype, n.shape);
  return out;
}

}  // namespace dudley::model
