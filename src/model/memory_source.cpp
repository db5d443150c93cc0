#include "dudley/model/memory_source.hpp"

namespace dudley::model {
namespace {

class MemorySource final : public ArraySource {
 public:
  explicit MemorySource(NDArray a) : a_(std::move(a)) {}
  NDArray read() override { return a_.to_native(); }
  NDArray read(const Hyperslab& slab) override {
    slab.check_fits(a_.shape().dims());
    return a_.select(slab).to_native();
  }
  void read_into(const Hyperslab& slab, void* out) override {
    slab.check_fits(a_.shape().dims());
    a_.select(slab).copy_native_into(out);
  }

 private:
  NDArray a_;
};

}  // namespace

std::shared_ptr<ArraySource> memory_source(NDArray array) {
  return std::make_shared<MemorySource>(std::move(array));
}

}  // namespace dudley::model
