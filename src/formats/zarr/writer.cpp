#include "writer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <future>
#include <set>

#include "chunk_encoder.hpp"
#include "datatype.hpp"
#include "dudley/codec/chain.hpp"
#include "dudley/core/box_copy.hpp"
#include "dudley/core/byte_swap.hpp"
#include "dudley/core/chunk_segments.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/shape.hpp"
#include "dudley/core/text.hpp"
#include "dudley/core/thread_pool.hpp"
#include "dudley/core/vlen.hpp"
#include "dudley/io/atomic_outputs.hpp"
#include "dudley/model/member_names.hpp"
#include "dudley/model/numpy_descr.hpp"
#include "dudley/model/sparse_chunks.hpp"
#include "dudley/model/text_strings.hpp"
#include "dudley/model/value_array.hpp"
#include "dudley/model/value_json.hpp"
#include "existing_store.hpp"
#include "metadata.hpp"
#include "store_output.hpp"
#include "vlen_chunks.hpp"

namespace dudley::zarr {
namespace {

using Json = nlohmann::ordered_json;

// Chunks read before they are encoded together: at most this many bytes of them.
constexpr uint64_t kBatchBytes = uint64_t{16} << 20;
// A chunk (a shard) of at most this many bytes is written while the next is encoded.
constexpr uint64_t kOverlapBytes = uint64_t{32} << 20;

std::string join(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "/" + name;
}

// The longest file name (NAME_MAX on Linux, and most file systems').
constexpr size_t kMaxNameBytes = 255;

// The names Zarr keeps for itself: a member so named would be taken for its group's
// metadata (zarr.json, .zarray, ...) or is reserved (v3's "__" prefix).
model::MemberNames::Rule reserved_names(int zarr_format) {
  return [zarr_format](std::string_view name) -> std::optional<std::string> {
    if (zarr_format == 3 && name.substr(0, 2) == "__")
      return std::string("starts with '__', which Zarr v3 reserves");
    // A key's parts are file names in a directory store, which hold at most 255 bytes.
    if (name.size() > kMaxNameBytes)
      return fmt::format("holds {} bytes, more than the {} a file name may hold", name.size(),
                         kMaxNameBytes);
    for (const char* doc : {"zarr.json", ".zarray", ".zgroup", ".zattrs", ".zmetadata"}) {
      if (name == doc) return std::string("is the name of a Zarr metadata document");
    }
    return std::nullopt;
  };
}

class StoreWriter {
 public:
  // `plan_only`: the metadata is made and checked and nothing is read or written: what
  // would be lost is known before a byte goes to a store that cannot be staged.
  StoreWriter(StoreOutput& out, std::string source_format, const ZarrSaveOptions& options,
              const SaveOptions& common, std::vector<std::string>& notes, LossLog& losses,
              bool plan_only = false)
      : out_(out),
        plan_only_(plan_only),
        source_format_(std::move(source_format)),
        options_(options),
        common_(common),
        notes_(notes),
        losses_(losses) {}

  uint64_t bytes() const { return bytes_; }

  // The consolidated metadata of a store whose root is a group, so that readers that cannot
  // list (a web server) find every node: v3, the root zarr.json's "consolidated_metadata"
  // (inline, must_understand false, as zarr-python writes it); v2, a .zmetadata document.
  void consolidate() {
    if (!options_.consolidated) return;
    if (options_.zarr_format == 2) {
      Json metadata = Json::object();
      for (const auto& [key, text] : documents) metadata[key] = Json::parse(text);
      if (!metadata.contains(".zgroup")) return;  // an array at the root
      const Json doc = {{"zarr_consolidated_format", 1}, {"metadata", std::move(metadata)}};
      put(".zmetadata", ascii_json(doc));
      return;
    }
    if (!root_group_) return;
    Json metadata = Json::object();
    for (const auto& [key, text] : documents) {
      metadata[key.substr(0, key.size() - std::string("/zarr.json").size())] = Json::parse(text);
    }
    Json root = Json::parse(group_metadata_json(*root_group_));
    root["consolidated_metadata"] = {
        {"kind", "inline"}, {"must_understand", false}, {"metadata", std::move(metadata)}};
    put("zarr.json", root.dump(2) + "\n");
  }
  uint64_t total = 0;  // array bytes to write, for progress

  void node(const model::Node& n, const std::string& prefix, const std::string& path) {
    if (n.kind == model::NodeKind::kArray) {
      // Its folder comes with its metadata: an array left out leaves none behind.
      array(n, prefix, path);
      return;
    }
    out_.begin_node(prefix);
    GroupMetadata g;
    g.attributes = attributes(n, path);
    if (n.kind == model::NodeKind::kList) {
      note(fmt::format("{}: a list, written as a group whose members are named by index",
                       path.empty() ? "/" : path));
    }
    if (options_.zarr_format == 2) {
      put(join(prefix, ".zgroup"), "{\n  \"zarr_format\": 2\n}\n");
      const std::string attrs = attributes_json_v2(g.attributes, std::nullopt);
      if (!attrs.empty()) put(join(prefix, ".zattrs"), attrs);
    } else if (!prefix.empty() || !options_.consolidated) {
      put(join(prefix, "zarr.json"), group_metadata_json(g));
    } else {
      root_group_ = g;  // written last, holding its members' metadata
    }
    model::MemberNames names(model::NameUse::kKey, reserved_names(options_.zarr_format));
    model::for_each_child(n, [&](uint64_t i, const model::Node& c) {
      const std::string name = n.kind == model::NodeKind::kList ? std::to_string(i) : c.name;
      if (!is_utf8(name)) {
        losses_.lose(fmt::format(
            "{}/{}: its name is not UTF-8 text, which Zarr's keys and metadata are; left out", path,
            name));
        return true;
      }
      // A name is a key, and so a path of a directory store: never one that climbs out of
      // its group ("..", "a/../../x") or takes another member's place.
      if (const std::optional<std::string> why = names.refuse(name)) {
        losses_.lose(fmt::format("{}: {}; left out", path.empty() ? "/" : path, *why));
        return true;
      }
      node(c, join(prefix, name), path + "/" + name);
      return true;
    });
  }

 private:
  void note(std::string text) { notes_.push_back(std::move(text)); }

  // Every metadata document written, by key, for the consolidated metadata.
  std::vector<std::pair<std::string, std::string>> documents;

  void put(const std::string& key, const std::string& text) {
    documents.emplace_back(key, text);
    out_.write_metadata(key, text);
    bytes_ += text.size();
  }

  // A one-element typed attribute (netCDF's _FillValue, missing_value) as the JSON number
  // xarray and the netCDF conventions read; nullopt for others, and for NaN and infinities
  // (JSON has no such numbers).
  static std::optional<Json> scalar_json(const NDArray& a) {
    if (a.element_count() != 1 || !a.dtype().is_numeric() ||
        a.dtype().kind() == DTypeKind::kComplex) {
      return std::nullopt;
    }
    const std::optional<model::Value> v = model::array_as_value(a);
    if (!v || (v->is<double>() && !std::isfinite(v->as<double>()))) return std::nullopt;
    return model::to_json(*v);
  }

  // Whether the attribute `name` with `value` is UTF-8 text throughout, as JSON must be;
  // else it is recorded as lost (HDF5 and netCDF attributes may hold any bytes).
  bool is_text(const model::Value& value, const std::string& name, const std::string& path) {
    if (is_utf8(name) && model::value_is_utf8(value)) return true;
    losses_.lose(fmt::format("{}@{}: text that is not UTF-8 (Zarr metadata is JSON), not written",
                             path.empty() ? "/" : path, name));
    return false;
  }

  Json attributes(const model::Node& n, const std::string& path) {
    Json out = Json::object();
    for (const auto& [name, value] : n.attributes) {
      // Dimension names and the fill value are the array's dimension_names and fill_value
      // (fill_of); coordinates, HDF5's dimension scales, have no Zarr form but the names.
      if (n.kind == model::NodeKind::kArray && model::well_known::is_model_attribute(name))
        continue;
      // The source format's own bookkeeping (ASDF's asdf_library, Avro's avro.schema).
      if (path.empty() && model::well_known::is_bookkeeping(source_format_, name)) continue;
      if (const auto* v = std::get_if<model::Value>(&value)) {
        if (is_text(*v, name, path)) out[name] = model::to_json(*v);
      } else if (std::optional<Json> scalar = scalar_json(std::get<NDArray>(value))) {
        if (is_text(model::Value(nullptr), name, path)) out[name] = std::move(*scalar);
      } else if (std::optional<model::Value> values =
                     model::array_as_value(std::get<NDArray>(value))) {
        // Numbers and text as JSON lists.
        if (is_text(*values, name, path)) out[name] = model::to_json(*values);
      } else {
        losses_.lose(fmt::format("{}@{}: a typed-array attribute, not written",
                                 path.empty() ? "/" : path, name));
      }
    }
    return out;
  }

  // Whether `source` (of `shape`) stores fewer chunks than its grid has: its missing ones
  // read as a fill value.
  static bool has_missing_chunks(model::ArraySource& source, const std::vector<int64_t>& shape) {
    const std::optional<model::StoredChunks> stored = source.stored_chunks();
    if (!stored || stored->chunk_shape.size() != shape.size()) return false;
    uint64_t grid = 1;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (stored->chunk_shape[d] <= 0) return false;
      const auto n =
          static_cast<uint64_t>((shape[d] + stored->chunk_shape[d] - 1) / stored->chunk_shape[d]);
      if (n != 0 && grid > UINT64_MAX / n) return true;
      grid *= n;
    }
    return stored->chunks < grid;
  }

  // The array's fill value: the source's (a Zarr array's, an HDF5 dataset's, a netCDF
  // variable's _FillValue), or zeros.
  FillValue fill_of(const model::Node& n, const DType& native, bool& given) {
    given = true;
    if (numpy_only_type(native) && n.storage.chunking && n.storage.chunking->fill_value) {
      // Fixed text as its text, structures as their bytes (the Zarr reader's forms).
      const model::Value& v = *n.storage.chunking->fill_value;
      if (v.is<model::ValueBytes>() && v.as<model::ValueBytes>().size() == native.size()) {
        const auto* b = reinterpret_cast<const std::byte*>(v.as<model::ValueBytes>().data());
        return FillValue{std::vector<std::byte>(b, b + native.size())};
      }
      if (v.is<std::string>() && native.kind() == DTypeKind::kText) {
        const std::string& text = v.as<std::string>();
        if (native.encoding() == TextEncoding::kUtf32) {
          try {
            return v2_fill_from_json(Json(text), native, "");
          } catch (const Error&) {
            return default_fill_value(native);  // longer than the strings: zeros
          }
        }
        FillValue fill{std::vector<std::byte>(native.size(), std::byte{0})};
        std::memcpy(fill.bytes.data(), text.data(), std::min<size_t>(text.size(), native.size()));
        return fill;
      }
    }
    if (n.storage.chunking && n.storage.chunking->fill_value) {
      try {
        return fill_value_from_json(model::to_json(*n.storage.chunking->fill_value), native, {}, "",
                                    "");
      } catch (const Error&) {
        // A fill value of another format's kind (a string for a number): zeros.
      }
    }
    if (const auto* fill = n.attributes.find(model::well_known::kFillValue)) {
      const auto* a = std::get_if<NDArray>(fill);
      if (a && a->element_count() == 1 && a->to_native().dtype() == native) {
        // The same type: its bytes as they are (NaN payloads and infinities included).
        const NDArray one = a->to_native();
        const auto* bytes = static_cast<const std::byte*>(one.data());
        return FillValue{std::vector<std::byte>(bytes, bytes + native.size())};
      }
      // Another type (or a JSON value): converted, when the array's type holds it.
      const std::optional<Json> json =
          a ? scalar_json(*a) : std::optional<Json>(model::to_json(std::get<model::Value>(*fill)));
      if (json) {
        try {
          return fill_value_from_json(*json, native, {}, "", "");
        } catch (const Error&) {
          // Not a value of the array's type (a fraction for integers): zeros.
        }
      }
    }
    given = false;
    return default_fill_value(native);
  }

  // Why the Zarr version written has no data type for `type` (nullopt when it has one):
  // v3 has numbers, bool, raw bits and variable-length strings and bytes; v2 has numpy's
  // dtypes besides (fixed-length strings, structured dtypes, void).
  std::optional<std::string> unheld_type(const DType& type) const {
    try {
      data_type_name(type);
      return std::nullopt;
    } catch (const Error& e) {
      if (options_.zarr_format != 2) {
        const bool v2_has = type.kind() == DTypeKind::kText || type.kind() == DTypeKind::kCompound;
        return e.message() + (v2_has ? " (Zarr v2 has: --zarr-format 2)" : "");
      }
    }
    if (type.kind() == DTypeKind::kVLen || type.holds_vlen()) {
      return fmt::format(
          "Zarr v2 has no data type for {} (variable-length strings and bytes "
          "only as whole elements)",
          type.to_string());
    }
    try {
      (void)model::numpy_descr_of(type);
      return std::nullopt;
    } catch (const Error& e) {
      return "Zarr v2 has no data type for " + type.to_string() + ": " + e.message();
    }
  }

  // The bytes -> bytes codecs of a Zarr source array (its model codec list), when each is
  // one the version written has; nullopt otherwise.
  std::optional<std::vector<CodecSpec>> source_codecs(const model::Value& codecs,
                                                      std::string& not_kept) const {
    // Kept in both versions: what zarr-python 2's numcodecs (0.11, Debian's) has too; the
    // checksums it lacks are kept in v3 only.
    static const std::set<std::string> kBoth = {"gzip",
                                                "zstd",
                                                "blosc",
                                                "numcodecs.lz4",
                                                "numcodecs.shuffle",
                                                "numcodecs.delta",
                                                "numcodecs.lzma",
                                                "numcodecs.crc32",
                                                "numcodecs.adler32",
                                                "numcodecs.packbits"};
    static const std::set<std::string> kV3 = {"crc32c", "numcodecs.crc32c", "numcodecs.fletcher32",
                                              "numcodecs.jenkins_lookup3"};
    std::vector<CodecSpec> out;
    if (!codecs.is<model::ValueList>()) return std::nullopt;
    for (const model::Value& c : codecs.as<model::ValueList>()) {
      const model::Value* name = c.find("name");
      if (!name || !name->is<std::string>()) return std::nullopt;
      const std::string& n = name->as<std::string>();
      // How elements become bytes: the writer's own (little-endian, C order).
      if (n == "bytes" || n == "transpose" || n == "vlen-utf8" || n == "vlen-bytes") continue;
      const bool held =
          kBoth.count(n) != 0 ||
          (options_.zarr_format == 2 ? (n == "zlib" || n == "bz2") : kV3.count(n) != 0);
      if (!held) {
        not_kept = n;
        return std::nullopt;
      }
      const model::Value* config = c.find("configuration");
      Json settings = config ? model::to_json(*config) : Json::object();
      if (options_.zarr_format == 2 && settings.contains("location")) {
        // numcodecs 0.11's CRC32 and Adler32 have no location: the checksum comes first.
        if (settings["location"] != "start") {
          not_kept = n + " with its checksum at the end";
          return std::nullopt;
        }
        settings.erase("location");
      }
      out.push_back({n, settings});
    }
    return out;
  }

  // The chunk shape of an array (the inner one, when `sharded`): --chunks for arrays of its
  // rank, others chosen near --chunk-bytes (among the shard's divisors).
  std::vector<int64_t> chunk_shape_of(const model::Node& n, const DType& native,
                                      const std::string& path, bool sharded) {
    if (options_.chunk_shape.size() == n.shape.size()) {
      if (sharded) {
        for (size_t d = 0; d < n.shape.size(); ++d) {
          if (options_.shard_shape[d] % options_.chunk_shape[d] != 0) {
            throw Error(ErrorCategory::kUsage,
                        fmt::format("{}: --chunks {} does not divide --shards {}", path,
                                    Shape(options_.chunk_shape).to_string(),
                                    Shape(options_.shard_shape).to_string()));
          }
        }
      }
      return options_.chunk_shape;
    }
    if (!options_.chunk_shape.empty()) {
      note(fmt::format("{}: {} dimensions, --chunks gives {}: chunked near --chunk-bytes", path,
                       n.shape.size(), options_.chunk_shape.size()));
    }
    return sharded
               ? choose_inner_chunk_shape(options_.shard_shape, native.size(), options_.chunk_bytes)
               : choose_chunk_shape(n.shape, native.size(), options_.chunk_bytes);
  }

  // The codecs of each stored chunk: bytes (little-endian), a byte shuffle, the compressor,
  // a CRC-32C.
  Pipeline chunk_codecs(const DType& native, bool ordered) const {
    Pipeline p;
    p.array_to_bytes.name = "bytes";
    if (ordered) p.array_to_bytes.configuration = {{"endian", "little"}};
    p.endian = ByteOrder::kLittle;
    if (options_.shuffle && native.kind() != DTypeKind::kVLen && native.size() > 1) {
      p.bytes_to_bytes.push_back({"numcodecs.shuffle", {{"elementsize", native.size()}}});
    }
    const std::string& c = options_.compressor;
    if (c == "zstd") {
      p.bytes_to_bytes.push_back(
          {"zstd", {{"level", options_.level >= 0 ? options_.level : 3}, {"checksum", false}}});
    } else if (c == "gzip") {
      p.bytes_to_bytes.push_back({"gzip", {{"level", options_.level >= 0 ? options_.level : 5}}});
    } else if (c == "blosc") {
      // The bytes of strings have no element size to shuffle by.
      const uint64_t typesize = native.kind() == DTypeKind::kVLen ? 1 : native.size();
      p.bytes_to_bytes.push_back({"blosc",
                                  {{"cname", "lz4"},
                                   {"clevel", options_.level >= 0 ? options_.level : 5},
                                   {"shuffle", typesize > 1 ? "shuffle" : "noshuffle"},
                                   {"typesize", typesize},
                                   {"blocksize", 0}}});
    } else if (c == "lz4") {
      p.bytes_to_bytes.push_back(
          {"numcodecs.lz4", {{"acceleration", options_.level >= 1 ? options_.level : 1}}});
    } else if (c != "none") {
      throw Error(ErrorCategory::kUsage, fmt::format("unknown compressor '{}'", c));
    }
    if (options_.checksums) p.bytes_to_bytes.push_back({"crc32c", Json::object()});
    return p;
  }

  void array(const model::Node& n, const std::string& prefix, const std::string& path) {
    const std::string shown = path.empty() ? "/" : path;
    // An array the source could not read, or a link not followed: nothing to copy.
    if (!n.error.empty()) {
      losses_.lose(n.link ? fmt::format("{}: {}; left out", shown, n.error.message)
                          : LossLog::unreadable(shown, n.error));
      return;
    }
    if (!n.data) {
      losses_.lose(fmt::format("{}: the array has no data; left out", shown));
      return;
    }
    DType native = n.dtype.needs_swap() ? n.dtype.with_byte_order(native_byte_order()) : n.dtype;
    if (native.kind() == DTypeKind::kEnum) {
      // Zarr has no enumerations: their integers are the data (names are in the source).
      note(fmt::format("{}: an enumeration ({}), written as its {} integers", shown,
                       native.to_string(), native.base().to_string()));
      native = native.base();
    }
    if (model::has_joined_units(n)) {
      // Text units along the last dimension (a Dudley S1[2, 4]): strings of that length.
      converted_.push_back(model::as_joined_strings_node(n));
      array(*converted_.back(), prefix, path);
      return;
    }
    std::shared_ptr<model::ArraySource> data = n.data;
    if (options_.zarr_format != 2 && model::is_fixed_text(native)) {
      // Zarr v3 has strings of variable length only: the same text, each string as long as
      // it is.
      note(
          fmt::format("{}: fixed-length text ({}) written as Zarr v3 strings (variable-length "
                      "UTF-8; --zarr-format 2 keeps the fixed length)",
                      shown, native.to_string()));
      data = model::fixed_text_as_strings(n.data, native, n.shape);
      native = model::utf8_strings_type();
    }
    ArrayMetadata a;
    if (std::optional<std::string> why = unheld_type(native)) {
      losses_.lose(fmt::format("{}: {}; left out", shown, *why));
      return;
    }
    const bool vlen = native.kind() == DTypeKind::kVLen;
    if (n.storage.mask)
      losses_.lose(fmt::format("{}: its mask is not written (the stored values are)", path));
    a.shape = n.shape;
    const bool ordered = native.size() > 1 && native.kind() != DTypeKind::kRawBits;
    a.dtype = ordered ? native.with_byte_order(ByteOrder::kLittle) : native;
    // Strings cannot be sharded (an inner chunk's size is not known before it is encoded).
    const bool sharded = !n.shape.empty() && options_.shard_shape.size() == n.shape.size() && !vlen;
    if (vlen && !options_.shard_shape.empty()) {
      note(fmt::format("{}: strings or bytes, not sharded", path));
    } else if (!sharded && !options_.shard_shape.empty()) {
      note(fmt::format("{}: {} dimensions, --shards gives {}: not sharded", path, n.shape.size(),
                       options_.shard_shape.size()));
    }
    a.chunk_shape = chunk_shape_of(n, native, path, sharded);
    bool fill_given = true;
    a.fill = fill_of(n, native, fill_given);
    // No fill value in the source: none in a v2 store either (xarray would mask zeros),
    // unless the source's missing chunks need one to read as (zeros).
    if (!fill_given && options_.zarr_format == 2 && !numpy_only_type(native) &&
        !(n.data && has_missing_chunks(*n.data, n.shape))) {
      a.fill_null = true;
    }
    a.codecs = chunk_codecs(native, ordered);
    keep_source_storage(n, a, shown, sharded);
    if (vlen) {
      a.codecs.array_to_bytes = {
          native.base().joins_units() && native.base().encoding() == TextEncoding::kUtf8
              ? "vlen-utf8"
              : "vlen-bytes",
          Json::object()};
    }
    if (sharded) shard(a);
    a.dimension_names = dimension_names_of(n);
    if (a.dimension_names &&
        !std::all_of(a.dimension_names->begin(), a.dimension_names->end(),
                     [](const auto& name) { return !name || is_utf8(*name); })) {
      losses_.lose(
          fmt::format("{}@dimension_names: text that is not UTF-8 (Zarr metadata is JSON), "
                      "not written",
                      path.empty() ? "/" : path));
      a.dimension_names.reset();
    }
    a.attributes = attributes(n, path);
    write_array(a, *data, native, prefix);
  }

  // Zarr to Zarr: the source's chunks and codecs, as HDF5 to HDF5 keeps them.
  void keep_source_storage(const model::Node& n, ArrayMetadata& a, const std::string& shown,
                           bool sharded) {
    const model::Chunking* kept = source_format_ == "zarr" && n.storage.chunking &&
                                          !n.storage.chunking->inner && !sharded &&
                                          n.storage.chunking->chunk_shape.size() == n.shape.size()
                                      ? n.storage.chunking.get()
                                      : nullptr;
    if (kept && options_.keep_source_chunks && !n.shape.empty()) a.chunk_shape = kept->chunk_shape;
    if (kept && options_.keep_source_codecs) {
      std::string not_kept;
      if (std::optional<std::vector<CodecSpec>> codecs = source_codecs(kept->codecs, not_kept)) {
        a.codecs.bytes_to_bytes = std::move(*codecs);
        for (CodecSpec& c : a.codecs.bytes_to_bytes) {
          if (c.name != "numcodecs.delta") continue;
          // Elements are written little-endian: so are the filter's. Without an astype,
          // numcodecs stores the differences in the elements' own type.
          const std::string own = a.dtype.typestr();
          const DType stored = DType::from_typestr(c.configuration.value("astype", own));
          c.configuration["dtype"] = own;
          c.configuration["astype"] = stored.with_byte_order(ByteOrder::kLittle).typestr();
        }
      } else {
        note(
            fmt::format("{}: its codec {} is not kept in Zarr v{} (lossy, or not one "
                        "zarr-python {} reads); its values are written with the default "
                        "compressor",
                        shown, not_kept.empty() ? "list" : not_kept, options_.zarr_format,
                        options_.zarr_format));
      }
    }
  }

  // The shard: the chunks of `a`, found through an index at its end (little-endian offsets
  // and sizes with a CRC-32C, the index codecs zarr-python writes).
  void shard(ArrayMetadata& a) const {
    Json index = Json::array(
        {{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}}, {{"name", "crc32c"}}});
    Pipeline shard;
    shard.array_to_bytes = {"sharding_indexed",
                            {{"chunk_shape", a.chunk_shape},
                             {"codecs", a.codecs.to_json()},
                             {"index_codecs", index},
                             {"index_location", "end"}}};
    a.codecs = std::move(shard);
    a.chunk_shape = options_.shard_shape;
  }

  // The source's dimension names, one per dimension (null for an unnamed one), when it has them.
  static std::optional<std::vector<std::optional<std::string>>> dimension_names_of(
      const model::Node& n) {
    const auto* names = n.attributes.find(model::well_known::kDimensionNames);
    if (!names) return std::nullopt;
    const auto* v = std::get_if<model::Value>(names);
    if (!v || !v->is<model::ValueList>() || v->as<model::ValueList>().size() != n.shape.size()) {
      return std::nullopt;
    }
    std::vector<std::optional<std::string>> out;
    for (const model::Value& name : v->as<model::ValueList>()) {
      out.push_back(name.is<std::string>() ? std::optional(name.as<std::string>()) : std::nullopt);
    }
    return out;
  }

  // The array's metadata, put through the reader's own checks before any chunk is written,
  // then its chunks, then the metadata (a reader never sees metadata without its chunks).
  void write_array(ArrayMetadata a, model::ArraySource& data, const DType& native,
                   const std::string& prefix) {
    if (options_.zarr_format == 2) {
      a.keys = {true, '.'};
      const std::string text = array_metadata_json_v2(a);
      const std::string attrs = attributes_json_v2(a.attributes, a.dimension_names);
      const ArrayMetadata checked =
          *parse_metadata_v2(text, attrs, out_.where(join(prefix, ".zarray")), true).array;
      chunks(data, checked, native, prefix);
      put(join(prefix, ".zarray"), text);
      if (!attrs.empty()) put(join(prefix, ".zattrs"), attrs);
      return;
    }
    const std::string text = array_metadata_json(a);
    const ArrayMetadata checked =
        *parse_metadata(text, out_.where(join(prefix, "zarr.json"))).array;
    chunks(data, checked, native, prefix);
    put(join(prefix, "zarr.json"), text);
  }

  // The chunks of a string or bytes array: each chunk's part read (read(): elements of no
  // fixed size), edge positions given the fill value, framed and compressed.
  void vlen_chunks(model::ArraySource& source, const ArrayMetadata& a, const std::string& prefix) {
    const size_t rank = a.shape.size();
    std::vector<int64_t> grid(rank);
    for (size_t d = 0; d < rank; ++d) {
      if (a.shape[d] == 0) return;
      grid[d] = (a.shape[d] + a.chunk_shape[d] - 1) / a.chunk_shape[d];
    }
    const VLenChunkCodec codec(a.codecs);
    const uint64_t base = a.dtype.base().size();
    const std::string_view fill(reinterpret_cast<const char*>(a.fill.bytes.data()),
                                a.fill.bytes.size());
    const uint64_t chunk_items = *Shape(a.chunk_shape).element_count();
    source.verify();
    // Only the chunks holding stored strings, when the source's missing chunks read as this
    // store's fill (a string's bytes, "" too): an array of 10^12 chunks, none stored, costs
    // its metadata, as for fixed-size types.
    std::optional<model::StoredChunks> only;
    if (auto stored = source.stored_chunks(); stored && stored->fill == a.fill.bytes) {
      only = model::chunks_touching(*stored, a.shape, a.chunk_shape);
    }
    uint64_t listed = 0;  // the next of `only`'s chunks
    std::vector<int64_t> at(rank, 0);
    const std::vector<int64_t> origin(rank, 0);
    if (only) {
      if (only->chunks == 0) return;
      at.assign(only->positions.begin(), only->positions.begin() + rank);
    }
    codec::Bytes encoded;
    for (bool done = false; !done;) {
      Hyperslab slab;
      for (size_t d = 0; d < rank; ++d) {
        slab.start.push_back(at[d] * a.chunk_shape[d]);
        slab.count.push_back(std::min(a.chunk_shape[d], a.shape[d] - slab.start[d]));
      }
      const NDArray part = source.read(slab);
      const std::vector<VLenElement> elements = vlen_elements(part);
      std::vector<std::string_view> items(chunk_items, fill);
      bool all_fill = true;
      for (uint64_t i = 0; i < elements.size(); ++i) {
        // The item's place in the chunk: its index in the part, in the chunk's strides.
        uint64_t rest = i, place = 0, stride = 1;
        for (size_t d = rank; d-- > 0;) {
          const auto count = static_cast<uint64_t>(slab.count[d]);
          place += (rest % count) * stride;
          rest /= count;
          stride *= static_cast<uint64_t>(a.chunk_shape[d]);
        }
        items[place] = elements[i].bytes(base);
        all_fill = all_fill && items[place] == fill;
      }
      written_ += elements.size() * a.dtype.size();
      if (common_.progress) common_.progress(written_, total);
      if (!all_fill) {
        try {
          codec.encode(items, encoded);
        } catch (const Error& e) {  // named as the user knows it, not by the staging path
          throw Error(e.category(),
                      fmt::format("/{}: chunk {}: {}", prefix, a.keys.key(at), e.message()));
        }
        const EncodedChunk chunk{join(prefix, a.keys.key(at)), &encoded};
        out_.write_chunks({&chunk, 1});
        bytes_ += encoded.size();
      }
      if (only) {
        done = ++listed == only->chunks;
        if (!done) {
          const auto next = only->positions.begin() + static_cast<std::ptrdiff_t>(listed * rank);
          at.assign(next, next + static_cast<std::ptrdiff_t>(rank));
        }
      } else {
        done = !next_position(at, origin, grid);
      }
    }
  }

  void chunks(model::ArraySource& source, const ArrayMetadata& a, const DType& native,
              const std::string& prefix) {
    if (plan_only_) return;
    if (native.kind() == DTypeKind::kVLen) {
      vlen_chunks(source, a, prefix);
      return;
    }
    const size_t rank = a.shape.size();
    const uint64_t element = native.size();
    std::vector<int64_t> grid(rank);
    for (size_t d = 0; d < rank; ++d) {
      if (a.shape[d] == 0) return;  // no chunks
      grid[d] = (a.shape[d] + a.chunk_shape[d] - 1) / a.chunk_shape[d];
    }
    ChunkEncoder encoder(a);
    const uint64_t chunk_bytes = encoder.chunk_bytes();
    source.verify();
    // A source of missing chunks that read as this store's fill value: only the chunks
    // holding stored data are written (a chunk never written reads the same), so that an
    // array declaring 10^12 chunks, none stored, costs its metadata.
    std::optional<model::StoredChunks> only;
    if (auto stored = source.stored_chunks();
        stored && model::may_skip_missing(*stored, a.fill.bytes)) {
      only = model::chunks_touching(*stored, a.shape, a.chunk_shape);
    }
    uint64_t listed = 0;  // the next of `only`'s chunks
    const uint64_t written_before = written_;
    auto& pool = dudley::ThreadPool::shared();
    const size_t batch = static_cast<size_t>(
        std::clamp<uint64_t>(kBatchBytes / std::max<uint64_t>(chunk_bytes, 1), 1, 64));
    if (buffers_.size() < batch) buffers_.resize(batch);
    std::vector<std::vector<int64_t>> indexes;
    std::vector<std::byte*> raw;
    std::vector<std::byte> piece;
    std::vector<int64_t> at(rank, 0);
    const std::vector<int64_t> origin(rank, 0);
    bool done = only && only->chunks == 0;
    if (only && !done) at.assign(only->positions.begin(), only->positions.begin() + rank);
    // Chunks are written on one thread while the next batch is read and encoded: creating
    // files in one directory from several threads serializes on the directory's lock, and
    // the waiting threads spin (a tenth of a v2 write's time went to that); an object
    // store's output sends the batch's requests at once from there.
    std::future<void> writing;
    auto flush = [&] {
      encoder.encode(raw, encoded_, pool);
      if (writing.valid()) writing.get();  // the previous batch is on disk; errors surface
      // A batch of one chunk (a shard, a chunk of 16 MiB or more) is one file, written while
      // the next is read and encoded too unless it is large (kOverlapBytes): a second
      // encoded one held adds its size to the memory. Written in turn, a write of 16 MiB
      // shards spent a fifth of its time in write() with the other core idle.
      const bool overlap = batch > 1 || chunk_bytes <= kOverlapBytes;
      if (overlap) std::swap(encoded_, writing_);
      auto& batch_out = overlap ? writing_ : encoded_;
      writing_chunks_.clear();
      for (size_t k = 0; k < indexes.size(); ++k) {
        // A chunk of nothing but the fill value is not written: it reads as that anyway.
        if (!batch_out[k]) continue;
        writing_chunks_.push_back({join(prefix, a.keys.key(indexes[k])), &*batch_out[k]});
        bytes_ += batch_out[k]->size();
      }
      auto write_batch = [this] { out_.write_chunks(writing_chunks_); };
      if (overlap) {
        writing = std::async(std::launch::async, write_batch);
      } else {
        write_batch();
      }
      indexes.clear();
      raw.clear();
    };
    while (!done) {
      // The chunk's part of the array, read into its buffer; an edge chunk's rest is fill.
      Hyperslab slab;
      bool edge = false;
      for (size_t d = 0; d < rank; ++d) {
        slab.start.push_back(at[d] * a.chunk_shape[d]);
        slab.count.push_back(std::min(a.chunk_shape[d], a.shape[d] - slab.start[d]));
        edge = edge || slab.count[d] != a.chunk_shape[d];
      }
      codec::Bytes& buffer = buffers_[indexes.size()];
      buffer.resize(chunk_bytes);
      if (!edge) {
        source.read_into(slab, buffer.data());
      } else {
        piece.resize(*Shape(slab.count).element_count() * element);
        source.read_into(slab, piece.data());
        for (uint64_t e = 0; e < chunk_bytes; e += element) {
          std::memcpy(buffer.data() + e, a.fill.bytes.data(), element);
        }
        copy_box({piece.data(), slab.count, {}}, {buffer.data(), a.chunk_shape, {}}, slab.count,
                 element);
      }
      written_ += *Shape(slab.count).element_count() * element;
      if (common_.progress) common_.progress(written_, total);
      indexes.push_back(at);
      raw.push_back(buffer.data());
      if (indexes.size() == batch) flush();
      if (only) {
        done = ++listed == only->chunks;
        if (!done) {
          const auto from = only->positions.begin() + static_cast<int64_t>(listed * rank);
          at.assign(from, from + static_cast<int64_t>(rank));
        }
      } else {
        done = !next_position(at, origin, grid);
      }
    }
    if (!indexes.empty()) flush();
    if (writing.valid()) writing.get();
    if (only) {  // the chunks left out count as done
      written_ = std::max(written_, written_before + *Shape(a.shape).element_count() * element);
      if (common_.progress) common_.progress(written_, total);
    }
  }

  StoreOutput& out_;
  bool plan_only_ = false;
  std::string source_format_;
  std::optional<GroupMetadata> root_group_;
  const ZarrSaveOptions& options_;
  const SaveOptions& common_;
  std::vector<std::string>& notes_;
  LossLog& losses_;
  // Arrays written in another form than the source's, alive while referred to.
  std::vector<std::unique_ptr<model::Node>> converted_;
  uint64_t bytes_ = 0;
  uint64_t written_ = 0;
  std::vector<codec::Bytes> buffers_;
  std::vector<std::optional<codec::Bytes>> encoded_;
  // The batch being written while the next is encoded (buffers swapped, so memory is reused).
  std::vector<std::optional<codec::Bytes>> writing_;
  std::vector<EncodedChunk> writing_chunks_;
};

}  // namespace

std::vector<int64_t> choose_chunk_shape(const std::vector<int64_t>& shape, uint64_t element_size,
                                        uint64_t target) {
  std::vector<int64_t> chunk;
  chunk.reserve(shape.size());
  for (int64_t d : shape) chunk.push_back(std::max<int64_t>(d, 1));
  auto bytes = [&] {
    long double b = static_cast<long double>(element_size);
    for (int64_t c : chunk) b *= static_cast<long double>(c);
    return b;
  };
  for (size_t d = 0; d < chunk.size() && bytes() > static_cast<long double>(target);) {
    if (chunk[d] == 1) {
      ++d;  // this dimension is cut as far as it goes: the next one
      continue;
    }
    chunk[d] = (chunk[d] + 1) / 2;
  }
  return chunk;
}

std::vector<int64_t> choose_inner_chunk_shape(const std::vector<int64_t>& shard,
                                              uint64_t element_size, uint64_t target) {
  std::vector<int64_t> inner = choose_chunk_shape(shard, element_size, target);
  for (size_t d = 0; d < inner.size(); ++d) {
    while (shard[d] % inner[d] != 0) --inner[d];  // ends at 1 at worst
  }
  return inner;
}

namespace {

// The record of what a write of `tree` leaves out, starting with what no Zarr store holds.
LossLog loss_log(const model::Tree& tree, bool lossy, const ZarrSaveOptions& options,
                 const std::string& shown) {
  LossLog losses(tree, lossy, options.zarr_format == 2 ? "Zarr v2" : "Zarr v3", shown);
  if (!tree.pointees.empty()) {
    losses.lose(
        fmt::format("{} pointee(s): Zarr has no references, not written", tree.pointees.size()));
  }
  return losses;
}

// Writes `tree` to `out`, named `shown` in messages.
SaveReport write_zarr_to(StoreOutput& out, const model::Tree& tree, const std::string& shown,
                         const ZarrSaveOptions& options, const SaveOptions& common) {
  LossLog losses = loss_log(tree, common.lossy, options, shown);
  std::vector<std::string> notes;
  StoreWriter writer(out, tree.format, options, common, notes, losses);
  writer.total = model::array_bytes(*tree.root);
  writer.node(*tree.root, "", "");
  writer.consolidate();
  losses.check();  // without commit(), the output removes what was written: nothing appears
  out.commit(common.fsync);
  SaveReport report;
  report.files.push_back({shown, "store", writer.bytes()});
  report.notes = std::move(notes);
  report.lost = losses.take();
  return report;
}

// An output that keeps nothing: the planning pass of a write to a key-value store.
class DiscardedOutput final : public StoreOutput {
 public:
  std::string where(const std::string& key) const override { return key; }
  void write_chunks(std::span<const EncodedChunk> /*chunks*/) override {}
  void write_metadata(const std::string& /*key*/, const std::string& /*text*/) override {}
  void commit(bool /*fsync*/) override {}
};

}  // namespace

namespace {

// Refuses a store among things that are no part of a Zarr store (a user's folder, a prefix
// of other objects) unless the caller said to write among them.
void check_foreign(const ExistingStore& existing, const std::string& shown,
                   const SaveOptions& common) {
  if (existing.foreign.empty() || common.overwrite) return;
  throw Error(
      ErrorCategory::kUsage,
      fmt::format("holds {} {} that {} no part of a Zarr store ({}): give --overwrite "
                  "to write the store among them (they are kept; only a Zarr store's "
                  "own keys there are replaced), or choose another name",
                  existing.foreign.size(), existing.foreign.size() == 1 ? "entry" : "entries",
                  existing.foreign.size() == 1 ? "is" : "are", first_foreign(existing)),
      Location::file(shown));
}

// What would be lost, found before anything of an old store is removed: a refused write
// leaves it as it was. The pass makes the metadata only (no data is read).
void plan(const model::Tree& tree, const std::string& shown, const ZarrSaveOptions& options,
          const SaveOptions& common) {
  if (common.lossy) return;
  DiscardedOutput nowhere;
  std::vector<std::string> notes;
  LossLog losses = loss_log(tree, false, options, shown);
  StoreWriter planner(nowhere, tree.format, options, common, notes, losses, true);
  planner.node(*tree.root, "", "");
  losses.check();
}

}  // namespace

SaveReport write_zarr(const model::Tree& tree, const std::string& path,
                      const ZarrSaveOptions& options, const SaveOptions& common) {
  std::string dir = path;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  std::error_code ec;
  if (std::filesystem::is_directory(std::filesystem::symlink_status(dir, ec))) {
    ExistingStore existing = existing_directory(dir);
    check_foreign(existing, path, common);
    if (!existing.foreign.empty()) {
      // Among the user's files: written in place, key by key, and only the old store's own
      // keys removed (a directory swapped whole would take the user's files with it).
      plan(tree, path, options, common);
      const std::shared_ptr<io::Store> store = io::open_directory_store(dir);
      const std::unique_ptr<StoreOutput> out =
          key_value_output(*store, "", path, std::move(existing));
      return write_zarr_to(*out, tree, path, options, common);
    }
  }
  // Nothing there, an empty folder or a store of nothing but its own keys: staged beside
  // and swapped in whole (io::AtomicDirectory).
  const std::unique_ptr<StoreOutput> out = directory_output(path);
  return write_zarr_to(*out, tree, path, options, common);
}

SaveReport write_zarr_to_store(const model::Tree& tree, io::Store& store, const std::string& name,
                               const std::string& url, const ZarrSaveOptions& options,
                               const SaveOptions& common) {
  ExistingStore existing = existing_store(store, name);
  check_foreign(existing, url, common);
  plan(tree, url, options, common);
  const std::unique_ptr<StoreOutput> out = key_value_output(store, name, url, std::move(existing));
  return write_zarr_to(*out, tree, url, options, common);
}

}  // namespace dudley::zarr
