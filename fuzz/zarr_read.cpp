// Reading Zarr chunks: the first byte picks one of a few array metadata documents (codecs,
// sharding with the index at either end, nested, codecs around sharding), the rest is chunk c/0/0
// (or the shard). Reading every element either succeeds or fails with an Error; memory follows the
// array.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "dudley/codec/codec.hpp"
#include "dudley/core/error.hpp"
#include "dudley/formats/zarr.hpp"
#include "dudley/model/sparse_chunks.hpp"

namespace {

const char* const kMetadata[] = {
    R"({"zarr_format":3,"node_type":"array","shape":[6,5],"data_type":"int16",
        "chunk_grid":{"name":"regular","configuration":{"chunk_shape":[6,5]}},
        "chunk_key_encoding":{"name":"default"},"fill_value":7,
        "codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"gzip"}]})",
    R"({"zarr_format":3,"node_type":"array","shape":[6,5],"data_type":"float32",
        "chunk_grid":{"name":"regular","configuration":{"chunk_shape":[6,5]}},
        "chunk_key_encoding":{"name":"default"},"fill_value":"NaN",
        "codecs":[{"name":"transpose","configuration":{"order":[1,0]}},
                  {"name":"bytes","configuration":{"endian":"big"}},{"name":"zstd"},"crc32c"]})",
    R"({"zarr_format":3,"node_type":"array","shape":[6,5],"data_type":"uint8",
        "chunk_grid":{"name":"regular","configuration":{"chunk_shape":[6,5]}},
        "chunk_key_encoding":{"name":"default"},"fill_value":1,
        "codecs":[{"name":"bytes"},{"name":"blosc","configuration":{"cname":"lz4","clevel":5,
                   "shuffle":"noshuffle","blocksize":0}}]})",
    R"({"zarr_format":3,"node_type":"array","shape":[6,6],"data_type":"int32",
        "chunk_grid":{"name":"regular","configuration":{"chunk_shape":[6,6]}},
        "chunk_key_encoding":{"name":"default"},"fill_value":-1,
        "codecs":[{"name":"sharding_indexed","configuration":{"chunk_shape":[3,2],
          "codecs":[{"name":"bytes","configuration":{"endian":"little"}}]}}]})",
    R"({"zarr_format":3,"node_type":"array","shape":[6,6],"data_type":"int32",
        "chunk_grid":{"name":"regular","configuration":{"chunk_shape":[6,6]}},
        "chunk_key_encoding":{"name":"default"},"fill_value":-1,
        "codecs":[{"name":"sharding_indexed","configuration":{"chunk_shape":[3,6],
          "index_location":"start","index_codecs":[{"name":"bytes",
            "configuration":{"endian":"big"}}],
          "codecs":[{"name":"sharding_indexed","configuration":{"chunk_shape":[3,3],
            "codecs":[{"name":"bytes","configuration":{"endian":"little"}},"gzip"]}}]}}]})",
    R"({"zarr_format":3,"node_type":"array","shape":[6,5],"data_type":"string",
        "chunk_grid":{"name":"regular","configuration":{"chunk_shape":[6,5]}},
        "chunk_key_encoding":{"name":"default"},"fill_value":"",
        "codecs":["vlen-utf8","zstd"]})",
    R"({"zarr_format":3,"node_type":"array","shape":[6,6],"data_type":"int16",
        "chunk_grid":{"name":"regular","configuration":{"chunk_shape":[6,6]}},
        "chunk_key_encoding":{"name":"default"},"fill_value":-3,
        "codecs":[{"name":"transpose","configuration":{"order":[1,0]}},
          {"name":"sharding_indexed","configuration":{"chunk_shape":[2,3],
            "codecs":[{"name":"bytes","configuration":{"endian":"big"}}]}},
          {"name":"numcodecs.shuffle","configuration":{"elementsize":2}}]})",
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dudley;
  if (size == 0) return 0;
  const std::string meta = kMetadata[data[0] % (sizeof kMetadata / sizeof *kMetadata)];
  codec::Bytes chunk(size - 1);
  if (size > 1) std::memcpy(chunk.data(), data + 1, size - 1);
  codec::Bytes json(meta.size());
  std::memcpy(json.data(), meta.data(), meta.size());
  // Stored or not: the chunk is under its key, or (the first byte odd) under a key no chunk
  // has, leaving every chunk missing (the fill value).
  const bool stored = (data[0] & 0x80) == 0;
  try {
    model::Tree tree = zarr::open_zarr(
        io::memory_store({{"zarr.json", json}, {stored ? "c/0/0" : "c/9/9", chunk}}));
    model::ArraySource* source = tree.root->data.get();
    if (!source) return 0;
    std::optional<NDArray> before;
    try {
      before = source->read();
    } catch (const Error&) {
    }
    // The listing of stored chunks: one chunk or none, on the grid, sorted; reads after it
    // (which skip missing chunks without asking the store) give the same elements.
    const std::optional<model::StoredChunks> listed = source->stored_chunks();
    if (!listed || listed->chunks != (stored ? 1u : 0u) ||
        listed->positions.size() != listed->chunks * tree.root->shape.size()) {
      std::abort();
    }
    if (before) {
      const NDArray after = source->read();
      if (after.byte_size() != before->byte_size() ||
          (after.dtype().kind() != DTypeKind::kVLen &&
           std::memcmp(after.data(), before->data(), after.byte_size()) != 0)) {
        std::abort();
      }
    }
    // A writer's view of it on another grid: every chunk touched lies on that grid.
    const std::vector<int64_t> other(tree.root->shape.size(), 4);
    const model::StoredChunks touched = model::chunks_touching(*listed, tree.root->shape, other);
    for (int64_t p : touched.positions) {
      if (p < 0 || p > 1) std::abort();  // 6 elements in chunks of 4: positions 0 and 1
    }
  } catch (const Error&) {
  }
  return 0;
}
