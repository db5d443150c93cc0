// numcodecs' ZFPY codec (numcodecs.zfpy in zarr-python 3's stores, zfpy in v2): zfp's
// compressed floats and integers after zfp's full header (type, shape, mode), as
// zfpy.compress_numpy writes them; read with zfp itself. The header makes each chunk
// self-describing, so reading needs none of the settings; writing would need the chunk's shape
// and type, which a bytes codec is not given, and is refused.
//
// zfp's bit stream reads whole words with no end check, trusting the header: the chunk is
// copied into words, padded with zeros to the most a stream of its header's shape and mode
// can hold, so that a damaged chunk decodes to wrong values, never to a read past its end.
#include <zfp.h>

#include <cstring>
#include <vector>

#include "settings.hpp"

namespace dudley::codec {
namespace {

constexpr const char* kName = "numcodecs.zfpy";

// An open zfp stream over a chunk's words with its header read.
class Header {
 public:
  explicit Header(ByteView in)
      : words_((in.size() + sizeof(uint64_t) - 1) / sizeof(uint64_t) + 1, 0),
        field_(zfp_field_alloc()) {
    if (!in.empty()) std::memcpy(words_.data(), in.data(), in.size());
    open();
    ok_ = field_ && zfp_ && zfp_read_header(zfp_, field_, ZFP_HEADER_FULL) != 0 &&
          zfp_field_type(field_) != zfp_type_none;
  }
  Header(const Header&) = delete;
  Header& operator=(const Header&) = delete;
  ~Header() {
    close();
    if (field_) zfp_field_free(field_);
  }

  bool ok() const { return ok_; }
  // The header's element type as "f4", "f8", "i4" or "i8".
  std::string element() const {
    switch (zfp_field_type(field_)) {
      case zfp_type_int32:
        return "i4";
      case zfp_type_int64:
        return "i8";
      case zfp_type_float:
        return "f4";
      default:
        return "f8";
    }
  }
  // The bytes zfp read (its header included), in whole words.
  size_t used() const { return zfp_stream_compressed_size(zfp_); }
  // The bytes the header's field holds: its elements times their size.
  uint64_t decoded_size() const {
    return static_cast<uint64_t>(zfp_field_size(field_, nullptr)) *
           zfp_type_size(zfp_field_type(field_));
  }

  // The most bytes a stream of the header's field and mode can take.
  uint64_t most_compressed() const { return zfp_stream_maximum_size(zfp_, field_); }

  // Decodes the field into `out` (decoded_size() bytes), reading the header again over
  // words padded to the most the stream can take.
  bool decode(MutableByteView out) {
    const size_t words = most_compressed() / sizeof(uint64_t) + 2;
    if (words > words_.size()) {
      close();
      words_.resize(words, 0);
      open();
      if (!field_ || !zfp_ || zfp_read_header(zfp_, field_, ZFP_HEADER_FULL) == 0) return false;
    }
    zfp_field_set_pointer(field_, out.data());
    return zfp_decompress(zfp_, field_) != 0;
  }

 private:
  void open() {
    stream_ = stream_open(words_.data(), words_.size() * sizeof(uint64_t));
    zfp_ = stream_ ? zfp_stream_open(stream_) : nullptr;
    if (!field_) field_ = zfp_field_alloc();
  }
  void close() {
    if (zfp_) zfp_stream_close(zfp_);
    if (stream_) stream_close(stream_);
    zfp_ = nullptr;
    stream_ = nullptr;
  }

  std::vector<uint64_t> words_;
  bitstream* stream_ = nullptr;
  zfp_stream* zfp_ = nullptr;
  zfp_field* field_ = nullptr;
  bool ok_ = false;
};

class Zfpy final : public BytesCodec {
 public:
  explicit Zfpy(Configuration settings) : settings_(std::move(settings)) {
    // "element": what the array gives zfp ("f8"), set by the Zarr reader, not the store.
    if (settings_.contains("element")) {
      element_ = settings_["element"].get<std::string>();
      settings_.erase("element");
    }
  }
  std::string name() const override { return kName; }
  Configuration configuration() const override { return settings_; }

  void encode_into(ByteView, Bytes&) const override {
    throw Error(ErrorCategory::kUsage,
                fmt::format("{}: writing zfp chunks is not supported by this build (it reads "
                            "them)",
                            kName));
  }

  std::optional<uint64_t> declared_size(ByteView in) const override {
    Header header(in);
    if (!header.ok()) return std::nullopt;
    return header.decoded_size();
  }

  std::optional<size_t> decode_to(ByteView in, MutableByteView out) const override {
    Header header(in);
    if (!header.ok()) fail("corrupt input: no zfp header (a zfpy chunk begins with one)");
    const uint64_t size = header.decoded_size();
    if (size > out.size()) return std::nullopt;
    // Padding for a damaged stream is bounded by the data: a header whose mode lets a block
    // take more than 4 times its values' bytes (beyond what the chunk holds) is refused.
    if (header.most_compressed() > in.size() + 4 * size + (uint64_t{64} << 10)) {
      fail(fmt::format("corrupt input: the header lets {} bytes of values take {} bytes", size,
                       header.most_compressed()));
    }
    if (!element_.empty() && header.element() != element_) {
      fail(
          fmt::format("the chunk holds zfp's {} values, the array {}", header.element(), element_));
    }
    if (!header.decode(out.first(static_cast<size_t>(size)))) fail("corrupt input: bad data");
    // The padding lets a damaged stream decode safely; a stream that needed it is cut short.
    const size_t words = (in.size() + sizeof(uint64_t) - 1) / sizeof(uint64_t);
    if (header.used() > words * sizeof(uint64_t)) {
      fail(fmt::format("truncated input: the stream needs {} bytes, the chunk has {}",
                       header.used(), in.size()));
    }
    return static_cast<size_t>(size);
  }

 private:
  Configuration settings_;
  std::string element_;
};

}  // namespace

std::unique_ptr<BytesCodec> make_zfpy(const Configuration& c) {
  only_settings(kName, c,
                {"mode", "tolerance", "rate", "precision", "compression_kwargs", "element"});
  if (c.is_object() && c.contains("element") && !c["element"].is_string()) {
    throw Error(ErrorCategory::kUsage, fmt::format("{}: element must be a type name", kName));
  }
  return std::make_unique<Zfpy>(c.is_object() ? c : Configuration::object());
}

}  // namespace dudley::codec
