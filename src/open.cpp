#include "dudley/open.hpp"

#include <fmt/format.h>

#include <string>
#include <utility>
#include <vector>

#include "dudley/core/error.hpp"
#include "save_destination.hpp"
#include "save_to_store.hpp"

namespace dudley {

model::Tree open(const std::string& path, const OpenOptions& options) {
  return FormatRegistry::builtin().for_reading(path, options.format).open(path, options);
}

namespace {

// Links a format without links carries as copies of what they point to (HDF5's soft,
// external and hard links to arrays), and empty (null) arrays it carries as arrays of shape
// [0], noted by path; links it could not follow are the writer's to refuse, as any
// unreadable item.
void note_links_copied(const model::Node& root, SaveReport& report) {
  // An explicit stack: groups may nest deeper than the call stack could follow.
  std::vector<std::pair<const model::Node*, std::string>> todo{{&root, ""}};
  while (!todo.empty()) {
    const model::Node* node = todo.back().first;
    const std::string path = std::move(todo.back().second);
    todo.pop_back();
    model::for_each_child(*node, [&](uint64_t, const model::Node& c) {
      const std::string full = path + "/" + c.name;
      if (c.empty && c.error.empty() && !c.link) {
        report.notes.push_back(
            fmt::format("{}: an empty (null) dataspace; written as an array of shape [0]", full));
      }
      if (c.link && c.error.empty()) {
        report.notes.push_back(
            fmt::format("{}: {}; written as a copy of it", full, c.link->describe()));
      }
      if (c.kind == model::NodeKind::kGroup) todo.emplace_back(&c, full);
      return true;
    });
  }
}

}  // namespace

SaveReport save(const model::Tree& tree, const std::string& path, const SaveOptions& options) {
  const Format& format = FormatRegistry::builtin().for_writing(path, options.format);
  if (io::is_url(path) && !io::is_s3_url(path)) {
    throw Error(ErrorCategory::kUsage,
                "a web server is read only: write to a file, a directory or s3://BUCKET/NAME",
                Location::file(path));
  }
  if (!io::is_s3_url(path)) check_replaceable(format, path, options);
  SaveReport report = io::is_s3_url(path) ? save_to_store(format, tree, path, options)
                                          : format.save(tree, path, options);
  // Only HDF5 files have links and empty arrays, and only HDF5 keeps them as they are.
  if (tree.format == "hdf5" && format.name() != "hdf5" && tree.root)
    note_links_copied(*tree.root, report);
  return report;
}

}  // namespace dudley
