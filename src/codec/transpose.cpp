// Transposition (Zarr v3's "transpose" codec): dimension k of the encoded chunk is dimension
// order[k] of the decoded one; both are stored in C order.
#include <cstring>

#include "dudley/core/shape.hpp"
#include "settings.hpp"

namespace dudley::codec {
namespace {

class Transpose final : public ArrayCodec {
 public:
  explicit Transpose(std::vector<size_t> order) : order_(std::move(order)) {}
  std::string name() const override { return "transpose"; }
  Configuration configuration() const override { return {{"order", order_}}; }

  ChunkSpec encoded_spec(const ChunkSpec& chunk) const override {
    check(chunk);
    ChunkSpec out = chunk;
    for (size_t k = 0; k < order_.size(); ++k) out.shape[k] = chunk.shape[order_[k]];
    return out;
  }

  void encode(ByteView in, MutableByteView out, const ChunkSpec& chunk) const override {
    permute(in, out, chunk, true);
  }
  void decode(ByteView in, MutableByteView out, const ChunkSpec& chunk) const override {
    permute(in, out, chunk, false);
  }

 private:
  void check(const ChunkSpec& chunk) const {
    if (chunk.shape.size() != order_.size()) {
      throw Error(ErrorCategory::kUsage,
                  fmt::format("transpose: an order of {} dimensions for a chunk of {}",
                              order_.size(), chunk.shape.size()));
    }
  }

  // Walks the encoded array in C order; `to_encoded` says which side is the output.
  void permute(ByteView in, MutableByteView out, const ChunkSpec& chunk, bool to_encoded) const {
    check(chunk);
    const size_t rank = order_.size();
    const size_t es = chunk.element_size;
    // C-order strides of the decoded chunk, in elements.
    std::vector<uint64_t> decoded_stride(rank, 1);
    for (size_t d = rank; d-- > 1;) {
      decoded_stride[d - 1] = decoded_stride[d] * static_cast<uint64_t>(chunk.shape[d]);
    }
    std::vector<int64_t> shape(rank);
    std::vector<uint64_t> stride(rank);  // decoded stride of each encoded dimension
    for (size_t k = 0; k < rank; ++k) {
      shape[k] = chunk.shape[order_[k]];
      stride[k] = decoded_stride[order_[k]];
    }
    uint64_t total = 1;
    for (int64_t s : chunk.shape) total *= static_cast<uint64_t>(s);
    if (total * es != in.size()) {
      throw Error(ErrorCategory::kData,
                  fmt::format("transpose: {} bytes for a chunk of {} elements of {} bytes",
                              in.size(), total, es));
    }
    std::vector<int64_t> index(rank, 0);
    uint64_t decoded = 0;
    for (uint64_t e = 0; e < total; ++e) {
      const uint64_t a = to_encoded ? decoded : e, b = to_encoded ? e : decoded;
      std::memcpy(out.data() + b * es, in.data() + a * es, es);
      // Next encoded index, carrying; `decoded` follows it.
      for (size_t k = rank; k-- > 0;) {
        decoded += stride[k];
        if (++index[k] < shape[k]) break;
        decoded -= stride[k] * static_cast<uint64_t>(shape[k]);
        index[k] = 0;
      }
    }
  }

  std::vector<size_t> order_;
};

}  // namespace

std::unique_ptr<ArrayCodec> make_transpose(const Configuration& c) {
  if (!c.is_object() || !c.contains("order") || !c["order"].is_array()) {
    throw Error(ErrorCategory::kUsage, "transpose: 'order' must be a list of dimensions");
  }
  std::vector<size_t> order;
  std::vector<bool> seen(c["order"].size(), false);
  for (const auto& v : c["order"]) {
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<uint64_t>() >= seen.size() ||
        seen[v.get<size_t>()]) {
      throw Error(ErrorCategory::kUsage,
                  fmt::format("transpose: 'order' must be a permutation of 0..{}, not {}",
                              seen.size() - 1, c["order"].dump()));
    }
    seen[v.get<size_t>()] = true;
    order.push_back(v.get<size_t>());
  }
  return std::make_unique<Transpose>(std::move(order));
}

}  // namespace dudley::codec
