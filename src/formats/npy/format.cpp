// The "npy" format: reading an .npy file as a one-array tree, writing one array as .npy.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "dudley/formats/npy/npy.hpp"
#include "dudley/io/atomic_file.hpp"
#include "dudley/io/byte_source.hpp"
#include "dudley/io/disk_room.hpp"
#include "dudley/model/contiguous_source.hpp"
#include "dudley/model/text_strings.hpp"

namespace dudley::npy {
namespace {

// A Fortran-ordered array: read whole and laid out in C order (as numpy's ascontiguousarray).
class FortranSource final : public model::ArraySource {
 public:
  FortranSource(std::shared_ptr<const io::ByteSource> bytes, uint64_t offset, DType stored,
                std::vector<int64_t> shape)
      : bytes_(std::move(bytes)),
        offset_(offset),
        stored_(std::move(stored)),
        shape_(std::move(shape)) {}
  NDArray read() override {
    const uint64_t size = *Shape(shape_).byte_size(stored_.size());
    auto buffer = std::make_shared<std::vector<std::byte>>(size);
    bytes_->read(offset_, size, buffer->data(), "the array");
    std::vector<int64_t> strides(shape_.size());
    int64_t stride = static_cast<int64_t>(stored_.size());
    for (size_t d = 0; d < shape_.size(); ++d) {
      strides[d] = stride;
      stride *= shape_[d];
    }
    return NDArray::borrow(buffer->data(), stored_, Shape(shape_), strides, buffer).to_native();
  }
  NDArray read(const Hyperslab& slab) override {
    slab.check_fits(shape_);
    return read().select(slab).to_native();
  }

 private:
  std::shared_ptr<const io::ByteSource> bytes_;
  uint64_t offset_;
  DType stored_;
  std::vector<int64_t> shape_;
};

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

class NpyFormat final : public BasicFormat {
 public:
  NpyFormat() : BasicFormat("npy", "numpy .npy: one array after a small header", {".npy"}) {}

  bool sniff(const std::string&, std::span<const std::byte> head) const override {
    return head.size() >= 6 && std::memcmp(head.data(), "\x93NUMPY", 6) == 0;
  }

  model::Tree open(const std::string& path, const OpenOptions&) const override {
    return open_npy(path);
  }

  bool can_save() const override { return true; }
  SaveReport save(const model::Tree& tree, const std::string& path,
                  const SaveOptions& options) const override {
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
    LossLog losses(tree, options.lossy, ".npy", path);
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
                            if (options.progress) options.progress(at - header.size(), total);
                            return true;
                          });
    file.commit(options.fsync);
    SaveReport report;
    report.lost = losses.take();
    report.notes = std::move(notes);
    if (tree.root->kind != model::NodeKind::kArray)
      report.notes.push_back(fmt::format(
          "only the array {} is written (.npy holds one array, without a name)", array_path));
    report.files.push_back({path, "data", at});
    return report;
  }
};

}  // namespace

model::Tree open_npy(const std::string& path) {
  std::shared_ptr<io::ByteSource> bytes = io::open_file(path);
  std::string head(static_cast<size_t>(std::min<uint64_t>(bytes->size(), 64 << 10)), '\0');
  bytes->read(0, head.size(), head.data(), "the header");
  Header h;
  try {
    h = parse_header(head, path);
  } catch (const Error& e) {
    // A header longer than the first 64 KiB (format 2.0 allows it): read all of it.
    if (head.size() == bytes->size() || e.message().find("runs past") == std::string::npos) throw;
    head.resize(static_cast<size_t>(std::min<uint64_t>(bytes->size(), (1 << 20) + 12)));
    bytes->read(0, head.size(), head.data(), "the header");
    h = parse_header(head, path);
  }
  const std::optional<uint64_t> size = Shape(h.shape).byte_size(h.dtype.size());
  if (!size || !bytes->contains(h.data_offset, *size))
    throw Error(
        ErrorCategory::kData,
        fmt::format("the array of shape [{}] ({} bytes) runs past the file's end ({} bytes)",
                    fmt::join(h.shape, ", "), size ? fmt::format("{}", *size) : "2^64+",
                    bytes->size()),
        Location::binary(path, h.data_offset));
  model::Tree tree;
  tree.format = "npy";
  tree.root = std::make_unique<model::Node>();
  model::Node& a = *tree.root;
  a.kind = model::NodeKind::kArray;
  a.dtype = h.dtype;
  a.shape = h.shape;
  if (h.fortran_order && h.shape.size() > 1) {
    a.data = std::make_shared<FortranSource>(bytes, h.data_offset, h.dtype, h.shape);
  } else {
    a.storage.kind = model::Storage::Kind::kContiguous;
    a.storage.offset = h.data_offset;
    a.storage.size = *size;
    a.storage.order = h.dtype.byte_order();
    a.data = model::contiguous_source(bytes, h.data_offset, h.dtype, h.shape);
  }
  return tree;
}

void register_npy_format(FormatRegistry& registry) {
  registry.add(std::make_unique<NpyFormat>());
}

}  // namespace dudley::npy
