// Model tree -> NDL text, by the profile of ndl-resolutions.md (P1-P7): groups sorted by
// path, DimCoords where the source marks one, storage details, attributes in short form
// only for scalar strings.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "datatype.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/path.hpp"
#include "dudley/core/shape.hpp"
#include "dudley/core/text.hpp"
#include "dudley/formats/ndl.hpp"
#include "dudley/io/atomic_file.hpp"
#include "dudley/model/member_names.hpp"
#include "dudley/model/text_strings.hpp"
#include "dudley/model/value_array.hpp"
#include "filters.hpp"
#include "text/yaml_emit.hpp"
#include "values.hpp"

namespace dudley::ndl {
namespace {

using model::Node;
using model::Value;

std::string pad(int n) {
  return std::string(static_cast<size_t>(n), ' ');
}

bool hidden_attribute(const std::string& name) {
  return name == model::well_known::kDimensionNames ||
         name == model::well_known::kDimensionCoordinates || name == model::well_known::kFillValue;
}

const model::ValueList* list_attribute(const Node& n, const char* name) {
  const model::AttributeValue* a = n.attributes.find(name);
  const Value* v = a ? std::get_if<Value>(a) : nullptr;
  return v && v->is<model::ValueList>() ? &v->as<model::ValueList>() : nullptr;
}

class Describer {
 public:
  Describer(const model::Tree& tree, const DescribeOptions& options,
            const std::function<void(std::string_view)>& sink, DescribeProblems& problems)
      : options_(options),
        source_format_(tree.format),
        sink_(sink),
        problems_(problems),
        references_(tree.references.get()),
        emitter_(tree.references.get()) {}

  void run(const Node& root) {
    collect("/", root);
    // P3: which arrays are DimCoords, known before any shape is written.
    for (const auto& [gpath, g] : groups_) {
      for (const auto& c : g->children) {
        // Left out (group() or collect() says so): no dimension's coordinate.
        if (!is_utf8(c->name) || refused_.count(c.get())) continue;
        if (c->kind == model::NodeKind::kArray && is_dimcoord(*c, join_path(gpath, c->name)))
          dimcoords_[join_path(gpath, c->name)] = c.get();
      }
    }
    for (const auto& [gpath, g] : groups_) {
      if (!is_utf8(gpath)) {
        warn(fmt::format("{}: its name is not UTF-8 text, which NDL (YAML) is; left out",
                         decode_utf8(gpath)));
        continue;
      }
      group(gpath, *g);
    }
  }

 private:
  void warn(const std::string& what) { problems_.warnings.push_back(what); }
  void error(const std::string& what) { problems_.errors.push_back(what); }

  void collect(const std::string& gpath, const Node& g) {
    groups_[gpath] = &g;
    // NDL names groups by their paths: a name with a '/' or of dots only would be another
    // group's path, and a second member of one name a repeated YAML key.
    model::MemberNames names(model::NameUse::kKey);
    for (const auto& c : g.children) {
      if (is_utf8(c->name)) {
        if (const std::optional<std::string> why = names.refuse(c->name)) {
          warn(fmt::format("{}: {}; left out", gpath, *why));
          refused_.insert(c.get());
          continue;
        }
      }
      const std::string p = join_path(gpath, c->name);
      if (c->kind == model::NodeKind::kGroup) collect(p, *c);
      if (c->kind == model::NodeKind::kList)
        warn(fmt::format("{}: a list of {} items; NDL has no lists, left out", p,
                         model::child_count(*c)));
    }
    if (g.kind == model::NodeKind::kList) {  // the root: an Avro container's records
      warn(fmt::format("{}: a list of {} items; NDL has no lists, left out", gpath,
                       model::child_count(g)));
    } else if (g.lazy) {
      warn(fmt::format("{}: items made on demand; left out", gpath));
    }
  }

  static bool is_dimcoord(const Node& n, const std::string& path) {
    if (n.shape.size() != 1 || !n.error.empty()) return false;
    const model::ValueList* coords = list_attribute(n, model::well_known::kDimensionCoordinates);
    if (coords && coords->size() == 1 && (*coords)[0].is<std::string>())
      return (*coords)[0].as<std::string>() == path;
    const model::ValueList* names = list_attribute(n, model::well_known::kDimensionNames);
    return names && names->size() == 1 && (*names)[0].is<std::string>() &&
           (*names)[0].as<std::string>() == n.name;
  }

  // The DimCoord dimension `k` of `n` (in group `gpath`) is attached to, or "".
  std::string coordinate_of(const Node& n, const std::string& gpath, size_t k) const {
    // P4: the DimCoord attached to the dimension, whatever its extent.
    auto fits = [&](const std::string& p) { return dimcoords_.count(p) > 0; };
    if (const model::ValueList* coords =
            list_attribute(n, model::well_known::kDimensionCoordinates);
        coords && coords->size() == n.shape.size() && (*coords)[k].is<std::string>()) {
      const std::string& p = (*coords)[k].as<std::string>();
      return fits(p) ? p : std::string();
    }
    if (const model::ValueList* names = list_attribute(n, model::well_known::kDimensionNames);
        names && names->size() == n.shape.size() && (*names)[k].is<std::string>()) {
      // By name (Zarr's dimension_names): the nearest same-named DimCoord up the groups.
      const std::string& name = (*names)[k].as<std::string>();
      for (std::string g = gpath;; g = g.substr(0, std::max<size_t>(g.rfind('/'), 1))) {
        if (fits(join_path(g, name))) return join_path(g, name);
        if (g == "/") break;
      }
    }
    return {};
  }

  static int64_t max_extent(const Node& n, size_t k) {
    return n.storage.max_shape.size() == n.shape.size() ? n.storage.max_shape[k] : n.shape[k];
  }

  void group(const std::string& gpath, const Node& g) {
    std::string out = yaml::yaml_string(gpath) + ":";
    std::string attrs, coords, arrays;
    attributes(attrs, g.attributes, gpath, 4);
    for (const auto& c : g.children) {
      if (c->kind != model::NodeKind::kArray || refused_.count(c.get())) continue;
      const std::string p = join_path(gpath, c->name);
      if (c->link) {  // NDL has no links (and no second names)
        warn(fmt::format("{}: {}; NDL has no links, left out", p, c->link->describe()));
        continue;
      }
      if (!c->error.empty()) {
        error(fmt::format("{}: {}; left out", p, c->error.message));
        continue;
      }
      if (c->empty) {
        warn(fmt::format("{}: an empty (null) dataspace; NDL has none, left out", p));
        continue;
      }
      if (!is_utf8(c->name)) {
        warn(fmt::format("{}: its name is not UTF-8 text, which NDL (YAML) is; left out",
                         decode_utf8(p)));
        continue;
      }
      std::string why;
      if (!expressible(c->dtype, &why)) {
        warn(fmt::format("{}: {}; left out", p, why));
        continue;
      }
      const Node* node = c.get();
      if (model::has_joined_units(*c)) {
        // Text units along the last dimension (a Dudley S1[2, 4]): strings, one per row.
        converted_.push_back(model::as_joined_strings_node(*c));
        node = converted_.back().get();
      }
      if (model::is_fixed_text(node->dtype) && node->dtype.text_length() > 1) {
        problems_.notes.push_back(
            fmt::format("{}: fixed-length strings ({}) are written as NDL strings, which have "
                        "no length (they read back as variable-length strings)",
                        p, node->dtype.to_string()));
      }
      if (dimcoords_.count(p)) {
        entity(coords, *node, gpath, p, true);
      } else {
        entity(arrays, *node, gpath, p, false);
      }
    }
    if (attrs.empty() && coords.empty() && arrays.empty()) {
      out += " {}\n";
    } else {
      out += "\n";
      if (!attrs.empty()) out += "  attributes:\n" + attrs;
      if (!coords.empty()) out += "  dimcoords:\n" + coords;
      if (!arrays.empty()) out += "  ndarrays:\n" + arrays;
    }
    sink_(out);
  }

  void entity(std::string& out, const Node& n, const std::string& gpath, const std::string& path,
              bool dimcoord) {
    const std::optional<DType> stated = stated_type(n, path);
    if (!stated) {
      warn(
          fmt::format("{}: region references of both kinds (block and element); an NDL type "
                      "states one kind, left out",
                      path));
      return;
    }
    const DType& type = *stated;
    out += pad(4) + yaml::yaml_string(n.name) + ":\n";
    const bool grows =
        n.storage.max_shape.size() == n.shape.size() && n.storage.max_shape != n.shape;
    if (dimcoord) {
      const int64_t size = max_extent(n, 0);
      out += pad(6) + (size < 0 ? std::string("size: null") : fmt::format("size: {}", size)) + "\n";
    } else {
      std::vector<std::string> dims;
      for (size_t k = 0; k < n.shape.size(); ++k) {
        const std::string c = coordinate_of(n, gpath, k);
        const int64_t e = max_extent(n, k);
        dims.push_back(!c.empty() ? flow_string(c) : e < 0 ? "null" : fmt::format("{}", e));
      }
      out += pad(6) + fmt::format("shape: [{}]\n", fmt::join(dims, ", "));
    }
    out += pad(6) + "type:";
    emit_type(out, type, 6);
    if (options_.values && n.data) {
      const uint64_t values = text_items(n.shape);
      if (values > kMaxTextValues) {
        error(
            fmt::format("{}: values not written: {} values, more than the {} NDL's text "
                        "holds of one array here (convert it to a binary format)",
                        path, values, kMaxTextValues));
      } else {
        try {
          const NDArray a = n.data->read();
          std::string v = pad(6) + "value: ";
          emitter_.array(v, a, 8);
          out += v + "\n";
        } catch (const Error& e) {
          error(fmt::format("{}: values not written: {}", path, e.message()));
        }
      }
    }
    storage(out, n, dimcoord, grows);
    attributes(out, n.attributes, path, 8, "      attributes:\n");
  }

  // Values (or, in an empty array, the empty lists) the text of an array of `shape` holds.
  static uint64_t text_items(const std::vector<int64_t>& shape) {
    uint64_t items = 1;
    for (int64_t e : shape) {
      if (e == 0) break;
      const std::optional<uint64_t> more = checked_mul(items, static_cast<uint64_t>(e));
      if (!more) return UINT64_MAX;
      items = *more;
    }
    return items;
  }

  // The type NDL states for `n`: a region reference's selection kind (block or element) is
  // in NDL's type but in HDF5's values, so the values say it. NDL has one kind per array:
  // nullopt for an array of both kinds; too many to look at are stated as block, with a
  // warning.
  std::optional<DType> stated_type(const Node& n, const std::string& path) {
    if (n.dtype.kind() != DTypeKind::kReference ||
        n.dtype.reference_kind() == ReferenceKind::kObject || !n.data || !references_) {
      return n.dtype;
    }
    if (text_items(n.shape) > kMaxTextValues) {
      warn(fmt::format("{}: region references not looked at ({} of them); stated as block", path,
                       text_items(n.shape)));
      return n.dtype;
    }
    bool blocks = false, elements = false;
    try {
      const NDArray a = n.data->read().to_native();
      const auto* keys = static_cast<const std::byte*>(a.data());
      for (uint64_t i = 0; i < a.element_count(); ++i) {
        uint64_t key = 0;
        std::memcpy(&key, keys + i * 8, 8);
        const Value target = references_->find(key);
        if (!target.is<model::ValueMap>()) continue;
        bool has_elements = false;
        for (const auto& [k, v] : target.as<model::ValueMap>()) has_elements |= k == "elements";
        (has_elements ? elements : blocks) = true;
      }
    } catch (const Error&) {
      return n.dtype;  // the values' own error is reported where they are written
    }
    if (elements && blocks) return std::nullopt;
    return elements ? DType::reference(ReferenceKind::kRegionElements) : n.dtype;
  }

  void storage(std::string& out, const Node& n, bool dimcoord, bool grows) {
    std::string s;
    if (grows) {
      s += dimcoord ? fmt::format("        size: {}\n", n.shape[0])
                    : fmt::format("        shape: [{}]\n", fmt::join(n.shape, ", "));
    }
    const model::Chunking* chunking = n.storage.chunking.get();
    if (n.storage.kind == model::Storage::Kind::kChunked && chunking) {
      s += fmt::format("        chunk: [{}]\n", fmt::join(chunking->chunk_shape, ", "));
      std::string f = filters_text(chunking->codecs);
      if (!f.empty()) s += "        filter: " + f + "\n";
    }
    const DType& t = n.dtype;
    const bool numeric = t.kind() == DTypeKind::kBool || t.kind() == DTypeKind::kInt ||
                         t.kind() == DTypeKind::kUInt || t.kind() == DTypeKind::kFloat ||
                         t.kind() == DTypeKind::kEnum;
    if (numeric) {
      ByteOrder order = t.kind() == DTypeKind::kEnum ? t.base().byte_order() : t.byte_order();
      if (order == ByteOrder::kNotApplicable || order == ByteOrder::kUnspecified)
        order = n.storage.order == ByteOrder::kBig ? ByteOrder::kBig : ByteOrder::kLittle;
      s += fmt::format("        endian: {}\n", order == ByteOrder::kBig ? "big" : "little");
    }
    const DType* text = t.kind() == DTypeKind::kText                             ? &t
                        : t.kind() == DTypeKind::kVLen && t.base().joins_units() ? &t.base()
                                                                                 : nullptr;
    if (text) {
      s += fmt::format("        charset: {}\n",
                       text->encoding() == TextEncoding::kAscii ? "ascii" : "utf-8");
    }
    if (const model::AttributeValue* fill = n.attributes.find(model::well_known::kFillValue)) {
      std::string v = fill_text(*fill, n.dtype);
      if (!v.empty()) s += "        fillvalue: " + v + "\n";
    } else if (chunking && chunking->fill_value && !zero_like(*chunking->fill_value)) {
      std::string v = fill_text(*chunking->fill_value, n.dtype);
      if (!v.empty()) s += "        fillvalue: " + v + "\n";
    }
    if (!s.empty()) out += "      storage:\n" + s;
  }

  static bool zero_like(const Value& v) {
    return v.is_null() || (v.is<int64_t>() && v.as<int64_t>() == 0) ||
           (v.is<uint64_t>() && v.as<uint64_t>() == 0) ||
           (v.is<double>() && v.as<double>() == 0 && !std::signbit(v.as<double>())) ||
           (v.is<bool>() && !v.as<bool>()) || (v.is<std::string>() && v.as<std::string>().empty());
  }

  std::string fill_text(const model::AttributeValue& fill, const DType& type) const {
    if (const NDArray* a = std::get_if<NDArray>(&fill)) {
      if (a->element_count() != 1) return {};
      std::string s;
      const NDArray native = a->to_native();
      emitter_.element(s, static_cast<const std::byte*>(native.data()), native.dtype());
      return s;
    }
    const Value& v = std::get<Value>(fill);
    if (v.is<double>()) return yaml::yaml_float(v.as<double>(), type.size() == 4);
    if (v.is<std::string>()) {
      // Zarr's spellings of special floats.
      const std::string& s = v.as<std::string>();
      if (s == "NaN") return ".nan";
      if (s == "Infinity") return ".inf";
      if (s == "-Infinity") return "-.inf";
      return flow_string(s);
    }
    if (v.is<int64_t>() || v.is<uint64_t>()) return yaml::yaml_scalar(v);
    if (v.is<bool>()) return v.as<bool>() ? "\"TRUE\"" : "\"FALSE\"";
    return {};
  }

  // Appends one attribute to `body`.
  void attribute(std::string& body, const std::string& name, const model::AttributeValue& value,
                 const std::string& owner, int indent) {
    const std::string key = pad(indent) + yaml::yaml_string(name) + ":";
    if (const Value* v = std::get_if<Value>(&value)) {
      if (v->is<std::string>()) {
        // P6: the short form, for scalar strings only.
        body += key + " " + yaml::yaml_string(v->as<std::string>()) + "\n";
        return;
      }
      std::string why;
      std::optional<NDArray> a = model::value_as_array(*v, why);
      if (!a) {
        warn(fmt::format("{}: attribute '{}' is {}; NDL has no type for it, left out", owner, name,
                         why));
        return;
      }
      full_attribute(body, key, *a, indent);
      return;
    }
    const NDArray& a = std::get<NDArray>(value);
    std::string why;
    if (!expressible(a.dtype(), &why)) {
      warn(fmt::format("{}: attribute '{}' is {}; left out", owner, name, why));
      return;
    }
    full_attribute(body, key, a, indent);
  }

  void attributes(std::string& out, const model::Attributes& attrs, const std::string& owner,
                  int indent, const char* header = nullptr) {
    std::string body;
    for (const auto& [name, value] : attrs) {
      if (hidden_attribute(name)) continue;
      if (options_.leave_bookkeeping && owner == "/" &&
          model::well_known::is_bookkeeping(source_format_, name)) {
        continue;
      }
      // Each attribute is written apart, so that one holding text that is not UTF-8 (which
      // YAML cannot hold: yaml_string refuses it) is left out whole, with a warning.
      std::string one;
      try {
        attribute(one, name, value, owner, indent);
      } catch (const Error& e) {
        if (e.category() != ErrorCategory::kLoss) throw;
        warn(
            fmt::format("{}: attribute '{}' holds text that is not UTF-8; NDL is YAML text, "
                        "left out",
                        owner, decode_utf8(name)));
        continue;
      }
      body += one;
    }
    if (body.empty()) return;
    out += header ? header : "";
    out += body;
  }

  void full_attribute(std::string& out, const std::string& key, const NDArray& a, int indent) {
    out += key + "\n";
    out += pad(indent + 2) + fmt::format("shape: [{}]\n", fmt::join(a.shape().dims(), ", "));
    out += pad(indent + 2) + "type:";
    emit_type(out, a.dtype(), indent + 2);
    std::string v = pad(indent + 2) + "value: ";
    emitter_.array(v, a.to_native(), indent + 4);
    out += v + "\n";
    // P5: an attribute's byte order only when big endian.
    const DType& t = a.dtype().kind() == DTypeKind::kEnum ? a.dtype().base() : a.dtype();
    if (t.size() > 1 && t.byte_order() == ByteOrder::kBig &&
        (t.kind() == DTypeKind::kInt || t.kind() == DTypeKind::kUInt ||
         t.kind() == DTypeKind::kFloat)) {
      out += pad(indent + 2) + "storage:\n" + pad(indent + 4) + "endian: big\n";
    }
  }

  const DescribeOptions& options_;
  std::string source_format_;
  const std::function<void(std::string_view)>& sink_;
  DescribeProblems& problems_;
  const model::ReferenceTable* references_;
  ValueEmitter emitter_;
  std::vector<std::unique_ptr<Node>> converted_;  // joined text units, alive while written
  std::map<std::string, const Node*> groups_;     // sorted by path (P1)
  std::set<const Node*> refused_;                 // members whose names NDL cannot hold
  std::map<std::string, const Node*> dimcoords_;
};

}  // namespace

void describe(const model::Tree& tree, const DescribeOptions& options,
              const std::function<void(std::string_view)>& sink, DescribeProblems& problems) {
  model::Tree holder;
  const model::Tree& t = model::with_group_root(tree, holder);
  if (options.skipped_as_warnings) {
    for (const std::string& s : tree.skipped) problems.warnings.push_back(s);
  }
  Describer d(tree, options, sink, problems);
  d.run(*t.root);
}

std::string describe_text(const model::Tree& tree, const DescribeOptions& options,
                          DescribeProblems& problems) {
  std::string out;
  describe(
      tree, options, [&](std::string_view s) { out += s; }, problems);
  return out;
}

SaveReport write_ndl(const model::Tree& tree, const std::string& path, const NdlSaveOptions&,
                     const SaveOptions& common) {
  SaveReport report;
  io::AtomicFile file(path);
  uint64_t at = 0;
  DescribeOptions describe_options;
  describe_options.values = true;
  describe_options.skipped_as_warnings = false;  // the loss log counts them
  describe_options.leave_bookkeeping = true;
  DescribeProblems problems;
  describe(
      tree, describe_options,
      [&](std::string_view text) {
        file.write_at(at, text.data(), text.size());
        at += text.size();
      },
      problems);
  // What NDL cannot state and what could not be read alike: not in the output.
  LossLog losses(tree, common.lossy, "NDL", path);
  for (std::string& e : problems.errors) losses.lose(std::move(e));
  for (std::string& w : problems.warnings) losses.lose(std::move(w));
  losses.check();  // the temporary file is discarded
  file.commit(common.fsync);
  report.lost = losses.take();
  report.notes = std::move(problems.notes);
  report.files.push_back({path, "data", at});
  return report;
}

}  // namespace dudley::ndl
