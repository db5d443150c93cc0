// Reading a classic file: its header made into a Dudley layout, bound over the file, and the
// bound tree given the names, attributes and dimensions the header says.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <string_view>
#include <unordered_map>

#include "datatype.hpp"
#include "dudley/formats/netcdf.hpp"
#include "dudley/io/byte_source.hpp"
#include "dudley/layout/bind/to_model.hpp"
#include "dudley/layout/syntax/parser.hpp"
#include "dudley/model/member_names.hpp"
#include "metadata.hpp"

namespace dudley::netcdf {
namespace {

using model::Node;
using model::Value;

// `packed` (C-contiguous) as elements of `dtype` in `shape`, the same bytes: a char
// variable's characters, which the layout holds as text of the last dimension's length (a
// record's `S1[len]` field is strings of len characters; a scalar char is `S1[1]`).
NDArray as_chars(NDArray packed, const DType& dtype, std::vector<int64_t> shape) {
  const Shape view(std::move(shape));
  if (packed.dtype() == dtype && packed.shape() == view) return packed;
  auto owner = std::make_shared<NDArray>(std::move(packed));
  if (!owner->is_c_contiguous() || owner->byte_size() != *view.element_count() * dtype.size()) {
    throw Error(ErrorCategory::kData, "netCDF char variable: its bytes do not fill its shape");
  }
  return NDArray::borrow(owner->mutable_data(), dtype, view, {}, owner);
}

// A record variable: one field of the records' struct array, across the records, in
// `shape` (the record count first); a char variable's as characters of `dtype`.
class FieldSource final : public model::ArraySource {
 public:
  FieldSource(std::shared_ptr<model::ArraySource> records, std::string field, DType dtype,
              std::vector<int64_t> shape)
      : records_(std::move(records)),
        field_(std::move(field)),
        dtype_(std::move(dtype)),
        shape_(std::move(shape)) {}

  NDArray read() override { return read(Hyperslab::all(shape_)); }

  NDArray read(const Hyperslab& slab) override {
    slab.check_fits(shape_);
    // The records the first dimension selects, then the field, then the rest of the slab.
    Hyperslab rows = Hyperslab::all({shape_[0]});
    rows.start[0] = slab.start[0];
    rows.count[0] = slab.count[0];
    if (!slab.stride.empty()) rows.stride = {slab.stride[0]};
    NDArray picked = records_->read(rows).field(field_);
    if (dtype_.kind() == DTypeKind::kText) {
      std::vector<int64_t> picked_shape = shape_;
      picked_shape[0] = rows.count[0];
      picked = as_chars(std::move(picked), dtype_, std::move(picked_shape));
    }
    Hyperslab rest = slab;
    rest.start[0] = 0;
    if (!rest.stride.empty()) rest.stride[0] = 1;
    return picked.select(rest).to_native();
  }

 private:
  std::shared_ptr<model::ArraySource> records_;
  std::string field_;
  DType dtype_;
  std::vector<int64_t> shape_;
};

// A scalar char variable: the one character the layout holds as text `S1[1]`, as a
// rank-0 array of S1 (as netCDF-C and netCDF4-python have it).
class ScalarCharSource final : public model::ArraySource {
 public:
  ScalarCharSource(std::shared_ptr<model::ArraySource> text, DType dtype)
      : text_(std::move(text)), dtype_(std::move(dtype)) {}

  NDArray read() override { return as_chars(text_->read().to_native(), dtype_, {}); }

  NDArray read(const Hyperslab& slab) override {
    slab.check_fits({});
    return read();
  }

 private:
  std::shared_ptr<model::ArraySource> text_;
  DType dtype_;
};

// An attribute's value: text for char, else a one-dimensional typed array (native order).
model::AttributeValue attribute_value(const NcAttribute& a) {
  if (a.type == NcType::kChar) {
    std::string text = a.bytes;
    while (!text.empty() && text.back() == '\0') text.pop_back();  // C writers' terminator
    return Value(std::move(text));
  }
  const DType stored = model_type(a.type);
  NDArray bytes = NDArray::borrow(const_cast<char*>(a.bytes.data()), stored,
                                  Shape({static_cast<int64_t>(a.count)}));
  return bytes.to_native();
}

void set_attributes(Node& node, const std::vector<NcAttribute>& attributes, bool variable) {
  for (const NcAttribute& a : attributes) {
    model::AttributeValue v = attribute_value(a);
    if (variable && a.name == "_FillValue") {
      if (const NDArray* fill = std::get_if<NDArray>(&v); fill && fill->element_count() == 1) {
        node.attributes.set(
            model::well_known::kFillValue,
            NDArray::borrow(const_cast<void*>(fill->data()), fill->dtype(),
                            Shape(std::vector<int64_t>{}), {}, std::make_shared<NDArray>(*fill)));
      }
    }
    if (a.type == NcType::kChar) {  // text that netCDF-4 writes as NC_CHAR again
      node.attributes.set_text(a.name, std::get<Value>(v).as<std::string>(),
                               DType::string(TextEncoding::kAscii, std::max<uint64_t>(a.count, 1)));
      continue;
    }
    node.attributes.set(a.name, std::move(v));
  }
}

// The tree bound from the layout made of `h` describes exactly h's variables: the same
// arrays, at the same addresses, of the same sizes and shapes, and nothing else. The layout
// is made from the header's numbers and respelled names only, so this holds by
// construction; it is checked because a layout is code to the binder, and a name that
// reached it as text could have declared arrays of its own.
// The members of the bound root by name: a header of 20,000 variables looks each one up
// (Node::member searches, which would make it quadratic).
std::unordered_map<std::string_view, const Node*> members_by_name(const model::Tree& bound) {
  std::unordered_map<std::string_view, const Node*> out;
  out.reserve(bound.root->children.size());
  for (const auto& c : bound.root->children) out.emplace(c->name, c.get());
  return out;
}

const Node* member_of(const std::unordered_map<std::string_view, const Node*>& members,
                      std::string_view name) {
  auto it = members.find(name);
  return it == members.end() ? nullptr : it->second;
}

void check_bound_layout(const Header& h, const std::vector<std::string>& names,
                        const model::Tree& bound,
                        const std::unordered_map<std::string_view, const Node*>& members,
                        const std::string& path) {
  auto wrong = [&](const std::string& what) {
    throw Error(ErrorCategory::kData,
                fmt::format("netCDF header: the layout made of it does not describe it ({})", what),
                Location::file(path));
  };
  std::set<std::string> expected;
  bool records = false;
  for (size_t i = 0; i < h.vars.size(); ++i) {
    const NcVariable& v = h.vars[i];
    if (v.record) {
      records = true;
      continue;
    }
    expected.insert(names[i]);
    const Node* laid = member_of(members, names[i]);
    if (!laid) wrong(fmt::format("variable {} is missing", model::quoted_name(v.name)));
    std::vector<int64_t> shape;
    for (uint64_t d : v.dims) shape.push_back(static_cast<int64_t>(h.dims[d].length));
    if (shape.empty() && v.type == NcType::kChar) shape = {1};  // laid out as S1[1]
    if (laid->error.empty() && (laid->shape != shape || laid->dtype.size() != type_size(v.type) ||
                                (v.vsize > 0 && laid->storage.offset != v.begin))) {
      wrong(fmt::format("variable {} is laid out otherwise", model::quoted_name(v.name)));
    }
  }
  if (records) expected.insert("records");
  for (const auto& c : bound.root->children) {
    if (!expected.erase(c->name)) wrong(fmt::format("it declares {}", model::quoted_name(c->name)));
  }
  if (!expected.empty()) wrong(fmt::format("{} is missing", *expected.begin()));
}

}  // namespace

Header read_header(const io::ByteSource& source, const std::string& path) {
  const uint64_t size = source.size();
  uint64_t want = std::min<uint64_t>(size, uint64_t{64} * 1024);
  for (;;) {
    std::string bytes(want, '\0');
    source.read(0, want, bytes.data(), "the netCDF header");
    try {
      return parse_header(bytes, size, path);
    } catch (const NeedMore&) {
      if (want >= kMaxHeaderBytes) {
        throw Error(ErrorCategory::kLimit,
                    fmt::format("netCDF header: longer than {} bytes; this reader takes "
                                "headers of at most that",
                                kMaxHeaderBytes),
                    Location::binary(path, 0));
      }
      // The bytes exist (the file holds them), up to the bound.
      want = std::min({size, want * 4, kMaxHeaderBytes});
    }
  }
}

model::Tree open_netcdf(const std::string& path, const NetcdfOpenOptions&,
                        const OpenOptions& common) {
  std::shared_ptr<io::ByteSource> source = io::open_source(path, common.store);
  const Header h = read_header(*source, path);
  const std::string text = layout_text(h);
  auto layout = std::make_shared<const layout::Layout>(
      layout::layout_from_text(text, path + "#netcdf-layout"));
  model::Tree bound = layout::dudley_tree(layout, source);
  const std::vector<std::string> names = layout_names(h);
  const auto members = members_by_name(bound);
  check_bound_layout(h, names, bound, members, path);

  model::Tree tree;
  tree.format = "netcdf3";
  tree.netcdf_classic = true;
  tree.root = std::make_unique<Node>();
  tree.root->kind = model::NodeKind::kGroup;
  set_attributes(*tree.root, h.attributes, false);
  for (const NcDimension& d : h.dims) {
    model::Parameter p;
    p.name = d.name;
    p.value = static_cast<int64_t>(d.length == 0 ? h.numrecs : d.length);
    p.doc = d.length == 0 ? "the unlimited (record) dimension" : "";
    tree.root->params.push_back(std::move(p));
  }
  // Coordinate variables: named as their only dimension.
  std::vector<std::string> coordinate(h.dims.size());
  for (const NcVariable& v : h.vars)
    if (v.dims.size() == 1 && h.dims[v.dims[0]].name == v.name)
      coordinate[v.dims[0]] = "/" + v.name;

  const Node* records = member_of(members, "records");
  for (size_t i = 0; i < h.vars.size(); ++i) {
    const NcVariable& v = h.vars[i];
    std::unique_ptr<Node> node;
    if (!v.record) {
      const Node* laid = member_of(members, names[i]);
      node = std::make_unique<Node>();
      if (laid) {
        node->dtype = laid->dtype;
        node->shape = laid->shape;
        node->storage = laid->storage;
        node->data = laid->data;
        node->error = laid->error;
        if (v.type == NcType::kChar && v.dims.empty()) {
          node->shape.clear();
          if (node->data) node->data = std::make_shared<ScalarCharSource>(node->data, node->dtype);
        }
      } else {  // never for a layout made from this header; an error rather than no data
        node->error = {ErrorCategory::kData,
                       fmt::format("variable '{}' is missing from the layout made for it", v.name),
                       Location::file(path)};
      }
    } else {
      node = std::make_unique<Node>();
      node->kind = model::NodeKind::kArray;
      node->dtype = model_type(v.type);
      node->shape.push_back(static_cast<int64_t>(h.numrecs));
      for (size_t k = 1; k < v.dims.size(); ++k)
        node->shape.push_back(static_cast<int64_t>(h.dims[v.dims[k]].length));
      node->storage.order = ByteOrder::kBig;
      node->storage.max_shape = node->shape;
      node->storage.max_shape[0] = -1;  // unlimited
      if (records && records->error.empty() && records->data) {
        node->data =
            std::make_shared<FieldSource>(records->data, names[i], node->dtype, node->shape);
      } else {
        node->error = records ? records->error
                              : model::NodeError{ErrorCategory::kData, "the records cannot be read",
                                                 Location::file(path)};
      }
    }
    node->kind = model::NodeKind::kArray;
    node->name = v.name;
    set_attributes(*node, v.attributes, true);
    model::ValueList dims, coords;
    for (uint64_t d : v.dims) {
      dims.emplace_back(h.dims[d].name);
      coords.push_back(coordinate[d].empty() ? Value() : Value(coordinate[d]));
    }
    if (!dims.empty()) {
      node->attributes.set(model::well_known::kDimensionNames, Value(std::move(dims)));
      node->attributes.set(model::well_known::kDimensionCoordinates, Value(std::move(coords)));
    }
    tree.root->children.push_back(std::move(node));
  }
  return tree;
}

std::optional<std::string> netcdf_layout_text(const std::string& path) {
  std::shared_ptr<io::ByteSource> source = io::open_file(path);
  char head[4] = {};
  if (source->size() < 4) return std::nullopt;
  source->read(0, 4, head);
  if (std::memcmp(head, "CDF", 3) != 0) return std::nullopt;
  return layout_text(read_header(*source, path));
}

}  // namespace dudley::netcdf
