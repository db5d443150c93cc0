// A source with some of its ranges already read into memory: a family reader reads each
// member's parameters and items in batches (io::BatchIo), then binds and copies from these
// bytes without a system call. Reads outside them go to the source underneath.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dudley/io/byte_source.hpp"

namespace dudley::io {

class PrefetchedSource final : public ByteSource {
 public:
  /// Bytes of `parent`, some of them held in memory once add() gives them.
  explicit PrefetchedSource(std::shared_ptr<ByteSource> parent) : parent_(std::move(parent)) {}

  /// `bytes`, read from the parent at `offset`: reads inside them are served from memory
  /// from now on. Empty bytes are ignored.
  void add(uint64_t offset, std::vector<unsigned char> bytes);

  uint64_t size() const override { return parent_->size(); }
  const std::string& name() const override { return parent_->name(); }
  std::optional<FileSpan> file_span() const override { return parent_->file_span(); }
  uint64_t read_some(uint64_t offset, uint64_t length, void* out) const override;

  /// The source underneath.
  const std::shared_ptr<ByteSource>& parent() const { return parent_; }

 protected:
  void read_checked(uint64_t offset, uint64_t length, void* out,
                    const std::string& what) const override;
  void read_unchecked(uint64_t offset, uint64_t length, void* out) const override;
  const unsigned char* data() const override;

 private:
  struct Range {
    uint64_t offset = 0;
    std::vector<unsigned char> bytes;
  };
  /// The kept range holding all of [offset, offset + length), or nullptr.
  const Range* holding(uint64_t offset, uint64_t length) const;

  std::shared_ptr<ByteSource> parent_;
  std::vector<Range> ranges_;
};

}  // namespace dudley::io
