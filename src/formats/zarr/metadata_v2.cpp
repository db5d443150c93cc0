// Zarr v2 metadata (.zarray, .zgroup, .zattrs) read into, and written from, the v3 form the
// rest of the module works with.
#include <fmt/format.h>

#include <cstring>
#include <utility>

#include "dudley/core/byte_swap.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/shape.hpp"
#include "dudley/core/text.hpp"
#include "dudley/model/numpy_descr.hpp"
#include "dudley/model/value_json.hpp"
#include "json_text.hpp"
#include "metadata.hpp"

namespace dudley::zarr {
namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kDimensionsAttribute = "_ARRAY_DIMENSIONS";  // xarray's convention

[[noreturn]] void refuse(const std::string& where, const std::string& what,
                         ErrorCategory category = ErrorCategory::kData) {
  throw Error(category, what, Location::file(where));
}

// A v2 compressor (numcodecs' id and settings) as a v3 bytes -> bytes codec.
CodecSpec compressor(const Json& c, uint64_t element_size, const std::string& where) {
  if (!c.is_object() || !c.contains("id") || !c["id"].is_string()) {
    refuse(where, fmt::format("compressor must be null or {{\"id\": ...}}, not {}", c.dump()));
  }
  const std::string id = c["id"].get<std::string>();
  Json config = Json::object();
  auto copy = [&](const char* key) {
    if (c.contains(key)) config[key] = c[key];
  };
  if (id == "zlib" || id == "gzip" || id == "bz2") {
    copy("level");
    return {id, config};
  }
  if (id == "lz4") {
    copy("acceleration");
    return {"numcodecs.lz4", config};
  }
  if (id == "zstd") {
    copy("level");
    copy("checksum");
    return {"zstd", config};
  }
  if (id == "blosc") {
    copy("cname");
    copy("clevel");
    copy("blocksize");
    // numcodecs numbers the shuffles; -1 (auto) is bit shuffle for one-byte elements.
    if (c.contains("shuffle")) {
      const Json& s = c["shuffle"];
      const int64_t n = s.is_number_integer() ? s.get<int64_t>() : 99;
      const char* names[] = {"noshuffle", "shuffle", "bitshuffle"};
      if (n == -1) {
        config["shuffle"] = element_size == 1 ? "bitshuffle" : "shuffle";
      } else if (n >= 0 && n <= 2) {
        config["shuffle"] = names[n];
      } else {
        refuse(where, fmt::format("compressor blosc: shuffle {} is not -1, 0, 1 or 2", s.dump()));
      }
    }
    config["typesize"] = element_size;
    return {"blosc", config};
  }
  if (id == "lzma" || id == "crc32" || id == "crc32c" || id == "adler32" || id == "fletcher32" ||
      id == "jenkins_lookup3" || id == "zfpy") {
    config = c;
    config.erase("id");
    return {"numcodecs." + id, config};
  }
  refuse(where,
         fmt::format("compressor \"{}\" is not read by this build (zlib, gzip, bz2, lz4, zstd, "
                     "blosc, lzma, zfpy, crc32, crc32c, adler32, fletcher32, jenkins_lookup3)",
                     id),
         ErrorCategory::kType);
}

// A v2 filter on the serialized chunk: numcodecs' Shuffle, the one the codec layer has (as
// the bytes -> bytes codec "numcodecs.shuffle", before the compressor).
CodecSpec filter_codec(const Json& f, const std::string& where) {
  const std::string id = f.is_object() && f.contains("id") && f["id"].is_string()
                             ? f["id"].get<std::string>()
                             : std::string();
  if (id == "delta") {
    Json config = Json::object();
    for (const auto& [key, value] : f.items()) {
      if (key == "id") continue;
      if (key != "dtype" && key != "astype")
        refuse(where, fmt::format("filter delta: unknown setting \"{}\"", key));
      config[key] = value;
    }
    if (!config.contains("dtype")) refuse(where, "filter delta: its dtype is missing");
    return {"numcodecs.delta", config};
  }
  // The others as zarr-python 3 names them in v3; the codec layer checks their settings.
  if (id == "fixedscaleoffset" || id == "astype" || id == "quantize" || id == "packbits" ||
      id == "lzma" || id == "crc32" || id == "crc32c" || id == "adler32" || id == "fletcher32" ||
      id == "jenkins_lookup3") {
    Json config = f;
    config.erase("id");
    return {"numcodecs." + id, config};
  }
  if (id != "shuffle") {
    refuse(where,
           fmt::format("filter {} is not read by this build (numcodecs' shuffle, delta, "
                       "fixedscaleoffset, astype, quantize, packbits, bitround, lzma and the "
                       "checksums are)",
                       f.dump()),
           ErrorCategory::kType);
  }
  Json config = Json::object();
  for (const auto& [key, value] : f.items()) {
    if (key == "id") continue;
    if (key != "elementsize")
      refuse(where, fmt::format("filter shuffle: unknown setting \"{}\"", key));
    config[key] = value;
  }
  return {"numcodecs.shuffle", config};
}

Json attributes_of(std::string_view text, const std::string& path) {
  if (text.empty()) return Json::object();
  const JsonDocument doc = parse_json_document(text, path);
  if (!doc.value.is_object()) refuse(path, ".zattrs must hold an object");
  return doc.value;
}

std::vector<int64_t> dims(const Json& v, const char* what, bool positive,
                          const std::string& where) {
  if (!v.is_array() || v.size() > kMaxRank) {
    refuse(where, fmt::format("{} must be a list of at most {} integers, not {}", what, kMaxRank,
                              v.dump()));
  }
  std::vector<int64_t> out;
  for (const Json& d : v) {
    if (!d.is_number_integer() || d.get<int64_t>() < (positive ? 1 : 0) ||
        d.get<uint64_t>() > (uint64_t{1} << 62)) {
      refuse(where, fmt::format("{} {}: {} is not a {} integer", what, v.dump(), d.dump(),
                                positive ? "positive" : "non-negative"));
    }
    out.push_back(d.get<int64_t>());
  }
  return out;
}

// The element type of a v2 array. Object arrays of strings or bytes: their object codec is
// the one filter ("vlen-utf8", "vlen-bytes", set in `object_codec`); other object codecs
// (json, pickle, msgpack) are not read.
DType v2_dtype(const Json& d, const std::string& path, std::string& object_codec) {
  if (d["dtype"] == "|O") {
    const Json& f = d["filters"];
    if (f.is_array() && f.size() == 1 && f[0].is_object() && f[0].size() == 1 &&
        (f[0].value("id", "") == "vlen-utf8" || f[0].value("id", "") == "vlen-bytes")) {
      object_codec = f[0]["id"].get<std::string>();
    } else {
      refuse(path,
             fmt::format("an object array with filters {}: only strings (vlen-utf8) and bytes "
                         "(vlen-bytes) are read by this build",
                         f.dump()),
             ErrorCategory::kType);
    }
    return object_codec == "vlen-utf8" ? DType::vlen(DType::text(TextEncoding::kUtf8))
                                       : DType::vlen_bytes();
  }
  // A typestr, or a structured dtype as a list of [name, descr(, shape)] fields.
  DType type;
  try {
    type = model::dtype_from_numpy_descr(model::from_json(d["dtype"]));
  } catch (const Error& e) {
    refuse(path, fmt::format("dtype {}: {}", d["dtype"].dump(), e.message()), ErrorCategory::kType);
  }
  if (type.kind() == DTypeKind::kRawBits || type.kind() == DTypeKind::kPointer) {
    refuse(path, fmt::format("dtype {} is not read by this build", d["dtype"].dump()),
           ErrorCategory::kType);
  }
  return type;
}

// The codec pipeline v2's order, filters and compressor make, in v3's terms.
void v2_codecs(const Json& d, ArrayMetadata& a, const std::string& object_codec,
               const std::string& path) {
  const DType& type = a.dtype;
  const Json& order = d["order"];
  if (order != "C" && order != "F")
    refuse(path, fmt::format("order must be \"C\" or \"F\", not {}", order.dump()));
  if (order == "F" && a.shape.size() > 1 && !object_codec.empty()) {
    refuse(path, "an object array in order F is not read by this build", ErrorCategory::kType);
  }
  if (order == "F" && a.shape.size() > 1) {
    Json permutation = Json::array();
    for (size_t i = a.shape.size(); i-- > 0;) permutation.push_back(i);
    a.codecs.array_to_array.push_back({"transpose", {{"order", permutation}}});
  }
  a.codecs.array_to_bytes = {object_codec.empty() ? "bytes" : object_codec, Json::object()};
  a.codecs.endian = type.byte_order() == ByteOrder::kBig ? ByteOrder::kBig : ByteOrder::kLittle;
  if (type.size() > 1 && object_codec.empty()) {
    a.codecs.array_to_bytes.configuration["endian"] =
        a.codecs.endian == ByteOrder::kBig ? "big" : "little";
  }
  if (object_codec.empty() && !d["filters"].is_null()) {
    const Json& f = d["filters"];
    if (!f.is_array())
      refuse(path, fmt::format("filters must be null or a list, not {}", f.dump()));
    for (const Json& filter : f) {
      if (filter.is_object() && filter.value("id", Json()) == "bitround") {
        check_bitround(filter, type.kind() == DTypeKind::kFloat, type.size(), path);
        continue;  // rounded when written: read as it is
      }
      a.codecs.bytes_to_bytes.push_back(filter_codec(filter, path));
    }
  }
  if (!d["compressor"].is_null()) {
    CodecSpec c = compressor(d["compressor"], type.size(), path);
    if (c.name == "numcodecs.zfpy") {
      // zfp makes bytes of the elements itself (an array -> bytes codec to v3), and gives
      // them back in the machine's order.
      if (!type.is_integer() && type.kind() != DTypeKind::kFloat) {
        refuse(path,
               fmt::format("compressor zfpy compresses numbers (int32, int64, float32, "
                           "float64), not {}",
                           type.to_string()),
               ErrorCategory::kType);
      }
      if (type.byte_order() != native_byte_order() && type.size() > 1) {
        refuse(path, "compressor zfpy on elements not in this machine's byte order",
               ErrorCategory::kType);
      }
      a.codecs.array_to_bytes = c;
      a.codecs.endian = native_byte_order();
    } else {
      a.codecs.bytes_to_bytes.push_back(std::move(c));
    }
  }
}

// The fill value; zarr-python 2 gives object arrays the fill value 0 (or null). A number
// fills a string array with its text, as zarr-python 3 reads it; null, and anything but a
// string for bytes, fills with "" (zarr 3 refuses those).
// A number or boolean as Python's str() writes it: what zarr-python 3 fills a v2 string
// array with when its fill_value is one (zarr-python 2 wrote 0 for string arrays).
// `written` is the number's text in the file where the parser kept it (too large for 64
// bits: Python's int prints every digit of it).
std::string python_text(const Json& value, const std::string* written) {
  if (value.is_boolean()) return value.get<bool>() ? "True" : "False";
  if (value.is_number_integer()) return value.dump();
  if (written && written->find_first_of(".eE") == std::string::npos) {
    std::string digits = *written;
    const bool negative = !digits.empty() && digits[0] == '-';
    const size_t first = digits.find_first_not_of('0', negative ? 1 : 0);
    digits = first == std::string::npos ? "0" : (negative ? "-" : "") + digits.substr(first);
    return digits;
  }
  std::string text = fmt::format("{}", value.get<double>());  // shortest round trip, as repr
  if (text.find_first_of(".en") == std::string::npos) text += ".0";
  return text;
}

void v2_fill(const Json& fill, ArrayMetadata& a, bool object, const JsonDocument& doc,
             const std::string& path) {
  const DType& type = a.dtype;
  const DType native = type.needs_swap() ? type.with_byte_order(native_byte_order()) : type;
  const bool utf8 = type.kind() == DTypeKind::kVLen && type.base().joins_units() &&
                    type.base().encoding() == TextEncoding::kUtf8;
  if (object && utf8 && (fill.is_number() || fill.is_boolean())) {
    const auto written = doc.number_text.find("/fill_value");
    a.fill = fill_value_from_json(
        Json(python_text(fill, written == doc.number_text.end() ? nullptr : &written->second)),
        native, doc.number_text, "/fill_value", path);
  } else if (fill.is_null() || (object && !fill.is_string())) {
    a.fill = numpy_only_type(type) ? FillValue{std::vector<std::byte>(type.size(), std::byte{0})}
                                   : default_fill_value(native);
    a.fill_null = fill.is_null();
  } else if (numpy_only_type(type)) {
    a.fill = v2_fill_from_json(fill, type, path);
  } else {
    a.fill = fill_value_from_json(fill, native, doc.number_text, "/fill_value", path);
  }
}

// xarray keeps dimension names in an attribute: they become the model's dimension names.
void take_dimension_names(Json& attrs, ArrayMetadata& a) {
  if (!attrs.contains(kDimensionsAttribute)) return;
  const Json& names = attrs[kDimensionsAttribute];
  if (!names.is_array() || names.size() != a.shape.size()) return;
  a.dimension_names.emplace();
  for (const Json& n : names) {
    a.dimension_names->push_back(n.is_string() ? std::optional(n.get<std::string>())
                                               : std::nullopt);
  }
  attrs.erase(kDimensionsAttribute);
}

// A chunk decodes whole: its bytes, at the element size `a` claims, are checked against
// kMaxChunkBytes before anything of that size (the fill value) is made. Object arrays hold
// strings of any length, checked as they are decoded.
void check_chunk_bytes(const ArrayMetadata& a, bool fixed_size, const std::string& path) {
  if (!fixed_size) return;
  std::optional<uint64_t> bytes = a.dtype.size();
  for (int64_t c : a.chunk_shape) {
    if (bytes) bytes = checked_mul(*bytes, static_cast<uint64_t>(c));
  }
  if (!bytes || *bytes > kMaxChunkBytes) {
    refuse(path,
           fmt::format("chunks of {} elements of {} bytes are more than the {} bytes a chunk "
                       "may decode to",
                       Shape(a.chunk_shape).to_string(), a.dtype.size(), kMaxChunkBytes),
           ErrorCategory::kLimit);
  }
}

// The same limits and checks as a v3 array: made into one and read back. A numpy-only type
// is probed as one raw byte (r8), not as raw bytes of its size: v3 states a raw type's fill
// value as a list of its bytes, and a 120-byte .zarray claiming "|S500000000" made a list of
// 500 million JSON numbers (20 GB, minutes). What the element's size decides, the chunk's
// decoded bytes, check_chunk_bytes checked before.
ArrayMetadata checked_as_v3(ArrayMetadata a, const std::string& path) {
  const bool numpy_only = numpy_only_type(a.dtype);
  FillValue fill;
  if (numpy_only) fill = std::exchange(a.fill, FillValue{{std::byte{0}}});  // held once
  ArrayMetadata probe = a;
  if (numpy_only) {
    probe.dtype = DType::raw_bits(8);
    probe.codecs.array_to_bytes.configuration = Json::object();
  }
  ArrayMetadata checked = *parse_metadata(array_metadata_json(probe), path).array;
  checked.zarr_format = 2;
  checked.keys = a.keys;
  checked.dtype = a.dtype;
  checked.fill = numpy_only ? std::move(fill) : std::move(a.fill);
  checked.fill_null = a.fill_null;
  checked.codecs.endian = a.codecs.endian;
  return checked;
}

}  // namespace

std::string ascii_json(const nlohmann::ordered_json& document) {
  // ensure_ascii: python3-zarr 2 decodes v2 metadata as ASCII, as its own writer escapes.
  return document.dump(2, ' ', true) + "\n";
}

NodeMetadata parse_metadata_v2(std::string_view meta, std::string_view attributes,
                               const std::string& path, bool is_array) {
  const JsonDocument doc = parse_json_document(meta, path);
  const Json& d = doc.value;
  if (!d.is_object()) refuse(path, "must hold an object");
  if (!d.contains("zarr_format") || d["zarr_format"] != 2) {
    refuse(path,
           fmt::format("zarr_format must be 2 here, not {}",
                       d.contains("zarr_format") ? d["zarr_format"].dump() : "missing"),
           ErrorCategory::kType);
  }
  const std::string attributes_path = path.substr(0, path.rfind('/') + 1) + ".zattrs";
  Json attrs = attributes_of(attributes, attributes_path);
  NodeMetadata node;
  if (!is_array) {
    node.group.attributes = std::move(attrs);
    return node;
  }
  ArrayMetadata a;
  a.zarr_format = 2;
  for (const char* key :
       {"shape", "chunks", "dtype", "compressor", "fill_value", "order", "filters"}) {
    if (!d.contains(key)) refuse(path, fmt::format("{} is missing", key));
  }
  a.shape = dims(d["shape"], "shape", false, path);
  a.chunk_shape = dims(d["chunks"], "chunks", true, path);
  if (a.chunk_shape.size() != a.shape.size()) {
    refuse(path, fmt::format("chunks {} and shape {} differ in rank", d["chunks"].dump(),
                             d["shape"].dump()));
  }
  std::string object_codec;
  a.dtype = v2_dtype(d, path, object_codec);
  v2_codecs(d, a, object_codec, path);
  a.keys.v2 = true;
  a.keys.separator = '.';
  if (d.contains("dimension_separator")) {
    const Json& sep = d["dimension_separator"];
    if (sep != "." && sep != "/") {
      refuse(path, fmt::format("dimension_separator must be \".\" or \"/\", not {}", sep.dump()));
    }
    a.keys.separator = sep.get<std::string>()[0];
  }
  check_chunk_bytes(a, object_codec.empty(), path);
  v2_fill(d["fill_value"], a, !object_codec.empty(), doc, path);
  take_dimension_names(attrs, a);
  a.attributes = std::move(attrs);
  node.array = checked_as_v3(std::move(a), path);
  return node;
}

std::string array_metadata_json_v2(const ArrayMetadata& a) {
  Json d;
  d["zarr_format"] = 2;
  d["shape"] = a.shape;
  d["chunks"] = a.chunk_shape;
  const bool vlen = a.dtype.kind() == DTypeKind::kVLen;
  d["dtype"] = vlen ? Json("|O") : model::to_json(model::numpy_descr_of(a.dtype));
  Json compressor = nullptr;
  Json filters = vlen ? Json::array({{{"id", a.codecs.array_to_bytes.name}}}) : Json(nullptr);
  // v2 has one compressor, the last codec; filters are every codec before it (numcodecs'
  // ids: the v3 names without "numcodecs.").
  size_t last = a.codecs.bytes_to_bytes.size();
  for (size_t i = a.codecs.bytes_to_bytes.size(); i-- > 0;) {
    const std::string& n = a.codecs.bytes_to_bytes[i].name;
    if (n != "numcodecs.shuffle" && !is_element_filter(n)) {
      last = i;
      break;
    }
  }
  const std::string prefix = "numcodecs.";
  for (size_t i = 0; i < a.codecs.bytes_to_bytes.size(); ++i) {
    const CodecSpec& c = a.codecs.bytes_to_bytes[i];
    const std::string id = c.name.rfind(prefix, 0) == 0 ? c.name.substr(prefix.size()) : c.name;
    if (i != last) {  // a filter
      Json v2 = {{"id", id}};
      v2.update(c.configuration);
      if (filters.is_null()) filters = Json::array();
      filters.push_back(v2);
      continue;
    }
    Json v2 = {{"id", id}};
    for (const auto& [key, value] : c.configuration.items()) {
      if (c.name == "blosc" && key == "shuffle") {
        v2["shuffle"] = value == "noshuffle" ? 0 : value == "shuffle" ? 1 : 2;
      } else if (c.name == "zstd" && key == "checksum" && value == false) {
        continue;  // numcodecs 0.11's Zstd has no such setting
      } else if (!(c.name == "blosc" && key == "typesize")) {
        v2[key] = value;
      }
    }
    compressor = v2;
  }
  d["compressor"] = compressor;
  const DType native =
      a.dtype.needs_swap() ? a.dtype.with_byte_order(native_byte_order()) : a.dtype;
  d["fill_value"] = a.fill_null                ? Json(nullptr)
                    : numpy_only_type(a.dtype) ? v2_fill_to_json(a.fill, a.dtype)
                                               : fill_value_to_json(a.fill, native);
  d["order"] = "C";
  d["filters"] = filters;
  d["dimension_separator"] = std::string(1, a.keys.separator);
  return ascii_json(d);
}

std::string attributes_json_v2(
    const nlohmann::ordered_json& attributes,
    const std::optional<std::vector<std::optional<std::string>>>& names) {
  Json out = attributes;
  if (names) {
    Json list = Json::array();
    for (const auto& n : *names) list.push_back(n ? Json(*n) : Json(nullptr));
    out[kDimensionsAttribute] = list;
  }
  return out.empty() ? std::string() : ascii_json(out);
}

}  // namespace dudley::zarr
