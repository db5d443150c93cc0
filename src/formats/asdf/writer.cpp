// Model tree -> ASDF 1.5.0. The tree is built as one model::Value (arrays as tagged
// core/ndarray maps naming their block) and written as YAML text, then each array's data as
// a block (compressed if asked, MD5 of the uncompressed data as the reference library
// writes it), then the block index.
#include "dudley/formats/asdf.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <stdexcept>
#include <unordered_set>

#include "block_writer.hpp"
#include "blocks.hpp"
#include "datatype.hpp"
#include "dudley/codec/checksum.hpp"
#include "dudley/core/text.hpp"
#include "dudley/core/thread_pool.hpp"
#include "dudley/io/atomic_file.hpp"
#include "dudley/io/disk_room.hpp"
#include "dudley/model/member_names.hpp"
#include "dudley/model/text_strings.hpp"
#include "dudley/model/value_array.hpp"
#include "inline_data.hpp"
#include "reader.hpp"
#include "yaml_names.hpp"

namespace dudley::asdf {
namespace {

// Whether `t` is an enum or holds one in a field.
bool holds_enum(const DType& t) {
  if (t.kind() == DTypeKind::kEnum) return true;
  if (t.kind() == DTypeKind::kFixedArray) return holds_enum(t.base());
  if (t.kind() != DTypeKind::kCompound) return false;
  for (const DTypeField& f : t.fields()) {
    if (holds_enum(*f.type)) return true;
  }
  return false;
}

// An array the file cannot hold (no ASDF datatype, unreadable): the writer lists it as lost
// and goes on with the others, so that every such array is named at once.
class Unwritable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using model::Node;
using model::NodeKind;
using model::Value;
using model::ValueList;
using model::ValueMap;

constexpr const char* kNdarrayTag = "tag:stsci.edu:asdf/core/ndarray-1.0.0";
constexpr const char* kComplexTag = "tag:stsci.edu:asdf/core/complex-1.0.0";

const char* order_name(ByteOrder o) {
  return o == ByteOrder::kBig ? "big" : "little";
}

// One element of a native-order array as a tree value (inline data).
Value element_value(const DType& t, const unsigned char* p) {
  auto load = [&](auto v) {
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  switch (t.kind()) {
    case DTypeKind::kBool:
      return Value(*p != 0);
    case DTypeKind::kInt:
      return t.size() == 1   ? Value(int64_t{load(int8_t{})})
             : t.size() == 2 ? Value(int64_t{load(int16_t{})})
             : t.size() == 4 ? Value(int64_t{load(int32_t{})})
                             : Value(load(int64_t{}));
    case DTypeKind::kUInt:
      return t.size() == 1   ? Value(uint64_t{load(uint8_t{})})
             : t.size() == 2 ? Value(uint64_t{load(uint16_t{})})
             : t.size() == 4 ? Value(uint64_t{load(uint32_t{})})
                             : Value(load(uint64_t{}));
    case DTypeKind::kFloat:
      return t.size() == 4 ? Value(static_cast<double>(load(float{}))) : Value(load(double{}));
    case DTypeKind::kComplex: {
      double re, im;
      if (t.size() == 8) {
        re = load(float{});
        float f;
        std::memcpy(&f, p + 4, 4);
        im = f;
      } else {
        re = load(double{});
        std::memcpy(&im, p + 8, 8);
      }
      auto part = [](double v) {
        if (std::isnan(v)) return std::string("nan");
        if (std::isinf(v)) return std::string(v > 0 ? "inf" : "-inf");
        return fmt::format("{}", v);
      };
      std::string imag = part(im);
      if (imag[0] != '-') imag = "+" + imag;
      return Value(fmt::format("({}{}j)", part(re), imag)).with_tag(kComplexTag);
    }
    default:
      return Value();
  }
}

// How many collections deep a value goes (a scalar 0, `[1]` 1), walked without recursion:
// a value may come from a deep Dudley struct.
size_t value_height(const Value& root) {
  size_t height = 0;
  std::vector<std::pair<const Value*, size_t>> pending{{&root, 0}};
  while (!pending.empty()) {
    auto [v, depth] = pending.back();
    pending.pop_back();
    if (v->is<ValueList>()) {
      height = std::max(height, depth + 1);
      for (const Value& item : v->as<ValueList>()) pending.emplace_back(&item, depth + 1);
    } else if (v->is<ValueMap>()) {
      height = std::max(height, depth + 1);
      for (const auto& [key, item] : v->as<ValueMap>()) pending.emplace_back(&item, depth + 1);
    }
  }
  return height;
}

// An array written to a block: what to read when the blocks are written, after the tree.
// It keeps the array's data source, not its node: items of lists made on demand (Dudley's
// counted and heterogeneous arrays) are freed once visited.
struct BlockJob {
  std::string path;
  std::shared_ptr<model::ArraySource> data;
  std::vector<int64_t> shape;  ///< as the source reads it
  uint64_t bytes = 0;
};

class Writer {
 public:
  Writer(const AsdfSaveOptions& options, std::string source_format)
      : options_(options), source_format_(std::move(source_format)) {}

  // `depth`: how many collections of the YAML tree enclose the group's mapping (0 for the
  // root). Every reader caps YAML nesting (ours at model::kMaxValueDepth); a tree nested
  // deeper is refused here, naming the item, rather than written as a file nobody reads.
  Value group(const Node& g, const std::string& path, bool root, size_t depth = 0) {
    check_depth(depth + 1, path);
    ValueMap map;
    // One mapping holds members, attributes and parameters, which Dudley keeps in separate
    // namespaces (`n := i4` beside `n = f8[n]`): members keep their names, the others give
    // way (a repeated key is an error for ASDF readers), with a note.
    std::unordered_set<std::string> members;
    for (const auto& child : g.children) members.insert(child->name);
    auto key_for = [&](const std::string& name, const char* what) {
      if (!members.count(name)) return name;
      std::string key = name + "_" + what;
      while (members.count(key)) key += "_";
      notes_.push_back(
          fmt::format("{} {}/{} is written as '{}': its group has a member of "
                      "that name",
                      what, path, name, key));
      return key;
    };
    // Parameters (Dudley's named sizes) are plain integers in ASDF's tree.
    for (const model::Parameter& p : g.params) {
      if (p.value) map.emplace_back(key_for(p.name, "parameter"), Value(*p.value));
    }
    if (!g.doc.empty() && !g.attributes.find("doc")) {
      map.emplace_back(key_for("doc", "doc"), Value(g.doc));
    }
    for (const auto& [name, attr] : g.attributes) {
      if (name == kTagAttribute) continue;
      // The source format's own bookkeeping: ASDF's is written anew, another's is no data.
      if (root && model::well_known::is_bookkeeping(source_format_, name)) continue;
      // Keys ASDF reserves at its root (a netCDF file's history string is no ASDF history).
      const bool reserved = root && (name == "asdf_library" || name == "history");
      const std::string key =
          reserved ? reserved_key(name, members, path) : key_for(name, "attribute");
      const std::string where = fmt::format("{}@{}", path.empty() ? "/" : path, name);
      if (const auto* v = std::get_if<Value>(&attr)) {
        if (!is_text(*v, where)) continue;
        map.emplace_back(key, *v);
      } else {
        const NDArray& a = std::get<NDArray>(attr);
        // A scalar (HDF5's scalar attributes) as its value: python-asdf's schema takes no
        // 0-d inline ndarray.
        std::optional<Value> scalar =
            a.shape().dims().empty() ? model::array_as_value(a) : std::nullopt;
        if (!scalar && a.shape().dims().empty() && a.dtype().kind() == DTypeKind::kComplex) {
          // A complex scalar as ASDF's own complex tag, as python-asdf writes one.
          const NDArray native = a.to_native();
          scalar = element_value(native.dtype(), static_cast<const unsigned char*>(native.data()));
        }
        if (scalar) {
          if (!is_text(*scalar, where)) continue;
          map.emplace_back(key, std::move(*scalar));
        } else if (inlinable(a.dtype()) && a.dtype().kind() != DTypeKind::kPointer) {
          map.emplace_back(key, array_value(a, where));
        } else {
          lost_.push_back(fmt::format("{}: attribute not written: ASDF has no inline array of {}",
                                      where, a.dtype().to_string()));
          continue;
        }
      }
      check_depth(depth + 1 + value_height(map.back().second), where);
    }
    // Arrays that are another array's mask are written with it.
    std::set<std::string> masks;
    for (const auto& child : g.children) {
      if (child->storage.mask && !child->storage.mask->array.empty())
        masks.insert(child->storage.mask->array);
    }
    // Two members of one name would make a mapping with a repeated key, which no ASDF
    // reader takes: the first is written, the others are named as lost.
    model::MemberNames names(model::NameUse::kDocumentKey);
    for (const auto& child : g.children) {
      const std::string child_path = path + "/" + child->name;
      if (masks.count(child_path)) continue;
      if (!is_utf8(child->name)) {
        lost_.push_back(fmt::format(
            "{}: its name is not UTF-8 text, which ASDF's YAML tree is; left out", child_path));
        continue;
      }
      if (const std::optional<std::string> why = names.refuse(child->name)) {
        lost_.push_back(fmt::format("{}: {}; left out", path.empty() ? "/" : path, *why));
        continue;
      }
      try {
        map.emplace_back(child->name, node(*child, child_path, &g, depth + 1));
      } catch (const Unwritable& e) {
        lost_.push_back(e.what());
      }
    }
    Value out(std::move(map));
    if (const auto* tag = g.attributes.find(kTagAttribute)) {
      if (const auto* v = std::get_if<Value>(tag); v && v->is<std::string>())
        out.with_tag(v->as<std::string>());
    }
    return out;
  }

  // A root attribute named as a key ASDF reserves, written beside it.
  std::string reserved_key(const std::string& name, const std::unordered_set<std::string>& members,
                           const std::string& path) {
    std::string key = name + "_attribute";
    while (members.count(key)) key += "_";
    notes_.push_back(
        fmt::format("attribute {}/{} is written as '{}': ASDF reserves the key", path, name, key));
    return key;
  }

  // `depth`: the collections enclosing the node's value.
  Value node(const Node& n, const std::string& path, const Node* parent, size_t depth) {
    if (n.kind == NodeKind::kArray) {
      Value v = array(n, path, parent);
      check_depth(depth + value_height(v), path);
      return v;
    }
    if (n.kind == NodeKind::kList) {
      check_depth(depth + 1, path);
      ValueList items;
      model::for_each_child(n, [&](uint64_t i, const Node& item) {
        try {
          items.push_back(node(item, fmt::format("{}/{}", path, i), nullptr, depth + 1));
        } catch (const Unwritable& e) {
          lost_.push_back(e.what());
          items.emplace_back();  // null keeps the other items' indices
        }
        return true;
      });
      return Value(std::move(items));
    }
    // A group that only held a scalar list item (as the reader makes them) is that scalar.
    if (n.children.empty() && n.attributes.size() == 1 && n.attributes.find("value")) {
      if (const auto* v = std::get_if<Value>(n.attributes.find("value"))) {
        check_depth(depth + value_height(*v), path);
        return *v;
      }
    }
    return group(n, path, false, depth);
  }

  // Whether an attribute at `where` ("PATH@NAME") with `value` is UTF-8 text throughout, as
  // YAML must be; else it is recorded as lost (HDF5 and netCDF attributes may hold any bytes).
  bool is_text(const Value& value, const std::string& where) {
    if (is_utf8(where) && model::value_is_utf8(value)) return true;
    lost_.push_back(fmt::format(
        "{}: attribute not written: text that is not UTF-8 (ASDF's tree is YAML)", where));
    return false;
  }

  const std::vector<BlockJob>& blocks() const { return blocks_; }
  /// How the file keeps the tree differently, one line per thing (SaveReport::notes).
  std::vector<std::string>& notes() { return notes_; }
  /// What of the tree the file does not keep, one line per item (SaveReport::lost).
  std::vector<std::string>& lost() { return lost_; }

 private:
  // Variable-length strings, which ASDF lacks, as fixed-length ones as long as the longest.
  Value array(const Node& n, const std::string& path, const Node* parent) {
    if (n.error.empty() && model::is_text_strings(n.dtype)) {
      if (std::unique_ptr<Node> fixed = model::as_fixed_text_node(n)) {
        notes_.push_back(
            fmt::format("{}: variable-length strings are written as fixed-length {} (ASDF has no "
                        "variable-length strings)",
                        path, fixed->dtype.to_string()));
        return stored_array(*fixed, path, parent);
      }
    }
    return stored_array(n, path, parent);
  }

  Value stored_array(const Node& n, const std::string& path, const Node* parent) {
    if (!n.error.empty() || !n.data) {
      // The source's message and place, not its whole "FILE: error:" text inside ours.
      if (n.error.empty()) throw Unwritable(fmt::format("{}: it has no data; left out", path));
      throw Unwritable(LossLog::unreadable(path, n.error));
    }
    ValueMap map;
    const uint64_t elements = Shape(n.shape).element_count().value_or(UINT64_MAX);
    // Not 0-d or empty arrays: the reference library cannot read those inline.
    if (options_.inline_threshold > 0 && elements <= options_.inline_threshold && elements > 0 &&
        !n.shape.empty() && inlinable(n.dtype)) {
      NDArray data = n.data->read();
      if (!beyond_tree_integers(data)) return array_value(data, path);
      // Otherwise a block: python asdf refuses tree integers of 2^63 and more.
    }
    const ByteOrder order = native_byte_order();
    // Text made of code units along the last dimension (Dudley's S1[N]) is one fixed-length
    // string per element in ASDF: the same bytes.
    DType dtype = n.dtype.with_byte_order(order);  // sources read in native order
    std::vector<int64_t> dims = n.shape;
    if (dtype.joins_units() && !dims.empty() &&
        (dtype.encoding() == TextEncoding::kAscii || dtype.encoding() == TextEncoding::kUtf32)) {
      dtype = DType::string(dtype.encoding(), static_cast<uint64_t>(dims.back()), order);
      dims.pop_back();
    }
    try {
      map.emplace_back("source", Value(static_cast<int64_t>(blocks_.size())));
      map.emplace_back("datatype", datatype_to_value(dtype, order));
    } catch (const Error& e) {
      throw Unwritable(fmt::format("{}: {}; left out", path, e.message()));
    }
    if (holds_enum(n.dtype)) {
      notes_.push_back(
          fmt::format("{}: enum values ({}) are written as their integers (ASDF has "
                      "no enums)",
                      path, n.dtype.to_string()));
    }
    if (n.dtype.kind() == DTypeKind::kCompound && !n.dtype.name().empty() &&
        struct_names_.insert(n.dtype.name()).second) {
      notes_.push_back(
          fmt::format("struct type name '{}' ({}) is not written: ASDF datatypes "
                      "have no names",
                      n.dtype.name(), path));
    }
    blocks_.push_back(
        {path, n.data, n.shape, Shape(n.shape).byte_size(n.dtype.size()).value_or(0)});
    map.emplace_back("byteorder", Value(order_name(order)));
    ValueList shape;
    for (int64_t d : dims) shape.emplace_back(d);
    map.emplace_back("shape", Value(std::move(shape)));
    if (!n.doc.empty() && !n.attributes.find("doc")) map.emplace_back("doc", Value(n.doc));
    if (n.storage.mask) {
      if (n.storage.mask->value) {
        map.emplace_back("mask", *n.storage.mask->value);
      } else if (n.storage.mask->elements) {
        map.emplace_back("mask", array_value(*n.storage.mask->elements, path + "@mask"));
      } else if (parent && !n.storage.mask->array.empty()) {
        const std::string name = n.storage.mask->array.substr(n.storage.mask->array.rfind('/') + 1);
        if (const Node* m = parent->member(name); m && m->kind == NodeKind::kArray) {
          map.emplace_back("mask", array(*m, n.storage.mask->array, nullptr));
        }
      }
    }
    // An array's attributes share the ndarray mapping with its own keys: one of theirs
    // would make a repeated key, and an NDArray attribute has no inline form here.
    for (const auto& [attr_name, attr] : n.attributes) {
      const std::string& name = attr_name;  // a lambda may not capture a structured binding
      const bool taken = std::any_of(map.begin(), map.end(),
                                     [&](const auto& entry) { return entry.first == name; });
      const auto* v = std::get_if<Value>(&attr);
      // A typed attribute as its values (an HDF5 scalar as a number: a 0-d inline ndarray is
      // not one python-asdf's schema takes).
      std::optional<Value> typed;
      if (!v) typed = model::array_as_value(std::get<NDArray>(attr));
      const std::string where = fmt::format("{}@{}", path, name);
      if (v && !taken) {
        if (is_text(*v, where)) map.emplace_back(name, *v);
      } else if (typed && !taken) {
        if (is_text(*typed, where)) map.emplace_back(name, std::move(*typed));
      } else {
        lost_.push_back(fmt::format("{}@{}: attribute not written: {}", path, name,
                                    taken ? "the ndarray has a key of that name"
                                          : "typed attributes of arrays have no place in it"));
      }
    }
    return Value(std::move(map)).with_tag(kNdarrayTag);
  }

  // Whether an unsigned 64-bit array holds a value of 2^63 or more, which ASDF readers take
  // as an invalid integer literal in the tree (its integers are signed 64-bit).
  static bool beyond_tree_integers(const NDArray& data) {
    if (data.dtype().kind() != DTypeKind::kUInt || data.dtype().size() != 8) return false;
    const NDArray native = data.to_native();
    const auto* v = static_cast<const uint64_t*>(native.data());
    return std::any_of(v, v + native.element_count(),
                       [](uint64_t x) { return x > static_cast<uint64_t>(INT64_MAX); });
  }

  static bool inlinable(const DType& t) {
    return t.is_numeric() || (t.kind() == DTypeKind::kText && t.encoding() == TextEncoding::kUtf32);
  }

  // An array written inline: data as nested lists, datatype and shape.
  Value array_value(const NDArray& stored, const std::string& path) {
    const NDArray a = stored.to_native();
    if (!inlinable(a.dtype()) || a.dtype().kind() == DTypeKind::kPointer) {
      throw Error(ErrorCategory::kType,
                  fmt::format("cannot write {} inline ({})", path, a.dtype().to_string()));
    }
    ValueList flat;
    const auto* p = static_cast<const unsigned char*>(a.data());
    for (uint64_t i = 0; i < a.element_count(); ++i) {
      if (a.dtype().kind() == DTypeKind::kText) {
        std::vector<uint32_t> units(a.dtype().text_length());
        std::memcpy(units.data(), p + i * a.dtype().size(), a.dtype().size());
        std::string utf8 = decode_utf32(units.data(), units.size());  // padding dropped
        flat.emplace_back(std::move(utf8));
      } else {
        flat.push_back(element_value(a.dtype(), p + i * a.dtype().size()));
      }
    }
    const auto& dims = a.shape().dims();
    Value data = model::nest_by_shape(std::move(flat), dims);
    ValueList shape;
    for (int64_t d : dims) shape.emplace_back(d);
    ValueMap map;
    map.emplace_back("data", std::move(data));
    map.emplace_back("datatype", datatype_to_value(a.dtype(), native_byte_order()));
    map.emplace_back("shape", Value(std::move(shape)));
    return Value(std::move(map)).with_tag(kNdarrayTag);
  }

  static void check_depth(size_t depth, const std::string& path) {
    if (depth > model::kMaxValueDepth) {
      throw Error(ErrorCategory::kData,
                  fmt::format("cannot write {}: it would nest {} levels deep in the ASDF tree "
                              "(a struct type takes two levels per level of nesting); ASDF "
                              "readers, this one included, read at most {}",
                              path.empty() ? "/" : path, depth, model::kMaxValueDepth));
    }
  }

  const AsdfSaveOptions& options_;
  std::string source_format_;
  std::vector<BlockJob> blocks_;
  std::vector<std::string> notes_, lost_;
  std::set<std::string> struct_names_;  // noted once each
};

}  // namespace

SaveReport write_asdf(const model::Tree& given, const std::string& path,
                      const AsdfSaveOptions& options, const SaveOptions& common) {
  model::Tree holder;
  const model::Tree& tree = model::with_group_root(given, holder);  // a Zarr array store
  if (!options.compression.empty() && !is_known_compression(options.compression)) {
    throw Error(
        ErrorCategory::kUsage,
        fmt::format("unknown ASDF compression '{}' (zlib, bzp2, lz4)", options.compression));
  }
  LossLog losses(given, common.lossy, "ASDF", path);
  Writer writer(options, given.format);
  Value root;
  if (tree.root->kind == NodeKind::kList) {
    // The tree of an ASDF file is a mapping: a source that is a list (an Avro container's
    // records) is written under the key "items", beside the list's own attributes.
    model::Node attributes_only;
    attributes_only.kind = NodeKind::kGroup;
    attributes_only.attributes = tree.root->attributes;
    ValueMap map = writer.group(attributes_only, "", true).as<ValueMap>();
    map.emplace_back("items", writer.node(*tree.root, "", nullptr, 1));
    root = Value(std::move(map));
    writer.notes().push_back(fmt::format(
        "/: a list of {} items, written under the key 'items' (the root of an ASDF tree is a "
        "mapping)",
        model::child_count(*tree.root)));
  } else {
    root = writer.group(*tree.root, "", true);
  }
  if (!tree.pointees.empty()) {
    losses.lose(fmt::format("{} pointee(s) (Dudley pointer targets): ASDF has no place for them",
                            tree.pointees.size()));
  }
  for (std::string& item : writer.lost()) losses.lose(std::move(item));
  losses.check();  // before anything is written
  SaveReport report;
  report.notes = writer.notes();
  report.lost = losses.take();

  std::string text =
      "#ASDF 1.0.0\n#ASDF_STANDARD 1.5.0\n%YAML 1.1\n%TAG ! tag:stsci.edu:asdf/\n--- "
      "!core/asdf-1.1.0\n";
  text +=
      "asdf_library: !core/software-1.0.0 {author: the dudley developers, name: dudley, "
      "version: '" DUDLEY_VERSION "'}\n";
  for (const auto& [key, value] : root.as<ValueMap>()) {
    text += yaml_string(key) + ":";
    emit_value(text, value, 2);
  }
  text += "...\n";

  uint64_t total = 0, done = 0;
  for (const BlockJob& job : writer.blocks())
    total = checked_add(total, job.bytes).value_or(UINT64_MAX);
  // Blocks at their decoded size (compressed ones take less; the check is before any is).
  io::check_room(path, checked_add(total, text.size()).value_or(UINT64_MAX));
  io::AtomicFile out(path);
  uint64_t at = 0;
  out.write_at(at, text.data(), text.size());
  at += text.size();

  std::vector<uint64_t> offsets;
  // The inputs' checksums first, several at once (see model::verify_all).
  std::vector<model::ArraySource*> sources;
  for (const BlockJob& job : writer.blocks()) sources.push_back(job.data.get());
  model::verify_all(sources);
  BlockStreamer streamer(out, options);
  const auto& jobs = writer.blocks();
  for (size_t k = 0; k < jobs.size(); ++k) {
    const BlockJob& job = jobs[k];
    if (k + 1 < jobs.size()) jobs[k + 1].data->read_ahead();
    offsets.push_back(at);
    at = streamer.write(at, *job.data, job.shape, job.bytes, [&](uint64_t piece) {
      done += piece;
      if (common.progress) common.progress(done, total);
    });
  }
  if (!offsets.empty()) {
    const std::string index = encode_block_index(offsets);
    out.write_at(at, index.data(), index.size());
    at += index.size();
  }
  out.commit(common.fsync);
  report.files.push_back({path, "data", at});
  return report;
}

}  // namespace dudley::asdf
