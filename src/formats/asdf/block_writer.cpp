#include "block_writer.hpp"

#include <cstring>
#include <optional>

#include "blocks.hpp"
#include "dudley/codec/checksum.hpp"
#include "dudley/codec/stream_encoder.hpp"
#include "dudley/core/shape.hpp"
#include "dudley/core/thread_pool.hpp"

namespace dudley::asdf {

namespace {

// The header of a block whose data (`stored` bytes of `raw` ones) has been written.
void write_header(io::AtomicFile& out, uint64_t at, uint64_t raw, uint64_t stored,
                  const std::optional<codec::Md5Digest>& md5, const std::string& compression) {
  BlockHeader h;
  h.data_size = raw;
  h.allocated_size = h.used_size = stored;
  if (md5) h.checksum = *md5;
  if (!compression.empty()) {
    std::memcpy(h.compression.data(), compression.c_str(), std::min<size_t>(4, compression.size()));
  }
  const auto header = encode_block_header(h);
  out.write_at(at, header.data(), header.size());
}

}  // namespace

uint64_t write_block(io::AtomicFile& out, uint64_t at, codec::ByteView raw,
                     const AsdfSaveOptions& options) {
  const uint64_t data_at = at + 54;
  uint64_t end = data_at;
  std::optional<codec::Md5> md5;
  if (options.checksums) md5.emplace();  // made here: OpenSSL's first use initialises it
  if (options.compression == "lz4") {
    // Compressed first, the header (which needs the sizes and the MD5) written after.
    encode_lz4_framed(raw, md5 ? &*md5 : nullptr, [&](codec::ByteView part) {
      out.write_at(end, part.data(), part.size());
      end += part.size();
    });
  } else {
    // The MD5 (of the raw data, at about 0.6 GB/s) is computed on a second core while the
    // data is compressed or written: neither waits for the other.
    codec::Bytes packed;
    const bool compress = !options.compression.empty();
    dudley::ThreadPool::shared().parallel_for(2, [&](size_t task) {
      if (task == 1) {
        if (md5) md5->update(raw);
      } else if (compress) {
        packed = compress_block(options.compression, raw, options.level);
      } else {
        out.write_at(data_at, raw.data(), raw.size());
      }
    });
    if (compress) out.write_at(data_at, packed.data(), packed.size());
    end = data_at + (compress ? packed.size() : raw.size());
  }
  std::optional<codec::Md5Digest> digest;
  if (md5) digest = md5->digest();
  write_header(out, at, raw.size(), end - data_at, digest, options.compression);
  return end;
}

uint64_t BlockStreamer::write(uint64_t at, model::ArraySource& source,
                              const std::vector<int64_t>& shape, uint64_t bytes,
                              const std::function<void(uint64_t)>& advanced) {
  const std::string& compression = options_.compression;
  if (compression != "" && compression != "lz4" && bytes <= kWholeBlockBytes) {
    const NDArray a = source.read();  // native order, C-contiguous
    const uint64_t end =
        write_block(out_, at, {static_cast<const std::byte*>(a.data()), a.byte_size()}, options_);
    advanced(a.byte_size());
    return end;
  }
  source.verify();
  const uint64_t data_at = at + 54;
  uint64_t end = data_at;
  std::optional<codec::Md5> md5;
  if (options_.checksums) md5.emplace();  // made here: OpenSSL's first use initialises it
  const uint64_t elements = *Shape(shape).element_count();
  const uint64_t element = elements == 0 ? 0 : bytes / elements;
  auto buffer = [&](uint64_t k, uint64_t size) {
    auto& b = buffers_[k % 2];
    if (b.size() < size) b.resize(size);
    return b.data();
  };
  std::optional<model::ArraySource::StoredBytes> stored;
  if (compression.empty() && !md5) stored = source.stored_bytes();
  if (stored && stored->size == bytes && !stored->dtype.needs_swap()) {
    // The same bytes in a file, nothing to hash: the kernel copies them.
    out_.copy_from(*stored->source, stored->offset, data_at, bytes, advanced);
    end = data_at + bytes;
  } else if (!compression.empty() && compression != "lz4") {
    // One zlib or bzip2 stream fed piece by piece (codec::StreamEncoder).
    codec::Configuration config = codec::Configuration::object();
    if (options_.level >= 0) config["level"] = options_.level;
    auto encoder = codec::make_stream_encoder(codec_name(compression), config);
    auto sink = [&](codec::ByteView part) {
      out_.write_at(end, part.data(), part.size());
      end += part.size();
    };
    model::for_each_piece(shape, element, source.read_unit(), model::kPieceBytes,
                          [&](const model::Piece& piece) {
                            std::byte* p = buffer(0, piece.bytes);
                            source.read_into(piece.slab, p);
                            if (md5) md5->update({p, piece.bytes});
                            encoder->update({p, piece.bytes}, sink);
                            advanced(piece.bytes);
                            return true;
                          });
    encoder->finish(sink);
  } else if (compression == "lz4") {
    model::for_each_piece(
        shape, element, source.read_unit(), model::kPieceBytes, [&](const model::Piece& piece) {
          std::byte* p = buffer(0, piece.bytes);
          source.read_into(piece.slab, p);
          encode_lz4_framed({p, piece.bytes}, md5 ? &*md5 : nullptr, [&](codec::ByteView part) {
            out_.write_at(end, part.data(), part.size());
            end += part.size();
          });
          advanced(piece.bytes);
          return true;
        });
  } else {
    // Piece k is read while piece k - 1 is written and hashed on the second core: MD5
    // (about 0.6 GB/s) has a core to itself, reading and writing share the other.
    std::optional<model::Piece> pending;
    uint64_t count = 0;
    auto finish = [&](const model::Piece& p, uint64_t k) {
      out_.write_at(data_at + p.offset, buffers_[k % 2].data(), p.bytes);
    };
    model::for_each_piece(shape, element, source.read_unit(), model::kPieceBytes,
                          [&](const model::Piece& piece) {
                            std::byte* p = buffer(count, piece.bytes);
                            if (!pending) {
                              source.read_into(piece.slab, p);
                            } else {
                              const model::Piece last = *pending;
                              dudley::ThreadPool::shared().parallel_for(2, [&](size_t task) {
                                if (task == 0) {
                                  source.read_into(piece.slab, p);
                                  if (md5) finish(last, count - 1);
                                } else if (md5) {
                                  md5->update({buffers_[(count - 1) % 2].data(), last.bytes});
                                } else {
                                  finish(last, count - 1);
                                }
                              });
                              advanced(last.bytes);
                            }
                            pending = piece;
                            ++count;
                            return true;
                          });
    if (pending) {
      if (md5) md5->update({buffers_[(count - 1) % 2].data(), pending->bytes});
      finish(*pending, count - 1);
      advanced(pending->bytes);
    }
    end = data_at + bytes;
  }
  std::optional<codec::Md5Digest> digest;
  if (md5) digest = md5->digest();
  write_header(out_, at, bytes, end - data_at, digest, compression);
  return end;
}

}  // namespace dudley::asdf
