// A Zarr array's data, read on demand: a selection touches only the chunks it needs, and in
// a sharded array only the inner chunks it needs, each fetched by its byte range through the
// shard's index. Chunks are decoded on every core; missing ones read as the fill value.
#pragma once

#include <memory>
#include <string>

#include "dudley/io/store.hpp"
#include "dudley/model/tree.hpp"
#include "metadata.hpp"

namespace dudley::zarr {

/// The source of the array whose metadata is `array`, its keys under `prefix` ("" for an
/// array at the store's root, else "a/b"). A shard with codecs around its sharding_indexed
/// (a transpose before, a compressor after) hides its index, so it is read whole; shards
/// without are read by inner chunk. Throws Error(kType) for arrays this build cannot read
/// (transposed string arrays).
std::shared_ptr<model::ArraySource> make_array_source(std::shared_ptr<const io::Store> store,
                                                      std::string prefix, ArrayMetadata array);

/// The source of a `string` or `bytes` array (make_array_source hands those here).
std::shared_ptr<model::ArraySource> make_vlen_array_source(std::shared_ptr<const io::Store> store,
                                                           std::string prefix, ArrayMetadata array);

}  // namespace dudley::zarr
