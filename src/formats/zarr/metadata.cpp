#include "metadata.hpp"

#include <charconv>

#include <fmt/format.h>

#include <map>
#include <optional>
#include <set>

#include "datatype.hpp"
#include "dudley/codec/codec.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/shape.hpp"
#include "json_text.hpp"

namespace dudley::zarr {
namespace {

using Json = nlohmann::ordered_json;

// Elements an array may claim (missing chunks read as the fill value, so a shape may be
// far larger than its store).
constexpr uint64_t kMaxElements = uint64_t{1} << 62;

[[noreturn]] void refuse(const std::string& where, const std::string& what,
                         ErrorCategory category = ErrorCategory::kData) {
  throw Error(category, what, Location::file(where));
}

// An extension point: a short-hand name or {"name", "configuration"?, "must_understand"?}.
struct Extension {
  std::string name;
  Json configuration = Json::object();
  bool must_understand = true;
};

Extension extension(const Json& v, const std::string& field, const std::string& where) {
  Extension e;
  if (v.is_string()) {
    e.name = v.get<std::string>();
    return e;
  }
  if (!v.is_object() || !v.contains("name") || !v["name"].is_string()) {
    refuse(where, fmt::format("{} must be a name or {{\"name\": ..., \"configuration\": ...}}, "
                              "not {}",
                              field, v.dump()));
  }
  for (const auto& [key, value] : v.items()) {
    if (key == "name") {
      e.name = value.get<std::string>();
    } else if (key == "configuration") {
      if (!value.is_object()) {
        refuse(where, fmt::format("{} \"{}\": configuration must be an object, not {}", field,
                                  v["name"].get<std::string>(), value.dump()));
      }
      e.configuration = value;
    } else if (key == "must_understand") {
      if (!value.is_boolean()) {
        refuse(where, fmt::format("{}: must_understand must be true or false", field));
      }
      e.must_understand = value.get<bool>();
    } else {
      refuse(where, fmt::format("{} \"{}\": unknown field \"{}\"", field,
                                v["name"].get<std::string>(), key));
    }
  }
  return e;
}

// A list of integers: a shape (each >= 0) or a chunk shape (each > 0).
std::vector<int64_t> dimensions(const Json& v, const std::string& what, bool positive,
                                const std::string& where) {
  if (!v.is_array())
    refuse(where, fmt::format("{} must be a list of integers, not {}", what, v.dump()));
  if (v.size() > kMaxRank) {
    refuse(where,
           fmt::format("{} has {} dimensions; at most {} are read", what, v.size(), kMaxRank),
           ErrorCategory::kLimit);
  }
  std::vector<int64_t> out;
  for (const Json& d : v) {
    const bool integer = d.is_number_unsigned() || (d.is_number_integer() && d.get<int64_t>() >= 0);
    if (!integer || d.get<uint64_t>() > kMaxElements || (positive && d.get<uint64_t>() == 0)) {
      refuse(where, fmt::format("{} {}: {} is not {} integer", what, v.dump(), d.dump(),
                                positive ? "a positive" : "a non-negative"));
    }
    out.push_back(d.get<int64_t>());
  }
  return out;
}

uint64_t element_count(const std::vector<int64_t>& shape, const std::string& what,
                       const std::string& where) {
  uint64_t n = 1;
  for (int64_t d : shape) {
    const auto product = checked_mul(n, static_cast<uint64_t>(d));
    if (!product || *product > kMaxElements) {
      refuse(where,
             fmt::format("{} {} has more than 2^62 elements", what, Shape(shape).to_string()),
             ErrorCategory::kLimit);
    }
    n = *product;
  }
  return n;
}

// What a pipeline encodes: chunks of `shape` whose elements are `element_size` bytes.
struct Encoded {
  std::vector<int64_t> shape;
  uint64_t element_size = 1;
  bool vlen = false;    // string or bytes elements
  bool raw = false;     // r<N>: bytes passed through, no order
  bool floats = false;  // float16/32/64 elements (what numcodecs' BitRound rounds)
};

Pipeline pipeline(const Json& codecs, const Encoded& chunk, const std::string& where, int depth);

void check_bytes_codec(const CodecSpec& c, const std::string& where) {
  // Settings are checked by the codec layer, which reads the same names.
  try {
    codec::make_bytes_codec(c.name, nlohmann::json::parse(c.configuration.dump()));
  } catch (const Error& e) {
    refuse(where, fmt::format("codec \"{}\": {}", c.name, e.message()));
  }
}

std::shared_ptr<const Sharding> sharding(const Json& config, const Encoded& shard,
                                         const std::string& where, int depth) {
  for (const auto& [key, value] : config.items()) {
    if (key != "chunk_shape" && key != "codecs" && key != "index_codecs" &&
        key != "index_location") {
      refuse(where, fmt::format("sharding_indexed: unknown setting \"{}\"", key));
    }
  }
  auto s = std::make_shared<Sharding>();
  if (!config.contains("chunk_shape") || !config.contains("codecs")) {
    refuse(where, "sharding_indexed needs chunk_shape and codecs");
  }
  s->chunk_shape = dimensions(config["chunk_shape"], "sharding_indexed chunk_shape", true, where);
  if (s->chunk_shape.size() != shard.shape.size()) {
    refuse(where,
           fmt::format("sharding_indexed chunk_shape {} has {} dimensions, the shard {}",
                       config["chunk_shape"].dump(), s->chunk_shape.size(), shard.shape.size()));
  }
  uint64_t inner_chunks = 1;
  for (size_t i = 0; i < s->chunk_shape.size(); ++i) {
    if (shard.shape[i] % s->chunk_shape[i] != 0) {
      refuse(where, fmt::format("sharding_indexed chunk_shape {} does not divide the shard "
                                "shape {}",
                                config["chunk_shape"].dump(), Shape(shard.shape).to_string()));
    }
    const auto product =
        checked_mul(inner_chunks, static_cast<uint64_t>(shard.shape[i] / s->chunk_shape[i]));
    // A reader holds a shard's index whole: 16 bytes per inner chunk.
    if (!product || *product > kMaxChunkBytes / 16) {
      refuse(where,
             fmt::format("a shard of {} in inner chunks of {} has more than {} of them (an "
                         "index of more than {} bytes)",
                         Shape(shard.shape).to_string(), Shape(s->chunk_shape).to_string(),
                         kMaxChunkBytes / 16, kMaxChunkBytes),
             ErrorCategory::kLimit);
    }
    inner_chunks = *product;
  }
  s->codecs = pipeline(config["codecs"],
                       {s->chunk_shape, shard.element_size, shard.vlen, shard.raw, shard.floats},
                       where, depth + 1);
  // The index: (offset, nbytes) pairs of uint64, one per inner chunk, fixed-size codecs only.
  std::vector<int64_t> index_shape;
  for (size_t i = 0; i < s->chunk_shape.size(); ++i)
    index_shape.push_back(shard.shape[i] / s->chunk_shape[i]);
  index_shape.push_back(2);
  const Json index_codecs =
      config.contains("index_codecs")
          ? config["index_codecs"]
          : Json::array({{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}},
                         {{"name", "crc32c"}}});
  s->index_codecs = pipeline(index_codecs, {index_shape, 8, false, false, false}, where, depth + 1);
  if (s->index_codecs.sharding) refuse(where, "sharding_indexed: an index cannot be sharded");
  for (const CodecSpec& c : s->index_codecs.bytes_to_bytes) {
    if (c.name != "crc32c") {
      refuse(where, fmt::format("sharding_indexed index_codecs: \"{}\" is not of fixed size "
                                "(an index is read by its size: bytes, transpose, crc32c)",
                                c.name));
    }
  }
  if (config.contains("index_location")) {
    const Json& at = config["index_location"];
    if (at != "start" && at != "end") {
      refuse(where, fmt::format("sharding_indexed index_location must be \"start\" or "
                                "\"end\", not {}",
                                at.dump()));
    }
    s->index_at_end = at == "end";
  }
  return s;
}

}  // namespace

void check_bitround(const Json& config, bool floats, uint64_t element_size,
                    const std::string& where) {
  const int mantissa = element_size == 2 ? 10 : element_size == 4 ? 23 : 52;
  if (!floats) refuse(where, "numcodecs' bitround rounds floats only", ErrorCategory::kType);
  for (const auto& [key, value] : config.items()) {
    if (key != "keepbits" && key != "id")
      refuse(where, fmt::format("bitround: unknown setting \"{}\"", key));
  }
  const Json keepbits = config.contains("keepbits") ? config["keepbits"] : Json();
  if (!keepbits.is_number_integer() || keepbits.get<int64_t>() < 0 ||
      keepbits.get<int64_t>() > mantissa) {
    refuse(where, fmt::format("bitround: keepbits must be a whole number from 0 to {}, not {}",
                              mantissa, keepbits.dump()));
  }
}

namespace {

// The name zarr-python 3 gives a numcodecs compressor ("numcodecs.zlib") as the codec it is
// (the v2 compressor of the same settings); other names as they are.
std::string numcodecs_alias(const std::string& name) {
  static const std::map<std::string, std::string> kAliases = {{"numcodecs.zlib", "zlib"},
                                                              {"numcodecs.gzip", "gzip"},
                                                              {"numcodecs.bz2", "bz2"},
                                                              {"numcodecs.zstd", "zstd"},
                                                              {"numcodecs.blosc", "blosc"}};
  auto it = kAliases.find(name);
  return it == kAliases.end() ? name : it->second;
}

}  // namespace

bool is_element_filter(const std::string& name) {
  return name == "numcodecs.delta" || name == "numcodecs.fixedscaleoffset" ||
         name == "numcodecs.astype" || name == "numcodecs.quantize" || name == "numcodecs.packbits";
}

namespace {

// numcodecs' 32-bit checksums (bytes -> bytes).
bool is_checksum(const std::string& name) {
  return name == "numcodecs.crc32" || name == "numcodecs.crc32c" || name == "numcodecs.adler32" ||
         name == "numcodecs.fletcher32" || name == "numcodecs.jenkins_lookup3";
}

// A numpy type of an array in memory ("int32", "i4", "<i4", "float64") as the typestr of its
// elements serialized in `order`; nullopt for a type given in the other order, or none of
// numpy's integer and float types.
std::optional<std::string> serialized_typestr(const std::string& type, ByteOrder order) {
  static const std::map<std::string, std::string> kNames = {
      {"int8", "i1"},    {"int16", "i2"},   {"int32", "i4"},  {"int64", "i8"},
      {"uint8", "u1"},   {"uint16", "u2"},  {"uint32", "u4"}, {"uint64", "u8"},
      {"float16", "f2"}, {"float32", "f4"}, {"float64", "f8"}};
  std::string code = type;
  if (auto it = kNames.find(type); it != kNames.end()) code = it->second;
  const char given = code.empty() ? '\0' : code[0];
  if (given == '<' || given == '>' || given == '|' || given == '=') code = code.substr(1);
  if (code.size() != 2 || std::string("iuf").find(code[0]) == std::string::npos ||
      std::string("1248").find(code[1]) == std::string::npos) {
    return std::nullopt;
  }
  const char wanted = code[1] == '1' ? '|' : order == ByteOrder::kBig ? '>' : '<';
  const char native = native_byte_order() == ByteOrder::kBig ? '>' : '<';
  // A type with an order of its own must have the serialized one ("=": numpy's native
  // order, the one the array has in memory).
  if (code[1] != '1' && (given == '<' || given == '>') && given != wanted) return std::nullopt;
  if (code[1] != '1' && given == '=' && native != wanted) return std::nullopt;
  return std::string(1, wanted) + code;
}

Pipeline pipeline(const Json& codecs, const Encoded& chunk, const std::string& where, int depth) {
  if (depth > 16) refuse(where, "sharding nested more than 16 levels", ErrorCategory::kLimit);
  if (!codecs.is_array() || codecs.empty()) {
    refuse(where, fmt::format("codecs must be a non-empty list, not {}", codecs.dump()));
  }
  Pipeline p;
  bool have_array_to_bytes = false;
  Encoded received = chunk;  // the chunk as the next codec sees it (transposes permute it)
  // numcodecs.delta and numcodecs.fixedscaleoffset where zarr-python 3 writes them, before
  // the array -> bytes codec: numcodecs computes them on the flattened array, which is what
  // the serialized chunk is when no array -> array codec follows; they are read as the first
  // bytes -> bytes codecs.
  std::vector<CodecSpec> array_filters;
  for (const Json& item : codecs) {
    const Extension e = extension(item, "codec", where);
    CodecSpec spec{numcodecs_alias(e.name), e.configuration};
    const std::string& n = spec.name;
    if (n == "numcodecs.bitround" && !have_array_to_bytes) {
      check_bitround(spec.configuration, chunk.floats, chunk.element_size, where);
      continue;  // rounding happened when it was written: reading is the identity
    }
    if (is_element_filter(n) && !have_array_to_bytes) {
      if (n == "numcodecs.packbits" && chunk.element_size != 1) {
        refuse(where, "numcodecs.packbits packs bool elements only", ErrorCategory::kType);
      }
      array_filters.push_back(spec);  // checked once its types are the serialized ones
      continue;
    }
    if (n == "numcodecs.pcodec") check_bytes_codec(spec, where);  // refused, saying why
    if (n == "transpose") {
      if (have_array_to_bytes) {
        refuse(where, "codec \"transpose\" (array -> array) comes after the array -> bytes codec");
      }
      if (!array_filters.empty()) {
        refuse(where,
               fmt::format("codec \"transpose\" after {} is not read by this build",
                           array_filters.front().name),
               ErrorCategory::kType);
      }
      const Json& order =
          spec.configuration.contains("order") ? spec.configuration["order"] : Json();
      std::vector<bool> seen(chunk.shape.size(), false);
      bool ok = order.is_array() && order.size() == chunk.shape.size();
      for (size_t i = 0; ok && i < order.size(); ++i) {
        ok = order[i].is_number_unsigned() && order[i].get<uint64_t>() < seen.size() &&
             !seen[order[i].get<uint64_t>()];
        if (ok) seen[order[i].get<uint64_t>()] = true;
      }
      if (!ok) {
        refuse(where, fmt::format("codec \"transpose\": order {} is not a permutation of the "
                                  "{} dimensions",
                                  order.dump(), chunk.shape.size()));
      }
      std::vector<int64_t> permuted;
      for (const Json& axis : order) permuted.push_back(received.shape[axis.get<size_t>()]);
      received.shape = std::move(permuted);
      p.array_to_array.push_back(spec);
    } else if (n == "bytes" || n == "sharding_indexed" || n == "vlen-utf8" || n == "vlen-bytes" ||
               n == "numcodecs.zfpy") {
      if (have_array_to_bytes) {
        refuse(where,
               fmt::format("codec \"{}\": a pipeline has exactly one array -> bytes codec", n));
      }
      have_array_to_bytes = true;
      if (n == "bytes") {
        if (chunk.vlen) refuse(where, "codec \"bytes\" cannot store string or bytes elements");
        const Json& c = spec.configuration;
        for (const auto& [key, value] : c.items()) {
          if (key != "endian")
            refuse(where, fmt::format("codec \"bytes\": unknown setting \"{}\"", key));
        }
        if (c.contains("endian")) {
          if (c["endian"] != "little" && c["endian"] != "big") {
            refuse(where, fmt::format("codec \"bytes\": endian must be \"little\" or \"big\", "
                                      "not {}",
                                      c["endian"].dump()));
          }
          p.endian = c["endian"] == "big" ? ByteOrder::kBig : ByteOrder::kLittle;
        } else if (chunk.element_size > 1 && !chunk.vlen && !chunk.raw) {
          refuse(where, "codec \"bytes\" needs an endian for elements of more than one byte");
        }
      } else if (n == "numcodecs.zfpy") {
        // zfp's chunks carry their own header; its values come out in the machine's order.
        // What zfp is given: the array's elements, or the type the filters before it store.
        std::string element = fmt::format("{}{}", chunk.floats ? 'f' : 'i', chunk.element_size);
        for (const CodecSpec& f : array_filters) {
          for (const char* key : {"astype", "encode_dtype"}) {
            const Json& c = f.configuration;
            if (c.contains(key) && c[key].is_string()) {
              const std::string t = c[key].get<std::string>();
              try {
                const DType d = DType::from_typestr(t);
                element = fmt::format("{}{}", d.kind() == DTypeKind::kFloat ? 'f' : 'i', d.size());
              } catch (const Error&) {
                element = t;  // numpy names ("float32") are refused below unless zfp's
                if (t == "float32" || t == "float64") element = t == "float32" ? "f4" : "f8";
                if (t == "int32" || t == "int64") element = t == "int32" ? "i4" : "i8";
              }
            }
          }
        }
        if (chunk.vlen || chunk.raw || chunk.shape.size() > 4 ||
            (element != "f4" && element != "f8" && element != "i4" && element != "i8")) {
          refuse(where,
                 "numcodecs.zfpy compresses int32, int64, float32 and float64 in up to 4 "
                 "dimensions",
                 ErrorCategory::kType);
        }
        check_bytes_codec(spec, where);
        p.zfpy_element = element;
        p.endian = native_byte_order();
      } else if (n == "sharding_indexed") {
        if (chunk.vlen) refuse(where, "sharding string or bytes arrays is not supported");
        p.sharding = sharding(spec.configuration, received, where, depth);
      } else if (!chunk.vlen) {
        refuse(where, fmt::format("codec \"{}\" is for string and bytes arrays only", n));
      }
      p.array_to_bytes = spec;
    } else if (n == "gzip" || n == "zstd" || n == "blosc" || n == "crc32c" || n == "zlib" ||
               n == "bz2" || n == "numcodecs.lz4" || n == "numcodecs.shuffle" ||
               n == "numcodecs.lzma" || is_checksum(n) || is_element_filter(n)) {
      // zlib, bz2 and lz4: v2 compressors (numcodecs'), read the same way; numcodecs.lz4 and
      // numcodecs.shuffle are also how zarr-python 3 names numcodecs' LZ4 and Shuffle in v3
      // metadata (the v2 shuffle filter is read as the latter); v2's delta and
      // fixedscaleoffset filters come here after the bytes v2 serializes with.
      if (!have_array_to_bytes) {
        refuse(where, fmt::format("codec \"{}\" (bytes -> bytes) comes before the array -> "
                                  "bytes codec",
                                  n));
      }
      check_bytes_codec(spec, where);
      p.bytes_to_bytes.push_back(spec);
    } else if (!e.must_understand) {
      continue;  // allowed to be ignored
    } else {
      refuse(where,
             fmt::format("unknown codec \"{}\" (this build reads transpose, bytes, "
                         "sharding_indexed, gzip, zstd, blosc, crc32c, vlen-utf8, "
                         "vlen-bytes, numcodecs.lz4, numcodecs.shuffle, numcodecs.delta, "
                         "numcodecs.fixedscaleoffset, numcodecs.astype, numcodecs.quantize, "
                         "numcodecs.packbits, numcodecs.bitround, numcodecs.zlib, "
                         "numcodecs.gzip, numcodecs.bz2, numcodecs.zstd, numcodecs.blosc, "
                         "numcodecs.lzma, numcodecs.crc32, numcodecs.crc32c, numcodecs.adler32, "
                         "numcodecs.fletcher32, numcodecs.jenkins_lookup3, numcodecs.zfpy)",
                         n),
             ErrorCategory::kType);
    }
  }
  if (!have_array_to_bytes)
    refuse(where, "codecs have no array -> bytes codec (bytes, sharding_indexed)");
  if (!array_filters.empty()) {
    if (p.sharding || chunk.vlen) {
      refuse(where,
             fmt::format("{} before sharding or a string codec is not read by this build",
                         array_filters.front().name),
             ErrorCategory::kType);
    }
    // On the array its types are the array's, in memory ("int32", "<i4"); on the
    // serialized chunk they are the bytes codec's: given its byte order. One given in the
    // other order would read otherwise, and is refused.
    for (CodecSpec& d : array_filters) {
      for (const char* key : {"dtype", "astype", "encode_dtype", "decode_dtype"}) {
        if (!d.configuration.contains(key)) continue;
        const Json& value = d.configuration[key];
        const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
        const std::optional<std::string> on_bytes = serialized_typestr(text, p.endian);
        if (!on_bytes) {
          refuse(where,
                 fmt::format("{}: {} {} before a bytes codec of {} byte order is not read by "
                             "this build",
                             d.name, key, value.dump(),
                             p.endian == ByteOrder::kBig ? "big" : "little"),
                 ErrorCategory::kType);
        }
        d.configuration[key] = *on_bytes;
      }
      check_bytes_codec(d, where);
    }
    p.bytes_to_bytes.insert(p.bytes_to_bytes.begin(), array_filters.begin(), array_filters.end());
  }
  // The decoded chunk is held whole: refuse sizes no reader should allocate on a file's word.
  // A shard with codecs around it (a transpose before, a compressor after) is decoded whole.
  if (!chunk.vlen && (!p.sharding || !p.array_to_array.empty() || !p.bytes_to_bytes.empty())) {
    const auto bytes = checked_mul(element_count(chunk.shape, "chunk", where), chunk.element_size);
    if (!bytes || *bytes > kMaxChunkBytes) {
      refuse(where,
             fmt::format("chunks of {} elements of {} bytes are more than the {} bytes a "
                         "chunk may decode to",
                         Shape(chunk.shape).to_string(), chunk.element_size, kMaxChunkBytes),
             ErrorCategory::kLimit);
    }
  }
  return p;
}

const Json& required(const Json& doc, const char* key, const std::string& where) {
  if (!doc.contains(key)) refuse(where, fmt::format("{} is missing", key));
  return doc[key];
}

ArrayMetadata array(const JsonDocument& doc, const std::string& where) {
  const Json& d = doc.value;
  ArrayMetadata a;
  a.shape = dimensions(required(d, "shape", where), "shape", false, where);
  element_count(a.shape, "shape", where);
  // The type's size first (the pipeline needs it), its byte order from the bytes codec.
  const DType native =
      data_type_from_json(required(d, "data_type", where), native_byte_order(), where);
  const Extension grid = extension(required(d, "chunk_grid", where), "chunk_grid", where);
  if (grid.name != "regular") {
    refuse(where, fmt::format("unknown chunk_grid \"{}\" (this build reads regular)", grid.name),
           ErrorCategory::kType);
  }
  if (!grid.must_understand) refuse(where, "chunk_grid cannot be marked must_understand: false");
  for (const auto& [key, value] : grid.configuration.items()) {
    if (key != "chunk_shape") refuse(where, fmt::format("chunk_grid: unknown setting \"{}\"", key));
  }
  if (!grid.configuration.contains("chunk_shape")) refuse(where, "chunk_grid has no chunk_shape");
  a.chunk_shape = dimensions(grid.configuration["chunk_shape"], "chunk_shape", true, where);
  if (a.chunk_shape.size() != a.shape.size()) {
    refuse(where, fmt::format("chunk_shape {} has {} dimensions, shape {} has {}",
                              Shape(a.chunk_shape).to_string(), a.chunk_shape.size(),
                              Shape(a.shape).to_string(), a.shape.size()));
  }
  const Extension keys =
      extension(required(d, "chunk_key_encoding", where), "chunk_key_encoding", where);
  if (keys.name != "default" && keys.name != "v2") {
    refuse(where, fmt::format("unknown chunk_key_encoding \"{}\" (default, v2)", keys.name),
           ErrorCategory::kType);
  }
  if (!keys.must_understand)
    refuse(where, "chunk_key_encoding cannot be marked must_understand: false");
  a.keys.v2 = keys.name == "v2";
  a.keys.separator = a.keys.v2 ? '.' : '/';
  for (const auto& [key, value] : keys.configuration.items()) {
    if (key != "separator" || (value != "/" && value != ".")) {
      refuse(where, fmt::format("chunk_key_encoding: {}: {} is not a separator \"/\" or \".\"", key,
                                value.dump()));
    }
    a.keys.separator = value.get<std::string>()[0];
  }
  const bool vlen = native.kind() == DTypeKind::kVLen;
  // Elements without a byte order: raw bits, raw bytes, null-terminated bytes.
  const bool unordered = native.kind() == DTypeKind::kRawBits ||
                         native.kind() == DTypeKind::kOpaque ||
                         (native.kind() == DTypeKind::kText && native.unit_size() == 1);
  a.codecs =
      pipeline(required(d, "codecs", where),
               {a.chunk_shape, native.size(), vlen, unordered, native.kind() == DTypeKind::kFloat},
               where, 0);
  // The innermost bytes codec says the order the elements are stored in.
  const Pipeline* inner = &a.codecs;
  while (inner->sharding) inner = &inner->sharding->codecs;
  const bool ordered = native.size() > 1 && !vlen && !unordered;
  a.dtype = ordered ? native.with_byte_order(inner->endian) : native;
  const Json& fill = required(d, "fill_value", where);
  if (fill.is_null())
    refuse(where, fmt::format("fill_value is null; {} needs one", native.to_string()));
  // fixed_length_utf32, null_terminated_bytes and raw_bytes: spelled as numpy's U<n>, S<n>
  // and V<n> are in v2 (text; base64).
  a.fill = numpy_only_type(native)
               ? v2_fill_from_json(fill, a.dtype, where)
               : fill_value_from_json(fill, native, doc.number_text, "/fill_value", where);
  // zarr-python 3 writes null for no names.
  if (d.contains("dimension_names") && !d["dimension_names"].is_null()) {
    const Json& names = d["dimension_names"];
    if (!names.is_array() || names.size() != a.shape.size()) {
      refuse(where, fmt::format("dimension_names must list one name (or null) per dimension, "
                                "not {}",
                                names.dump()));
    }
    a.dimension_names.emplace();
    for (const Json& n : names) {
      if (n.is_null()) {
        a.dimension_names->push_back(std::nullopt);
      } else if (n.is_string()) {
        a.dimension_names->push_back(n.get<std::string>());
      } else {
        refuse(where, fmt::format("dimension_names: {} is not a string or null", n.dump()));
      }
    }
  }
  if (d.contains("storage_transformers")) {
    const Json& t = d["storage_transformers"];
    if (!t.is_array()) refuse(where, "storage_transformers must be a list");
    for (const Json& item : t) {
      const Extension e = extension(item, "storage transformer", where);
      if (e.must_understand) {
        refuse(where, fmt::format("unknown storage transformer \"{}\"", e.name),
               ErrorCategory::kType);
      }
    }
  }
  return a;
}

}  // namespace

std::string ChunkKeyEncoding::key(const std::vector<int64_t>& index) const {
  if (index.empty()) return v2 ? "0" : "c";
  std::string out = v2 ? "" : std::string("c") + separator;
  for (size_t i = 0; i < index.size(); ++i) {
    if (i > 0) out += separator;
    out += std::to_string(index[i]);
  }
  return out;
}

std::optional<std::vector<int64_t>> ChunkKeyEncoding::index_of(std::string_view key,
                                                               size_t rank) const {
  if (!v2) {
    if (key.empty() || key.front() != 'c') return std::nullopt;
    key.remove_prefix(1);
    if (rank == 0) return key.empty() ? std::optional(std::vector<int64_t>{}) : std::nullopt;
    if (key.empty() || key.front() != separator) return std::nullopt;
    key.remove_prefix(1);
  } else if (rank == 0) {
    return key == "0" ? std::optional(std::vector<int64_t>{}) : std::nullopt;
  }
  std::vector<int64_t> index;
  index.reserve(rank);
  for (size_t d = 0; d < rank; ++d) {
    const size_t end = d + 1 < rank ? key.find(separator) : key.size();
    if (end == std::string_view::npos) return std::nullopt;
    const std::string_view part = key.substr(0, end);
    int64_t v = 0;
    const auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (ec != std::errc() || p != part.data() + part.size() || part.empty() || v < 0 ||
        (part.size() > 1 && part.front() == '0')) {
      return std::nullopt;
    }
    index.push_back(v);
    key.remove_prefix(std::min(key.size(), end + 1));
    if (d + 1 < rank && key.empty()) return std::nullopt;
  }
  return index;
}

nlohmann::ordered_json Pipeline::to_json() const {
  Json out = Json::array();
  auto add = [&](const CodecSpec& c) {
    Json item = {{"name", c.name}};
    // zarr-python 3 wants a configuration of every numcodecs codec, even an empty one.
    if (!c.configuration.empty() || c.name.rfind("numcodecs.", 0) == 0)
      item["configuration"] = c.configuration.is_null() ? Json::object() : c.configuration;
    out.push_back(std::move(item));
  };
  for (const CodecSpec& c : array_to_array) add(c);
  // numcodecs' element filters (read as the first bytes -> bytes codecs) are array -> array
  // codecs to zarr-python 3: written before the array -> bytes codec, where it reads them.
  size_t filters = 0;
  while (filters < bytes_to_bytes.size() && is_element_filter(bytes_to_bytes[filters].name))
    add(bytes_to_bytes[filters++]);
  add(array_to_bytes);
  for (size_t i = filters; i < bytes_to_bytes.size(); ++i) add(bytes_to_bytes[i]);
  return out;
}

codec::CodecChain Pipeline::chain() const {
  nlohmann::json codecs = nlohmann::json::array();
  auto add = [&](const CodecSpec& c) {
    // The codec layer reads nlohmann::json; metadata keeps ordered_json.
    codecs.push_back(
        {{"name", c.name}, {"configuration", nlohmann::json::parse(c.configuration.dump())}});
  };
  for (const CodecSpec& c : array_to_array) add(c);
  size_t filters = 0;
  while (filters < bytes_to_bytes.size() && is_element_filter(bytes_to_bytes[filters].name))
    add(bytes_to_bytes[filters++]);
  // numcodecs' ZFPY turns the elements into bytes itself, after the element filters; it
  // checks each chunk's header holds the type it is given.
  if (array_to_bytes.name == "numcodecs.zfpy") {
    CodecSpec zfp = array_to_bytes;
    zfp.configuration["element"] = zfpy_element;
    add(zfp);
  }
  for (size_t i = filters; i < bytes_to_bytes.size(); ++i) add(bytes_to_bytes[i]);
  return codec::CodecChain::from_configuration(codecs);
}

NodeMetadata parse_metadata(std::string_view text, const std::string& path) {
  const JsonDocument doc = parse_json_document(text, path);
  const Json& d = doc.value;
  if (!d.is_object()) refuse(path, "zarr.json must hold an object");
  const Json& format = required(d, "zarr_format", path);
  if (format != 3) {
    refuse(path,
           fmt::format("zarr_format {} is not 3 (a v2 node has .zarray or .zgroup)", format.dump()),
           ErrorCategory::kType);
  }
  const Json& type = required(d, "node_type", path);
  if (type != "array" && type != "group") {
    refuse(path, fmt::format("node_type must be \"array\" or \"group\", not {}", type.dump()));
  }
  const bool is_array = type == "array";
  static const std::set<std::string> kArrayFields = {
      "zarr_format",         "node_type",  "shape",  "data_type",  "chunk_grid",
      "chunk_key_encoding",  "fill_value", "codecs", "attributes", "dimension_names",
      "storage_transformers"};
  // consolidated_metadata: zarr-python 3 writes it in every group, null when there is none.
  static const std::set<std::string> kGroupFields = {"zarr_format", "node_type", "attributes",
                                                     "consolidated_metadata"};
  if (!is_array && d.contains("consolidated_metadata") && !d["consolidated_metadata"].is_null() &&
      !d["consolidated_metadata"].is_object()) {
    refuse(path, "consolidated_metadata must be an object or null");
  }
  for (const auto& [key, value] : d.items()) {
    if ((is_array ? kArrayFields : kGroupFields).count(key)) continue;
    // consolidated_metadata says must_understand: false in its own way (not an extension).
    if (value.is_object() && value.contains("must_understand") && value["must_understand"] == false)
      continue;
    refuse(path, fmt::format("unknown field \"{}\" not marked \"must_understand\": false", key),
           ErrorCategory::kType);
  }
  NodeMetadata node;
  Json attributes = Json::object();
  if (d.contains("attributes")) {
    if (!d["attributes"].is_object()) refuse(path, "attributes must be an object");
    attributes = d["attributes"];
  }
  if (is_array) {
    node.array = array(doc, path);
    node.array->attributes = attributes;
  } else {
    node.group.attributes = attributes;
  }
  return node;
}

std::string array_metadata_json(const ArrayMetadata& a) {
  Json d;
  d["zarr_format"] = 3;
  d["node_type"] = "array";
  d["shape"] = a.shape;
  const DType native = a.dtype.size() > 1 && a.dtype.kind() != DTypeKind::kVLen
                           ? a.dtype.with_byte_order(native_byte_order())
                           : a.dtype;
  d["data_type"] = data_type_json(a.dtype);
  d["chunk_grid"] = {{"name", "regular"}, {"configuration", {{"chunk_shape", a.chunk_shape}}}};
  d["chunk_key_encoding"] = {{"name", a.keys.v2 ? "v2" : "default"},
                             {"configuration", {{"separator", std::string(1, a.keys.separator)}}}};
  d["fill_value"] = fill_value_to_json(a.fill, native);
  d["codecs"] = a.codecs.to_json();
  if (!a.attributes.empty()) d["attributes"] = a.attributes;
  if (a.dimension_names) {
    Json names = Json::array();
    for (const auto& n : *a.dimension_names) names.push_back(n ? Json(*n) : Json(nullptr));
    d["dimension_names"] = names;
  }
  return d.dump(2) + "\n";
}

std::string group_metadata_json(const GroupMetadata& g) {
  Json d;
  d["zarr_format"] = 3;
  d["node_type"] = "group";
  // Always written, {} too: zarrita (and other readers) fail on a group without it.
  d["attributes"] = g.attributes;
  return d.dump(2) + "\n";
}

}  // namespace dudley::zarr
