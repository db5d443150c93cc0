#include "family.hpp"

#include "dudley/formats/dudley/bind/binder.hpp"
#include "dudley/formats/dudley/bind/reader.hpp"
#include "dudley/formats/dudley/format.hpp"
#include "dudley/formats/dudley/syntax/parser.hpp"
#include "dudley/io/byte_source.hpp"
#include "dudley/io/file_glob.hpp"
#include "layout_tools.hpp"
#include "numpy_dtype.hpp"
#include "object_elements.hpp"
#include "selection.hpp"

namespace dudley::python {

File Family::open(size_t i) const {
  return open_given(members.at(i).path, members[i].given, format);
}

std::optional<py::array> Family::read_through_layout(const std::string& path,
                                                     py::handle index) const {
  if ((format && *format != "dudley") || members.empty()) return std::nullopt;
  const Format* dudley = FormatRegistry::builtin().find("dudley");
  if (dudley == nullptr) return std::nullopt;
  // Each member's options as the format reads them: one layout for all, its own parameters.
  std::string layout_path;
  std::vector<layout::BindOptions> binds;
  binds.reserve(members.size());
  for (const FamilyMember& m : members) {
    OpenOptions options;
    dudley->apply_open_options(m.given, options);
    const auto& own = options.formats.get<layout::DudleyOpenOptions>();
    if (own.layout.empty() || (!layout_path.empty() && own.layout != layout_path) ||
        (!binds.empty() && own.bind.params_absent != binds.front().params_absent)) {
      return std::nullopt;
    }
    layout_path = own.layout;
    binds.push_back(own.bind);
  }
  const layout::Layout layout = parse_layout_arg(layout_path);  // a path, or text
  const layout::NodeId target = layout.find(path.starts_with("/") ? path : "/" + path);
  if (target == layout::kNone || layout.nodes[target].kind != layout::NodeKind::kData) {
    return std::nullopt;
  }
  const layout::BindPlan plan(layout, binds.front().params_absent);
  // The first member says the shape and type every member must have.
  auto source = io::open_file(members[0].path);
  layout::Binding first(plan, source, binds[0]);
  if (first.has_varying_instances(target)) return std::nullopt;
  const layout::BoundArray shape_of = first.array(target);
  const DType& type = shape_of.dtype;
  if (type.kind() == DTypeKind::kText || type.kind() == DTypeKind::kPointer || holds_objects(type))
    return std::nullopt;
  py::dtype element;
  try {
    element = numpy_dtype(type);
  } catch (const Error&) {
    return std::nullopt;
  }
  const Selection selection = selection_of(index, shape_of.shape);
  std::vector<int64_t> shape{static_cast<int64_t>(members.size())};
  shape.insert(shape.end(), selection.result.begin(), selection.result.end());
  py::array out(element, shape);
  const uint64_t row = static_cast<uint64_t>(out.nbytes()) / members.size();
  auto* bytes = static_cast<unsigned char*>(out.mutable_data());
  bool same = true;
  {
    py::gil_scoped_release unlocked;
    read_bound_into(*source, shape_of, selection.slab, bytes);  // the first, bound above
    for (size_t i = 1; i < members.size() && same; ++i) {
      source = io::open_file(members[i].path);
      layout::Binding binding(plan, source, binds[i]);
      const layout::BoundArray at = binding.locate(target);
      same = at.shape == shape_of.shape && at.dtype == type;
      if (same) read_bound_into(*source, at, selection.slab, bytes + i * row);
    }
  }
  if (!same) return std::nullopt;
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
  const GivenOptions given = given_options(layout, order, params);
  Family fam;
  fam.format = format;
  if (auto members = FormatRegistry::builtin().family_index(pattern)) {
    for (FamilyMember& m : *members) {
      for (const auto& [name, values] : given) {  // what the caller said wins
        if (name == "--param") {
          m.given[name].insert(m.given[name].end(), values.begin(), values.end());
        } else {
          m.given[name] = values;
        }
      }
      fam.members.push_back(std::move(m));
    }
  } else {
    for (const std::string& file : io::glob_files(pattern)) fam.members.push_back({file, given});
  }
  return fam;
}

}  // namespace dudley::python
