#include "dudley/codec/chain.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "dudley/core/error.hpp"

namespace dudley::codec {

namespace {
bool is_array_codec(const std::string& name) {
  return name == "shuffle" || name == "bitshuffle" || name == "byteorder" || name == "transpose";
}
}  // namespace

bool is_array_to_bytes(const std::string& name) {
  return name == "byteorder";
}

CodecChain CodecChain::from_configuration(const Configuration& codecs) {
  if (!codecs.is_array()) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("a codec chain is a list of codecs, not {}", codecs.dump()));
  }
  CodecChain chain;
  for (const auto& c : codecs) {
    if (!c.is_object() || !c.contains("name") || !c["name"].is_string()) {
      throw Error(
          ErrorCategory::kUsage,
          fmt::format("a codec is {{\"name\": ..., \"configuration\": ...}}, not {}", c.dump()));
    }
    const std::string name = c["name"].get<std::string>();
    const Configuration settings = c.value("configuration", Configuration::object());
    if (is_array_codec(name)) {
      chain.then(make_array_codec(name, settings));
    } else {
      chain.then(make_bytes_codec(name, settings));
    }
  }
  return chain;
}

Configuration CodecChain::configuration() const {
  Configuration out = Configuration::array();
  for (const auto& c : array_)
    out.push_back({{"name", c->name()}, {"configuration", c->configuration()}});
  for (const auto& c : bytes_)
    out.push_back({{"name", c->name()}, {"configuration", c->configuration()}});
  return out;
}

CodecChain& CodecChain::then(std::unique_ptr<ArrayCodec> codec) {
  // Zarr v3's order: array -> array codecs, one array -> bytes codec, bytes -> bytes codecs.
  if (!bytes_.empty()) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("array codec '{}' after bytes codec '{}': array codecs come first",
                            codec->name(), bytes_.back()->name()));
  }
  if (serialized_) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("codec '{}' after '{}', which turns the array into bytes: array -> "
                            "array codecs come before it, and there is one of it",
                            codec->name(), array_.back()->name()));
  }
  serialized_ = is_array_to_bytes(codec->name());
  array_.push_back(std::move(codec));
  return *this;
}

CodecChain& CodecChain::then(std::unique_ptr<BytesCodec> codec) {
  bytes_.push_back(std::move(codec));
  return *this;
}

void CodecChain::encode_into(ByteView data, const ChunkSpec& chunk, Bytes& out) const {
  // Stages between the first and the last write into per-thread buffers that live on, so
  // a chain coding chunk after chunk does not fault in fresh memory for each.
  thread_local Bytes stage_a, stage_b;
  const size_t stages = array_.size() + bytes_.size();
  if (stages == 0) {
    out.assign(data.begin(), data.end());
    return;
  }
  ByteView in = data;
  ChunkSpec spec = chunk;
  size_t done = 0;
  auto target = [&]() -> Bytes& {
    if (done + 1 == stages) return out;
    return in.data() == stage_a.data() ? stage_b : stage_a;
  };
  for (const auto& c : array_) {
    Bytes& next = target();
    next.resize(data.size());
    c->encode(in, next, spec);
    spec = c->encoded_spec(spec);
    in = next;
    ++done;
  }
  for (const auto& c : bytes_) {
    Bytes& next = target();
    c->encode_into(in, next);
    in = next;
    ++done;
  }
}

void CodecChain::decode(ByteView encoded, MutableByteView out, const ChunkSpec& chunk) const {
  // Sizes between bytes codecs are not recorded: bound them by the chunk (widened by the
  // codecs before that stage that store elements in a wider type) and the input, which any
  // sane chain stays within, so a corrupt stage cannot claim more.
  thread_local Bytes stage, raw, scratch;  // kept per thread: no fresh pages per chunk
  ByteView in = encoded;
  for (size_t i = bytes_.size(); i-- > 1;) {
    double widest = 1;
    for (size_t j = 0; j < i; ++j) widest *= std::max(1.0, bytes_[j]->widening());
    const uint64_t slack =
        static_cast<uint64_t>(static_cast<double>(out.size()) * std::min(widest, 64.0)) +
        encoded.size() + 4096;
    stage = bytes_[i]->decode(in, slack);
    in = stage;
  }
  if (array_.empty()) {
    if (bytes_.empty()) {
      if (in.size() != out.size()) {
        throw Error(ErrorCategory::kData,
                    fmt::format("a chunk of {} bytes, {} expected", in.size(), out.size()));
      }
      if (!in.empty()) std::memcpy(out.data(), in.data(), in.size());
    } else {
      bytes_[0]->decode_exact(in, out);
    }
    return;
  }
  raw.resize(out.size());
  if (bytes_.empty()) {
    if (in.size() != out.size()) {
      throw Error(ErrorCategory::kData,
                  fmt::format("a chunk of {} bytes, {} expected", in.size(), out.size()));
    }
    if (!in.empty()) std::memcpy(raw.data(), in.data(), in.size());
  } else {
    bytes_[0]->decode_exact(in, raw);
  }
  // Array codecs in reverse, each seeing the spec its encode saw.
  std::vector<ChunkSpec> specs{chunk};
  for (const auto& c : array_) specs.push_back(c->encoded_spec(specs.back()));
  scratch.resize(out.size());
  for (size_t i = array_.size(); i-- > 0;) {
    MutableByteView target = i == 0 ? out : MutableByteView(scratch);
    array_[i]->decode(raw, target, specs[i]);
    if (i != 0) raw.swap(scratch);
  }
}

void CodecChain::encode_all(std::span<const ByteView> chunks, const ChunkSpec& chunk,
                            std::vector<Bytes>& out, ThreadPool& pool) const {
  out.resize(chunks.size());
  pool.parallel_for(chunks.size(), [&](size_t i) { encode_into(chunks[i], chunk, out[i]); });
}

void CodecChain::decode_all(std::span<const ByteView> encoded, std::span<const MutableByteView> out,
                            const ChunkSpec& chunk, ThreadPool& pool) const {
  if (encoded.size() != out.size()) {
    throw Error(ErrorCategory::kUsage, "decode_all: one output per encoded chunk");
  }
  pool.parallel_for(encoded.size(), [&](size_t i) { decode(encoded[i], out[i], chunk); });
}

}  // namespace dudley::codec
