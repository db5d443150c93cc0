// Reading an .npy file as a tree whose root is its one array.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "dudley/core/shape.hpp"
#include "dudley/formats/npy.hpp"
#include "dudley/io/byte_source.hpp"
#include "dudley/model/contiguous_source.hpp"
#include "metadata.hpp"

namespace dudley::npy {
namespace {

// A Fortran-ordered array: read whole and laid out in C order (as numpy's ascontiguousarray).
class FortranSource final : public model::ArraySource {
 public:
  FortranSource(std::shared_ptr<const io::ByteSource> bytes, uint64_t offset, DType stored,
                std::vector<int64_t> shape)
      : bytes_(std::move(bytes)),
        offset_(offset),
        stored_(std::move(stored)),
        shape_(std::move(shape)) {}
  NDArray read() override {
    const uint64_t size = *Shape(shape_).byte_size(stored_.size());
    // No elements: nothing to read, and the strides below could overflow (a zero dimension
    // lets the others' product exceed 2^63).
    if (size == 0) return NDArray(stored_, Shape(shape_)).to_native();
    auto buffer = std::make_shared<std::vector<std::byte>>(size);
    bytes_->read(offset_, size, buffer->data(), "the array");
    std::vector<int64_t> strides(shape_.size());
    int64_t stride = static_cast<int64_t>(stored_.size());
    for (size_t d = 0; d < shape_.size(); ++d) {
      strides[d] = stride;
      stride *= shape_[d];
    }
    return NDArray::borrow(buffer->data(), stored_, Shape(shape_), strides, buffer).to_native();
  }
  NDArray read(const Hyperslab& slab) override {
    slab.check_fits(shape_);
    return read().select(slab).to_native();
  }

 private:
  std::shared_ptr<const io::ByteSource> bytes_;
  uint64_t offset_;
  DType stored_;
  std::vector<int64_t> shape_;
};

}  // namespace

model::Tree open_npy(const std::string& path, const NpyOpenOptions&, const OpenOptions& common) {
  std::shared_ptr<io::ByteSource> bytes = io::open_source(path, common.store);
  std::string head(static_cast<size_t>(std::min<uint64_t>(bytes->size(), 64 << 10)), '\0');
  bytes->read(0, head.size(), head.data(), "the header");
  Header h;
  try {
    h = parse_header(head, path);
  } catch (const Error& e) {
    // A header longer than the first 64 KiB (format 2.0 allows it): read all of it.
    if (head.size() == bytes->size() || e.message().find("runs past") == std::string::npos) throw;
    head.resize(static_cast<size_t>(std::min<uint64_t>(bytes->size(), (1 << 20) + 12)));
    bytes->read(0, head.size(), head.data(), "the header");
    h = parse_header(head, path);
  }
  const std::optional<uint64_t> size = Shape(h.shape).byte_size(h.dtype.size());
  if (!size || !bytes->contains(h.data_offset, *size))
    throw Error(
        ErrorCategory::kData,
        fmt::format("the array of shape [{}] ({} bytes) runs past the file's end ({} bytes)",
                    fmt::join(h.shape, ", "), size ? fmt::format("{}", *size) : "2^64+",
                    bytes->size()),
        Location::binary(path, h.data_offset));
  model::Tree tree;
  tree.format = "npy";
  tree.root = std::make_unique<model::Node>();
  model::Node& a = *tree.root;
  a.kind = model::NodeKind::kArray;
  a.dtype = h.dtype;
  a.shape = h.shape;
  if (h.fortran_order && h.shape.size() > 1) {
    a.data = std::make_shared<FortranSource>(bytes, h.data_offset, h.dtype, h.shape);
  } else {
    a.storage.kind = model::Storage::Kind::kContiguous;
    a.storage.offset = h.data_offset;
    a.storage.size = *size;
    a.storage.order = h.dtype.byte_order();
    a.data = model::contiguous_source(bytes, h.data_offset, h.dtype, h.shape);
  }
  return tree;
}

}  // namespace dudley::npy
