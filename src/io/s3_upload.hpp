// Writes to S3: a value by one PUT, a large one by multipart upload (its parts sent at
// once; the object appears only when CompleteMultipartUpload joins them, and a failed
// upload is aborted, so nothing of it stays), removals by DELETE. Many requests at once,
// each on a thread of its own: signing hashes each body, and that work spreads too.
#pragma once

#include <span>
#include <string>

#include "dudley/io/store.hpp"
#include "io/http_access.hpp"

namespace dudley::io {

/// Values of this many bytes or more are uploaded in parts (DUDLEY_S3_MULTIPART_FROM, bytes,
/// overrides it: tests make small multipart objects).
uint64_t s3_multipart_threshold();

/// The part size of a multipart upload of `total` bytes: 8 MiB, or more where 10,000 parts
/// (S3's most) would not hold it.
uint64_t s3_part_size(uint64_t total);

/// Stores every value in `values` through `http` (S3's answers explained by its access).
/// Error(kIo) naming the key of the first value that failed, after the others have stopped.
void s3_write_many(const HttpStore& http, std::span<const WriteRequest> values);

/// Deletes every key in `keys` (S3 answers 204 for absent keys too).
void s3_erase_many(const HttpStore& http, std::span<const std::string> keys);

}  // namespace dudley::io
