// The format-neutral model every format module maps to and every feature works on: a tree
// of groups (named members in order), lists (anonymous items) and arrays (dtype, shape and a
// data source that reads on demand).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dudley/core/dtype.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/hyperslab.hpp"
#include "dudley/core/ndarray.hpp"
#include "dudley/io/byte_source.hpp"
#include "dudley/model/read_pieces.hpp"
#include "dudley/model/value.hpp"

namespace dudley::model {

// Lifetimes and threads: the contract every reader and writer of the model follows.
//
// - A Tree owns its nodes. A node reached through Tree::find or by walking `children` lives
//   as long as the tree (and nodes Tree::find built on demand, until the tree goes).
// - Items of an on-demand list (Node::lazy, walked by for_each_child) live only for the
//   visit: for_each_child frees each item when its callback returns. Keep nothing that
//   points into an item (a Node*, a reference to its dtype, a pointer to its shape);
//   copy what you need, or keep its `data` (shared_ptr<ArraySource>), which stays valid
//   after the item is gone and for as long as the tree's file is open: the ASDF writer
//   keeps `data` for the blocks it writes after the tree, never the node.
// - An ArraySource is shared (shared_ptr) and may outlive its tree; it holds what it needs
//   to read (the open file, a memory map). Its methods may be called from several threads
//   at once only where a format says so; readers and writers here call one source from one
//   thread at a time (they may hash or encode the bytes read on other threads).
// - verify() is the exception: formats make it safe to verify different sources at once,
//   so writers check their inputs' checksums on every core (verify_all).
// - An ItemSource builds items one at a time and is not thread-safe.
// - Every writer is tested on trees with on-demand items of varying shape under ASan
//   (tests/unit/model/lifetime_test.cpp, the hostile case asdf-writer-list-items).

/// The chunks a chunked array's file holds: chunks of `chunk_shape` on the array's regular
/// grid, the others never written, reading as the fill value. Readers and writers use it to
/// bound what an array of missing chunks costs (a 333-byte Zarr metadata document may
/// declare 10^12 chunks): work follows the chunks stored, not the extent claimed.
struct StoredChunks {
  std::vector<int64_t> chunk_shape;
  /// How many chunks are stored.
  uint64_t chunks = 0;
  /// Each stored chunk's grid position (chunk_shape.size() numbers per chunk), in increasing
  /// C order of the grid.
  std::vector<int64_t> positions;
  /// One element of the fill value, in native byte order (what a missing chunk reads as);
  /// for strings and bytes (variable length), the fill value's own bytes, empty for "".
  std::vector<std::byte> fill;

  /// Elements the stored chunks cover at most (saturating): values a reader reads from the
  /// file rather than from the fill value.
  uint64_t stored_elements() const;
};

/// Reads one array's data when asked; implemented by each format module.
class ArraySource {
 public:
  virtual ~ArraySource() = default;
  /// The whole array in native byte order.
  virtual NDArray read() = 0;
  /// A selection in native byte order, shaped by slab.result_shape().
  virtual NDArray read(const Hyperslab& slab) = 0;
  /// Checks now what the format stores to detect changed bytes (ASDF's block MD5), as a
  /// whole read() does: a reader about to read the whole array in selections calls it first,
  /// so a damaged array fails before any of it is used. Formats without checksums do
  /// nothing. Throws the error read() would.
  virtual void verify() {}
  /// verify() as a job that may run on another thread, prepared on the calling thread:
  /// formats whose checks need library state made first make it here (an MD5 context:
  /// OpenSSL keeps per-thread state, never freed, for a thread that creates one).
  /// verify_all runs these. The default job calls verify().
  virtual std::function<void()> prepare_verify() {
    return [this] { verify(); };
  }
  /// Reads `slab` into `out` (slab.result_shape() elements, C order, native byte order;
  /// `out` holds at least that many bytes) without allocating memory for the output, so a
  /// streaming caller reuses one buffer. The default reads a selection and copies it;
  /// formats override it to read straight into `out`.
  virtual void read_into(const Hyperslab& slab, void* out);
  /// Where the array's bytes lie as they are stored, when they are one run of a file in C
  /// order, uncompressed (a Dudley array, an uncompressed ASDF block): a writer whose
  /// output stores the same bytes copies them file to file (io::AtomicFile::copy_from)
  /// instead of reading them. A caller verifies the source first (verify()); `dtype` is the
  /// stored type, byte order included. nullopt when the bytes must be read (compressed,
  /// strided, in memory).
  struct StoredBytes {
    std::shared_ptr<const io::ByteSource> source;
    uint64_t offset = 0;
    uint64_t size = 0;
    DType dtype;
  };
  virtual std::optional<StoredBytes> stored_bytes() { return std::nullopt; }
  /// How the array is best read (see read_pieces.hpp): the default, a run of bytes any
  /// piece of which reads as well as another.
  virtual ReadUnit read_unit() const { return {}; }
  /// A hint from a caller that reads arrays one after the other (a writer streaming a tree):
  /// this array is read next, after the one being read now. A source whose reads decode one
  /// stream on one core (a zlib ASDF block) may then decode it in the background once the
  /// current array's data is decoded, so that decoding overlaps the caller's hashing and
  /// writing; it holds at most one unit's working memory more. Reads work the same without
  /// it; the default does nothing.
  virtual void read_ahead() {}
  /// The chunks the file holds, for an array whose chunks may be missing (Zarr, chunked or
  /// unallocated HDF5 datasets), when the format can list them without reading them (a
  /// directory listing, a chunk index); nullopt when every element is stored or the format
  /// cannot tell (a store on a web server). The source may keep the listing to answer its
  /// reads of missing chunks without asking the store. Costs a listing: call once per
  /// array, before reading it whole.
  virtual std::optional<StoredChunks> stored_chunks() { return std::nullopt; }
};

/// Calls verify() of the sources whose reads decode nothing (read_unit().working_bytes 0,
/// such as uncompressed ASDF blocks) on the shared thread pool, several at once, before a
/// writer streams them: hashing is the slow part of copying checksummed data, and one core
/// per block leaves the others idle. Compressed sources are verified as they decode. Throws
/// the first error a source reported.
void verify_all(const std::vector<ArraySource*>& sources);

/// Why a node (or parameter) could not be resolved, kept as the error said it: its category
/// and place, so a tool can report it as any other error, in text or JSON.
struct NodeError {
  ErrorCategory category = ErrorCategory::kData;
  std::string message;  ///< without the place
  Location location;
  /// The item is well-formed, of a type or codec this build cannot read (a Zarr array's
  /// unknown codec): listings are complete, and list it with this error.
  bool unsupported = false;

  /// The error an exception reported.
  static NodeError from(const Error& e) { return {e.category(), e.message(), e.location()}; }
  bool empty() const noexcept { return message.empty(); }
  /// "FILE:@OFFSET: error: MESSAGE", as Error::what() prints it.
  std::string text() const {
    return empty() ? std::string() : Error(category, message, location).what();
  }
};

/// How a chunked array's chunks are stored: a regular grid of `chunk_shape` (edge chunks
/// cut by the array's extent), each chunk encoded by `codecs`. A chunk may itself be a
/// shard: a grid of inner chunks (`inner`), each encoded on its own and found through an
/// index, so a reader reads one inner chunk of a shard by its byte range (Zarr v3's
/// sharding_indexed, nested to any depth).
struct Chunking {
  std::vector<int64_t> chunk_shape;
  /// The codec chain as the codec layer reads it: a list of {"name", "configuration"} maps
  /// (dudley::codec::CodecChain::from_configuration; model::to_plain_json turns this value
  /// into that configuration). For a shard, the chain applied to the whole shard after its
  /// inner chunks and index are laid out (usually none).
  Value codecs;
  /// The value of chunks never written.
  std::optional<Value> fill_value;

  /// Sharded chunks: the grid inside each chunk, its codecs, and (recursively) its own
  /// shards. nullptr for chunks encoded whole.
  std::shared_ptr<const Chunking> inner;
  /// How a shard's index (offset and size of each inner chunk) is encoded, and where it
  /// lies in the shard.
  Value index_codecs;
  enum class IndexLocation { kEnd, kStart };
  IndexLocation index_location = IndexLocation::kEnd;

  /// The smallest unit a reader decodes: the innermost chunk shape.
  const std::vector<int64_t>& read_unit() const { return inner ? inner->read_unit() : chunk_shape; }
};

/// Elements to read as missing (ASDF masks).
struct Masking {
  /// Every element equal to this is masked (a scalar mask)...
  std::optional<Value> value;
  /// ...or this boolean array (a path in the tree), broadcast to the array, says which...
  std::string array;
  /// ...or these booleans held in memory, of the array's shape (inline data whose `null`s
  /// mark the missing elements).
  std::shared_ptr<const NDArray> elements;
};

/// Where and how an array's bytes are stored. Kept small: a tree may hold millions of
/// arrays, and most are contiguous.
struct Storage {
  enum class Kind {
    kUnknown,     ///< the format does not say (or the array is not stored)
    kContiguous,  ///< one run of bytes: `offset`, `size`, `order`
    kChunked,     ///< chunks as `chunking` says
  };
  Kind kind = Kind::kUnknown;
  std::optional<uint64_t> offset;  ///< contiguous: the first byte
  uint64_t size = 0;               ///< contiguous: bytes stored
  ByteOrder order = ByteOrder::kUnspecified;
  std::shared_ptr<const Chunking> chunking;  ///< chunked arrays
  std::shared_ptr<const Masking> mask;       ///< masked arrays
  /// The largest extent each dimension may grow to (-1: unlimited) where the format keeps
  /// one that differs from the current shape (HDF5 maxdims, NDL `null` dimensions); empty
  /// when the array cannot grow.
  std::vector<int64_t> max_shape;
  /// Where the file stores each dimension's current extent (the offset of a little-endian
  /// 8-byte size), when the format can tell and was asked to (OpenOptions::extent_offsets);
  /// empty otherwise. A layout may read a file's own shape from there.
  std::vector<uint64_t> extent_offsets;
};

/// A named integer that shapes arrays (Dudley parameters, netCDF dimensions).
struct Parameter {
  std::string name;
  std::optional<int64_t> value;     ///< empty when it could not be read (see error)
  std::optional<DType> dtype;       ///< stored type; empty for values not stored in the file
  std::optional<uint64_t> address;  ///< where it is stored
  std::string doc;
  Attributes attributes;  ///< a Dudley parameter's `#@` attributes
  NodeError error;        ///< why the value could not be read
  /// How many of its group's members the file lists before it, where a format interleaves
  /// named sizes with arrays (a netCDF-4 dimension among the variables, whose order
  /// numbers the dimensions); 0 puts it before them all.
  size_t members_before = 0;
};

enum class NodeKind { kGroup, kList, kArray };

struct Node;

/// Where a link points (Node::link).
struct Link {
  /// "soft" or "external" (HDF5's links by path), "hard" (another name of an object listed
  /// before, at `target`), or "user-defined" (an HDF5 link of a class libhdf5 was given by
  /// the program that wrote it; no target here).
  std::string kind;
  /// The path it points to, as the file spells it ("/grid/x").
  std::string target;
  /// An external link's file ("run.h5", relative to the linking file's directory); "" for
  /// the others.
  std::string file;

  /// What a reader found at the end of the link.
  enum class End : uint8_t {
    kFollowed,   ///< the node is what it points to (an array, or a group read through it)
    kGroupHere,  ///< a group of the same file, listed at `target`: Tree::find leads there
    kNothing,    ///< nothing (a dangling link): listed; reading it fails
    kOther,      ///< no item of a tree (an HDF5 committed datatype, a user-defined link)
    kRefused,    ///< not followed (the rule for reading, or unreadable): the node's error
  };
  End end = End::kFollowed;
  /// For End::kGroupHere: the path at which the tree lists the group ("/grid"), `target`
  /// made absolute.
  std::string listed_at;

  /// Whether the link is an item of its own, listed with where it points, not data: a link
  /// to a group listed elsewhere in the file, to nothing, or to a committed type. Its node is an
  /// array-kind node whose error says so, marked NodeError::unsupported: a listing is whole with
  /// it, and reading it (or converting to a format without links) fails.
  bool listed_only() const noexcept {
    return end == End::kGroupHere || end == End::kNothing || end == End::kOther;
  }
  /// "group here", "nothing", "other", "followed" or "refused", as --json names `end`.
  const char* end_name() const noexcept;

  /// "a soft link to /grid/x", "an external link to run.h5:/x".
  std::string describe() const;
  /// "/grid/x", or "run.h5:/x" for an external link, as h5ls names them.
  std::string text() const { return file.empty() ? target : file + ":" + target; }
};

/// The items of a list made on demand: a Dudley counted array may hold millions of
/// instances, and a layout of a few bytes may claim 2^60 of them, so they are built one at
/// a time as a reader walks them, never all at once.
class ItemSource {
 public:
  virtual ~ItemSource() = default;
  /// How many items the list has.
  virtual uint64_t size() const = 0;
  /// Item `index`, built anew. Cheap for increasing indexes (a walk goes on from the last
  /// one); any index is allowed. An item that cannot be located comes back as an array node
  /// with `error` set; the items after it cannot be located either (see for_each_child).
  virtual std::unique_ptr<Node> item(uint64_t index) = 0;
};

struct Node {
  NodeKind kind = NodeKind::kGroup;
  std::string name;  ///< "" for list items
  std::string doc;
  /// Attributes of groups and arrays (Dudley documents stay in `doc`).
  Attributes attributes;
  /// Attributes the source could not read (HDF5's of a type libhdf5 cannot convert), by
  /// name ("" for all of them, when they cannot even be listed), with why: listings name
  /// them and fail, conversions count them as lost; never dropped unseen.
  std::vector<std::pair<std::string, NodeError>> unreadable_attributes;

  // Groups: members in declaration order, and parameters. Lists: items, either here or,
  // for lists made on demand, in `lazy` (then `children` is empty). Walk them with
  // child_count() and for_each_child(), which handle both.
  std::vector<std::unique_ptr<Node>> children;
  std::shared_ptr<ItemSource> lazy;
  std::vector<Parameter> params;

  // Arrays.
  DType dtype;
  std::vector<int64_t> shape;
  /// An empty array (HDF5's null dataspace, h5py's `Empty`): a type, no shape and no data,
  /// unlike a 0-d array, which holds one element. `shape` is then [0], so that a reader
  /// that does not look here reads no element rather than a made-up one.
  bool empty = false;
  /// For an item that is a link, where it points; nullptr for other items (a pointer: a
  /// tree may hold millions of nodes, few of them links). A link to an array that was
  /// followed is that array (type, shape, data); one that was not (dangling, to a group, to
  /// a file outside the linking file's directory) is an array-kind node whose `error` says
  /// why.
  std::shared_ptr<const Link> link;
  /// How the bytes are stored: for contiguous storage, `storage.offset` is where they start
  /// in the file (a Dudley array's address).
  Storage storage;
  std::shared_ptr<ArraySource> data;
  /// Set when the array could not be resolved (out of the file, unknown order...): the
  /// rest of the tree is still listed, and tools report this with the item's path.
  NodeError error;

  /// Whether this node is a link listed with where it points, not data (Link::listed_only).
  bool is_listed_link() const noexcept { return link && link->listed_only(); }

  /// The member named `name` of a group (nullptr when none).
  const Node* member(std::string_view name) const;
};

/// "PATH: attribute 'NAME': WHY" for an attribute of the item at `path` its reader could
/// not read (Node::unreadable_attributes; "PATH: WHY" for a name ""), the message not
/// repeating the path and name it already starts with.
std::string attribute_problem(const std::string& path, const std::string& name,
                              const NodeError& error);

/// Members of a group or items of a list, made on demand or not.
uint64_t child_count(const Node& node);

/// Calls `visit(index, child)` for each member or item in order. Items made on demand exist
/// only during their call (memory stays that of one item). After an item whose `error` is
/// set, the rest of a list made on demand is not visited: it cannot be located. `visit`
/// returns false to stop early.
void for_each_child(const Node& node, const std::function<bool(uint64_t, const Node&)>& visit);

/// Bytes of the arrays at and below `node` (packed, saturating at UINT64_MAX): a writer's
/// progress total. Items made on demand are visited too.
uint64_t array_bytes(const Node& node);

/// What object and region references point to. An array of DType::reference holds 8-byte
/// keys into this table; the table says, for each key, the target as a value: the target's
/// path (a string) for an object reference, {target: PATH, start: [...], opposite: [...]} for
/// a block of an array, {target: PATH, elements: [[...], ...]} for elements of one. Key 0 is
/// the null reference. Sources add entries as they read references, so it is thread-safe.
class ReferenceTable {
 public:
  ReferenceTable();
  ~ReferenceTable();
  /// The key of `target` (the same key for an equal target added before).
  uint64_t add(Value target);
  /// The target of `key`; a null value for key 0 or a key never added.
  Value find(uint64_t key) const;
  /// How many targets the table holds.
  size_t size() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// A whole file (or family member) as a tree.
struct Tree {
  std::string format;  ///< "dudley", ...
  std::unique_ptr<Node> root;
  /// Nodes that Dudley pointers stored in arrays point to, by the key the pointers hold
  /// (Dudley pointees [C19]). Writers of formats without references note what they drop. Empty for
  /// files without them.
  std::map<uint64_t, std::unique_ptr<Node>> pointees;
  /// What the references stored in arrays (DType::reference: HDF5 object and region
  /// references, NDL objref/regref values) point to; nullptr when the file has none.
  std::shared_ptr<ReferenceTable> references;
  /// Files the tree reads besides the one opened (ASDF arrays whose `source` names another
  /// file), as resolved paths: a conversion must not replace them.
  std::vector<std::string> companions;
  /// What of the file the tree has no place for (HDF5 soft and external links, committed
  /// datatypes, attributes of types the model lacks), one line each naming the item: tools
  /// that describe the whole file say so.
  std::vector<std::string> skipped;
  /// The source holds netCDF's classic data model (a netCDF-3 file, or a netCDF-4 file
  /// marked `_nc3_strict`): a netCDF-4 copy keeps the mark where its content fits the model.
  bool netcdf_classic = false;

  /// The node at "/g/x" (list items by index, "/L/2"); nullptr when there is none. Items
  /// made on demand are kept by the tree from then on, so the pointer stays valid. A path
  /// through a link to a group of this file (Link::End::kGroupHere) goes on at the group it
  /// points to, as libhdf5 and h5py follow it; at most kMaxLinkHops links a path, so that
  /// links that point at each other end (nullptr).
  const Node* find(std::string_view path) const;
  static constexpr int kMaxLinkHops = 40;  ///< as Linux's symbolic links (ELOOP)

 private:
  mutable std::vector<std::unique_ptr<Node>> found_;  ///< on-demand items find() returned
};

/// A copy of the array node `a` (name, doc, attributes, type, shape, storage, link, data
/// source shared, error) that a writer changes to write it another way.
std::unique_ptr<Node> copy_array_node(const Node& a);

/// A tree whose root is a group, for writers of formats whose files are groups: `tree` itself
/// when its root is one; else (a Zarr store that is one array) a group holding a copy of the
/// root array (sharing its data source) under the root's name, or "data" when it has none.
/// `holder` keeps the new tree, which lives as long as `tree`'s data sources do.
const Tree& with_group_root(const Tree& tree, Tree& holder);

}  // namespace dudley::model
