#include "cli/dump_items.hpp"

#include <sys/stat.h>

#include <fmt/format.h>

#include "cli/model_json.hpp"
#include "cli/tree_json.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/path.hpp"
#include "dudley/core/suggest.hpp"
#include "dudley/io/byte_source.hpp"

namespace dudley::cli {

namespace {

[[noreturn]] void bad_item(const std::string& text, const std::string& why) {
  throw Error(ErrorCategory::kUsage, fmt::format("bad item '{}': {}", text, why));
}

bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace

DType field_chain(const DType& type, const std::vector<std::string>& fields,
                  std::vector<int64_t>* field_shape) {
  DType t = type;
  for (const std::string& f : fields) {
    std::vector<std::string> names;
    const DTypeField* found = nullptr;
    if (t.kind() == DTypeKind::kCompound) {
      for (const DTypeField& candidate : t.fields()) {
        names.push_back(candidate.name);
        if (candidate.name == f) found = &candidate;
      }
    }
    if (!found) {
      throw Error(
          ErrorCategory::kUsage,
          t.kind() == DTypeKind::kCompound
              ? fmt::format("no field '{}' in {}{}", f, t.to_string(), did_you_mean(f, names))
              : fmt::format("field '{}': the elements ({}) are not structs", f, t.to_string()));
    }
    if (field_shape)
      field_shape->insert(field_shape->end(), found->shape.begin(), found->shape.end());
    t = *found->type;
  }
  return t;
}

std::string ItemSpec::suffix() const {
  std::string fields_text;
  for (const std::string& f : fields) fields_text += "." + f;
  return selection_first ? selection + fields_text : fields_text + selection;
}

// A quoted name from text[i] (the opening '"'): its characters up to the closing '"', with
// \" and \\ standing for '"' and '\'. Sets `i` past the closing quote.
std::string quoted_name(const std::string& text, size_t& i) {
  std::string name;
  for (size_t j = i + 1; j < text.size(); ++j) {
    if (text[j] == '\\' && j + 1 < text.size()) {
      name += text[++j];
    } else if (text[j] == '"') {
      i = j + 1;
      return name;
    } else {
      name += text[j];
    }
  }
  bad_item(text, "a quoted name has no closing '\"'");
}

ItemPath split_item_path(const std::string& text) {
  // Names of Dudley layouts are [A-Za-z_][A-Za-z0-9_]*; other formats' names may hold any
  // character: a name holding '.', '[', ']' or '"' is quoted, as in /a/"run.ini".
  ItemPath out;
  size_t i = 0;
  // A '.' before a later '/' is a group's name ("/g1/g1.2/x", as h5py names it): fields
  // follow the path's last name only.
  auto in_a_group_name = [&](size_t at) {
    const size_t slash = text.find('/', at);
    return slash != std::string::npos && slash < text.find('[', at);
  };
  while (i < text.size() && (text[i] != '.' || in_a_group_name(i)) && text[i] != '[') {
    if (text[i] == '"') {
      out.path += quoted_name(text, i);
      out.quoted = true;
    } else {
      out.path += text[i++];
    }
  }
  out.rest = i;
  return out;
}

ItemSpec parse_item(const std::string& text) {
  ItemSpec spec;
  const ItemPath split = split_item_path(text);
  spec.path = split.path;
  spec.quoted = split.quoted;
  size_t i = split.rest;
  while (i != std::string::npos && i < text.size()) {
    if (text[i] == '[') {
      if (!spec.selection.empty()) bad_item(text, "one selection per item");
      const size_t close = text.find(']', i);
      if (close == std::string::npos) bad_item(text, "the selection has no closing ']'");
      spec.selection = text.substr(i, close + 1 - i);
      spec.selection_first = spec.fields.empty();
      i = close + 1;
    } else if (text[i] == '.' && i + 1 < text.size() && text[i + 1] == '"') {
      ++i;
      spec.fields.push_back(quoted_name(text, i));  // a field named as no identifier is
    } else if (text[i] == '.') {
      size_t j = i + 1;
      while (j < text.size() && name_char(text[j])) ++j;
      if (j == i + 1) bad_item(text, "a field name must follow '.'");
      spec.fields.push_back(text.substr(i + 1, j - i - 1));
      i = j;
    } else {
      bad_item(text, fmt::format("unexpected '{}' after the selection", text.substr(i)));
    }
  }
  if (spec.fields.empty()) spec.selection_first = false;
  return spec;
}

ArrayRef ArrayRef::of(const model::Node& node, const std::string& path, ItemSpec spec) {
  ArrayRef ref;
  ref.label = (path.empty() ? std::string("/") : path) + spec.suffix();  // a root array: "/"
  ref.dtype = node.dtype;
  ref.shape = node.shape;
  ref.data = node.data;
  ref.error = node.error.text();
  ref.empty = node.empty;
  ref.mask = node.storage.mask;
  spec.path = path;
  ref.spec = std::move(spec);
  return ref;
}

bool ListPick::has(uint64_t index) const {
  if (count <= 0) return false;
  const auto i = static_cast<int64_t>(index);
  const int64_t offset = i - start;
  if (step > 0) return offset >= 0 && offset % step == 0 && offset / step < count;
  return offset <= 0 && offset % step == 0 && offset / step < count;
}

uint64_t ListPick::reach() const {
  if (count <= 0) return 0;
  return static_cast<uint64_t>(step > 0 ? start + (count - 1) * step : start) + 1;
}

namespace {

// Names a user may have meant, for a path that names nothing: members and parameters of the
// deepest group on the path.
std::string nearest_item(const model::Tree& tree, const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return {};
  const model::Node* parent = tree.find(slash == 0 ? "/" : path.substr(0, slash));
  if (!parent || parent->kind != model::NodeKind::kGroup) return {};
  std::vector<std::string> names;
  for (const auto& c : parent->children) names.push_back(c->name);
  for (const auto& p : parent->params) names.push_back(p.name);
  const std::string near = nearest_name(path.substr(slash + 1), names);
  if (near.empty()) return {};
  return fmt::format(" (did you mean {}{}?)", slash == 0 ? "/" : path.substr(0, slash + 1), near);
}

bool is_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// The parameter `path` names (the last declaration in its group), or nullptr.
const model::Parameter* parameter_at(const model::Tree& tree, const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return nullptr;
  const model::Node* group = tree.find(slash == 0 ? "/" : path.substr(0, slash));
  if (!group || group->kind != model::NodeKind::kGroup) return nullptr;
  const model::Parameter* found = nullptr;
  for (const auto& p : group->params) {
    if (p.name == path.substr(slash + 1)) found = &p;
  }
  return found;
}

// The tree value `path` names, as compact JSON text: an attribute of a group (`/units`,
// ASDF's scalars and maps that hold no arrays) and, below it, keys of its maps and indexes
// of its lists (`/meta/units`, `/meta/list/0`). nullopt when the path names none.
std::optional<std::string> value_at(const model::Tree& tree, const std::string& path) {
  const std::vector<std::string_view> parts = split_path(path);
  // The deepest node the path names, then an attribute of it, then into the value.
  for (size_t k = parts.size(); k-- > 0;) {
    std::string prefix = "/";
    for (size_t i = 0; i < k; ++i) prefix += (i ? "/" : "") + std::string(parts[i]);
    const model::Node* node = tree.find(prefix);
    if (!node) continue;
    const model::AttributeValue* attribute = node->attributes.find(parts[k]);
    if (!attribute) return std::nullopt;
    if (const auto* array = std::get_if<NDArray>(attribute)) {
      if (k + 1 != parts.size()) return std::nullopt;
      return values_json(*array).dump(-1, ' ', false,
                                      nlohmann::ordered_json::error_handler_t::replace);
    }
    const model::Value* v = &std::get<model::Value>(*attribute);
    for (size_t i = k + 1; i < parts.size() && v; ++i) {
      if (const auto* list = std::get_if<model::ValueList>(&v->storage())) {
        const std::optional<size_t> index = path_index(parts[i]);
        v = index && *index < list->size() ? &(*list)[*index] : nullptr;
      } else {
        v = v->find(parts[i]);
      }
    }
    if (!v) return std::nullopt;
    return value_json(*v).dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  }
  return std::nullopt;
}

const char* kind_name(const model::Node& node) {
  switch (node.kind) {
    case model::NodeKind::kGroup:
      return "group";
    case model::NodeKind::kList:
      return "list";
    case model::NodeKind::kArray:
      return "array";
  }
  return "item";
}

}  // namespace

std::vector<Request> resolve_items(const model::Tree& tree, const std::vector<std::string>& items,
                                   const std::string& file) {
  std::vector<Request> out;
  if (items.empty()) {
    Request all;
    all.kind = Request::Kind::kBelow;
    all.path = "/";
    all.node = tree.root.get();
    out.push_back(all);
  }
  for (const std::string& item : items) {
    ItemSpec spec = parse_item(item);
    Request r;
    r.label = item;
    r.path = spec.path;
    r.node = tree.find(spec.path);
    if (!r.node && !spec.fields.empty() && !spec.quoted) {
      // '/a/run.ini' unquoted: the item named so, when there is one and no /a/run to take
      // a field of.
      const std::string whole = item.substr(0, item.find('['));
      if (const model::Node* named = tree.find(whole)) {
        r.node = named;
        spec.path = whole;
        spec.fields.clear();
        r.path = whole;
      }
    }
    if (!r.node) {
      if (const model::Parameter* p = parameter_at(tree, spec.path)) {
        if (!spec.fields.empty() || !spec.selection.empty()) {
          bad_item(item, fmt::format("{} is a parameter (a single integer)", spec.path));
        }
        r.kind = Request::Kind::kParameter;
        r.parameter = p;
        out.push_back(r);
        continue;
      }
      if (std::optional<std::string> value = value_at(tree, spec.path)) {
        if (!spec.fields.empty() || !spec.selection.empty()) {
          bad_item(item, fmt::format("{} is a value of the tree, not an array", spec.path));
        }
        r.kind = Request::Kind::kValue;
        r.value_text = std::move(*value);
        out.push_back(r);
        continue;
      }
      // Items are paths from the root. A word that names a file is most likely an unquoted
      // glob the shell expanded into several data files.
      std::string hint = nearest_item(tree, spec.path);
      if (!item.empty() && is_file(item)) {  // absolute too: /data/run_*.bin expanded
        hint = fmt::format(
            " ({} is a file, not an item: for several data files, quote the pattern and give "
            "it to --family, as in --family 'run_*.bin')",
            item);
      }
      throw Error(ErrorCategory::kUsage, fmt::format("no item {} in {}{}", spec.path, file, hint));
    }
    if (r.node->kind == model::NodeKind::kArray) {
      if (!spec.fields.empty() && r.node->error.empty()) {
        if (r.node->dtype.kind() != DTypeKind::kCompound) {
          bad_item(item, fmt::format("{} holds {}, not structs: it has no fields", spec.path,
                                     r.node->dtype.to_string()));
        }
        try {
          (void)field_chain(r.node->dtype, spec.fields, nullptr);
        } catch (const Error& e) {
          bad_item(item, e.message());
        }
      }
      // A selection is checked now, so a bad one is a usage error before anything prints;
      // an array that could not be located reports why when it is printed.
      if (!spec.selection.empty() && spec.fields.empty() && r.node->error.empty()) {
        (void)Hyperslab::parse(spec.selection, r.node->shape);
      }
      r.spec = std::move(spec);
      out.push_back(r);
      continue;
    }
    if (!spec.fields.empty()) {
      bad_item(item, fmt::format("{} is a {}: fields belong to struct arrays", spec.path,
                                 kind_name(*r.node)));
    }
    r.kind = Request::Kind::kBelow;
    if (!spec.selection.empty()) {
      if (r.node->kind == model::NodeKind::kGroup) {
        bad_item(item, fmt::format("{} is a group: a selection applies to an array or a list "
                                   "(name a member by its path, {}/NAME)",
                                   spec.path, spec.path == "/" ? "" : spec.path));
      }
      const uint64_t n = child_count(*r.node);
      const Hyperslab h = Hyperslab::parse(
          spec.selection, {static_cast<int64_t>(std::min<uint64_t>(n, INT64_MAX))});
      r.pick = ListPick{h.start[0], h.count[0], h.step(0)};
    }
    out.push_back(r);
  }
  return out;
}

Hyperslab selection_of(const ArrayRef& ref) {
  return ref.spec.selection.empty() ? Hyperslab::all(ref.shape)
                                    : Hyperslab::parse(ref.spec.selection, ref.shape);
}

NDArray read_selected(const ArrayRef& ref) {
  if (!ref.error.empty()) throw Error(ErrorCategory::kData, ref.error);
  const ItemSpec& spec = ref.spec;
  if (spec.fields.empty() || spec.selection.empty() || spec.selection_first) {
    NDArray data = spec.selection_first || spec.fields.empty() ? ref.data->read(selection_of(ref))
                                                               : ref.data->read();
    for (const std::string& f : spec.fields) data = data.field(f);
    return data;
  }
  // `/r.pos[1, 2]`: the selection spans the struct array's dimensions, then the field's. The
  // first part is read from the file, the rest picked from the fields in memory.
  std::vector<int64_t> field_shape;
  (void)field_chain(ref.dtype, spec.fields, &field_shape);
  std::vector<int64_t> whole = ref.shape;
  whole.insert(whole.end(), field_shape.begin(), field_shape.end());
  const Hyperslab h = Hyperslab::parse(spec.selection, whole);
  const size_t outer = ref.shape.size();
  auto part = [&](size_t from, size_t to) {
    Hyperslab p;
    p.start.assign(h.start.begin() + static_cast<std::ptrdiff_t>(from),
                   h.start.begin() + static_cast<std::ptrdiff_t>(to));
    p.count.assign(h.count.begin() + static_cast<std::ptrdiff_t>(from),
                   h.count.begin() + static_cast<std::ptrdiff_t>(to));
    p.stride.assign(h.stride.begin() + static_cast<std::ptrdiff_t>(from),
                    h.stride.begin() + static_cast<std::ptrdiff_t>(to));
    p.dropped.assign(h.dropped.begin() + static_cast<std::ptrdiff_t>(from),
                     h.dropped.begin() + static_cast<std::ptrdiff_t>(to));
    return p;
  };
  Hyperslab records = part(0, outer);
  records.dropped.clear();  // keep every dimension until the inner part is picked
  NDArray data = ref.data->read(records);
  for (const std::string& f : spec.fields) data = data.field(f);
  // The inner selection, over the fields read: the outer dimensions are whole now.
  Hyperslab inner = part(0, h.count.size());
  for (size_t d = 0; d < outer; ++d) {
    inner.start[d] = 0;
    inner.stride[d] = 1;
  }
  return data.select(inner).to_native();  // a packed copy: the fields read are let go
}

}  // namespace dudley::cli
