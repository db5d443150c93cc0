// `dudley dump --binary raw|npy ITEM`: one array's values as bytes on stdout, for a pipe
// into another program (`| python -c 'np.load(sys.stdin.buffer)'`) or a file. Native byte
// order, C order; npy puts numpy's header first. With --family the members' arrays are
// stacked: rows of one shape, member after member, read in batches through a layout.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/dumper.hpp"
#include "cli/failure.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/shape.hpp"
#include "dudley/formats/dudley.hpp"
#include "dudley/layout/family/family_reader.hpp"
#include "dudley/layout/syntax/parser.hpp"
#include "dudley/model/read_pieces.hpp"
#include "formats/npy/metadata.hpp"

namespace dudley::cli {

namespace {

// Rows of a family read at once: what a member's rows may take in memory.
constexpr uint64_t kFamilyPartBytes = uint64_t{64} << 20;
// Pieces an array is read in, one after the other, into one buffer.
constexpr uint64_t kPieceBytes = uint64_t{8} << 20;

// Bytes to stdout, every failure (a full disk, a closed pipe) an error.
class BinaryOut {
 public:
  BinaryOut() {
    if (::isatty(STDOUT_FILENO)) {
      throw Error(ErrorCategory::kUsage,
                  "--binary writes bytes, not text: send stdout to a file or a pipe "
                  "(`> out.npy`, `| program`)");
    }
  }
  void write(const void* data, uint64_t n) {
    if (n > 0 && std::fwrite(data, 1, n, stdout) != n) fail();
  }
  void finish() {
    if (std::fflush(stdout) != 0) fail();
  }

 private:
  [[noreturn]] static void fail() {
    throw Error(ErrorCategory::kIo,
                fmt::format("cannot write the output (standard output): {}", std::strerror(errno)));
  }
};

// A --binary dump names exactly one item: Error(kUsage) naming what was given otherwise.
void require_one_item(const DumpOptions& options) {
  if (options.items.size() != 1) {
    // A glob left unquoted gives every file as an item: name a few, not thousands.
    constexpr size_t kNamed = 4;
    const size_t named = std::min(kNamed, options.items.size());
    const std::string more = options.items.size() > named
                                 ? fmt::format(", and {} more", options.items.size() - named)
                                 : "";
    throw Error(
        ErrorCategory::kUsage,
        fmt::format(
            "--binary writes one array; {} items were given{}", options.items.size(),
            options.items.empty()
                ? ""
                : fmt::format(" ({}{})",
                              fmt::join(options.items.begin(), options.items.begin() + named, ", "),
                              more)));
  }
}

// The one array a --binary dump asks for: an array (with fields and a selection, or not).
// Error(kUsage) naming the item otherwise.
ArrayRef binary_item(const model::Tree& tree, const DumpOptions& options, const std::string& file) {
  require_one_item(options);
  const std::vector<Request> wanted = resolve_items(tree, options.items, file);
  if (wanted.size() != 1 || wanted.front().kind != Request::Kind::kArray) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("--binary writes one array; {} is not one (dump it as text or "
                            "--json)",
                            options.items.front()));
  }
  const Request& r = wanted.front();
  ArrayRef ref = ArrayRef::of(*r.node, r.path, r.spec);
  if (!ref.error.empty()) throw Error(ErrorCategory::kData, item_problem(r.path, ref.error));
  if (ref.mask && !options.unmasked) {
    // Bytes cannot say which elements are masked: writing the stored values silently would
    // hand masked ones on as data.
    throw Error(ErrorCategory::kUsage,
                fmt::format("{}: the array has a mask, which --binary cannot carry; add "
                            "--unmasked to write the values stored under it, or dump it as "
                            "text or --json",
                            options.items.front()));
  }
  if (ref.dtype.kind() == DTypeKind::kVLen) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("{}: strings of varying length have no fixed bytes to write; "
                            "dump them as text or --json",
                            options.items.front()));
  }
  return ref;
}

// The npy header for `shape` of `dtype` (native order), or nothing for raw.
std::string header_for(const std::string& kind, const DType& dtype,
                       const std::vector<int64_t>& shape) {
  return kind == "npy" ? npy::make_header(Dumper::native(dtype), shape) : std::string();
}

// One array of one file, streamed a piece at a time (fields: read whole, then written).
void write_array(const ArrayRef& ref, const std::string& kind, BinaryOut& out) {
  if (!ref.spec.fields.empty()) {
    const NDArray data = read_selected(ref);
    const std::string header = header_for(kind, data.dtype(), data.shape().dims());
    out.write(header.data(), header.size());
    out.write(data.data(), data.byte_size());
    return;
  }
  Hyperslab h = selection_of(ref);
  const std::string header = header_for(kind, ref.dtype, h.result_shape());
  if (ref.spec.selection.empty()) ref.data->verify();  // a damaged array fails before output
  out.write(header.data(), header.size());
  h.dropped.clear();
  std::vector<std::byte> buffer;
  model::for_each_piece(h, ref.dtype.size(), ref.data->read_unit(), kPieceBytes,
                        [&](const model::Piece& piece) {
                          if (buffer.size() < piece.bytes) buffer.resize(piece.bytes);
                          ref.data->read_into(piece.slab, buffer.data());
                          out.write(buffer.data(), piece.bytes);
                          return true;
                        });
}

// A member of a family whose array differs from member 0's: nothing more can be stacked.
[[noreturn]] void differs(const std::string& member, const std::string& item, const DType& type,
                          const std::vector<int64_t>& shape, const DType& first_type,
                          const std::vector<int64_t>& first_shape) {
  throw Error(ErrorCategory::kData,
              fmt::format("{}: {} is {}{}, member 0's is {}{}: --binary stacks members of one "
                          "type and shape (the output stops here)",
                          member, item, type.to_string(), Shape(shape).to_string(),
                          first_type.to_string(), Shape(first_shape).to_string()));
}

// A family through one layout given with --layout alone (layout_family): member 0 says the
// type and shape, the rows are read in parts of the family, each part's members in batches
// in flight.
bool write_family_direct(const DumpOptions& options, const std::vector<DataOptions>& members,
                         const std::string& kind, BinaryOut& out) {
  const ItemSpec spec = parse_item(options.items.front());
  if (!spec.fields.empty()) return false;
  const std::unique_ptr<layout::FamilyReader> reader = layout_family(members);
  if (!reader) return false;
  const layout::FamilyReader& family = *reader;
  const layout::NodeId node = family.layout().find(spec.path);
  if (node == layout::kNone) return false;
  const std::optional<layout::FamilyItem> item = family.item(node);
  if (!item || item->dtype.kind() == DTypeKind::kVLen) return false;
  const Hyperslab slab = spec.selection.empty() ? Hyperslab::all(item->shape)
                                                : Hyperslab::parse(spec.selection, item->shape);
  std::vector<int64_t> stacked{static_cast<int64_t>(members.size())};
  for (int64_t d : slab.result_shape()) stacked.push_back(d);
  const std::string header = header_for(kind, item->dtype, stacked);
  out.write(header.data(), header.size());
  const uint64_t row = item->row_bytes(slab);
  const size_t per_part = static_cast<size_t>(
      std::clamp<uint64_t>(kFamilyPartBytes / std::max<uint64_t>(row, 1), 1, members.size()));
  std::vector<std::byte> rows(per_part * row);
  for (size_t first = 0; first < members.size(); first += per_part) {
    const size_t count = std::min(per_part, members.size() - first);
    if (const std::optional<size_t> other =
            family.read_rows(node, *item, slab, rows.data(), first, count)) {
      out.write(rows.data(), (*other - first) * row);  // the members before it
      const layout::BoundMember m = family.bind(*other);
      const layout::BoundArray a = m.binding->locate(node);
      differs(members[*other].data, spec.path, a.dtype, a.shape, item->dtype, item->shape);
    }
    out.write(rows.data(), count * row);
  }
  return true;
}

// Any family: each member opened as a file of its format, its array read whole.
void write_family_members(const DumpOptions& options, const std::vector<DataOptions>& members,
                          const std::string& kind, BinaryOut& out) {
  std::optional<DType> first_type;
  std::vector<int64_t> first_shape;
  for (const DataOptions& m : members) {
    const model::Tree tree = open_data(m);
    const NDArray data = read_selected(binary_item(tree, options, m.data));
    if (!first_type) {
      first_type = data.dtype();
      first_shape = data.shape().dims();
      std::vector<int64_t> stacked{static_cast<int64_t>(members.size())};
      stacked.insert(stacked.end(), first_shape.begin(), first_shape.end());
      const std::string header = header_for(kind, *first_type, stacked);
      out.write(header.data(), header.size());
    } else if (data.dtype() != *first_type || data.shape().dims() != first_shape) {
      differs(m.data, options.items.front(), data.dtype(), data.shape().dims(), *first_type,
              first_shape);
    }
    out.write(data.data(), data.byte_size());
  }
}

}  // namespace

int run_dump_binary(const DumpOptions& options) {
  if (options.data.json) {
    throw Error(ErrorCategory::kUsage, "--binary and --json are two outputs: choose one");
  }
  BinaryOut out;
  if (options.data.family.empty()) {
    const model::Tree tree = open_data(options.data);
    write_array(binary_item(tree, options, options.data.data), options.binary, out);
  } else {
    const std::vector<DataOptions> members = family_members(options.data);
    require_one_item(options);
    if (!write_family_direct(options, members, options.binary, out)) {
      write_family_members(options, members, options.binary, out);
    }
  }
  out.finish();
  return kExitOk;
}

}  // namespace dudley::cli
