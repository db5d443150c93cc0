// One value of a store read as random-access bytes (a .npy, ASDF, netCDF or Avro file in a
// bucket or on a web server): its size asked once, reads by byte range. Small reads (the
// headers and trees formats read a few hundred bytes at a time) go through a cache of
// aligned blocks, so a header costs one request, not one per field; large reads go straight
// to the store.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <list>
#include <mutex>

#include "dudley/core/error.hpp"
#include "dudley/core/file_io.hpp"
#include "dudley/io/byte_source.hpp"
#include "dudley/io/redact.hpp"
#include "dudley/io/store.hpp"

namespace dudley::io {
namespace {

constexpr uint64_t kBlock = uint64_t{256} << 10;  // a block of the cache
constexpr size_t kBlocks = 32;                    // blocks kept: 8 MiB

class StoreSource final : public ByteSource {
 public:
  StoreSource(std::shared_ptr<Store> store, std::string name)
      : store_(std::move(store)), name_(std::move(name)) {}

  uint64_t size() const override {
    std::lock_guard lock(mutex_);
    if (!size_) {
      const std::optional<uint64_t> n = store_->size("");
      if (!n) throw Error(ErrorCategory::kIo, "no such object", Location::file(name_));
      size_ = *n;
    }
    return *size_;
  }
  const std::string& name() const override { return name_; }

 protected:
  void read_unchecked(uint64_t offset, uint64_t length, void* out) const override {
    if (length == 0) return;
    auto* to = static_cast<std::byte*>(out);
    if (length >= kBlock) {
      store_->read("", offset, length, to);
      return;
    }
    const uint64_t end = offset + length;
    for (uint64_t block = offset / kBlock * kBlock; block < end; block += kBlock) {
      const std::shared_ptr<const Bytes> bytes = cached(block);
      const uint64_t from = std::max(offset, block);
      const uint64_t to_end = std::min(end, block + bytes->size());
      if (to_end <= from) {
        throw Error(ErrorCategory::kIo,
                    fmt::format("the object ended at {}", block + bytes->size()),
                    Location::binary(name_, from));
      }
      std::memcpy(to + (from - offset), bytes->data() + (from - block), to_end - from);
    }
  }

 private:
  // The block at `start`, read when not kept (the least recently used one then goes).
  std::shared_ptr<const Bytes> cached(uint64_t start) const {
    {
      std::lock_guard lock(mutex_);
      for (auto it = blocks_.begin(); it != blocks_.end(); ++it) {
        if (it->first == start) {
          blocks_.splice(blocks_.begin(), blocks_, it);
          return blocks_.front().second;
        }
      }
    }
    const uint64_t n = std::min(kBlock, size() - std::min(size(), start));
    auto bytes = std::make_shared<Bytes>(n);
    store_->read("", start, n, bytes->data());
    std::lock_guard lock(mutex_);
    blocks_.emplace_front(start, bytes);
    if (blocks_.size() > kBlocks) blocks_.pop_back();
    return bytes;
  }

  std::shared_ptr<Store> store_;
  std::string name_;
  mutable std::mutex mutex_;
  mutable std::optional<uint64_t> size_;
  mutable std::list<std::pair<uint64_t, std::shared_ptr<const Bytes>>> blocks_;
};

}  // namespace

std::shared_ptr<ByteSource> open_source(const std::string& path_or_url,
                                        const StoreOptions& options) {
  if (!is_url(path_or_url)) return open_file(path_or_url);
  // Named in messages without what authenticates it (a presigned URL's signature).
  return std::make_shared<StoreSource>(open_store(path_or_url, options), redacted_url(path_or_url));
}

std::string read_text(const std::string& path_or_url, const StoreOptions& options) {
  if (!is_url(path_or_url)) return read_text_file(path_or_url);
  const std::optional<Bytes> bytes = open_store(path_or_url, options)->get("", kMaxTextFileBytes);
  if (!bytes) {
    throw Error(ErrorCategory::kIo, "no such object", Location::file(redacted_url(path_or_url)));
  }
  return {reinterpret_cast<const char*>(bytes->data()), bytes->size()};
}

}  // namespace dudley::io
