#include "dudley/layout/write/from_model.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "dudley/core/error.hpp"
#include "dudley/layout/syntax/doc_lines.hpp"
#include "dudley/layout/syntax/parser.hpp"
#include "dudley/model/member_names.hpp"
#include "fill_attribute.hpp"
#include "spelled_names.hpp"

namespace dudley::layout {

namespace {

// The Dudley names of a group's members, in order (see dudley_spellings).
std::vector<std::string> member_spellings(const model::Node& group) {
  std::vector<std::string> names;
  model::for_each_child(group, [&](uint64_t, const model::Node& c) {
    names.push_back(c.name);
    return true;
  });
  return dudley_spellings({names.begin(), names.end()});
}

// The source's own name, kept in a document line when the layout had to spell it otherwise.
std::string renamed_note(const std::string& original, const std::string& spelled) {
  return original == spelled
             ? std::string()
             : fmt::format("(named {} in the source)", model::quoted_name(original));
}

// "a, b, c and 4 more": the first few of a list, for a note that stays one line.
std::string first_few(const std::vector<std::string>& items) {
  constexpr size_t kShown = 5;
  std::vector<std::string> shown(
      items.begin(), items.begin() + static_cast<std::ptrdiff_t>(std::min(items.size(), kShown)));
  std::string out = fmt::format("{}", fmt::join(shown, ", "));
  if (items.size() > kShown) out += fmt::format(" and {} more", items.size() - kShown);
  return out;
}

std::string joined_doc(const std::string& doc, const std::string& note) {
  if (note.empty()) return doc;
  return doc.empty() ? note : doc + "\n" + note;
}

// A shape Dudley can declare, or a data error naming the item (exit 1, not a layout
// that fails to parse).
void check_rank(const std::vector<int64_t>& shape, const std::string& where) {
  if (shape.size() > kMaxDimensions) {
    throw Error(ErrorCategory::kData,
                fmt::format("{}: {} dimensions; a Dudley layout declares at most {}", where,
                            shape.size(), kMaxDimensions));
  }
}

std::string shape_text(const std::vector<int64_t>& shape) {
  return shape.empty() ? std::string() : fmt::format("[{}]", fmt::join(shape, ", "));
}

// The same with some dimensions named by parameters (`names[d]` non-empty).
std::string shape_text(const std::vector<int64_t>& shape, const std::vector<std::string>& names) {
  std::vector<std::string> dims;
  for (size_t d = 0; d < shape.size(); ++d) {
    dims.push_back(d < names.size() && !names[d].empty() ? names[d] : std::to_string(shape[d]));
  }
  return dims.empty() ? std::string() : fmt::format("[{}]", fmt::join(dims, ", "));
}

// The dimension names of a group's arrays as its parameters: `time := 4`, then
// `tas = f4[time, lat]`, the layout language's own named dimensions, which the binder gives
// back as each array's dimension_names. A name is used when it is a Dudley name, every
// array of the group gives it one size, and no parameter of the group has that name with
// another value (one with the same value, a Dudley source's own, is used as it is).
struct DimensionParameters {
  std::vector<std::pair<std::string, int64_t>> declared;  ///< new ones, in first use
  std::map<std::string, int64_t> usable;                  ///< name -> size

  /// The names of `array`'s dimensions: `given` (extent parameters) where set, else the
  /// group's parameter for its dimension name. `named`: every dimension_names entry is
  /// expressed (a name by its parameter, a null by a number), so the attribute is redundant.
  std::vector<std::string> name(const model::Node& array, std::vector<std::string> given,
                                bool& named) const {
    named = false;
    const std::vector<std::optional<std::string>> names = dimension_names(array);
    if (names.empty()) return given;
    given.resize(array.shape.size());
    named = true;
    for (size_t d = 0; d < names.size(); ++d) {
      auto it = names[d] ? usable.find(*names[d]) : usable.end();
      if (given[d].empty() && it != usable.end() && it->second == array.shape[d]) {
        given[d] = it->first;
      } else if (names[d] || !given[d].empty()) {
        named = false;
      }
    }
    return given;
  }

  /// An array's dimension_names, one entry per dimension (nullopt: unnamed); empty when it
  /// has none of that form.
  static std::vector<std::optional<std::string>> dimension_names(const model::Node& array) {
    const model::AttributeValue* a = array.attributes.find(model::well_known::kDimensionNames);
    const auto* v = a ? std::get_if<model::Value>(a) : nullptr;
    if (!v || !v->is<model::ValueList>() || !v->tag().empty()) return {};
    const model::ValueList& list = v->as<model::ValueList>();
    if (list.size() != array.shape.size()) return {};
    std::vector<std::optional<std::string>> out;
    for (const model::Value& x : list) {
      if (x.is<std::string>()) {
        out.emplace_back(x.as<std::string>());
      } else if (x.is_null()) {
        out.emplace_back();
      } else {
        return {};
      }
    }
    return out;
  }
};

// `type_names`: the struct type names given out, which a parameter may not take; the new
// parameters' names are added, so no later struct takes them.
DimensionParameters dimension_parameters(const model::Node& group,
                                         const std::vector<std::string>& param_spelled,
                                         std::set<std::string>& type_names) {
  DimensionParameters out;
  if (group.kind != model::NodeKind::kGroup) return out;
  std::map<std::string, std::optional<int64_t>> existing;  // the group's own parameters
  for (size_t i = 0; i < group.params.size(); ++i) {
    existing[param_spelled[i]] = group.params[i].value;
  }
  // A parameter may share its name with an array (a coordinate: `time := 4`, `time =
  // f8[time]`), not with a group or list: other formats hold both as members.
  std::set<std::string> containers;
  for (const auto& c : group.children) {
    if (c->kind != model::NodeKind::kArray) containers.insert(c->name);
  }
  std::map<std::string, std::optional<int64_t>> seen;  // nullopt: sizes disagree
  std::vector<std::string> order;
  for (const auto& c : group.children) {
    if (c->kind != model::NodeKind::kArray || !c->error.empty()) continue;
    const auto names = DimensionParameters::dimension_names(*c);
    for (size_t d = 0; d < names.size(); ++d) {
      if (!names[d] || !is_dudley_name(*names[d])) continue;
      auto [it, fresh] = seen.emplace(*names[d], c->shape[d]);
      if (fresh) {
        order.push_back(*names[d]);
      } else if (it->second && *it->second != c->shape[d]) {
        it->second.reset();
      }
    }
  }
  for (const std::string& name : order) {
    const std::optional<int64_t> size = seen[name];
    if (!size || type_names.count(name) || containers.count(name)) continue;
    auto own = existing.find(name);
    if (own != existing.end()) {
      if (own->second == size) out.usable[name] = *size;  // the source's own parameter
      continue;
    }
    out.usable[name] = *size;
    out.declared.emplace_back(name, *size);
    type_names.insert(name);
  }
  return out;
}

// Emits the text of a tree; struct types are collected first and declared at the top.
class Emitter {
 public:
  explicit Emitter(const LayoutTextOptions& options) : options_(options) {}

  std::string run(const model::Tree& tree) {
    format_ = tree.format;
    // The tree's own attributes lead the layout: `#@` before any declaration is the file's.
    std::string root_attributes;
    attribute_lines(*tree.root, "/", "", root_attributes);
    std::string body;
    if (tree.root->kind == model::NodeKind::kList) {
      // A layout's root is a group: a list at the root (an Avro container's records) is its
      // member `items`.
      body += "items = [\n";
      node(*tree.root, "/", 1, body);
      body += "]\n";
      root_list_ = true;
    } else {
      node(*tree.root, "/", 0, body);
    }
    // Targets of pointers keep their keys, so the pointer arrays copied stay valid [C19].
    for (const auto& [key, target] : tree.pointees) {
      const std::string where = fmt::format("pointee {}", key);
      body += fmt::format("{} ", key);
      array(*target, where, body);
      doc(target->doc, body);
      attribute_lines(*target, where, "", body);
    }
    std::string out =
        (options_.signature ? "!DUDLEY := S1[8]\n" : "") + root_attributes + types_ + body;
    return out;
  }

  /// What the layout does not keep of the tree, one line per item.
  std::vector<std::string> lost() const {
    std::vector<std::string> out = unwritable_;
    for (const std::string& a : attributes_) out.push_back(a);
    for (const std::string& m : masks_) {
      out.push_back(m +
                    ": its mask is not kept as one (Dudley has no masks; a mask array "
                    "stays an array beside its own)");
    }
    return out;
  }

  /// What the layout keeps otherwise, one line each.
  std::vector<std::string> notes() const {
    std::vector<std::string> out;
    if (root_list_) out.push_back("/: a list at the root, written as the list /items");
    if (!renamed_.empty()) {
      out.push_back(
          fmt::format("{} name(s) Dudley cannot spell are respelled (the source's "
                      "name is kept in a #! line): {}",
                      renamed_.size(), first_few(renamed_)));
    }
    return out;
  }

 private:
  // Element type text and the extra trailing dimensions it brings (text length).
  // Without a signature (a layout of another format's file) every multi-byte type states
  // its byte order.
  std::string ordered(std::string name, const DType& t) const {
    if (options_.signature || t.unit_size() <= 1) return name;
    if (t.byte_order() == ByteOrder::kBig) return ">" + name;
    if (t.byte_order() == ByteOrder::kLittle) return "<" + name;
    return name;
  }

  std::string type(const DType& t, const std::string& where, std::vector<int64_t>& extra) {
    if (t.kind() == DTypeKind::kCompound) return compound(t, where);
    // A fixed-length string (one per element) is code units along one more dimension, as
    // in_dudley_terms writes it; Dudley text of several units per element likewise.
    if (t.kind() == DTypeKind::kText && (!t.joins_units() || t.text_length() > 1)) {
      extra.push_back(static_cast<int64_t>(t.text_length()));
      if (const std::optional<Primitive> p =
              primitive_for(DType::text(t.encoding(), 1, t.byte_order()))) {
        return ordered(std::string(primitive_name(*p)), t);
      }
    } else if (const std::optional<Primitive> p = primitive_for(t)) {
      return ordered(std::string(primitive_name(*p)), t);
    }
    throw Error(ErrorCategory::kType,
                fmt::format("{}: Dudley has no type for {}", where, t.to_string()));
  }

  std::string compound(const DType& t, const std::string& where) {
    const std::string key = t.to_string();
    auto it = structs_.find(key);
    if (it != structs_.end()) return it->second;
    // The compound's own name when it is a Dudley name, made unique with a number.
    if (t.fields().empty()) {
      throw Error(ErrorCategory::kData,
                  fmt::format("{}: a struct with no fields has no Dudley type", where));
    }
    const std::string base = is_type_name(t.name()) ? t.name() : "record";
    std::string name = base;
    for (int k = 2; !used_.insert(name).second; ++k) name = fmt::format("{}{}", base, k);
    std::string text = name + " := {\n";
    std::vector<std::string_view> field_names;
    for (const DTypeField& f : t.fields()) field_names.push_back(f.name);
    const std::vector<std::string> spelled = dudley_spellings(field_names);
    for (size_t i = 0; i < t.fields().size(); ++i) {
      const DTypeField& f = t.fields()[i];
      const std::string field_where = fmt::format("{} field '{}'", where, f.name);
      std::vector<int64_t> shape = f.shape;
      const std::string ft = type(*f.type, field_where, shape);
      check_rank(shape, field_where);
      text += fmt::format("  {} = {}{} @ {}\n", spelled[i], ft, shape_text(shape), f.offset);
      doc(renamed_note(f.name, spelled[i]), text);
      if (f.name != spelled[i])
        renamed_.push_back(fmt::format("{} -> {}", model::quoted_name(f.name), spelled[i]));
    }
    text += "}\n";
    types_ += text;
    structs_[key] = name;
    return name;
  }

  // Text from the source (its documents, names) becomes comment lines only: doc_lines
  // splits it at every line end, so none of it can become a declaration.
  void doc(const std::string& d, std::string& out) {
    if (d.empty()) return;
    for (const std::string& line : doc_lines(d)) out += "#! " + line + "\n";
  }

  // What of a node's own the layout cannot hold.
  void note_dropped(const model::Node& n, const std::string& path) {
    if (n.storage.mask) masks_.push_back(path);
  }

  // An item's attributes as `#@` lines (docs/design/layout-attributes.md), written right
  // after its declaration and doc, so each attaches to it. What that form cannot hold is
  // named as lost.
  // `named_dimensions`: the shape names the array's dimensions by parameters, exactly as its
  // dimension_names attribute does (the binder gives it back): that attribute is not written.
  void attribute_lines(const model::Node& n, const std::string& path, const std::string& indent,
                       std::string& out, bool named_dimensions = false) {
    // (Attributes its reader could not read are named by LossLog.)
    attribute_lines(n.attributes, path, indent, out, named_dimensions);
    if (const std::optional<model::AttributeValue> fill = chunking_fill(n)) {
      model::Attributes one;
      one.set(model::well_known::kFillValue, *fill);
      attribute_lines(one, path, indent, out);
    }
  }
  void attribute_lines(const model::Attributes& attributes, const std::string& path,
                       const std::string& indent, std::string& out, bool named_dimensions = false) {
    for (const auto& [name, value] : attributes) {
      if (named_dimensions && name == model::well_known::kDimensionNames) continue;
      // The source format's own bookkeeping (ASDF's asdf_library) is no data of the tree.
      if (path == "/" && model::well_known::is_bookkeeping(format_, name)) continue;
      try {
        out +=
            indent + "#@ " + attribute_text(name, value, attributes.stored_text_type(name)) + "\n";
      } catch (const Error& e) {
        attributes_.push_back(
            fmt::format("{}@{}: attribute not written ({})", path, name, e.message()));
      }
    }
  }

  void array(const model::Node& n, const std::string& path, std::string& out,
             const std::vector<std::string>& dim_names = {}) {
    if (!n.error.empty()) {
      // Input that was read but is wrong: a data error, at the place the node names.
      throw Error(ErrorCategory::kData, fmt::format("{} cannot be read: {}", path, n.error.message),
                  n.error.location);
    }
    note_dropped(n, path);
    std::vector<int64_t> shape = n.shape;
    const std::string t = type(n.dtype, path, shape);
    check_rank(shape, path);
    if (options_.stored_addresses && n.storage.offset) {
      out += fmt::format("= {}{} @ {}\n", t, shape_text(shape, dim_names), *n.storage.offset);
    } else {
      out += fmt::format("= {}{}\n", t, shape_text(shape, dim_names));
    }
  }

  void node(const model::Node& n, const std::string& path, int depth, std::string& out) {
    const std::string indent(static_cast<size_t>(depth) * 2, ' ');
    if (n.kind != model::NodeKind::kArray) note_dropped(n, path);
    std::vector<std::string_view> param_names;
    for (const auto& p : n.params) param_names.push_back(p.name);
    const std::vector<std::string> param_spelled = dudley_spellings(param_names);
    for (size_t i = 0; i < n.params.size(); ++i) {
      const auto& p = n.params[i];
      if (!p.value) continue;
      out += fmt::format("{}{} := {}\n", indent, param_spelled[i], *p.value);
      doc(joined_doc(p.doc, renamed_note(p.name, param_spelled[i])), out);
      attribute_lines(p.attributes, (path == "/" ? "" : path) + "/" + p.name, indent, out);
    }
    // A family's layout (extent parameters read from each file) names no dimension by a
    // fixed size: its members differ in them.
    const DimensionParameters dimensions = options_.extent_parameters.empty()
                                               ? dimension_parameters(n, param_spelled, used_)
                                               : DimensionParameters{};
    for (const auto& [name, size] : dimensions.declared) {
      out += fmt::format("{}{} := {}\n", indent, name, size);
    }
    const bool in_list = n.kind == model::NodeKind::kList;
    const std::vector<std::string> spelled =
        in_list ? std::vector<std::string>() : member_spellings(n);
    model::for_each_child(n, [&](uint64_t i, const model::Node& c) {
      // Paths in messages keep the source's names: they are what the user knows.
      const std::string child = in_list ? fmt::format("{}/{}", path == "/" ? "" : path, i)
                                        : (path == "/" ? "" : path) + "/" + c.name;
      const std::string lead = indent + (in_list ? "" : spelled[i] + " ");
      const std::string item_doc =
          in_list ? c.doc : joined_doc(c.doc, renamed_note(c.name, spelled[i]));
      if (!in_list && c.name != spelled[i]) {
        renamed_.push_back(fmt::format("{} -> {}", model::quoted_name(c.name), spelled[i]));
      }
      switch (c.kind) {
        // A "#!" line documents the item declared just before it [C24]: right after the
        // array, or after the line opening the group or list.
        case model::NodeKind::kArray: {
          if (!in_list && options_.leave_out_unwritable) {
            // Made apart, so an array left out leaves no half line behind.
            std::string text;
            if (!c.error.empty()) {
              unwritable_.push_back(LossLog::unreadable(child, c.error));
              if (options_.left_out) options_.left_out->insert(child);
              break;
            }
            bool named = false;
            try {
              const std::vector<std::string> dims = dimensions.name(
                  c, extent_parameters(c, child, spelled[i], spelled, indent, text), named);
              text += lead;
              array(c, child, text, dims);
            } catch (const Error& e) {
              const std::string& m = e.message();
              unwritable_.push_back(
                  fmt::format("{}: {}; left out", child,
                              m.starts_with(child + ": ") ? m.substr(child.size() + 2) : m));
              if (options_.left_out) options_.left_out->insert(child);
              break;
            }
            out += text;
            doc(item_doc, out);
            attribute_lines(c, child, indent, out, named);
            break;
          }
          bool named = false;
          const std::vector<std::string> dims = dimensions.name(
              c,
              extent_parameters(c, child, in_list ? std::string("item") : spelled[i], spelled,
                                indent, out),
              named);
          out += lead;
          array(c, child, out, dims);
          doc(item_doc, out);
          attribute_lines(c, child, indent, out, named);
          break;
        }
        case model::NodeKind::kGroup:
          out += lead + "/\n";
          doc(item_doc, out);
          attribute_lines(c, child, indent, out);
          node(c, child, depth + 1, out);
          out += indent + "..\n";
          break;
        case model::NodeKind::kList:
          out += lead + "= [\n";  // in a list too: a sublist is an anonymous item [C12]
          doc(item_doc, out);
          attribute_lines(c, child, indent, out);
          node(c, child, depth + 1, out);
          out += indent + "]\n";
          break;
      }
      return true;
    });
  }

  // Declares the parameters options_.extent_parameters asks for the array at `path` (named
  // `name` here; `taken`: the names of its group's members) and returns the name of each
  // dimension's parameter ("" for a dimension written as a number).
  std::vector<std::string> extent_parameters(const model::Node& n, const std::string& path,
                                             const std::string& name,
                                             const std::vector<std::string>& taken,
                                             const std::string& indent, std::string& out) {
    auto it = options_.extent_parameters.find(path);
    if (it == options_.extent_parameters.end()) return {};
    std::vector<std::string> names(n.shape.size());
    for (size_t d : it->second) {
      if (d >= n.shape.size() || d >= n.storage.extent_offsets.size()) {
        throw Error(ErrorCategory::kUsage,
                    fmt::format("{}: the file does not say where it stores extent {}", path, d));
      }
      std::string p = fmt::format("{}_n{}", name, d);
      while (std::find(taken.begin(), taken.end(), p) != taken.end() ||
             std::find(parameters_.begin(), parameters_.end(), p) != parameters_.end()) {
        p += "_";
      }
      parameters_.push_back(p);
      names[d] = p;
      out += fmt::format("{}{} := <u8 @ {}\n", indent, p, n.storage.extent_offsets[d]);
      doc(fmt::format("extent {} of {}, as each file stores it", d, name), out);
    }
    return names;
  }

  LayoutTextOptions options_;
  bool root_list_ = false;               // the tree's root list written as the member `items`
  std::vector<std::string> parameters_;  // extent parameters declared so far
  std::string types_;
  std::vector<std::string> attributes_, masks_, renamed_;  // for notes() and lost()
  std::vector<std::string> unwritable_;         // arrays left out (leave_out_unwritable), why
  std::string format_;                          // the tree's
  std::map<std::string, std::string> structs_;  // compound's text -> its type name
  std::set<std::string> used_;                  // type names given out
};

// `source_path`: the tree's own names (as `left_out` has them); `path`: the layout's.
void arrays(const model::Node& n, const std::string& path, const std::string& source_path,
            const std::set<std::string>& left_out, Writer& w) {
  if (n.kind == model::NodeKind::kArray) {
    if (left_out.count(source_path)) return;
    std::vector<int64_t> shape = n.shape;
    const DType declared = in_dudley_terms(n.dtype, shape);
    if ((declared == n.dtype && shape == n.shape) || !n.data) {
      w.write_from(path, n);
      return;
    }
    // The same bytes as the layout declares them (names respelled, strings as units).
    model::Node renamed;
    renamed.kind = model::NodeKind::kArray;
    renamed.name = n.name;
    renamed.dtype = declared;
    renamed.shape = std::move(shape);
    renamed.data = in_dudley_terms(n.data, n.dtype, n.shape);
    w.write_from(path, renamed);
    return;
  }
  // The writer addresses items by their layout names, spelled as the Emitter spelled them.
  const std::string base = path == "/" ? "" : path;
  const bool in_list = n.kind == model::NodeKind::kList;
  const std::vector<std::string> spelled =
      in_list ? std::vector<std::string>() : member_spellings(n);
  const std::string source_base = source_path == "/" ? "" : source_path;
  model::for_each_child(n, [&](uint64_t i, const model::Node& c) {
    const std::string index = std::to_string(i);
    arrays(c, base + "/" + (in_list ? index : spelled[i]),
           source_base + "/" + (in_list ? index : c.name), left_out, w);
    return true;
  });
}

}  // namespace

std::string layout_text_for(const model::Tree& tree, std::vector<std::string>* notes,
                            const LayoutTextOptions& options, std::vector<std::string>* lost) {
  Emitter emitter(options);
  std::string text = emitter.run(tree);
  if (notes) *notes = emitter.notes();
  if (lost) *lost = emitter.lost();
  return text;
}

uint64_t write_tree(const model::Tree& given, const std::string& data_path,
                    const WriteOptions& options, SaveReport* report, bool lossy) {
  model::Tree holder;
  const model::Tree& tree = model::with_group_root(given, holder);  // a Zarr array store
  LossLog losses(given, lossy, "Dudley", data_path);
  std::vector<std::string> notes, lost;
  std::set<std::string> left_out;
  LayoutTextOptions text_options;
  text_options.leave_out_unwritable = true;
  text_options.left_out = &left_out;
  const std::string text = layout_text_for(tree, &notes, text_options, &lost);
  for (std::string& item : lost) losses.lose(std::move(item));
  losses.check();  // before anything is written
  if (report) {
    report->notes = std::move(notes);
    report->lost = losses.take();
  }
  ParseResult parsed = parse_layout(text);
  if (!parsed.ok()) {
    const auto& d = parsed.diagnostics.front();
    // Every check that input can fail was made while emitting; this is our own bug.
    throw Error(ErrorCategory::kUsage,
                fmt::format("the layout made for the tree does not parse ({}:{}: {})", d.line,
                            d.column, d.message));
  }
  const Layout& layout = parsed.layout;
  WriteOptions own = options;
  own.align_copies = true;  // the layout is made here: the writer may place its arrays
  Writer w(layout, data_path, own);
  // A root list is the layout's member `items` (Emitter::run).
  arrays(*tree.root, tree.root->kind == model::NodeKind::kList ? "/items" : "/", "/", left_out, w);
  for (const auto& [key, target] : tree.pointees) {
    w.write_pointee(key, target->data->read());  // pointees are small: read whole
  }
  return w.commit();
}

}  // namespace dudley::layout
