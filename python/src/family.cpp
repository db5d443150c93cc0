#include "family.hpp"

#include "dudley/io/file_glob.hpp"

namespace dudley::python {

File Family::open(size_t i) const {
  return open_given(members.at(i).path, members[i].given, format);
}

py::object Family::read(const std::string& path, py::handle index, bool stack) const {
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
