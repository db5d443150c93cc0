#include "source.hpp"

#include "dudley/core/byte_swap.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <mutex>

#include "chunk_reader.hpp"
#include "crash_guard.hpp"
#include "datatype.hpp"
#include "dudley/core/vlen.hpp"
#include "dudley/io/byte_source.hpp"
#include "filters.hpp"

namespace dudley::hdf5 {
namespace {

// Variable-length data copied out of the library's memory.
struct Heap {
  std::deque<std::vector<std::byte>> blocks;
  std::vector<std::byte> main;
};

std::string reference_name(hid_t file, H5R_type_t kind, const void* ref) {
  Lock lock(library_mutex());
  const ssize_t n = H5Rget_name(file, kind, ref, nullptr, 0);
  if (n <= 0) return {};
  std::string name(static_cast<size_t>(n) + 1, '\0');
  H5Rget_name(file, kind, ref, name.data(), name.size());
  name.resize(static_cast<size_t>(n));
  return name;
}

model::Value region_target(hid_t file, const void* ref) {
  const std::string target = reference_name(file, H5R_DATASET_REGION, ref);
  if (target.empty()) return {};
  Lock lock(library_mutex());
  Handle ds(H5Rdereference2(file, H5P_DEFAULT, H5R_DATASET_REGION, ref));
  Handle space(H5Rget_region(file, H5R_DATASET_REGION, ref));
  if (!space.valid()) return {};
  const int rank = H5Sget_simple_extent_ndims(space.get());
  model::ValueMap map{{"target", target}};
  if (H5Sget_select_type(space.get()) == H5S_SEL_POINTS) {
    const hssize_t n = H5Sget_select_elem_npoints(space.get());
    std::vector<hsize_t> points(static_cast<size_t>(std::max<hssize_t>(n, 0) * rank));
    H5Sget_select_elem_pointlist(space.get(), 0, static_cast<hsize_t>(n), points.data());
    model::ValueList elements;
    for (hssize_t i = 0; i < n; ++i) {
      model::ValueList e;
      for (int d = 0; d < rank; ++d)
        e.emplace_back(static_cast<int64_t>(points[static_cast<size_t>(i * rank + d)]));
      elements.emplace_back(std::move(e));
    }
    map.emplace_back("elements", std::move(elements));
  } else {
    std::vector<hsize_t> start(static_cast<size_t>(rank)), end(static_cast<size_t>(rank));
    H5Sget_select_bounds(space.get(), start.data(), end.data());
    model::ValueList a, b;
    for (int d = 0; d < rank; ++d) {
      a.emplace_back(static_cast<int64_t>(start[static_cast<size_t>(d)]));
      b.emplace_back(static_cast<int64_t>(end[static_cast<size_t>(d)]));
    }
    map.emplace_back("start", std::move(a));
    map.emplace_back("opposite", std::move(b));
  }
  return model::Value(std::move(map));
}

void convert_one(const OpenFile& file, const DType& t, const std::byte* raw, std::byte* out,
                 Heap& heap) {
  switch (t.kind()) {
    case DTypeKind::kVLen: {
      VLenElement e;
      if (t.base().joins_units()) {
        const char* s;
        std::memcpy(&s, raw, sizeof s);
        const size_t n = s ? std::strlen(s) : 0;
        auto& block = heap.blocks.emplace_back(n);
        if (n) std::memcpy(block.data(), s, n);
        e = {block.data(), n};
      } else {
        hvl_t h;
        std::memcpy(&h, raw, sizeof h);
        const DType& base = t.base();
        auto& block = heap.blocks.emplace_back(h.len * base.size());
        const auto* p = static_cast<const std::byte*>(h.p);
        if (needs_conversion(base)) {
          for (size_t i = 0; i < h.len; ++i)
            convert_one(file, base, p + i * raw_size(base), block.data() + i * base.size(), heap);
        } else if (h.len) {
          std::memcpy(block.data(), p, h.len * base.size());
        }
        e = {block.data(), h.len};
      }
      std::memcpy(out, &e, sizeof e);
      return;
    }
    case DTypeKind::kReference: {
      uint64_t key = 0;
      if (t.reference_kind() == ReferenceKind::kObject) {
        hobj_ref_t r;
        std::memcpy(&r, raw, sizeof r);
        if (r != 0 && r != HADDR_UNDEF) {
          const std::string name = reference_name(file.id.get(), H5R_OBJECT, raw);
          if (!name.empty()) key = file.refs->add(model::Value(name));
        }
      } else {
        static const std::byte zero[sizeof(hdset_reg_ref_t)] = {};
        if (std::memcmp(raw, zero, sizeof zero) != 0)
          key = file.refs->add(region_target(file.id.get(), raw));
      }
      std::memcpy(out, &key, 8);
      return;
    }
    case DTypeKind::kCompound:
      for (const DTypeField& f : t.fields()) {
        uint64_t n = 1;
        for (int64_t d : f.shape) n *= static_cast<uint64_t>(d);
        for (uint64_t i = 0; i < n; ++i) {
          convert_one(file, *f.type, raw + f.offset + i * raw_size(*f.type),
                      out + f.offset + i * f.type->size(), heap);
        }
      }
      return;
    case DTypeKind::kFixedArray: {
      uint64_t n = 1;
      for (int64_t d : t.array_shape()) n *= static_cast<uint64_t>(d);
      for (uint64_t i = 0; i < n; ++i)
        convert_one(file, t.base(), raw + i * raw_size(t.base()), out + i * t.base().size(), heap);
      return;
    }
    default:
      std::memcpy(out, raw, t.size());
  }
}

DType native_of(const DType& t) {
  return t.size() > 1 && t.kind() != DTypeKind::kVLen ? t.with_byte_order(native_byte_order()) : t;
}

class DatasetSource final : public model::ArraySource {
 public:
  DatasetSource(std::shared_ptr<OpenFile> file, std::string name, DType dtype,
                std::vector<int64_t> shape, std::vector<int64_t> chunk,
                std::optional<std::pair<uint64_t, uint64_t>> contiguous, bool elsewhere)
      : elsewhere_(elsewhere),
        file_(std::move(file)),
        name_(std::move(name)),
        dtype_(std::move(dtype)),
        native_(native_of(dtype_)),
        shape_(std::move(shape)),
        chunk_(std::move(chunk)),
        contiguous_(contiguous) {}

  NDArray read() override { return read(Hyperslab::all(shape_)); }

  NDArray read(const Hyperslab& slab) override {
    slab.check_fits(shape_);
    if (!needs_conversion(dtype_)) {
      NDArray out(native_, Shape(slab.result_shape()));
      read_into(slab, out.mutable_data());
      return out;
    }
    // Variable-length data and references: read in the library's form, then converted.
    const Hyperslab forward = forward_of(slab);
    std::vector<int64_t> counts = forward.count;
    const std::optional<uint64_t> n = Shape(counts).element_count();
    if (*n == 0) return NDArray(native_, Shape(slab.result_shape()));  // an empty dataset too
    auto heap = std::make_shared<Heap>();
    std::shared_ptr<void> keep = heap;
    heap->main.resize(*n * native_.size());
    std::vector<std::byte> raw(*n * raw_size(dtype_));
    {
      Lock lock(library_mutex());
      Handle ds = open();
      Handle memtype = h5_type(native_, true);
      Handle filespace, memspace;
      select(ds, forward, filespace, memspace);
      // libhdf5 follows each variable-length element into the file's global heap, where a
      // damaged file sends it to a wild address: the read is done first in a child process
      // (crash_guard.hpp). Not for a file at a URL, which the child would fetch again.
      if (*n && !file_->remote) {
        in_crash_proof_child(file_->path, fmt::format("reading {}", name_), [&] {
          std::vector<std::byte> trial(raw.size());
          if (H5Dread(ds.get(), memtype.get(), memspace.get(), filespace.get(), H5P_DEFAULT,
                      trial.data()) >= 0)
            H5Dvlen_reclaim(memtype.get(), memspace.get(), H5P_DEFAULT, trial.data());
        });
      }
      if (*n && H5Dread(ds.get(), memtype.get(), memspace.get(), filespace.get(), H5P_DEFAULT,
                        raw.data()) < 0)
        throw read_error(ds);
      convert_elements(*file_, native_, raw.data(), heap->main.data(), *n, keep);
      if (*n) H5Dvlen_reclaim(memtype.get(), memspace.get(), H5P_DEFAULT, raw.data());
    }
    NDArray whole = NDArray::borrow(heap->main.data(), native_, Shape(counts), {}, keep);
    return reorder(whole, slab);
  }

  void read_into(const Hyperslab& slab, void* out) override {
    slab.check_fits(shape_);
    if (needs_conversion(dtype_))
      throw Error(ErrorCategory::kUsage,
                  "variable-length and reference arrays are read with read()",
                  Location::file(file_->path));
    const Hyperslab forward = forward_of(slab);
    const bool reversed = forward.stride != slab.stride;
    const uint64_t n = *Shape(forward.count).element_count();
    if (n == 0) return;
    std::vector<std::byte> temp;
    void* target = out;
    if (reversed) {
      temp.resize(n * native_.size());
      target = temp.data();
    }
    Handle ds;
    ChunkReader* chunks = nullptr;
    {
      Lock lock(library_mutex());
      ds = open();
      if (!chunks_tried_) {
        chunks_ = ChunkReader::make(*file_, ds.get(), name_, dtype_, shape_, chunk_);
        chunks_tried_ = true;
      }
      chunks = chunks_.get();
    }
    // Chunks this module decodes itself: on every core, outside the library's lock. A read
    // finding the decoder busy with another thread's read goes through the library instead
    // (see ChunkReader::try_read_into).
    if (!chunks || !chunks->try_read_into(ds.get(), forward, target)) {
      Lock lock(library_mutex());
      Handle memtype = h5_type(native_, true);
      Handle filespace, memspace;
      select(ds, forward, filespace, memspace);
      if (H5Dread(ds.get(), memtype.get(), memspace.get(), filespace.get(), H5P_DEFAULT, target) <
          0)
        throw read_error(ds);
    }
    if (reversed) {
      NDArray whole = NDArray::borrow(temp.data(), native_, Shape(forward.count));
      reorder(whole, slab).copy_native_into(out);
    }
  }

  model::ReadUnit read_unit() const override {
    if (chunk_.empty()) return {};
    uint64_t bytes = dtype_.size();
    for (int64_t c : chunk_) bytes *= static_cast<uint64_t>(c);
    return {chunk_, bytes};
  }

  // The chunks libhdf5's chunk index lists (a chunked dataset), or none at all (a contiguous
  // one never written). libhdf5 1.10 finds chunk i by walking the index from its start, so
  // listing n chunks costs n^2/2 steps: a dataset of more than kMaxListedChunks stored
  // chunks, but not all of them, is not listed (nullopt), and is read as usual.
  std::optional<model::StoredChunks> stored_chunks() override {
    if (needs_conversion(dtype_)) return std::nullopt;  // no fill to speak of
    std::lock_guard own(stored_mutex_);
    if (stored_) return stored_->chunks == UINT64_MAX ? std::nullopt : stored_;
    stored_ = list_chunks();
    return stored_->chunks == UINT64_MAX ? std::nullopt : stored_;
  }

  std::optional<StoredBytes> stored_bytes() override {
    if (!contiguous_ || needs_conversion(dtype_)) return std::nullopt;
    const std::optional<uint64_t> bytes = Shape(shape_).byte_size(dtype_.size());
    if (!bytes || *bytes != contiguous_->second) return std::nullopt;
    if (!bytes_) bytes_ = file_->remote ? file_->remote : io::open_file(file_->path);
    return StoredBytes{bytes_, contiguous_->first, *bytes, dtype_};
  }

 private:
  static constexpr hsize_t kMaxListedChunks = 16384;

  // What stored_chunks() answers, `chunks` UINT64_MAX standing for "every element stored, or
  // not listed".
  model::StoredChunks list_chunks() const {
    model::StoredChunks none;
    none.chunks = UINT64_MAX;
    Lock lock(library_mutex());
    Handle ds = open();
    Handle dcpl(H5Dget_create_plist(ds.get()));
    model::StoredChunks stored;
    const H5D_layout_t layout = H5Pget_layout(dcpl.get());
    const size_t rank = shape_.size();
    if (layout == H5D_CONTIGUOUS) {
      // Written never (allocated late): every element is the fill value.
      if (H5Dget_storage_size(ds.get()) != 0 || rank == 0) return none;
      stored.chunk_shape = shape_;
    } else if (layout == H5D_CHUNKED && chunk_.size() == rank && rank > 0 &&
               chunk_info_agrees(ds.get())) {
      Handle space(H5Dget_space(ds.get()));
      hsize_t n = 0;
      if (H5Dget_num_chunks(ds.get(), space.get(), &n) < 0) {
        H5Eclear2(H5E_DEFAULT);
        return none;
      }
      uint64_t grid = 1;
      for (size_t d = 0; d < rank; ++d) {
        const auto along = static_cast<uint64_t>((shape_[d] + chunk_[d] - 1) / chunk_[d]);
        grid = checked_mul(grid, along).value_or(UINT64_MAX);
      }
      if (n >= grid || n > kMaxListedChunks) return none;
      stored.chunk_shape = chunk_;
      std::vector<std::vector<int64_t>> found;
      std::vector<hsize_t> offset(rank);
      for (hsize_t i = 0; i < n; ++i) {
        unsigned mask = 0;
        haddr_t address = 0;
        hsize_t bytes = 0;
        if (H5Dget_chunk_info(ds.get(), space.get(), i, offset.data(), &mask, &address, &bytes) <
            0) {
          H5Eclear2(H5E_DEFAULT);
          return none;
        }
        std::vector<int64_t> position(rank);
        for (size_t d = 0; d < rank; ++d) {
          position[d] = static_cast<int64_t>(offset[d]) / chunk_[d];
        }
        found.push_back(std::move(position));
      }
      std::sort(found.begin(), found.end());
      stored.chunks = found.size();
      for (const auto& p : found)
        stored.positions.insert(stored.positions.end(), p.begin(), p.end());
    } else {
      return none;  // compact: stored in the object header
    }
    // What a missing chunk reads as: the dataset's fill value (zeros by default).
    stored.fill.assign(native_.size(), std::byte{0});
    Handle memtype = h5_type(native_, true);
    H5D_fill_value_t state;
    if (H5Pfill_value_defined(dcpl.get(), &state) >= 0 && state != H5D_FILL_VALUE_UNDEFINED &&
        H5Pget_fill_value(dcpl.get(), memtype.get(), stored.fill.data()) < 0) {
      H5Eclear2(H5E_DEFAULT);
      return none;
    }
    return stored;
  }

  // Why a read failed: the filters missing here, named with what to install, when some
  // are (the library says only "can't read data"); else the library's reason.
  Error read_error(const Handle& ds) const {
    Error library =
        library_error(ErrorCategory::kData, fmt::format("cannot read {}", name_), file_->path);
    Handle dcpl(H5Dget_create_plist(ds.get()));
    const std::string missing = dcpl.valid() ? missing_filters(dcpl.get()) : std::string();
    if (missing.empty()) return library;
    return Error(ErrorCategory::kData, fmt::format("cannot read {}: {}", name_, missing),
                 Location::file(file_->path));
  }

  // The dataset, opened by its path as every read opens it: through the file's access list,
  // whose callback judges each external link on the way; and, should libhdf5 have opened a
  // file other than the one judged (it was changed meanwhile), refused before a value is read.
  Handle open() const {
    file_->access.refusal.clear();
    Handle ds(H5Dopen2(file_->id.get(), name_.c_str(),
                       (elsewhere_ ? file_->external_access : file_->link_access).get()));
    if (!ds.valid()) {
      if (!file_->access.refusal.empty()) {
        H5Eclear2(H5E_DEFAULT);
        throw Error(ErrorCategory::kData,
                    fmt::format("cannot open dataset {}: {}", name_, file_->access.refusal),
                    Location::file(file_->path));
      }
      throw library_error(ErrorCategory::kData, fmt::format("cannot open dataset {}", name_),
                          file_->path);
    }
    if (auto why = opened_outside(file_->access, ds.get()))
      throw Error(ErrorCategory::kData, fmt::format("cannot open dataset {}: {}", name_, *why),
                  Location::file(file_->path));
    return ds;
  }

  // The same elements with every step positive (the library reads forward only).
  static Hyperslab forward_of(const Hyperslab& slab) {
    Hyperslab f = slab;
    f.stride.resize(slab.start.size(), 1);
    for (size_t d = 0; d < slab.start.size(); ++d) {
      const int64_t step = slab.step(d);
      // One element (or none) reads alike whatever the step, which may be any int64, even
      // -2^63 (`a[::-2**63]`): a step is negated only where two elements lie within the
      // array, so that it is less than its extent.
      if (slab.count[d] <= 1) {
        f.stride[d] = 1;
        continue;
      }
      if (step < 0) {
        f.start[d] = slab.start[d] + (slab.count[d] - 1) * step;
        f.stride[d] = -step;
      } else {
        f.stride[d] = step;
      }
    }
    if (slab.stride.empty()) f.stride.clear();
    return f;
  }

  // `whole` (read forward) in the order `slab` asks, as a packed array of its result shape.
  static NDArray reorder(const NDArray& whole, const Hyperslab& slab) {
    Hyperslab flip = Hyperslab::all(whole.shape().dims());
    bool any = false;
    flip.stride.assign(slab.start.size(), 1);
    for (size_t d = 0; d < slab.start.size(); ++d) {
      if (slab.step(d) < 0 && slab.count[d] > 0) {
        flip.start[d] = slab.count[d] - 1;
        flip.stride[d] = -1;
        any = true;
      }
    }
    flip.dropped = slab.dropped;
    NDArray view = any || !slab.dropped.empty() ? whole.select(flip) : whole;
    if (!any) {
      // Only dimensions dropped: the same bytes under the result shape.
      return NDArray::borrow(const_cast<void*>(whole.data()), whole.dtype(),
                             Shape(slab.result_shape()), {},
                             std::shared_ptr<void>(std::make_shared<NDArray>(whole)));
    }
    if (whole.dtype().kind() == DTypeKind::kVLen || needs_conversion(whole.dtype())) {
      // Elements point into the heap `whole` keeps: copy the elements, keep the heap.
      NDArray packed(whole.dtype(), Shape(slab.result_shape()));
      view.copy_native_into(packed.mutable_data());
      auto keep = std::make_shared<std::pair<NDArray, NDArray>>(whole, packed);
      return NDArray::borrow(keep->second.mutable_data(), whole.dtype(), Shape(slab.result_shape()),
                             {}, keep);
    }
    return view.to_native();
  }

  void select(const Handle& ds, const Hyperslab& f, Handle& filespace, Handle& memspace) const {
    filespace = checked(H5Dget_space(ds.get()), "cannot read the dataspace", file_->path);
    const size_t rank = f.start.size();
    std::vector<hsize_t> start(rank), stride(rank), count(rank);
    for (size_t d = 0; d < rank; ++d) {
      start[d] = static_cast<hsize_t>(f.start[d]);
      stride[d] = static_cast<hsize_t>(f.step(d));
      count[d] = static_cast<hsize_t>(f.count[d]);
    }
    if (rank > 0) {
      check(H5Sselect_hyperslab(filespace.get(), H5S_SELECT_SET, start.data(), stride.data(),
                                count.data(), nullptr),
            "cannot select elements", file_->path);
      memspace = Handle(H5Screate_simple(static_cast<int>(rank), count.data(), nullptr));
    } else {
      memspace = Handle(H5Screate(H5S_SCALAR));
    }
  }

  bool elsewhere_;  ///< values in other files: opened with the file's external_access
  std::shared_ptr<OpenFile> file_;
  std::string name_;
  DType dtype_, native_;
  std::vector<int64_t> shape_, chunk_;
  std::optional<std::pair<uint64_t, uint64_t>> contiguous_;
  std::shared_ptr<const io::ByteSource> bytes_;
  std::mutex stored_mutex_;
  std::optional<model::StoredChunks> stored_;  // listed once
  // The dataset's chunks as this module decodes them (chunk_reader.hpp); null when libhdf5
  // reads them. Made under the library lock on the first read.
  bool chunks_tried_ = false;
  std::unique_ptr<ChunkReader> chunks_;
};

}  // namespace

void convert_elements(const OpenFile& file, const DType& type, const std::byte* raw, std::byte* out,
                      uint64_t count, std::shared_ptr<void>& keep) {
  auto* heap = static_cast<Heap*>(keep.get());
  const uint64_t step = raw_size(type);
  for (uint64_t i = 0; i < count; ++i)
    convert_one(file, type, raw + i * step, out + i * type.size(), *heap);
}

std::shared_ptr<model::ArraySource> dataset_source(
    std::shared_ptr<OpenFile> file, std::string name, DType dtype, std::vector<int64_t> shape,
    std::vector<int64_t> chunk, std::optional<std::pair<uint64_t, uint64_t>> contiguous,
    bool elsewhere) {
  return std::make_shared<DatasetSource>(std::move(file), std::move(name), std::move(dtype),
                                         std::move(shape), std::move(chunk), contiguous, elsewhere);
}

ReadAttribute read_attribute(const OpenFile& file, hid_t attr, const std::string& what) {
  Lock lock(library_mutex());
  Handle ftype = checked(H5Aget_type(attr), "cannot read an attribute's type", file.path);
  Handle space = checked(H5Aget_space(attr), "cannot read an attribute's dataspace", file.path);
  const DType stored = dtype_of(ftype.get(), what);
  const DType native = native_of(stored);
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 0) throw library_error(ErrorCategory::kData, what + ": bad dataspace", file.path);
  std::vector<hsize_t> dims(static_cast<size_t>(rank));
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  std::vector<int64_t> shape(dims.begin(), dims.end());
  if (H5Sget_simple_extent_type(space.get()) == H5S_NULL)
    return {model::well_known::empty_value(stored), std::nullopt};
  const std::optional<uint64_t> n = Shape(shape).element_count();
  const uint64_t file_size = [&] {
    hsize_t s = 0;
    H5Fget_filesize(file.id.get(), &s);
    return static_cast<uint64_t>(s);
  }();
  // An attribute's elements are stored in the file (a variable-length one as a 16-byte heap
  // reference): more bytes than the file holds is damage, refused before allocating.
  const std::optional<uint64_t> bytes =
      n ? checked_mul(*n, std::max<uint64_t>(stored.size(), 1)) : std::nullopt;
  if (!bytes || *bytes > file_size)
    throw Error(ErrorCategory::kData, what + ": more elements than the file holds",
                Location::file(file.path));
  Handle memtype = h5_type(native, true);
  auto heap = std::make_shared<Heap>();
  std::shared_ptr<void> keep = heap;
  heap->main.resize(*n * native.size());
  if (!needs_conversion(native)) {
    if (*n)
      check(H5Aread(attr, memtype.get(), heap->main.data()), what + ": cannot read", file.path);
  } else {
    std::vector<std::byte> raw(*n * raw_size(native));
    if (*n) check(H5Aread(attr, memtype.get(), raw.data()), what + ": cannot read", file.path);
    convert_elements(file, native, raw.data(), heap->main.data(), *n, keep);
    if (*n) H5Dvlen_reclaim(memtype.get(), space.get(), H5P_DEFAULT, raw.data());
  }
  NDArray a = NDArray::borrow(heap->main.data(), native, Shape(shape), {}, keep);
  const DTypeKind kind = stored.kind();
  if (stored.needs_swap() &&
      (kind == DTypeKind::kInt || kind == DTypeKind::kUInt || kind == DTypeKind::kFloat)) {
    // A number stored big-endian keeps its byte order (its readers convert; a writer
    // carries it, as NDL's `endian: big` or HDF5's own type).
    swap_elements(heap->main.data(), *n, stored);
    a = NDArray::borrow(heap->main.data(), stored, Shape(shape), {}, keep);
  }
  // A scalar string (fixed or variable) is a plain string, as every format's text attribute.
  if (shape.empty() && (native.kind() == DTypeKind::kText ||
                        (native.kind() == DTypeKind::kVLen && native.base().joins_units()))) {
    std::string s;
    if (native.kind() == DTypeKind::kText) {
      s.assign(reinterpret_cast<const char*>(heap->main.data()), native.size());
      // The padding goes; a NUL inside the text stays, as ncdump and numpy keep it
      // (netCDF-C's `:global = "x\000y"` is three characters, not one).
      while (!s.empty() && s.back() == '\0') s.pop_back();
      return {model::Value(std::move(s)), DType::string(stored.encoding(), stored.size())};
    }
    VLenElement e;
    std::memcpy(&e, heap->main.data(), sizeof e);
    s.assign(reinterpret_cast<const char*>(e.data), e.count);
    // Variable-length UTF-8 is what writers make of text anyway; ASCII is said.
    const TextEncoding encoding = native.base().encoding();
    if (encoding == TextEncoding::kUtf8) return {model::Value(std::move(s)), std::nullopt};
    return {model::Value(std::move(s)), DType::vlen(DType::text(encoding))};
  }
  return {std::move(a), std::nullopt};
}

}  // namespace dudley::hdf5
