#include "block_store.hpp"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <future>
#include <optional>

#include "dudley/core/big_memory.hpp"
#include "dudley/core/thread_pool.hpp"
#include "dudley/io/selection_read.hpp"

namespace dudley::asdf {
namespace {

std::string hex(const codec::Md5Digest& d) {
  std::string out;
  for (uint8_t b : d) out += fmt::format("{:02x}", b);
  return out;
}

uint64_t page_size() {
  static const uint64_t size = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  return size;
}

// The pieces a block is read and hashed in.
constexpr uint64_t kHashPiece = uint64_t{8} << 20;

}  // namespace

BlockStore::BlockStore(std::shared_ptr<io::ByteSource> source, std::vector<BlockHeader> blocks,
                       const AsdfOpenOptions& options)
    : source_(std::move(source)),
      blocks_(std::move(blocks)),
      verify_checksums_(options.verify_checksums),
      max_block_bytes_(options.max_block_bytes ? options.max_block_bytes : physical_memory()),
      verified_(std::make_unique<std::atomic<uint8_t>[]>(blocks_.size())) {}

void BlockStore::check_size(size_t i) const {
  const BlockHeader& b = blocks_[i];
  if (compressed(i)) {
    const std::string compression = b.compression_name();
    const uint64_t most = max_decoded_size(compression, b.used_size);
    if (b.data_size > most) {
      throw Error(ErrorCategory::kData,
                  fmt::format("block {}: its {} bytes of {} data cannot decode to the {} bytes "
                              "its data_size claims (at most {})",
                              i, b.used_size, compression, b.data_size, most),
                  Location::binary(source_->name(), b.offset));
    }
  }
  if (b.data_size > max_block_bytes_) {
    throw Error(ErrorCategory::kLimit,
                fmt::format("block {}: its data_size {} is more than the {} bytes allowed "
                            "(--max-block-size)",
                            i, b.data_size, max_block_bytes_),
                Location::binary(source_->name(), b.offset));
  }
}

void BlockStore::verify(size_t i, const std::byte* data, uint64_t size) const {
  if (!needs_verifying(i)) return;
  check_digest(i, codec::md5({data, size}));
}

bool BlockStore::needs_verifying(size_t i) const {
  return verify_checksums_ && blocks_[i].has_checksum() && verified_[i].load() != kVerified;
}

void BlockStore::check_digest(size_t i, const codec::Md5Digest& got) const {
  const BlockHeader& b = blocks_[i];
  bool ok = got == b.checksum;
  if (!ok && compressed(i)) {
    // The standard's text says "the used data", which newer writers hash; the reference
    // library (and every reference file) hashes the decoded data. Either is accepted.
    ok = codec::md5(stored_bytes(i).bytes) == b.checksum;
  }
  if (!ok) {
    throw Error(ErrorCategory::kData,
                fmt::format("block {}: MD5 checksum mismatch (the header says {}, the data has {})",
                            i, hex(b.checksum), hex(got)),
                Location::binary(source_->name(), b.offset));
  }
  verified_[i].store(kVerified);
  verified_[i].notify_all();
}

void BlockStore::read_uncompressed(size_t i, uint64_t offset, uint64_t length, void* out) const {
  const BlockHeader& b = blocks_[i];
  check_size(i);
  // offset + length <= used_size was checked by the caller against data_size (== used_size).
  const std::string what = fmt::format("block {}", i);
  if (offset != 0 || length != b.used_size || !needs_verifying(i)) {
    source_->read(b.data_offset() + offset, length, out, what);
    return;
  }
  // A whole block, verified as it is read.
  auto* dst = static_cast<std::byte*>(out);
  codec::Md5 md5;
  read_hashing(i, md5, [&](uint64_t k) { return dst + k * kHashPiece; });
}

void BlockStore::read_hashing(size_t i, codec::Md5& md5,
                              const std::function<std::byte*(uint64_t k)>& place,
                              bool use_pool) const {
  // Piece k is hashed on a second core while piece k + 1 is read (MD5 runs at about
  // 0.6 GB/s; one after the other, reading would wait for it).
  const BlockHeader& b = blocks_[i];
  const std::string what = fmt::format("block {}", i);
  const uint64_t length = b.used_size;
  const uint64_t pieces = (length + kHashPiece - 1) / kHashPiece;
  auto piece = [&](uint64_t k) {
    return codec::MutableByteView(place(k), std::min(kHashPiece, length - k * kHashPiece));
  };
  auto read_piece = [&](uint64_t k) {
    const codec::MutableByteView p = piece(k);
    source_->read(b.data_offset() + k * kHashPiece, p.size(), p.data(), what);
  };
  if (pieces > 0) read_piece(0);
  for (uint64_t k = 0; k < pieces; ++k) {
    if (!use_pool) {
      md5.update(piece(k));
      if (k + 1 < pieces) read_piece(k + 1);
      continue;
    }
    dudley::ThreadPool::shared().parallel_for(2, [&](size_t task) {
      if (task == 0) {
        if (k + 1 < pieces) read_piece(k + 1);
      } else {
        md5.update(piece(k));
      }
    });
  }
  check_digest(i, md5.digest());
}

void BlockStore::read_selection(size_t i, uint64_t offset, const DType& stored,
                                const std::vector<int64_t>& shape, const Hyperslab& slab,
                                void* out) const {
  const BlockHeader& b = blocks_[i];
  try {
    io::read_selection(*source_, b.data_offset() + offset, stored, shape, slab, out);
  } catch (const Error& e) {
    throw Error(e.category(), fmt::format("block {}: {}", i, e.message()), e.location());
  }
}

bool BlockStore::hash_mapped(const io::ByteSource::FileSpan& span, uint64_t offset, uint64_t length,
                             size_t i, codec::Md5& md5) const {
  // The file's pages hashed where the page cache holds them, a window at a time, each
  // unmapped before the next: no copy, and memory stays one window.
  constexpr uint64_t kWindow = uint64_t{8} << 20;
  constexpr uint64_t kPage = 4096;
  for (uint64_t at = 0; at < length; at += kWindow) {
    const uint64_t n = std::min(kWindow, length - at);
    const uint64_t first = span.base + offset + at;
    const uint64_t lead = first % kPage;
    void* p = ::mmap(nullptr, n + lead, PROT_READ, MAP_PRIVATE | MAP_POPULATE, span.fd,
                     static_cast<off_t>(first - lead));
    if (p == MAP_FAILED) {
      if (at == 0) return false;  // not mappable: read into buffers instead
      throw Error(ErrorCategory::kIo, fmt::format("block {}: cannot map the file", i),
                  Location::binary(source_->name(), first));
    }
    md5.update({static_cast<const std::byte*>(p) + lead, n});
    ::munmap(p, n + lead);
  }
  check_digest(i, md5.digest());
  return true;
}

void BlockStore::verify_streaming(size_t i, codec::Md5* prepared) const {
  if (!needs_verifying(i)) return;
  if (!prepared) return hash_streaming(i, nullptr, true);
  // A job of model::verify_all. Several arrays may be views of one block (python3-asdf
  // writes one block for a base array and its views), and each job hashed the whole block.
  // One job hashes it, on its own thread only, so that it never waits for the pool that the
  // others, waiting for its answer, may be holding.
  uint8_t state = kUnchecked;
  while (!verified_[i].compare_exchange_strong(state, kChecking)) {
    if (state == kVerified) return;
    verified_[i].wait(kChecking);
    state = kUnchecked;  // unchecked again if that thread failed: hash it here, and fail here
  }
  try {
    hash_streaming(i, prepared, false);
  } catch (...) {
    verified_[i].store(kUnchecked);
    verified_[i].notify_all();
    throw;
  }
}

void BlockStore::hash_streaming(size_t i, codec::Md5* prepared, bool use_pool) const {
  const BlockHeader& b = blocks_[i];
  source_->check_range(b.data_offset(), b.used_size, fmt::format("block {}", i));
  std::optional<codec::Md5> own;
  codec::Md5& md5 = prepared ? *prepared : own.emplace();
  if (auto span = source_->file_span();
      span && hash_mapped(*span, b.data_offset(), b.used_size, i, md5)) {
    return;
  }
  // Not mappable: read into two buffers kept by each thread for the next block (blocks are
  // verified several at once, one after the other on each thread, and fresh pages for every
  // block would cost more than reading).
  thread_local std::unique_ptr<std::byte[]> kept[2];
  if (!kept[0]) {
    for (auto& buffer : kept) buffer.reset(new std::byte[kHashPiece]);  // not zeroed: read over
  }
  // The pointers, not `kept`, go into the lambda: it runs on the pool's threads too, where
  // `kept` names that thread's own (empty) buffers.
  std::byte* const buffers[2] = {kept[0].get(), kept[1].get()};
  read_hashing(
      i, md5, [buffers](uint64_t k) { return buffers[k % 2]; }, use_pool);
}

BlockStore::Stored BlockStore::stored_bytes(size_t i) const {
  const BlockHeader& b = blocks_[i];
  Stored stored;
  const std::string what = fmt::format("block {}", i);
  source_->check_range(b.data_offset(), b.used_size, what);
  // A mapping of its own, dropped when the block is decoded: the pages of a mapping of the
  // whole file would stay resident, block after block, for as long as the file is open.
  if (auto span = source_->file_span(); span && b.used_size > 0) {
    const uint64_t first = span->base + b.data_offset();
    const uint64_t lead = first % page_size();
    const uint64_t length = b.used_size + lead;
    void* p = ::mmap(nullptr, length, PROT_READ, MAP_PRIVATE | MAP_POPULATE, span->fd,
                     static_cast<off_t>(first - lead));
    if (p != MAP_FAILED) {
      stored.mapping = std::shared_ptr<void>(p, [length](void* q) { ::munmap(q, length); });
      stored.bytes = {static_cast<const std::byte*>(p) + lead, b.used_size};
      return stored;
    }
  }
  if (const unsigned char* p = source_->view(b.data_offset(), b.used_size, what)) {
    stored.bytes = {reinterpret_cast<const std::byte*>(p), b.used_size};
  } else {
    stored.copy.resize(b.used_size);
    source_->read(b.data_offset(), b.used_size, stored.copy.data(), what);
    stored.bytes = stored.copy;
  }
  return stored;
}

void BlockStore::decode(size_t i, std::byte* out, bool verify_now, bool populate) const {
  const BlockHeader& b = blocks_[i];
  const Stored stored = stored_bytes(i);
  const std::string what = fmt::format("block {}", i);
  try {
    const std::string compression = b.compression_name();
    // The checksum is taken as the data decodes (see decompress_block).
    std::optional<codec::Md5> md5;
    if (verify_now && needs_verifying(i)) md5.emplace();
    codec::Md5* hash = md5 ? &*md5 : nullptr;
    if (compression == "lz4" || (hash && compression == "zlib") ||
        b.data_size < kBigMemoryThreshold || !populate) {
      // lz4's chunks are decoded on every core already; a zlib stream being verified is
      // hashed piece by piece on a second core, which maps in pages ahead of it too.
      decompress_block(compression, stored.bytes, {out, b.data_size}, what, hash);
    } else {
      // One stream, one core: a second core maps in the output's pages ahead of it, piece
      // by piece, and stops when the decoder does: a stream that fails early (its data_size
      // a lie) leaves the memory it never wrote untouched.
      std::atomic<bool> decoded{false};
      dudley::ThreadPool::shared().parallel_for(2, [&](size_t task) {
        if (task == 0) {
          try {
            decompress_block(compression, stored.bytes, {out, b.data_size}, what);
          } catch (...) {
            decoded.store(true);
            throw;
          }
          decoded.store(true);
        } else {
          constexpr uint64_t kPiece = uint64_t{16} << 20;
          for (uint64_t at = 0; at < b.data_size && !decoded.load(); at += kPiece) {
            if (!populate_pages(out + at, std::min(kPiece, b.data_size - at))) break;
          }
        }
      });
      if (hash) hash->update({out, b.data_size});
    }
    if (hash) check_digest(i, hash->digest());
  } catch (const Error& e) {
    throw Error(e.category(), e.message(), Location::binary(source_->name(), b.offset));
  }
}

void BlockStore::decode_into(size_t i, std::byte* out) const {
  check_size(i);
  decode(i, out, true);
}

BlockData BlockStore::data(size_t i, bool verify_now) const {
  const BlockHeader& b = blocks_[i];
  check_size(i);
  if (!compressed(i)) {
    BlockData d;
    d.size = b.used_size;
    const unsigned char* p =
        source_->view(b.data_offset(), b.used_size, fmt::format("block {}", i));
    if (p) {
      d.bytes = reinterpret_cast<const std::byte*>(p);
      d.keep = source_;
    } else {
      auto buffer = allocate_zeroed(b.used_size);
      source_->read(b.data_offset(), b.used_size, buffer.get(), fmt::format("block {}", i));
      d.bytes = static_cast<const std::byte*>(buffer.get());
      d.keep = std::move(buffer);
    }
    if (verify_now) verify(i, d.bytes, d.size);
    return d;
  }
  std::unique_lock lock(cache_mutex_);
  if (cached_index_ == i) {
    BlockData d = cached_;
    lock.unlock();
    if (verify_now) verify(i, d.bytes, d.size);
    return d;
  }
  std::shared_ptr<void> buffer;
  std::future<void> decoded_ahead;
  if (ahead_index_ == i) {
    buffer = std::move(ahead_buffer_);
    decoded_ahead = std::move(ahead_done_);
    ahead_index_ = SIZE_MAX;
  } else {
    buffer = take_spare_locked(b.data_size);
  }
  lock.unlock();
  const bool fresh = !buffer;
  if (fresh) buffer = allocate_zeroed(b.data_size);
  auto* out = static_cast<std::byte*>(buffer.get());
  // A one-stream block is hashed once decoded, after the next block has started decoding
  // ahead; lz4's chunks are hashed as they decode, on every core.
  const bool one_stream = b.compression_name() != "lz4";
  if (decoded_ahead.valid()) {
    decoded_ahead.get();  // the decoder's error, if it had one
  } else {
    decode(i, out, verify_now && !one_stream, fresh);
  }
  BlockData d{out, b.data_size, std::move(buffer)};
  lock.lock();
  cache_locked(i, d);
  lock.unlock();
  if (verify_now) verify(i, d.bytes, d.size);
  return d;
}

void BlockStore::cache_locked(size_t i, BlockData d) const {
  if (cached_.keep && cached_.keep.use_count() == 1 && cached_.size > spare_size_) {
    spare_ = std::move(cached_.keep);
    spare_size_ = cached_.size;
  }
  cached_index_ = i;
  cached_ = std::move(d);
  start_ahead_locked();
}

std::shared_ptr<void> BlockStore::take_spare_locked(uint64_t size) const {
  if (!spare_ || spare_size_ < size) return nullptr;
  spare_size_ = 0;
  return std::move(spare_);
}

void BlockStore::read_ahead(size_t i) const {
  std::lock_guard lock(cache_mutex_);
  ahead_wanted_ = i;
}

void BlockStore::start_ahead_locked() const {
  const size_t i = ahead_wanted_;
  if (i == SIZE_MAX || ahead_index_ != SIZE_MAX) return;  // nothing named, or one running
  ahead_wanted_ = SIZE_MAX;
  if (i >= blocks_.size() || i == cached_index_ || !compressed(i)) return;
  const BlockHeader& b = blocks_[i];
  if (b.compression_name() == "lz4" || b.data_size > kReadAheadBytes || b.data_size == 0) return;
  try {
    check_size(i);
  } catch (const Error&) {
    return;  // reported when the block is read
  }
  std::shared_ptr<void> buffer = take_spare_locked(b.data_size);
  if (!buffer) buffer = allocate_zeroed(b.data_size);
  auto* out = static_cast<std::byte*>(buffer.get());
  ahead_index_ = i;
  ahead_buffer_ = std::move(buffer);
  // A thread of its own: the shared pool serves the caller's thread, which goes on hashing
  // and writing the block before.
  ahead_done_ = std::async(std::launch::async, [this, i, out] { decode(i, out, false, false); });
}

BlockStore::~BlockStore() {
  if (ahead_done_.valid()) ahead_done_.wait();
}

}  // namespace dudley::asdf
