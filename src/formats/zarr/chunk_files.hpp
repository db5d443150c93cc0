// Writing a directory store's values: new files in a store being built, and chunks replaced
// in place in an existing store (each one whole or not at all).
#pragma once

#include <cstddef>
#include <string>

#include "dudley/codec/codec.hpp"

namespace dudley::zarr {

/// Creates (or truncates) `path` and writes `size` bytes to it. Error(kIo) naming it.
void write_file(const std::string& path, const void* data, size_t size);

/// write_file() of a chunk, making its directory first when it is not there (one failed
/// open, then mkdir of the missing levels: no stat of every level for every chunk).
void write_chunk(const std::string& path, const codec::Bytes& bytes);

/// Replaces the chunk `path` of an existing store: written to a temporary sibling and renamed
/// over it, so a reader sees the old chunk or the new one, never a part. Its directory is made
/// when missing; a `path` that is not a regular file is refused (Error(kIo)).
void replace_chunk(const std::string& path, const codec::Bytes& bytes);

/// Removes the chunk `path` when it is there (a chunk that became all fill value). Error(kIo)
/// when it cannot be removed.
void remove_chunk(const std::string& path);

}  // namespace dudley::zarr
