#include "dudley/model/contiguous_source.hpp"

#include "dudley/io/selection_read.hpp"

namespace dudley::model {
namespace {

class ContiguousSource final : public ArraySource {
 public:
  ContiguousSource(std::shared_ptr<const io::ByteSource> bytes, uint64_t address, DType stored,
                   std::vector<int64_t> shape)
      : bytes_(std::move(bytes)),
        address_(address),
        stored_(std::move(stored)),
        native_(stored_.size() > 1 ? stored_.with_byte_order(native_byte_order()) : stored_),
        shape_(std::move(shape)) {}

  NDArray read() override { return read(Hyperslab::all(shape_)); }
  NDArray read(const Hyperslab& slab) override {
    slab.check_fits(shape_);
    NDArray out(native_, Shape(slab.result_shape()));
    io::read_selection(*bytes_, address_, stored_, shape_, slab, out.mutable_data());
    return out;
  }
  void read_into(const Hyperslab& slab, void* out) override {
    slab.check_fits(shape_);
    io::read_selection(*bytes_, address_, stored_, shape_, slab, out);
  }
  std::optional<StoredBytes> stored_bytes() override {
    const std::optional<uint64_t> size = Shape(shape_).byte_size(stored_.size());
    if (!size) return std::nullopt;
    return StoredBytes{bytes_, address_, *size, stored_};
  }

 private:
  std::shared_ptr<const io::ByteSource> bytes_;
  uint64_t address_;
  DType stored_, native_;
  std::vector<int64_t> shape_;
};

}  // namespace

std::shared_ptr<ArraySource> contiguous_source(std::shared_ptr<const io::ByteSource> bytes,
                                               uint64_t address, DType stored,
                                               std::vector<int64_t> shape) {
  return std::make_shared<ContiguousSource>(std::move(bytes), address, std::move(stored),
                                            std::move(shape));
}

}  // namespace dudley::model
