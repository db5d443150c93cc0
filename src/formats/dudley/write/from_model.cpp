#include "dudley/formats/dudley/write/from_model.hpp"

#include <cctype>
#include <map>
#include <set>

#include <fmt/format.h>

#include "dudley/core/error.hpp"
#include "dudley/formats/dudley/syntax/parser.hpp"

namespace dudley::layout {

namespace {

bool is_name(const std::string& s) {
  return is_dudley_name(s);
}

std::string shape_text(const std::vector<int64_t>& shape) {
  return shape.empty() ? std::string() : fmt::format("[{}]", fmt::join(shape, ", "));
}

// Emits the text of a tree; struct types are collected first and declared at the top.
class Emitter {
 public:
  std::string run(const model::Tree& tree) {
    std::string body;
    node(*tree.root, "/", 0, body);
    // Targets of pointers keep their keys, so the pointer arrays copied stay valid [C19].
    for (const auto& [key, target] : tree.pointees) {
      const std::string where = fmt::format("pointee {}", key);
      body += fmt::format("{} ", key);
      array(*target, where, body);
      doc(target->doc, body);
    }
    std::string out = "!DUDLEY := S1[8]\n" + types_ + body;
    return out;
  }

 private:
  // Element type text and the extra trailing dimensions it brings (text length).
  std::string type(const DType& t, const std::string& where, std::vector<int64_t>& extra) {
    if (t.kind() == DTypeKind::kCompound) return compound(t, where);
    if (const std::optional<Primitive> p = primitive_for(t)) {
      if (t.kind() == DTypeKind::kText && t.text_length() > 1) {
        extra.push_back(static_cast<int64_t>(t.text_length()));
      }
      return std::string(primitive_name(*p));
    }
    throw Error(ErrorCategory::kType,
                fmt::format("{}: Dudley has no type for {}", where, t.to_string()));
  }

  std::string compound(const DType& t, const std::string& where) {
    const std::string key = t.to_string();
    auto it = structs_.find(key);
    if (it != structs_.end()) return it->second;
    // The compound's own name when it is a Dudley name, made unique with a number.
    const std::string base = is_type_name(t.name()) ? t.name() : "record";
    std::string name = base;
    for (int k = 2; !used_.insert(name).second; ++k) name = fmt::format("{}{}", base, k);
    std::string text = name + " := {\n";
    for (const DTypeField& f : t.fields()) {
      if (!is_name(f.name)) {
        throw Error(ErrorCategory::kUsage,
                    fmt::format("{}: field name '{}' is not a Dudley name", where, f.name));
      }
      std::vector<int64_t> shape = f.shape;
      const std::string ft = type(*f.type, where, shape);
      text += fmt::format("  {} = {}{} @ {}\n", f.name, ft, shape_text(shape), f.offset);
    }
    text += "}\n";
    types_ += text;
    structs_[key] = name;
    return name;
  }

  void doc(const std::string& d, std::string& out) {
    if (d.empty()) return;
    size_t start = 0;
    while (start <= d.size()) {
      const size_t end = d.find('\n', start);
      out += "#! " + d.substr(start, end == std::string::npos ? std::string::npos : end - start) +
             "\n";
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }

  void array(const model::Node& n, const std::string& path, std::string& out) {
    if (!n.error.empty()) {
      // Input that was read but is wrong: a data error, at the place the node names.
      throw Error(ErrorCategory::kData, fmt::format("{} cannot be read: {}", path, n.error.message),
                  n.error.location);
    }
    std::vector<int64_t> shape = n.shape;
    const std::string t = type(n.dtype, path, shape);
    out += fmt::format("= {}{}\n", t, shape_text(shape));
  }

  void node(const model::Node& n, const std::string& path, int depth, std::string& out) {
    const std::string indent(static_cast<size_t>(depth) * 2, ' ');
    for (const auto& p : n.params) {
      if (!p.value) continue;
      if (!is_name(p.name)) {
        throw Error(ErrorCategory::kUsage,
                    fmt::format("{}: parameter name '{}' is not a Dudley name", path, p.name));
      }
      out += fmt::format("{}{} := {}\n", indent, p.name, *p.value);
      doc(p.doc, out);
    }
    model::for_each_child(n, [&](uint64_t i, const model::Node& c) {
      const bool in_list = n.kind == model::NodeKind::kList;
      const std::string child = in_list ? fmt::format("{}/{}", path == "/" ? "" : path, i)
                                        : (path == "/" ? "" : path) + "/" + c.name;
      if (!in_list && !is_name(c.name)) {
        throw Error(ErrorCategory::kUsage,
                    fmt::format("{}: '{}' is not a Dudley name", path, c.name));
      }
      const std::string lead = indent + (in_list ? "" : c.name + " ");
      switch (c.kind) {
        // A "#!" line documents the item declared just before it [C24]: right after the
        // array, or after the line opening the group or list.
        case model::NodeKind::kArray:
          out += lead;
          array(c, child, out);
          doc(c.doc, out);
          break;
        case model::NodeKind::kGroup:
          out += lead + "/\n";
          doc(c.doc, out);
          node(c, child, depth + 1, out);
          out += indent + "..\n";
          break;
        case model::NodeKind::kList:
          out += lead + "= [\n";  // in a list too: a sublist is an anonymous item [C12]
          doc(c.doc, out);
          node(c, child, depth + 1, out);
          out += indent + "]\n";
          break;
      }
      return true;
    });
  }

  std::string types_;
  std::map<std::string, std::string> structs_;  // compound's text -> its type name
  std::set<std::string> used_;                  // type names given out
};

void arrays(const model::Node& n, const std::string& path, Writer& w) {
  if (n.kind == model::NodeKind::kArray) {
    w.write_from(path, n);
    return;
  }
  const std::string base = path == "/" ? "" : path;
  model::for_each_child(n, [&](uint64_t i, const model::Node& c) {
    arrays(c,
           n.kind == model::NodeKind::kList ? fmt::format("{}/{}", base, i) : base + "/" + c.name,
           w);
    return true;
  });
}

}  // namespace

std::string layout_text_for(const model::Tree& tree) {
  return Emitter().run(tree);
}

uint64_t write_tree(const model::Tree& tree, const std::string& data_path,
                    const WriteOptions& options) {
  const std::string text = layout_text_for(tree);
  ParseResult parsed = parse_layout(text);
  if (!parsed.ok()) {
    const auto& d = parsed.diagnostics.front();
    throw Error(ErrorCategory::kUsage,
                fmt::format("the layout made for the tree does not parse ({}:{}: {})", d.line,
                            d.column, d.message));
  }
  const Layout& layout = parsed.layout;
  Writer w(layout, data_path, options);
  arrays(*tree.root, "/", w);
  for (const auto& [key, target] : tree.pointees) {
    w.write_pointee(key, target->data->read());  // pointees are small: read whole
  }
  return w.commit();
}

}  // namespace dudley::layout
