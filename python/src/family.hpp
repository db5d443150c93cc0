// File families from Python: a glob's matches or a family index's members, opened on use.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "nodes.hpp"

namespace dudley::python {

/// One member of a family: its file and how it is opened.
struct FamilyFile {
  std::string path;
  OpenRequest request;
};

/// The members of a family, with what reading each needs (a layout, parameters).
struct Family {
  std::vector<FamilyFile> members;

  /// Member `i`, opened.
  File open(size_t i) const;
  /// Array `path` (with numpy index `index`) of every member: stacked along a new first axis
  /// when every member gives one shape and dtype (and `stack`), else a list.
  py::object read(const std::string& path, py::handle index, bool stack) const;

 private:
  /// read() of a family of Dudley data sharing one layout, stacked: the layout parsed and
  /// planned once, each member bound and its selection read straight into its row of the
  /// result (no tree per member). nullopt when the family is not such a one, or its
  /// members' arrays differ in shape or type (read() then takes the general way).
  std::optional<py::array> read_through_layout(const std::string& path, py::handle index) const;
};

/// dudley.open_family: a glob pattern (name order) or a family index; the other arguments
/// as open() takes them, for every member (they win over what an index says).
Family open_family(const std::string& pattern, const std::optional<std::string>& layout,
                   const std::optional<std::string>& order, const std::optional<py::dict>& params,
                   const std::optional<std::string>& format);

}  // namespace dudley::python
