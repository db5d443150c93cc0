#include "dudley/layout/syntax/layout.hpp"

#include <algorithm>

#include "dudley/core/path.hpp"

#include <fmt/format.h>

namespace dudley::layout {

Layout::Layout() {
  Node root;
  root.kind = NodeKind::kGroup;
  nodes.push_back(root);
  docs.emplace_back();
}

void Layout::append_doc(DocId* slot, std::string_view line) {
  if (*slot == 0) {
    *slot = static_cast<DocId>(docs.size());
    docs.push_back({static_cast<uint32_t>(doc_text.size()), 0});
  } else {
    Span& span = docs[*slot];
    if (span.begin + span.count != doc_text.size()) {
      // Not the newest doc: move it to the end so it can grow in place (rare).
      std::string existing(doc(*slot));
      span.begin = static_cast<uint32_t>(doc_text.size());
      doc_text += existing;
    }
    doc_text += '\n';
    ++span.count;
  }
  doc_text += line;
  docs[*slot].count += static_cast<uint32_t>(line.size());
}

bool TypeDef::is_typedef(const Table<Node>& all_nodes) const {
  if (kind != TypeKind::kStruct) return false;
  const StructEntry* only = nullptr;
  for (const auto& entry : body) {
    if (entry.kind != StructEntry::Kind::kMember) continue;
    if (only) return false;
    only = &entry;
  }
  return only && all_nodes[only->index].name == kNone;
}

std::string_view Layout::name(NameId id) const {
  return id == kNone ? std::string_view() : names.text(id);
}

NodeId Layout::add_node(const Node& node) {
  const auto id = static_cast<NodeId>(nodes.size());
  nodes.push_back(node);
  if (node.parent != kNone) {
    Node& parent = nodes[node.parent];
    nodes[id].index = parent.child_count++;
    if (parent.last_child == kNone) {
      parent.first_child = id;
    } else {
      nodes[parent.last_child].next_sibling = id;
    }
    parent.last_child = id;
  }
  return id;
}

std::vector<NodeId> Layout::children(NodeId container) const {
  std::vector<NodeId> out;
  for (NodeId c = nodes[container].first_child; c != kNone; c = nodes[c].next_sibling) {
    out.push_back(c);
  }
  return out;
}

std::vector<ParamId> Layout::group_params(NodeId group) const {
  std::vector<ParamId> out;
  for (ParamId p = nodes[group].first_param; p != kNone; p = params[p].next_in_group) {
    out.push_back(p);
  }
  return out;
}

std::string Layout::path(NodeId node) const {
  if (node == kRoot) return "/";
  std::vector<std::string> parts;
  for (NodeId n = node; n != kRoot && n != kNone; n = nodes[n].parent) {
    const Node& x = nodes[n];
    if (x.name != kNone) {
      parts.emplace_back(name(x.name));
    } else {
      parts.push_back(std::to_string(x.index));  // anonymous list item: its position
    }
  }
  std::string out;
  for (size_t i = parts.size(); i-- > 0;) out += "/" + parts[i];
  return out;
}

NodeId Layout::find(std::string_view path) const {
  NodeId current = kRoot;
  for (std::string_view part : split_path(path)) {
    const Node& node = nodes[current];
    NodeId next = kNone;
    if (node.kind == NodeKind::kList) {
      auto index = path_index(part);
      if (!index) return kNone;
      for (NodeId c = node.first_child; c != kNone; c = nodes[c].next_sibling) {
        if ((*index)-- == 0) {
          next = c;
          break;
        }
      }
    } else if (node.kind == NodeKind::kGroup) {
      NameId id = names.find(part);
      if (id == kNone) return kNone;
      for (NodeId c = node.first_child; c != kNone; c = nodes[c].next_sibling) {
        if (nodes[c].name == id) {
          next = c;
          break;
        }
      }
    }
    if (next == kNone) return kNone;
    current = next;
  }
  return current;
}

TypeId Layout::find_type(std::string_view type_name) const {
  NameId id = names.find(type_name);
  if (id == kNone) return kNone;
  for (TypeId t = 0; t < types.size(); ++t) {
    if (types[t].name == id) return t;
  }
  return kNone;
}

std::string Layout::type_text(const TypeRef& ref) const {
  switch (ref.kind) {
    case TypeRef::Kind::kUser:
      return std::string(name(types[ref.user].name));
    case TypeRef::Kind::kPrimitive: {
      std::string_view prim = primitive_name(ref.primitive);
      if (ref.order == ByteOrder::kLittle) return fmt::format("<{}", prim);
      if (ref.order == ByteOrder::kBig) return fmt::format(">{}", prim);
      // A bare primitive name would mean the user's type of that name, if one exists.
      if (find_type(prim) != kNone) return fmt::format("|{}", prim);
      return std::string(prim);
    }
    case TypeRef::Kind::kInvalid:
      break;
  }
  return "<invalid>";
}

void Layout::append_attribute(std::string_view text, TextPos pos) {
  attributes.push_back(
      {static_cast<uint32_t>(attribute_text.size()), static_cast<uint32_t>(text.size()), pos});
  attribute_text += text;
}

bool Layout::read_attribute(const AttributeSource& a, ParsedAttribute& out,
                            AttributeTextError& error) const {
  return parse_attribute(attribute_source(a), out, error, model::kMaxValueDepth);
}

size_t Layout::memory_bytes() const {
  size_t bytes = sizeof(*this) + names.memory_bytes();
  bytes += nodes.capacity() * sizeof(Node) + params.capacity() * sizeof(Param);
  bytes += types.capacity() * sizeof(TypeDef) + pointees.capacity() * sizeof(Pointee);
  bytes += dims.capacity() * sizeof(Dim) + bindings.capacity() * sizeof(ParamId);
  bytes += cursors.capacity() * sizeof(uint64_t) + statements.capacity() * sizeof(Statement);
  bytes += docs.capacity() * sizeof(Span) + doc_text.capacity();
  bytes += attributes.capacity() * sizeof(AttributeSource) + attribute_text.capacity();
  for (const auto& t : types) {
    bytes += t.body.capacity() * sizeof(StructEntry) + t.free_names.capacity() * sizeof(NameId);
  }
  return bytes;
}

// Equality compares names and docs by text (two parses may intern names, and number docs,
// in different orders) and ignores source positions (TextPos == is always true).
namespace {

template <typename T>
T without_name_and_doc(T item) {
  item.name = kNone;
  if constexpr (requires { item.doc; }) item.doc = 0;
  if constexpr (requires { item.attributes; }) item.attributes = {};
  return item;
}

// Attributes are the same when they read as the same name and value (bit for bit), or,
// for text that reads as none, when the texts are.
bool same_attributes(const Layout& a, Span x, const Layout& b, Span y) {
  const auto xs = a.attributes_of(x);
  const auto ys = b.attributes_of(y);
  if (xs.size() != ys.size()) return false;
  for (size_t i = 0; i < xs.size(); ++i) {
    ParsedAttribute p, q;
    AttributeTextError e;
    const bool read_p = a.read_attribute(xs[i], p, e);
    const bool read_q = b.read_attribute(ys[i], q, e);
    if (read_p != read_q) return false;
    if (!read_p ? a.attribute_source(xs[i]) != b.attribute_source(ys[i]) : !(p == q)) {
      return false;
    }
  }
  return true;
}

template <typename Items>
bool same_items(const Layout& a, const Items& xs, const Layout& b, const Items& ys) {
  if (xs.size() != ys.size()) return false;
  for (size_t i = 0; i < xs.size(); ++i) {
    if (a.name(xs[i].name) != b.name(ys[i].name)) return false;
    if constexpr (requires { xs[i].doc; }) {
      if (a.doc(xs[i].doc) != b.doc(ys[i].doc)) return false;
    }
    if constexpr (requires { xs[i].attributes; }) {
      if (!same_attributes(a, xs[i].attributes, b, ys[i].attributes)) return false;
    }
    if (!(without_name_and_doc(xs[i]) == without_name_and_doc(ys[i]))) return false;
  }
  return true;
}

bool same_types(const Layout& a, const Layout& b) {
  if (a.types.size() != b.types.size()) return false;
  for (size_t i = 0; i < a.types.size(); ++i) {
    TypeDef x = a.types[i];
    TypeDef y = b.types[i];
    if (a.name(x.name) != b.name(y.name) || a.doc(x.doc) != b.doc(y.doc) ||
        !same_attributes(a, x.attributes, b, y.attributes) ||
        x.free_names.size() != y.free_names.size())
      return false;
    for (size_t k = 0; k < x.free_names.size(); ++k) {
      if (a.name(x.free_names[k]) != b.name(y.free_names[k])) return false;
    }
    x.name = y.name = kNone;
    x.doc = y.doc = 0;
    x.attributes = y.attributes = {};
    x.free_names.clear();
    y.free_names.clear();
    if (!(x == y)) return false;
  }
  return true;
}

bool same_pointees(const Layout& a, const Layout& b) {
  if (a.pointees.size() != b.pointees.size()) return false;
  for (size_t i = 0; i < a.pointees.size(); ++i) {
    Pointee x = a.pointees[i];
    Pointee y = b.pointees[i];
    if (a.doc(x.doc) != b.doc(y.doc) || !same_attributes(a, x.attributes, b, y.attributes)) {
      return false;
    }
    x.doc = y.doc = 0;
    x.attributes = y.attributes = {};
    if (!(x == y)) return false;
  }
  return true;
}

}  // namespace

bool operator==(const Layout& a, const Layout& b) {
  return same_items(a, a.nodes, b, b.nodes) && same_items(a, a.params, b, b.params) &&
         same_items(a, a.dims, b, b.dims) && same_types(a, b) && same_pointees(a, b) &&
         a.bindings == b.bindings && a.cursors == b.cursors && a.statements == b.statements &&
         a.signature == b.signature && a.template_directive == b.template_directive;
}

}  // namespace dudley::layout
