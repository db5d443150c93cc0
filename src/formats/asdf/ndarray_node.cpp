#include "ndarray_node.hpp"

#include <charconv>
#include <cstring>

#include <fmt/format.h>

#include <filesystem>

#include "datatype.hpp"
#include "dudley/io/read_rule.hpp"
#include "dudley/model/memory_source.hpp"
#include "file_structure.hpp"
#include "inline_data.hpp"

namespace dudley::asdf {
namespace {

// 128-bit arithmetic for sums of 64-bit products that cannot overflow it.
__extension__ using Int128 = __int128;

namespace fs = std::filesystem;
using model::Value;

constexpr std::string_view kNdarrayTag = "tag:stsci.edu:asdf/core/ndarray-1.";

[[noreturn]] void bad(const YamlNode& node, const std::string& path, const std::string& message,
                      ErrorCategory category = ErrorCategory::kData) {
  throw Error(category, message, location_of(node, path));
}

// Uncompressed blocks up to this size are verified when a selection of them is read.
constexpr uint64_t kVerifyOnSelection = uint64_t{64} << 20;

// An array in a block: the whole block from `offset`, C-ordered, or a view with strides.
class BlockSource final : public model::ArraySource {
 public:
  BlockSource(std::shared_ptr<const BlockStore> store, size_t block, DType dtype,
              std::vector<int64_t> shape, uint64_t offset, std::vector<int64_t> strides)
      : store_(std::move(store)),
        block_(block),
        dtype_(std::move(dtype)),
        shape_(std::move(shape)),
        offset_(offset),
        strides_(std::move(strides)) {}

  NDArray read() override {
    if (strides_.empty() && !store_->compressed(block_)) {
      // The common case: straight from the file into fresh (huge-page) memory.
      NDArray out(dtype_, Shape(shape_));
      store_->read_uncompressed(block_, offset_, out.byte_size(), out.mutable_data());
      out.to_native_in_place();
      return out;
    }
    const uint64_t bytes = *Shape(shape_).byte_size(dtype_.size());  // checked at open
    if (strides_.empty() && offset_ == 0 && bytes == store_->header(block_).data_size) {
      store_->check_size(block_);          // before any memory is taken for it
      NDArray out(dtype_, Shape(shape_));  // the whole block: decoded in place
      store_->decode_into(block_, static_cast<std::byte*>(out.mutable_data()));
      out.to_native_in_place();
      return out;
    }
    return view(true).to_native();
  }

  // A compressed block is decoded whole whatever is selected, so it is verified as it
  // decodes; an uncompressed one only when it is small (hashing a large block for a few of
  // its elements would cost far more than the read: verify() asks for it).
  NDArray read(const Hyperslab& slab) override {
    if (reads_from_file()) {
      slab.check_fits(shape_);
      NDArray out(dtype_.needs_swap() ? dtype_.with_byte_order(native_byte_order()) : dtype_,
                  Shape(slab.result_shape()));
      read_from_file(slab, out.mutable_data());
      return out;
    }
    return view(true).select(slab).to_native();
  }

  void read_into(const Hyperslab& slab, void* out) override {
    if (reads_from_file()) {
      slab.check_fits(shape_);
      read_from_file(slab, out);
      return;
    }
    view(true).select(slab).copy_native_into(out);
  }

  std::optional<StoredBytes> stored_bytes() override {
    if (!reads_from_file()) return std::nullopt;
    store_->check_size(block_);
    const uint64_t bytes = *Shape(shape_).byte_size(dtype_.size());  // checked at open
    return StoredBytes{store_->source(), store_->header(block_).data_offset() + offset_, bytes,
                       dtype_};
  }

  // A compressed block is decoded whole for any piece of it (and kept for the next).
  model::ReadUnit read_unit() const override {
    if (!store_->compressed(block_)) return {};
    return {shape_, store_->header(block_).data_size};
  }

  void read_ahead() override {
    if (store_->compressed(block_)) store_->read_ahead(block_);
  }

  // The MD5 context is made here, on the caller's thread (see ArraySource::prepare_verify).
  std::function<void()> prepare_verify() override {
    if (store_->compressed(block_)) return [this] { verify(); };
    auto md5 = std::make_shared<codec::Md5>();
    return [store = store_, block = block_, md5] { store->verify_streaming(block, md5.get()); };
  }

  void verify() override {
    if (store_->compressed(block_)) {
      view(true);
    } else {
      store_->verify_streaming(block_);
    }
  }

 private:
  // Selections of an uncompressed C-ordered array are read from the file into the caller's
  // memory: nothing is mapped, so memory follows the selection.
  bool reads_from_file() const { return strides_.empty() && !store_->compressed(block_); }

  void read_from_file(const Hyperslab& slab, void* out) const {
    store_->check_size(block_);
    if (store_->header(block_).used_size <= kVerifyOnSelection) store_->verify_streaming(block_);
    store_->read_selection(block_, offset_, dtype_, shape_, slab, out);
  }

  NDArray view(bool verify) const {
    BlockData d = store_->data(block_, verify);
    auto* base = const_cast<std::byte*>(d.bytes) + offset_;
    if (Shape(shape_).empty_data()) base = const_cast<std::byte*>(d.bytes);
    return NDArray::borrow(base, dtype_, Shape(shape_), strides_, d.keep);
  }

  std::shared_ptr<const BlockStore> store_;
  size_t block_;
  DType dtype_;
  std::vector<int64_t> shape_;
  uint64_t offset_;
  std::vector<int64_t> strides_;
};

std::optional<int64_t> int_of(const YamlNode& node, const std::string& path) {
  if (!node.is_scalar()) return std::nullopt;
  const Value v = scalar_value(node, path);
  if (v.is<int64_t>()) return v.as<int64_t>();
  return std::nullopt;
}

// The blocks of the ASDF file `source`, kept in `context` under `key`.
std::shared_ptr<const BlockStore> external_blocks(std::shared_ptr<io::ByteSource> source,
                                                  const std::string& key, ArrayContext& context) {
  const FileStructure structure = read_structure(*source);
  auto blocks = locate_blocks(*source, structure.tree_end);
  auto store =
      std::make_shared<const BlockStore>(std::move(source), std::move(blocks), context.options);
  context.external[key] = store;
  return store;
}

// `part` of a URI path with its %XX escapes decoded (a bad escape stays as it is).
std::string percent_decoded(std::string_view part) {
  std::string out;
  for (size_t i = 0; i < part.size(); ++i) {
    int value = 0;
    if (part[i] == '%' && i + 2 < part.size() &&
        std::from_chars(part.data() + i + 1, part.data() + i + 3, value, 16).ptr ==
            part.data() + i + 3) {
      out += static_cast<char>(value);
      i += 2;
    } else {
      out += part[i];
    }
  }
  return out;
}

// external_store() for a main file at a URL: the relative path `rel` resolved against the
// URL's directory and read through the same store (bucket, credentials, endpoint). A path
// climbing out of that directory is refused unless the caller allows it, and never climbs
// above the bucket or server.
std::shared_ptr<const BlockStore> external_store_at_url(const YamlNode& node,
                                                        const std::string& uri,
                                                        const std::string& rel,
                                                        ArrayContext& context) {
  if (!rel.empty() && rel.front() == '/') {
    bad(node, context.path,
        fmt::format("source '{}' lies outside the directory of {} (allow it with "
                    "--allow-external-outside)",
                    uri, context.path));
  }
  const size_t scheme_end = context.path.find("://") + 3;
  const size_t root_end = context.path.find('/', scheme_end);  // after the bucket or host
  // The URL of the external file: the main file's directory, then `rel` part by part, each
  // judged as the server will read it, its %XX escapes decoded ("%2e%2e" is "..", which a
  // server resolves): a part that decodes to ".." climbs (only with
  // --allow-external-outside, and never above the host or bucket), one that decodes to a
  // '/', a '\' or a NUL is refused, and the others go as they were written.
  std::string target = context.path.substr(0, context.path.rfind('/'));
  size_t at = 0;
  while (at <= rel.size()) {
    const size_t slash = std::min(rel.find('/', at), rel.size());
    const std::string_view part(rel.data() + at, slash - at);
    at = slash + 1;
    const std::string decoded = percent_decoded(part);
    if (decoded.empty() || decoded == ".") continue;
    if (decoded.find_first_of(std::string_view("/\\\0", 3)) != std::string::npos) {
      bad(node, context.path,
          fmt::format("source '{}': a part of its path names a '/', '\\' or NUL by an escape",
                      uri));
    }
    if (decoded == "..") {
      if (!context.options.allow_external_outside) {
        bad(node, context.path,
            fmt::format("source '{}' lies outside the directory of {} (allow it with "
                        "--allow-external-outside)",
                        uri, context.path));
      }
      if (root_end == std::string::npos || target.size() <= root_end) {
        bad(node, context.path, fmt::format("source '{}' climbs above {}", uri, target));
      }
      target.erase(target.rfind('/'));
      continue;
    }
    target += "/";
    target += part;
  }
  if (auto it = context.external.find(target); it != context.external.end()) return it->second;
  return external_blocks(io::open_source(target, context.store), target, context);
}

// The store of an external file named by `source: URI`, resolved against the main file's
// directory and read only where the rule for reading allows (dudley/io/read_rule.hpp): in
// that directory or a folder the caller allows, judged where it really leads, symbolic
// links included; the file opened is the resolved one, so it is the file judged.
std::shared_ptr<const BlockStore> external_store(const YamlNode& node, const std::string& uri,
                                                 ArrayContext& context) {
  std::string rel = uri;
  if (rel.starts_with("file://")) {
    rel = rel.substr(7);
  } else if (rel.starts_with("file:")) {
    rel = rel.substr(5);
  } else if (rel.find("://") != std::string::npos) {
    bad(node, context.path,
        fmt::format("source '{}': only relative paths and file: URIs are read, not remote ones",
                    uri));
  }
  if (io::is_url(context.path)) return external_store_at_url(node, uri, rel, context);
  const fs::path dir = fs::path(context.path).parent_path();
  const fs::path target = (dir / fs::path(rel)).lexically_normal();  // an absolute rel stays
  std::vector<std::string> also = context.allow_outside;
  if (context.options.allow_external_outside) also.emplace_back("/");
  const io::ReadRule rule = io::ReadRule::for_file(context.path, also);
  const io::ReadRule::Verdict verdict = rule.check(target.string());
  if (verdict.outside) {
    bad(node, context.path,
        fmt::format("source '{}' lies outside the directory of {}: it is {}, outside {} (allow "
                    "its folder with --allow-outside DIR, or any with --allow-external-outside)",
                    uri, context.path, verdict.resolved, rule.describe()));
  }
  if (!verdict.ok) {
    bad(node, context.path, fmt::format("source '{}': {} {}", uri, target.string(), verdict.why));
  }
  const std::string& key = verdict.resolved;
  if (auto it = context.external.find(key); it != context.external.end()) return it->second;
  return external_blocks(io::open_file(key), key, context);
}

// One bool per element of `a`, true where the inline data's leaf is `null`; nullopt when
// none is (or when leaves are not elements one to one: structs, strings).
std::optional<NDArray> null_mask(const YamlNode& data, const NDArray& a) {
  if (a.dtype().kind() == DTypeKind::kCompound || a.dtype().kind() == DTypeKind::kText) {
    return std::nullopt;
  }
  std::vector<uint8_t> nulls;
  bool any = false;
  std::vector<const YamlNode*> pending{&data};  // leaves in document order, no recursion
  while (!pending.empty()) {
    const YamlNode* n = pending.back();
    pending.pop_back();
    if (n->is_sequence()) {
      for (size_t i = n->items.size(); i-- > 0;) pending.push_back(n->items[i]);
      continue;
    }
    const bool null = n->is_scalar() && scalar_value(*n, std::string()).is_null();
    nulls.push_back(null ? 1 : 0);
    any = any || null;
  }
  if (!any || nulls.size() != a.element_count()) return std::nullopt;
  NDArray mask(DType::boolean(), a.shape());
  std::memcpy(mask.mutable_data(), nulls.data(), nulls.size());
  return mask;
}

// Inline data: `null` leaves are missing values (python asdf gives a masked array): they
// become the array's mask unless the node gives one.
void set_inline(model::Node& out, const YamlNode& node, NDArray a, const YamlNode& data) {
  out.dtype = a.dtype();
  out.shape = a.shape().dims();
  if (!node.is_mapping() || !node.find("mask")) {
    if (auto nulls = null_mask(data, a)) {
      auto masking = std::make_shared<model::Masking>();
      masking->elements = std::make_shared<const NDArray>(std::move(*nulls));
      out.storage.mask = std::move(masking);
    }
  }
  out.data = model::memory_source(std::move(a));  // the values were in the tree
}

// Properties the ndarray schema does not define are the array's attributes; a scalar mask is
// the value that marks elements missing.
void set_attributes_and_mask(model::Node& out, const YamlNode& node, const std::string& path,
                             ExpansionBudget& budget) {
  static constexpr std::string_view kProperties[] = {"source",    "data",   "shape",   "datatype",
                                                     "byteorder", "offset", "strides", "mask"};
  for (size_t i = 0; i + 1 < node.items.size(); i += 2) {
    const std::string_view key = node.items[i]->text;
    if (std::find(std::begin(kProperties), std::end(kProperties), key) == std::end(kProperties)) {
      out.attributes.set(std::string(key), to_value(*node.items[i + 1], path, budget));
    }
  }
  if (const YamlNode* mask = node.find("mask"); mask && mask->is_scalar()) {
    auto masking = std::make_shared<model::Masking>();
    masking->value = std::string_view(mask->tag).starts_with(kComplexTagPrefix)
                         ? Value(std::string(mask->text)).with_tag(std::string(mask->tag))
                         : scalar_value(*mask, path);
    out.storage.mask = std::move(masking);
  }
}

// The byte order a block's array is stored in: required, 'big' or 'little'.
ByteOrder byteorder_of(const YamlNode& node, const std::string& path) {
  const YamlNode* bo = node.find("byteorder");
  if (!bo) bad(node, path, "an ndarray with a 'source' needs a 'byteorder'");
  if (bo->is_scalar() && bo->text == "big") return ByteOrder::kBig;
  if (bo->is_scalar() && bo->text == "little") return ByteOrder::kLittle;
  bad(*bo, path, "byteorder must be 'big' or 'little'");
}

// The block `source` names: a number into this file's blocks (negative from the end), or
// another file's first block.
std::pair<std::shared_ptr<const BlockStore>, size_t> block_of(const YamlNode& source,
                                                              const std::string& path,
                                                              ArrayContext& context) {
  std::shared_ptr<const BlockStore> store = context.blocks;
  if (auto index = int_of(source, path)) {
    const auto n = static_cast<int64_t>(store->count());
    const int64_t i = *index < 0 ? n + *index : *index;
    if (i < 0 || i >= n) {
      bad(source, path,
          fmt::format("source {}: the file has {} block{}", *index, n, n == 1 ? "" : "s"));
    }
    return {store, static_cast<size_t>(i)};
  }
  if (!source.is_scalar()) bad(source, path, "source must be a block number or a file name");
  store = external_store(source, std::string(source.text), context);
  if (store->count() == 0) bad(source, path, fmt::format("source '{}' has no blocks", source.text));
  return {store, 0};
}

// Where in its block the array starts.
uint64_t offset_of(const YamlNode& node, const std::string& path) {
  const YamlNode* o = node.find("offset");
  if (!o) return 0;
  auto v = int_of(*o, path);
  if (!v || *v < 0) bad(*o, path, "offset must be an integer >= 0");
  return static_cast<uint64_t>(*v);
}

// The shape; a leading '*' takes as many rows as the `available` bytes hold.
std::vector<int64_t> dims_of(const YamlNode& shape, const DType& dtype, uint64_t available,
                             const std::string& path) {
  std::vector<int64_t> dims;
  bool streaming = false;
  for (size_t d = 0; d < shape.items.size(); ++d) {
    const YamlNode& item = *shape.items[d];
    if (d == 0 && item.is_scalar() && item.text == "*") {
      streaming = true;
      dims.push_back(0);
      continue;
    }
    auto v = int_of(item, path);
    if (!v || *v < 0) bad(item, path, "shape holds integers >= 0 (and '*' first)");
    dims.push_back(*v);
  }
  if (streaming) {
    std::optional<uint64_t> row = dtype.size();
    for (size_t d = 1; d < dims.size() && row; ++d)
      row = checked_mul(*row, static_cast<uint64_t>(dims[d]));
    if (!row) bad(shape, path, "a row of this shape is larger than 2^64 bytes");
    const uint64_t rows = *row == 0 ? 0 : available / *row;
    if (rows > static_cast<uint64_t>(INT64_MAX)) bad(shape, path, "too many rows");
    dims[0] = static_cast<int64_t>(rows);
  }
  return dims;
}

// Byte strides, one per dimension; empty for C order (given or left out).
std::vector<int64_t> strides_of(const YamlNode& node, const std::vector<int64_t>& dims,
                                const DType& dtype, const std::string& path) {
  std::vector<int64_t> strides;
  const YamlNode* s = node.find("strides");
  if (!s) return strides;
  if (!s->is_sequence() || s->items.size() != dims.size()) {
    bad(*s, path,
        fmt::format("strides must be a list of {} integers, one per dimension", dims.size()));
  }
  for (const YamlRef& item : s->items) {
    auto v = int_of(*item, path);
    if (!v || *v == 0 || *v > (int64_t{1} << 62) || *v < -(int64_t{1} << 62)) {
      bad(*item, path, "a stride is a non-zero integer (of magnitude below 2^62)");
    }
    strides.push_back(*v);
  }
  if (strides == Shape(dims).c_strides(dtype.size())) strides.clear();
  return strides;
}

// Every byte the array addresses must lie inside its block; returns its element count.
uint64_t check_inside_block(const YamlNode& node, const YamlNode& shape,
                            const std::vector<int64_t>& dims, const std::vector<int64_t>& strides,
                            const DType& dtype, uint64_t offset, const BlockHeader& header,
                            size_t block, const std::string& path) {
  const auto elements = Shape(dims).element_count();
  if (!elements) bad(shape, path, "the shape has more than 2^64 elements");
  if (*elements == 0) return 0;
  Int128 low = 0, high = 0;
  if (strides.empty()) {
    high = static_cast<Int128>(*elements) * static_cast<Int128>(dtype.size());
  } else {
    for (size_t d = 0; d < dims.size(); ++d) {
      const Int128 span = static_cast<Int128>(dims[d] - 1) * strides[d];
      (span > 0 ? high : low) += span;
    }
    high += dtype.size();
  }
  const Int128 first = static_cast<Int128>(offset) + low;
  const Int128 end = static_cast<Int128>(offset) + high;
  if (first < 0 || end > static_cast<Int128>(header.data_size)) {
    bad(node, path,
        fmt::format("the array addresses bytes {} to {} of block {}, which holds {} bytes",
                    static_cast<int64_t>(first), static_cast<int64_t>(end) - 1, block,
                    header.data_size));
  }
  return *elements;
}

// How the array is stored, as `ls` and converters see it: contiguous bytes at an offset, or
// one compressed chunk.
void describe_storage(model::Node& out, const BlockHeader& header, uint64_t offset,
                      uint64_t elements, bool strided, ByteOrder order) {
  const std::string compression = header.compression_name();
  if (compression.empty() && !strided) {
    out.storage.kind = model::Storage::Kind::kContiguous;
    out.storage.offset = header.data_offset() + offset;
    out.storage.size = elements * out.dtype.size();
    out.storage.order = order;
  } else if (!compression.empty()) {
    auto chunking = std::make_shared<model::Chunking>();
    chunking->chunk_shape = out.shape;
    model::ValueMap codec{{"name", Value(codec_name(compression))},
                          {"configuration", Value(model::ValueMap{})}};
    chunking->codecs = Value(model::ValueList{Value(std::move(codec))});
    out.storage.kind = model::Storage::Kind::kChunked;
    out.storage.chunking = std::move(chunking);
    out.storage.order = order;
  }
}

}  // namespace

bool is_ndarray(const YamlNode& node) {
  return std::string_view(node.tag).starts_with(kNdarrayTag);
}

std::unique_ptr<model::Node> ndarray_to_array(const YamlNode& node, const std::string& name,
                                              ArrayContext& context) {
  const std::string& path = context.path;
  auto out = std::make_unique<model::Node>();
  out->kind = model::NodeKind::kArray;
  out->name = name;
  if (node.is_sequence()) {
    set_inline(*out, node, inline_array(node, nullptr, nullptr, path, *context.budget), node);
    return out;
  }
  if (!node.is_mapping()) bad(node, path, "an ndarray is a mapping or a list");
  set_attributes_and_mask(*out, node, path, *context.budget);

  const YamlNode* datatype = node.find("datatype");
  const YamlNode* shape = node.find("shape");
  if (const YamlNode* data = node.find("data")) {
    set_inline(*out, node, inline_array(*data, datatype, shape, path, *context.budget), *data);
    return out;
  }
  // An array in a block.
  const YamlNode* source = node.find("source");
  if (!source) bad(node, path, "an ndarray needs 'source' or 'data'");
  if (!datatype) bad(node, path, "an ndarray with a 'source' needs a 'datatype'");
  if (!shape || !shape->is_sequence())
    bad(shape ? *shape : node, path, "an ndarray with a 'source' needs a 'shape' list");
  const ByteOrder order = byteorder_of(node, path);
  const DType dtype = datatype_from_yaml(*datatype, order, path, *context.budget);
  auto [store, block] = block_of(*source, path, context);
  const BlockHeader& header = store->header(block);
  const uint64_t offset = offset_of(node, path);
  const uint64_t available = offset <= header.data_size ? header.data_size - offset : 0;
  std::vector<int64_t> dims = dims_of(*shape, dtype, available, path);
  std::vector<int64_t> strides = strides_of(node, dims, dtype, path);
  const uint64_t elements =
      check_inside_block(node, *shape, dims, strides, dtype, offset, header, block, path);
  out->dtype = dtype;
  out->shape = dims;
  describe_storage(*out, header, offset, elements, !strides.empty(), order);
  out->data = std::make_shared<BlockSource>(store, block, dtype, dims, offset, std::move(strides));
  return out;
}

}  // namespace dudley::asdf
