#include "family.hpp"

#include "dudley/formats/dudley.hpp"
#include "dudley/io/file_glob.hpp"
#include "dudley/layout/family/family_reader.hpp"
#include "layout_tools.hpp"
#include "numpy_dtype.hpp"
#include "object_elements.hpp"
#include "selection.hpp"

namespace dudley::python {

File Family::open(size_t i) const {
  return open_requested(members.at(i).path, members[i].request);
}

std::optional<py::array> Family::read_through_layout(const std::string& path,
                                                     py::handle index) const {
  if (members.empty()) return std::nullopt;
  // Each member's options: one layout for all, its own parameters.
  std::string layout_path;
  std::vector<layout::BindOptions> binds;
  binds.reserve(members.size());
  for (const FamilyFile& m : members) {
    const OpenRequest& r = m.request;
    if ((r.format && *r.format != "dudley") || !r.dudley || r.dudley->layout.empty() ||
        (!layout_path.empty() && r.dudley->layout != layout_path) ||
        (!binds.empty() && r.dudley->bind.params_absent != binds.front().params_absent)) {
      return std::nullopt;
    }
    layout_path = r.dudley->layout;
    binds.push_back(r.dudley->bind);
  }
  auto layout = std::make_shared<const layout::Layout>(parse_layout_arg(layout_path));
  const layout::NodeId target = layout->find(path.starts_with("/") ? path : "/" + path);
  if (target == layout::kNone) return std::nullopt;
  std::vector<layout::FamilyMemberFile> files;
  files.reserve(members.size());
  for (size_t i = 0; i < members.size(); ++i) files.push_back({members[i].path, binds[i]});
  const layout::FamilyReader family(std::move(layout), std::move(files));
  // The first member says the shape and type every member must have.
  const std::optional<layout::FamilyItem> item = family.item(target);
  if (!item) return std::nullopt;
  const DType& type = item->dtype;
  if (type.kind() == DTypeKind::kText || type.kind() == DTypeKind::kPointer || holds_objects(type))
    return std::nullopt;
  py::dtype element;
  try {
    element = numpy_dtype(type);
  } catch (const Error&) {
    return std::nullopt;
  }
  const Selection selection = selection_of(index, item->shape);
  std::vector<int64_t> shape{static_cast<int64_t>(members.size())};
  shape.insert(shape.end(), selection.result.begin(), selection.result.end());
  py::array out(element, shape);
  std::optional<size_t> differing;
  {
    py::gil_scoped_release unlocked;
    differing = family.read_rows(target, *item, selection.slab, out.mutable_data());
  }
  if (differing) return std::nullopt;  // members differ: a list, read one by one
  return out;
}

py::object Family::read(const std::string& path, py::handle index, bool stack) const {
  if (stack) {
    if (std::optional<py::array> stacked = read_through_layout(path, index)) return *stacked;
  }
  py::list parts;
  for (size_t i = 0; i < members.size(); ++i) {
    File f = open(i);
    py::object node = wrap(lookup(f, path));
    parts.append(node.attr("__getitem__")(index));
  }
  if (!stack || parts.empty()) return parts;
  py::object first = parts[0];
  for (py::handle p : parts) {
    if (!p.attr("shape").equal(first.attr("shape")) ||
        !p.attr("dtype").equal(first.attr("dtype"))) {
      return parts;
    }
  }
  return py::module_::import("numpy").attr("stack")(parts);
}

Family open_family(const std::string& pattern, const std::optional<std::string>& layout,
                   const std::optional<std::string>& order, const std::optional<py::dict>& params,
                   const std::optional<std::string>& format) {
  const OpenRequest given = open_request(layout, order, params, format);
  Family fam;
  if (auto members = layout::family_index_members(pattern)) {
    for (layout::DudleyFamilyMember& m : *members) {
      // The index's options, but what the caller said wins.
      OpenRequest request{format, std::move(m.options), std::nullopt};
      if (given.dudley) {
        layout::DudleyOpenOptions& own = *request.dudley;
        if (layout) own.layout = given.dudley->layout;
        if (order) own.bind.default_order = given.dudley->bind.default_order;
        for (const auto& [name, value] : given.dudley->bind.params) own.bind.params[name] = value;
      }
      fam.members.push_back({std::move(m.path), std::move(request)});
    }
  } else {
    for (const std::string& file : io::glob_files(pattern)) fam.members.push_back({file, given});
  }
  return fam;
}

}  // namespace dudley::python
