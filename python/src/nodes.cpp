#include "nodes.hpp"

#include <pybind11/stl.h>

#include <charconv>
#include <cstring>

#include "bindings.hpp"
#include "dudley/core/error.hpp"
#include "dudley/formats/dudley.hpp"
#include "dudley/io/byte_source.hpp"
#include "dudley/layout/bind/to_model.hpp"
#include "dudley/model/outer_read.hpp"
#include "dudley/open.hpp"
#include "layout_tools.hpp"
#include "numpy_dtype.hpp"
#include "object_elements.hpp"
#include "selection.hpp"
#include "text_objects.hpp"
#include "value_objects.hpp"
#include "writer.hpp"

using namespace pybind11::literals;

namespace dudley::python {

std::string child_path(const std::string& parent, const std::string& name) {
  return parent == "/" ? "/" + name : parent + "/" + name;
}

// The node at `key` below `at` ("x", "g/x", or absolute "/g/x"); KeyError when absent.
NodeRef lookup(const NodeRef& at, const std::string& key) {
  const std::string path = key.starts_with("/") ? key : child_path(at.path, key);
  const model::Node* n = at.tree->find(path);
  if (n == nullptr) throw py::key_error(readable(path));
  return {at.tree, n, path, at.filename, at.opened_with};
}

std::vector<std::string> member_names(const NodeRef& at) {
  std::vector<std::string> names;
  model::for_each_child(*at.node, [&](uint64_t i, const model::Node& c) {
    names.push_back(at.node->kind == model::NodeKind::kList ? std::to_string(i) : c.name);
    return true;
  });
  return names;
}

// Attributes as Python values: JSON-like values as Python objects, typed arrays as numpy,
// references as their targets; each one that cannot be read keeps its name with its error
// (dudley._attributes.Attributes).
py::object attributes(const model::Node& node, const model::ReferenceTable* references) {
  return attributes(node.attributes, node.unreadable_attributes, references);
}

py::object attributes(const model::Attributes& attributes,
                      const std::vector<std::pair<std::string, model::NodeError>>& unreadable,
                      const model::ReferenceTable* references) {
  py::dict out, errors;
  for (const auto& [name, value] : attributes) {
    try {
      if (const auto* v = std::get_if<model::Value>(&value)) {
        if (const std::optional<DType> empty = model::well_known::empty_type(*v)) {
          out[name_object(name)] = py::module_::import("dudley").attr("Empty")(numpy_dtype(*empty));
          continue;
        }
        out[name_object(name)] = value_object(*v);
        continue;
      }
      const NDArray& a = std::get<NDArray>(value);
      if (a.dtype().kind() == DTypeKind::kReference) {  // what each points to, as h5py derefs
        out[name_object(name)] = references_to_numpy(a, references);
        continue;
      }
      if (holds_objects(a.dtype())) {  // variable-length strings and sequences
        out[name_object(name)] = objects_to_numpy(a, numpy_dtype(a.dtype()), a.shape().dims());
        continue;
      }
      const NDArray native = a.to_native();  // a big-endian attribute keeps its order
      py::array arr(numpy_dtype(native.dtype()), native.shape().dims());
      if (native.byte_size() > 0)
        std::memcpy(arr.mutable_data(), native.data(), native.byte_size());
      out[name_object(name)] = arr;
    } catch (const Error& e) {
      errors[name_object(name)] = error_object(e);
    }
  }
  for (const auto& [name, error] : unreadable) {
    errors[name_object(name)] = error_object(Error(error.category, error.message, error.location));
  }
  return py::module_::import("dudley._attributes").attr("Attributes")(out, errors);
}

namespace {

// A read NDArray handed to numpy without a copy: numpy keeps it alive.
py::array to_numpy(NDArray data, const py::dtype& type, const std::vector<int64_t>& shape) {
  auto* owner = new NDArray(std::move(data));
  py::capsule keep(owner, [](void* p) { delete static_cast<NDArray*>(p); });
  return py::array(type, shape, owner->mutable_data(), keep);
}

}  // namespace

uint64_t Array::string_units() const {
  const DType& t = node->dtype;
  // UTF-16 text has no numpy string type: it stays code units.
  if (t.kind() != DTypeKind::kText || t.is_string() || t.text_length() != 1 ||
      node->shape.empty() || t.encoding() == TextEncoding::kUtf16) {
    return 0;
  }
  return static_cast<uint64_t>(node->shape.back());
}

std::vector<int64_t> Array::shape() const {
  if (string_units() == 0) return node->shape;
  return {node->shape.begin(), node->shape.end() - 1};
}

py::dtype Array::dtype(bool stored) const {
  const uint64_t units = string_units();
  if (units == 0) return stored ? stored_numpy_dtype(node->dtype) : numpy_dtype(node->dtype);
  const DType& t = node->dtype;
  const std::string n = std::to_string(std::max<uint64_t>(units, 1));
  if (t.encoding() == TextEncoding::kUtf32) {
    const bool big =
        stored ? t.byte_order() == ByteOrder::kBig : native_byte_order() == ByteOrder::kBig;
    return py::dtype((big ? ">U" : "<U") + n);
  }
  return py::dtype("S" + n);  // ASCII, and UTF-8's bytes as h5py gives them
}

py::object Array::read(py::handle index) const {
  // Integer arrays, lists and masks: numpy's advanced indexing (dudley/_fancy.py), which
  // reads the outer box of what it selects through read_outer.
  if (is_advanced_index(index)) {
    return py::module_::import("dudley._fancy").attr("read")(py::cast(*this), index);
  }
  // A field name of a compound: that field of the whole array, as numpy gives it.
  if (py::isinstance<py::str>(index)) {
    if (node->dtype.kind() != DTypeKind::kCompound) {
      throw py::index_error(readable(path) + " has no fields (a name indexes a compound array)");
    }
    return read_selection(py::ellipsis())[index];
  }
  return read_selection(index);
}

py::object Array::view() const {
  const model::Storage& st = node->storage;
  if (st.kind != model::Storage::Kind::kContiguous || !st.offset || st.mask || !node->data) {
    throw Error(ErrorCategory::kUsage,
                path + " is not stored as one uncompressed run of bytes: read it with a[...]");
  }
  py::object np = py::module_::import("numpy");
  return np.attr("memmap")(*filename, "dtype"_a = dtype(true), "mode"_a = "r",
                           "offset"_a = *st.offset, "shape"_a = py::tuple(py::cast(shape())));
}

void Array::check_readable() const {
  if (!node->error.empty()) {
    throw Error(node->error.category, node->error.message, node->error.location);
  }
}

py::object Array::read_selection(py::handle index) const {
  check_readable();
  if (!node->data) throw Error(ErrorCategory::kUsage, path + " holds no data to read");
  if (node->empty) {
    // No shape and no data: h5py's Empty, whatever the index (h5py ignores it too).
    return py::module_::import("dudley").attr("Empty")(numpy_dtype(node->dtype));
  }
  const uint64_t units = string_units();
  Selection s = selection_of(index, shape());
  if (units > 0) {
    // Strings: every code unit of each string selected.
    s.slab.start.push_back(0);
    s.slab.count.push_back(static_cast<int64_t>(units));
    if (!s.slab.stride.empty()) s.slab.stride.push_back(1);
    if (!s.slab.dropped.empty()) s.slab.dropped.push_back(false);
  }
  NDArray data;
  {
    py::gil_scoped_release unlocked;  // other Python threads run while the file is read
    data = node->data->read(s.slab);
  }
  if (holds_objects(node->dtype)) return objects_to_numpy(data, numpy_dtype(node->dtype), s.result);
  if (units == 0) return to_numpy(std::move(data), numpy_dtype(node->dtype), s.result);
  return to_numpy(std::move(data), dtype(false), s.result);
}

py::tuple Array::read_outer(const py::list& axes) const {
  check_readable();
  if (!node->data || node->empty)
    throw Error(ErrorCategory::kUsage, path + " holds no data to read");
  std::vector<model::OuterAxis> outer;
  for (py::handle item : axes) {
    model::OuterAxis a;
    if (py::isinstance<py::tuple>(item)) {
      const auto run = item.cast<std::tuple<int64_t, int64_t, int64_t>>();
      a.start = std::get<0>(run);
      a.count = std::get<1>(run);
      a.stride = std::get<2>(run);
    } else {
      a.coords = item.cast<std::vector<int64_t>>();
    }
    outer.push_back(std::move(a));
  }
  std::vector<int64_t> full = shape();
  const uint64_t units = string_units();
  if (units > 0) {  // every code unit of each string
    full.push_back(static_cast<int64_t>(units));
    outer.push_back({{}, 0, static_cast<int64_t>(units), 1});
  }
  model::OuterResult r;
  {
    py::gil_scoped_release unlocked;
    r = model::read_outer(*node->data, node->dtype.with_byte_order(native_byte_order()),
                          node->shape, outer);
  }
  std::vector<int64_t> result_shape = r.data.shape().dims();
  if (units > 0) result_shape.pop_back();
  py::list positions;
  for (size_t d = 0; d < axes.size(); ++d) {
    const std::vector<int64_t>& p = r.positions[d];
    positions.append(py::array_t<int64_t>(static_cast<py::ssize_t>(p.size()), p.data()));
  }
  py::object data = to_numpy(std::move(r.data),
                             units == 0 ? numpy_dtype(node->dtype) : dtype(false), result_shape);
  return py::make_tuple(data, positions, r.reads);
}

py::object wrap(const NodeRef& ref) {
  if (ref.node->kind == model::NodeKind::kArray) return py::cast(Array{ref});
  return py::cast(Group{ref});
}

namespace {

// A parameter's value as open() takes it: an integer, or text that is one ("3").
int64_t param_value(const py::handle& name, const py::handle& value) {
  const std::string text = py::str(value).cast<std::string>();
  int64_t out = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec != std::errc() || ptr != text.data() + text.size()) {
    throw Error(ErrorCategory::kUsage, "params[" + py::repr(name).cast<std::string>() +
                                           "]: expected an integer, not " +
                                           py::repr(value).cast<std::string>());
  }
  return out;
}

}  // namespace

io::S3Options s3_options(const py::dict& storage_options) {
  io::S3Options s3;
  auto text = [](const py::handle& v) { return py::str(v).cast<std::string>(); };
  std::vector<std::string> unknown;
  for (auto [k, v] : storage_options) {
    const std::string name = text(k);
    if (v.is_none()) continue;
    if (name == "key") {
      s3.key = text(v);
    } else if (name == "secret") {
      s3.secret = text(v);
    } else if (name == "token") {
      s3.token = text(v);
    } else if (name == "anon") {
      s3.anonymous = v.cast<bool>();
    } else if (name == "endpoint_url") {
      s3.endpoint_url = text(v);
    } else if (name == "profile") {
      s3.profile = text(v);
    } else if (name == "client_kwargs") {
      for (auto [ck, cv] : v.cast<py::dict>()) {
        const std::string inner = text(ck);
        if (inner == "endpoint_url") {
          s3.endpoint_url = text(cv);
        } else if (inner == "region_name") {
          s3.region = text(cv);
        } else {
          unknown.push_back("client_kwargs." + inner);
        }
      }
    } else {
      unknown.push_back(name);
    }
  }
  if (!unknown.empty()) {
    std::string names;
    for (const std::string& u : unknown) names += (names.empty() ? "" : ", ") + u;
    throw Error(ErrorCategory::kUsage,
                "storage_options not understood: " + names +
                    " (understood: key, secret, token, anon, endpoint_url, profile, "
                    "client_kwargs={endpoint_url, region_name})");
  }
  return s3;
}

OpenRequest open_request(const std::optional<std::string>& layout,
                         const std::optional<std::string>& order,
                         const std::optional<py::dict>& params,
                         const std::optional<std::string>& format,
                         const std::optional<py::dict>& storage_options) {
  OpenRequest request;
  request.format = format;
  if (storage_options) request.s3 = s3_options(*storage_options);
  if (!layout && !order && (!params || params->empty())) return request;
  layout::DudleyOpenOptions& dudley = request.dudley.emplace();
  if (layout) dudley.layout = *layout;
  // "<" and ">" as numpy spells them, too; anything else is refused, not ignored.
  if (order) dudley.bind.default_order = order_named(*order);
  if (params) {
    for (auto [k, v] : *params)
      dudley.bind.params[py::str(k).cast<std::string>()] = param_value(k, v);
  }
  return request;
}

py::tuple request_state(const OpenRequest& request) {
  py::object dudley = py::none();
  if (request.dudley) {
    const layout::DudleyOpenOptions& d = *request.dudley;
    py::dict params;
    for (const auto& [name, value] : d.bind.params) params[py::str(name)] = value;
    py::object order = py::none();
    if (d.bind.default_order)
      order = py::str(*d.bind.default_order == ByteOrder::kLittle ? "little" : "big");
    dudley = py::make_tuple(name_object(d.layout), order, params, d.bind.params_absent);
  }
  py::object s3 = py::none();
  if (request.s3) {
    const io::S3Options& o = *request.s3;
    py::dict d;
    auto put = [&d](const char* name, const std::optional<std::string>& v) {
      if (v) d[name] = *v;
    };
    put("key", o.key);
    put("secret", o.secret);
    put("token", o.token);
    put("endpoint_url", o.endpoint_url);
    put("profile", o.profile);
    if (o.region) d["client_kwargs"] = py::dict(py::arg("region_name") = *o.region);
    d["anon"] = o.anonymous;
    s3 = d;
  }
  return py::make_tuple(request.format ? py::object(py::str(*request.format)) : py::none(), dudley,
                        s3, py::cast(request.allow_outside));
}

OpenRequest request_from_state(const py::tuple& state) {
  OpenRequest request;
  if (!state[0].is_none()) request.format = state[0].cast<std::string>();
  if (!state[1].is_none()) {
    const auto d = state[1].cast<py::tuple>();
    layout::DudleyOpenOptions& dudley = request.dudley.emplace();
    dudley.layout = d[0].cast<std::string>();
    if (!d[1].is_none()) dudley.bind.default_order = order_named(d[1].cast<std::string>());
    for (auto [k, v] : d[2].cast<py::dict>())
      dudley.bind.params[k.cast<std::string>()] = v.cast<int64_t>();
    dudley.bind.params_absent = d[3].cast<bool>();
  }
  if (state.size() > 2 && !state[2].is_none()) request.s3 = s3_options(state[2].cast<py::dict>());
  if (state.size() > 3) request.allow_outside = state[3].cast<std::vector<std::string>>();
  return request;
}

File open_requested(const std::string& path, const OpenRequest& request) {
  OpenOptions options;
  if (request.format) options.format = *request.format;
  if (request.s3) options.store.s3 = *request.s3;
  options.allow_outside = request.allow_outside;
  if (request.dudley) {
    options.formats.set(*request.dudley);
    if (!request.format) options.format = "dudley";  // layouts, orders, parameters
  }
  std::shared_ptr<model::Tree> tree;
  if (request.dudley && is_layout_text(request.dudley->layout) &&
      (!request.format || *request.format == "dudley")) {
    // A layout given as text, as dudley.Writer takes it: bound with the options given.
    auto parsed = std::make_shared<const layout::Layout>(parse_layout_arg(request.dudley->layout));
    const layout::BindOptions bind = request.dudley->bind;
    py::gil_scoped_release unlocked;
    tree = std::make_shared<model::Tree>(layout::dudley_tree(parsed, io::open_file(path), bind));
    tree->format = "dudley";
  } else {
    py::gil_scoped_release unlocked;
    tree = std::make_shared<model::Tree>(dudley::open(path, options));
  }
  File f;
  f.tree = tree;
  f.node = tree->root.get();
  f.path = "/";
  f.filename = std::make_shared<const std::string>(path);
  f.opened_with = std::make_shared<const OpenRequest>(request);
  f.opened = path;
  f.format = tree->format;
  return f;
}

File open_path(const std::string& path, const std::optional<std::string>& layout,
               const std::optional<std::string>& order, const std::optional<py::dict>& params,
               const std::optional<std::string>& format,
               const std::optional<py::dict>& storage_options,
               const std::optional<std::vector<std::string>>& allow_outside) {
  OpenRequest request = open_request(layout, order, params, format, storage_options);
  if (allow_outside) request.allow_outside = *allow_outside;
  return open_requested(path, request);
}

namespace {

// An array's type and shape as Python sees them: the library's type notation, except that
// Dudley text shows as the strings it reads as ("|S5 (3,)", not "|S1 (3, 5)").
std::pair<std::string, std::string> type_and_shape(const NodeRef& r) {
  const Array a{r};
  const std::string type = a.string_units() > 0
                               ? py::str(a.dtype(true).attr("str")).cast<std::string>()
                               : r.node->dtype.to_string();
  return {type, py::str(py::tuple(py::cast(a.shape()))).cast<std::string>()};
}

}  // namespace

std::string short_repr(const NodeRef& r) {
  if (r.node->kind == model::NodeKind::kArray && !r.node->error.empty()) {
    return "<dudley.Array " + r.path + " unreadable: " + r.node->error.message + ">";
  }
  if (r.node->kind == model::NodeKind::kArray) {
    const auto [type, shape] = type_and_shape(r);
    return "<dudley.Array " + r.path + " " + type + " shape=" + shape + ">";
  }
  return "<dudley.Group " + r.path + " (" + std::to_string(member_names(r).size()) + " members)>";
}

py::tuple reduce_node(const NodeRef& ref, bool file) {
  py::object reopen_fn = py::module_::import("dudley").attr("_reopen");
  // Names as name_object gives them: a path that is not UTF-8 travels as bytes, which the
  // reopening's std::string arguments take unchanged.
  return py::make_tuple(reopen_fn,
                        py::make_tuple(name_object(*ref.filename), request_state(*ref.opened_with),
                                       file ? py::object(py::str("")) : name_object(ref.path)));
}

py::object reopen(const std::string& path, const py::tuple& state, const std::string& node_path) {
  File f = open_requested(path, request_from_state(state));
  if (node_path.empty()) return py::cast(f);  // the file itself
  return wrap(lookup(f, node_path));
}

std::string tree_repr(const NodeRef& r, size_t limit, bool html) {
  std::vector<std::string> lines;
  const std::string title = short_repr(r);
  // Depth first with an explicit stack (a file may nest deeper than the call stack).
  std::vector<std::pair<NodeRef, size_t>> todo;
  const std::vector<std::string> top = member_names(r);
  for (auto it = top.rbegin(); it != top.rend(); ++it) todo.emplace_back(lookup(r, *it), 1);
  bool cut = false;
  while (!todo.empty()) {
    if (lines.size() >= limit) {
      cut = true;
      break;
    }
    auto [at, depth] = todo.back();
    todo.pop_back();
    const std::string name = at.path.substr(at.path.rfind('/') + 1);
    std::string what = "/";
    if (at.node->kind == model::NodeKind::kArray) {
      const auto [type, shape] = type_and_shape(at);
      what = type;
      what += ' ';
      what += shape;
    }
    std::string line(depth * 2, ' ');
    line += name;
    line += ' ';
    line += what;
    lines.push_back(std::move(line));
    if (at.node->kind != model::NodeKind::kArray) {
      const std::vector<std::string> names = member_names(at);
      for (auto it = names.rbegin(); it != names.rend(); ++it) {
        todo.emplace_back(lookup(at, *it), depth + 1);
      }
    }
  }
  if (cut) lines.push_back("  ...");
  if (!html) {
    std::string out = title;
    for (const std::string& l : lines) out += "\n" + l;
    return out;
  }
  py::module_ escape = py::module_::import("html");
  std::string out = "<pre>" + escape.attr("escape")(readable_str(title)).cast<std::string>();
  for (const std::string& l : lines)
    out += "\n" + escape.attr("escape")(readable_str(l)).cast<std::string>();
  return out + "</pre>";
}

py::dict storage_dict(const model::Node& node) {
  const model::Storage& st = node.storage;
  py::dict out;
  using Kind = model::Storage::Kind;
  out["layout"] = st.kind == Kind::kContiguous ? "contiguous"
                  : st.kind == Kind::kChunked  ? "chunked"
                                               : "unknown";
  if (st.offset) out["offset"] = *st.offset;
  if (st.kind != Kind::kUnknown) out["size"] = st.size;
  out["byteorder"] = node.dtype.byte_order() == ByteOrder::kBig      ? "big"
                     : node.dtype.byte_order() == ByteOrder::kLittle ? "little"
                                                                     : "none";
  if (st.chunking) {
    out["chunk_shape"] = py::tuple(py::cast(st.chunking->chunk_shape));
    out["codecs"] = value_object(st.chunking->codecs);
    if (st.chunking->fill_value) {
      out["fill_value"] = value_object(*st.chunking->fill_value);
    }
  }
  if (!st.max_shape.empty()) {
    py::list max;
    for (int64_t m : st.max_shape) max.append(m < 0 ? py::object(py::none()) : py::cast(m));
    out["max_shape"] = py::tuple(max);
  }
  return out;
}

}  // namespace dudley::python
