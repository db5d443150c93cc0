// Where the Zarr writer puts a store's values: a local directory, staged and moved into
// place whole, or a key-value store (S3), written as the chunks are encoded in an order that
// keeps readers from half-written data:
// - chunks first, as they are encoded (no local copy of the store: writing 1 TB to a bucket
//   needs no 1 TB of disk);
// - then the metadata documents, held until then: each array's before the groups holding
//   it, attributes before the document that makes a node appear, and the consolidated
//   metadata last, so a reader finds no array until all its chunks are there;
// - overwriting a store removes the old store's metadata before the first chunk and its
//   chunks the new store does not have after the last, so a reader never mixes old and new;
//   keys that are no part of the old store (a user's files beside it) are never removed;
// - a write that fails removes what it had written.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "dudley/codec/codec.hpp"
#include "dudley/io/store.hpp"
#include "existing_store.hpp"

namespace dudley::zarr {

/// One encoded chunk to write: its key below the store's root, and its bytes.
struct EncodedChunk {
  std::string key;
  const codec::Bytes* bytes = nullptr;
};

/// The destination of one Zarr store being written. Without commit(), what was written is
/// removed when the output goes.
class StoreOutput {
 public:
  virtual ~StoreOutput() = default;
  /// The place of `key` ("" for the store itself) as the user named it, for messages.
  virtual std::string where(const std::string& key) const = 0;
  /// A node at `prefix` ("" for the root) is about to be written: a directory makes its
  /// folder, so that an empty group still has one.
  virtual void begin_node(const std::string& prefix) { (void)prefix; }
  /// Writes `chunks`, each whole; a key written before is replaced. Called from one thread
  /// at a time. Error(kIo) naming the first chunk that could not be written.
  virtual void write_chunks(std::span<const EncodedChunk> chunks) = 0;
  /// A metadata document (zarr.json, .zarray, .zgroup, .zattrs, .zmetadata), written after
  /// the chunks of its array.
  virtual void write_metadata(const std::string& key, const std::string& text) = 0;
  /// Makes the store visible as written (`fsync`: durable first, where that means anything).
  virtual void commit(bool fsync) = 0;
};

/// The store `path` on the local disk: written into a staged sibling directory, moved into
/// place by commit() (io::AtomicDirectory).
std::unique_ptr<StoreOutput> directory_output(const std::string& path);

/// The store at `name` in `store` ("" for its root; a bucket, a directory of one, a local
/// directory written in place), which must outlive the output; `url` names it in messages.
/// `existing` is what lies there (existing_store): the old store's keys are removed as the
/// new one is written, the other keys are never touched, and a new key that is one of them
/// is an error naming it, before it is written.
std::unique_ptr<StoreOutput> key_value_output(io::Store& store, const std::string& name,
                                              const std::string& url, ExistingStore existing);

}  // namespace dudley::zarr
