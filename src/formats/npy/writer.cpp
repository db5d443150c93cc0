// Writing the one array of a tree as an .npy file.
#include <fmt/format.h>

#include "dudley/core/shape.hpp"
#include "dudley/formats/npy.hpp"
#include "dudley/io/atomic_file.hpp"
#include "dudley/io/disk_room.hpp"
#include "dudley/model/text_strings.hpp"
#include "metadata.hpp"

namespace dudley::npy {
namespace {

// The one array of a tree a .npy file can hold, and its path: the root, an item of the
// root list, or the one array of nested groups holding nothing else (what
// `convert SRC x.npy /grid/x` leaves of a tree).
std::pair<const model::Node*, std::string> only_array(const model::Tree& tree) {
  if (tree.root->kind == model::NodeKind::kArray) return {tree.root.get(), "/"};
  const model::Node* found = nullptr;
  std::string path;
  size_t count = 0;
  const model::Node* group = tree.root.get();
  std::string prefix;
  // Down a chain of groups each holding one group, then the array.
  while (group && group->kind == model::NodeKind::kGroup && group->children.size() == 1 &&
         group->children.front()->kind == model::NodeKind::kGroup && !group->lazy) {
    group = group->children.front().get();
    prefix += "/" + group->name;
  }
  model::for_each_child(*group, [&](uint64_t i, const model::Node& c) {
    if (c.kind == model::NodeKind::kArray) {
      // An item of a list made on demand lives only during this call: the tree's own copy
      // (Tree::find keeps the items it builds) is the one to hold on to.
      path = prefix + "/" + (group->kind == model::NodeKind::kList ? std::to_string(i) : c.name);
      found = group->lazy ? tree.find(path) : &c;
      ++count;
    } else {
      count += 2;  // groups and lists: more than one array, or none a .npy can hold
    }
    return count < 2;
  });
  if (count != 1 || !found)
    throw Error(ErrorCategory::kUsage,
                "an .npy file holds one array; the source holds other items (name the array: "
                "dudley convert SRC x.npy /path/to/array, or choose a format with groups)");
  return {found, path};
}

}  // namespace

SaveReport write_npy(const model::Tree& tree, const std::string& path, const NpySaveOptions&,
                     const SaveOptions& common) {
  const auto [found, array_path] = only_array(tree);
  // Text units along the last dimension (a Dudley U4[2, 3]): strings, as numpy writes <U3.
  std::unique_ptr<model::Node> joined;
  if (model::has_joined_units(*found)) joined = model::as_joined_strings_node(*found);
  // Variable-length strings, which .npy holds only as objects (pickles), as fixed-length
  // ones as long as the longest, as numpy.asarray makes them.
  std::vector<std::string> notes;
  if (found->error.empty() && model::is_text_strings(found->dtype)) {
    joined = model::as_fixed_text_node(*found);
    if (joined) {
      notes.push_back(fmt::format("{}: variable-length strings are written as {}", array_path,
                                  joined->dtype.to_string()));
    }
  }
  const model::Node& a = joined ? *joined : *found;
  if (!a.error.empty()) throw Error(a.error.category, a.error.message, a.error.location);
  const DType type = a.dtype.kind() == DTypeKind::kEnum ? a.dtype.base() : a.dtype;
  // Sources read in native byte order, structures' fields included.
  const DType native = type.with_byte_order(native_byte_order());
  const std::string header = make_header(native, a.shape);
  // An .npy file is its array's bytes and nothing else.
  LossLog losses(tree, common.lossy, ".npy", path);
  auto lose_attributes = [&](const model::Node& n, const std::string& where) {
    for (const auto& [name, value] : n.attributes) {
      (void)value;
      if (where == "/" && model::well_known::is_bookkeeping(tree.format, name)) continue;
      losses.lose(
          fmt::format("{}@{}: attribute not written (an .npy file holds an array "
                      "only)",
                      where, name));
    }
  };
  lose_attributes(*tree.root, "/");
  if (&a != tree.root.get()) lose_attributes(a, array_path);
  if (a.storage.mask) losses.lose(fmt::format("{}: its mask is not written", array_path));
  losses.check();
  const uint64_t total = Shape(a.shape).byte_size(type.size()).value_or(UINT64_MAX);
  io::check_room(path, checked_add(total, header.size()).value_or(UINT64_MAX));
  io::AtomicFile file(path);
  file.write_at(0, header.data(), header.size());
  uint64_t at = header.size();
  std::vector<std::byte> buffer;
  model::for_each_piece(a.shape, type.size(), a.data->read_unit(), model::kPieceBytes,
                        [&](const model::Piece& p) {
                          buffer.resize(p.bytes);
                          a.data->read_into(p.slab, buffer.data());
                          file.write_at(at, buffer.data(), p.bytes);
                          at += p.bytes;
                          if (common.progress) common.progress(at - header.size(), total);
                          return true;
                        });
  file.commit(common.fsync);
  SaveReport report;
  report.lost = losses.take();
  report.notes = std::move(notes);
  if (tree.root->kind != model::NodeKind::kArray)
    report.notes.push_back(fmt::format(
        "only the array {} is written (.npy holds one array, without a name)", array_path));
  report.files.push_back({path, "data", at});
  return report;
}

}  // namespace dudley::npy
