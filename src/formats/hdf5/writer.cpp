// Model tree -> HDF5 file through libhdf5, written under a temporary name and renamed into
// place. Arrays without variable-length data stream piece by piece; those with it (and
// references, written last so that their targets exist) are read whole.
#include <hdf5_hl.h>
#include <sys/stat.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <set>
#include <tuple>
#include <unordered_set>

#include "backend.hpp"
#include "chunk_writer.hpp"
#include "datatype.hpp"
#include "dudley/core/big_memory.hpp"
#include "dudley/core/path.hpp"
#include "dudley/core/vlen.hpp"
#include "dudley/formats/hdf5.hpp"
#include "dudley/io/atomic_outputs.hpp"
#include "dudley/io/disk_room.hpp"
#include "dudley/model/member_names.hpp"
#include "dudley/model/sparse_chunks.hpp"
#include "dudley/model/text_strings.hpp"
#include "dudley/model/value_array.hpp"
#include "dudley/model/value_json.hpp"
#include "filters.hpp"
#include "netcdf_names.hpp"
#include "source.hpp"

namespace dudley::hdf5 {
namespace {

using model::Node;
using model::Value;

bool has_reference(const DType& t) {
  switch (t.kind()) {
    case DTypeKind::kReference:
      return true;
    case DTypeKind::kCompound:
      for (const DTypeField& f : t.fields()) {
        if (has_reference(*f.type)) return true;
      }
      return false;
    case DTypeKind::kFixedArray:
    case DTypeKind::kVLen:
      return has_reference(t.base());
    default:
      return false;
  }
}

// Model elements in the library's memory form: strings as char*, vlen as hvl_t, references
// made from the targets the reference table names.
class RawElements {
 public:
  RawElements(hid_t file, const model::ReferenceTable* refs) : file_(file), refs_(refs) {}

  void convert(const DType& t, const std::byte* in, std::byte* raw) {
    switch (t.kind()) {
      case DTypeKind::kVLen: {
        VLenElement e;
        std::memcpy(&e, in, sizeof e);
        if (t.base().joins_units()) {
          const std::string& s =
              strings_.emplace_back(reinterpret_cast<const char*>(e.data), e.count);
          const char* p = s.c_str();
          std::memcpy(raw, &p, sizeof p);
          return;
        }
        hvl_t h{e.count, const_cast<std::byte*>(e.data)};
        if (needs_conversion(t.base())) {
          auto& block = blocks_.emplace_back(e.count * raw_size(t.base()));
          for (uint64_t i = 0; i < e.count; ++i)
            convert(t.base(), e.data + i * t.base().size(), block.data() + i * raw_size(t.base()));
          h.p = block.data();
        }
        std::memcpy(raw, &h, sizeof h);
        return;
      }
      case DTypeKind::kReference: {
        uint64_t key;
        std::memcpy(&key, in, 8);
        const Value target = refs_ ? refs_->find(key) : Value();
        std::memset(raw, 0, raw_size(t));
        if (target.is<std::string>()) {
          if (H5Rcreate(raw, file_, target.as<std::string>().c_str(), H5R_OBJECT, -1) < 0) {
            H5Eclear2(H5E_DEFAULT);
            missing_.push_back(target.as<std::string>());
          }
        } else if (const Value* path = target.find("target"); path && path->is<std::string>()) {
          region(target, path->as<std::string>(), raw);
        }
        return;
      }
      case DTypeKind::kCompound:
        for (const DTypeField& f : t.fields()) {
          uint64_t n = 1;
          for (int64_t d : f.shape) n *= static_cast<uint64_t>(d);
          for (uint64_t i = 0; i < n; ++i)
            convert(*f.type, in + f.offset + i * f.type->size(),
                    raw + f.offset + i * raw_size(*f.type));
        }
        return;
      case DTypeKind::kFixedArray: {
        uint64_t n = 1;
        for (int64_t d : t.array_shape()) n *= static_cast<uint64_t>(d);
        for (uint64_t i = 0; i < n; ++i)
          convert(t.base(), in + i * t.base().size(), raw + i * raw_size(t.base()));
        return;
      }
      default:
        std::memcpy(raw, in, t.size());
    }
  }

  const std::vector<std::string>& missing() const { return missing_; }
  /// Frees the strings and blocks the elements converted so far point to, once written.
  void release() {
    strings_.clear();
    blocks_.clear();
  }

 private:
  void region(const Value& target, const std::string& path, std::byte* raw) {
    Handle ds(H5Dopen2(file_, path.c_str(), H5P_DEFAULT));
    if (!ds.valid()) {
      H5Eclear2(H5E_DEFAULT);
      missing_.push_back(path);
      return;
    }
    Handle space(H5Dget_space(ds.get()));
    auto indexes = [](const Value* v) {
      std::vector<hsize_t> out;
      if (v && v->is<model::ValueList>()) {
        for (const Value& x : v->as<model::ValueList>())
          out.push_back(x.is<int64_t>() ? static_cast<hsize_t>(x.as<int64_t>()) : 0);
      }
      return out;
    };
    if (const Value* elements = target.find("elements");
        elements && elements->is<model::ValueList>()) {
      std::vector<hsize_t> coords;
      for (const Value& e : elements->as<model::ValueList>()) {
        const std::vector<hsize_t> c = indexes(&e);
        coords.insert(coords.end(), c.begin(), c.end());
      }
      const size_t n = elements->as<model::ValueList>().size();
      H5Sselect_elements(space.get(), H5S_SELECT_SET, n, coords.data());
    } else {
      std::vector<hsize_t> start = indexes(target.find("start"));
      std::vector<hsize_t> end = indexes(target.find("opposite"));
      std::vector<hsize_t> count(start.size());
      for (size_t d = 0; d < start.size() && d < end.size(); ++d) count[d] = end[d] - start[d] + 1;
      H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(),
                          nullptr);
    }
    if (H5Rcreate(raw, file_, path.c_str(), H5R_DATASET_REGION, space.get()) < 0) {
      H5Eclear2(H5E_DEFAULT);
      missing_.push_back(path);
    }
  }

  hid_t file_;
  const model::ReferenceTable* refs_;
  std::deque<std::string> strings_;
  std::deque<std::vector<std::byte>> blocks_;
  std::vector<std::string> missing_;
};

// Whether readers list the group's members in the model's order only if the file tracks
// their creation order: a list's items ("10" comes before "2" by name), a group with
// parameters (dimensions made among its members) or with members out of name order. The
// others are not tracked: they list the same by name, and tracking costs (about 15% of a
// copy of 22,000 small datasets). netCDF files always track it, as netCDF-C's do.
bool needs_creation_order(const model::Node& group) {
  if (group.kind == model::NodeKind::kList) return true;
  if (!group.params.empty()) return true;
  return !std::is_sorted(group.children.begin(), group.children.end(),
                         [](const std::unique_ptr<model::Node>& a,
                            const std::unique_ptr<model::Node>& b) { return a->name < b->name; });
}

class Writer {
 public:
  Writer(const model::Tree& tree, const model::ReferenceTable* refs, hid_t file,
         const SaveOptions& options, std::vector<std::string>& notes, LossLog& losses)
      : tree_(tree),
        refs_(refs),
        file_(file),
        options_(options),
        own_(options.formats.get<Hdf5SaveOptions>()),
        notes_(notes),
        losses_(losses) {}

  // Writes the tree into the file, which will be renamed to `destination`.
  void run(const std::string& destination) {
    destination_ = destination;
    total_ = options_.progress ? model::array_bytes(*tree_.root) : 0;
    const std::string ext = lowercase_extension(destination);
    netcdf_ = ext == ".nc" || ext == ".nc4";
    Handle root(H5Gopen2(file_, "/", H5P_DEFAULT));
    attributes(root.get(), *tree_.root, "/");
    if (tree_.root->kind == model::NodeKind::kList) {
      notes_.push_back("/: HDF5 has no lists; its items are the root group's members 0, 1, ...");
      ++lists_noted_;
    }
    members(root.get(), *tree_.root, "/");
    for (const auto& [full, node] : hard_links_) {
      const size_t slash = full.rfind('/');
      Handle parent(H5Oopen(file_, slash == 0 ? "/" : full.substr(0, slash).c_str(), H5P_DEFAULT));
      link(parent.get(), full.substr(slash + 1), *node, full);
    }
    for (const auto& [path, node] : deferred_) write_data(path, *node);
    dimension_scales();
    netcdf_dimensions();
    if (netcdf_) netcdf_dimension_ids();
    if (netcdf_ && tree_.netcdf_classic) classic_model();
  }

 private:
  // The group's members in its order, its parameters (netCDF dimensions) at their places
  // among them: the file tracks creation order, so readers list them as the source did.
  void members(hid_t group, const Node& node, const std::string& path) {
    const std::set<std::string> non_coordinates = non_coordinate_members(node);
    std::unordered_set<std::string_view> member_names;  // for the parameters, if any
    if (!node.params.empty() && node.kind == model::NodeKind::kGroup) {
      for (const auto& c : node.children) member_names.insert(c->name);
    }
    std::vector<size_t> params(node.params.size());  // indexes, by their place
    for (size_t k = 0; k < params.size(); ++k) params[k] = k;
    std::stable_sort(params.begin(), params.end(), [&](size_t a, size_t b) {
      return node.params[a].members_before < node.params[b].members_before;
    });
    size_t next_param = 0;
    auto params_before = [&](uint64_t members) {
      for (;
           next_param < params.size() && node.params[params[next_param]].members_before <= members;
           ++next_param) {
        dimension_param(group, node, path, node.params[params[next_param]], non_coordinates,
                        member_names);
      }
    };
    // A name with a '/' would be a path inside the file (another group's member, or the
    // root's), and a second member of one name would replace the first.
    model::MemberNames names(model::NameUse::kLinkName);
    model::for_each_child(node, [&](uint64_t i, const Node& c) {
      params_before(i);
      const std::string name = node.kind == model::NodeKind::kList ? std::to_string(i)
                               : non_coordinates.count(c.name)     ? non_coordinate_name(c.name)
                                                                   : c.name;
      if (const std::optional<std::string> why = names.refuse(name)) {
        losses_.lose(fmt::format("{}: {}; left out", path.empty() ? "/" : path, *why));
        return true;
      }
      const std::string full = join_path(path, name);
      if (c.link && c.link->kind == "hard" && node.kind == model::NodeKind::kGroup) {
        hard_links_.emplace_back(full, &c);  // once its first name is written
        return true;
      }
      if (c.link && node.kind == model::NodeKind::kGroup) {
        link(group, name, c, full);
        return true;
      }
      if (!c.error.empty()) {
        losses_.lose(c.link ? fmt::format("{}: {}; left out", full, c.error.message)
                            : LossLog::unreadable(full, c.error));
        return true;
      }
      if (c.kind == model::NodeKind::kArray) {
        dataset(group, name, c, full);
        if (!c.shape.empty()) dimension_order_.push_back(full);  // perhaps a coordinate
      } else {
        Handle ocpl(H5Pcreate(H5P_GROUP_CREATE));
        H5Pset_attr_creation_order(ocpl.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
        if (netcdf_ || needs_creation_order(c))
          H5Pset_link_creation_order(ocpl.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
        Handle g = checked(H5Gcreate2(group, name.c_str(), H5P_DEFAULT, ocpl.get(), H5P_DEFAULT),
                           fmt::format("cannot create group {}", full), path_of_file(),
                           ErrorCategory::kIo);
        attributes(g.get(), c, full);
        if (c.kind == model::NodeKind::kList && lists_noted_++ == 0)
          notes_.push_back(fmt::format(
              "{}: HDF5 has no lists; its items are the group's members 0, 1, ...", full));
        members(g.get(), c, full);
      }
      return true;
    });
    params_before(UINT64_MAX);
  }

  // The group's members named like one of its parameters (a netCDF dimension) whose values
  // they are not (a netCDF-3 "longitude(rgrid)" beside the dimension "longitude"): stored
  // as "_nc4_non_coord_" and the name, as netCDF-C stores such a variable, so that the
  // dimension keeps its name. netCDF readers and this one list them by their own name.
  static std::set<std::string> non_coordinate_members(const Node& node) {
    std::set<std::string> out;
    if (node.kind != model::NodeKind::kGroup || node.params.empty()) return out;
    std::map<std::string_view, int64_t> sizes;
    for (const model::Parameter& p : node.params) {
      if (p.value && *p.value >= 0) sizes.emplace(p.name, *p.value);
    }
    for (const auto& c : node.children) {
      const auto size = sizes.find(c->name);
      if (size == sizes.end() || c->kind != model::NodeKind::kArray || c->link) continue;
      if (!WrittenArray::of(*c).is_coordinate(c->name, size->second)) out.insert(c->name);
    }
    return out;
  }

  // A parameter as the dimension scale netcdf_dimensions() would make of it, made at its
  // place among the members; a member that is its coordinate becomes the scale when
  // netcdf_dimensions() runs.
  void dimension_param(hid_t group, const Node& node, const std::string& path,
                       const model::Parameter& p, const std::set<std::string>& non_coordinates,
                       const std::unordered_set<std::string_view>& member_names) {
    if (!p.value || *p.value < 0 || node.kind != model::NodeKind::kGroup) return;
    if (const std::optional<std::string> why =
            model::name_problem(p.name, model::NameUse::kLinkName)) {
      losses_.lose(fmt::format("{}: a dimension not written: its name {} {}; left out",
                               path.empty() ? "/" : path, model::quoted_name(p.name), *why));
      return;
    }
    const std::string full = join_path(path, p.name);
    dimension_order_.push_back(full);
    if (!non_coordinates.count(p.name) && member_names.count(p.name)) return;  // a coordinate
    if (dimension_scale(group, p.name, *p.value, full)) scale_of_[full] = full;
  }

  // A dimension without values: a dataset of its size and no storage, a scale named "This is
  // a netCDF dimension but not a netCDF variable" as netCDF-C makes them.
  bool dimension_scale(hid_t group, const std::string& name, int64_t size,
                       const std::string& full) {
    const hsize_t n = static_cast<hsize_t>(size);
    Handle space(H5Screate_simple(1, &n, nullptr));
    Handle ds(H5Dcreate2(group, name.c_str(), H5T_IEEE_F32BE, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                         H5P_DEFAULT));
    const std::string label = fmt::format("{}{:10}", kDimensionOnlyLabel, size);
    if (!ds.valid() || H5DSset_scale(ds.get(), label.c_str()) < 0) {
      H5Eclear2(H5E_DEFAULT);
      losses_.lose(fmt::format("{}: the dimension {} of size {} cannot be written; left out", full,
                               name, size));
      return false;
    }
    return true;
  }

  // A link kept as a link: soft and external ones by what they name (followed or not), a
  // hard one to the object written under its first name (the data written once).
  void link(hid_t group, const std::string& name, const Node& c, const std::string& full) {
    herr_t made = -1;
    if (c.link->kind == "soft") {
      made = H5Lcreate_soft(c.link->target.c_str(), group, name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
    } else if (c.link->kind == "external") {
      made = H5Lcreate_external(c.link->file.c_str(), c.link->target.c_str(), group, name.c_str(),
                                H5P_DEFAULT, H5P_DEFAULT);
    } else if (c.link->kind == "hard") {
      made = H5Lcreate_hard(file_, c.link->target.c_str(), group, name.c_str(), H5P_DEFAULT,
                            H5P_DEFAULT);
    }
    if (made < 0) {
      H5Eclear2(H5E_DEFAULT);
      losses_.lose(fmt::format("{}: {} cannot be made here; left out", full, c.link->describe()));
    }
  }

  // The output as the user named it: libhdf5 writes a temporary file beside it, whose name
  // would mean nothing in a message.
  const std::string& path_of_file() const { return destination_; }

  // The dataset's chunks: the source's, or pieces of at most 1024 per dimension when
  // compressing, or about 1 MiB along the first dimensions when it only grows; its filters:
  // --deflate (and --hdf5-shuffle), else the source's codecs where HDF5 has them.
  void set_chunks(hid_t dcpl, const Node& n, const std::vector<hsize_t>& dims,
                  const std::string& full) {
    const size_t rank = n.shape.size();
    const model::Chunking* chunking =
        n.storage.kind == model::Storage::Kind::kChunked ? n.storage.chunking.get() : nullptr;
    const bool compress = own_.deflate > 0 && rank > 0 && n.dtype.size() > 0;
    std::vector<hsize_t> chunk(rank);
    for (size_t d = 0; d < rank; ++d) {
      int64_t c = chunking && chunking->chunk_shape.size() == rank
                      ? chunking->chunk_shape[d]
                      : std::min<int64_t>(n.shape[d], 1024);
      chunk[d] = static_cast<hsize_t>(std::max<int64_t>(c, 1));
    }
    if (!chunking && !compress) {
      // Only growing: chunks of about 1 MiB along the first dimensions.
      uint64_t bytes = n.dtype.size();
      for (size_t d = rank; d-- > 0;) {
        chunk[d] = std::max<hsize_t>(
            1, std::min<hsize_t>(dims[d], (uint64_t{1} << 20) / std::max<uint64_t>(bytes, 1)));
        bytes *= chunk[d];
      }
    }
    H5Pset_chunk(dcpl, static_cast<int>(rank), chunk.data());
    if (compress) {
      if (own_.shuffle) H5Pset_shuffle(dcpl);
      H5Pset_deflate(dcpl, own_.deflate);
    } else if (chunking) {
      for (std::string& note : apply_codecs(dcpl, chunking->codecs))
        notes_.push_back(fmt::format("{}: {}", full, note));
    }
  }

  // The source's fill value (a one-element attribute of the array's type), when it has one.
  static void set_fill_value(hid_t dcpl, const Node& n) {
    if (const auto* fill = n.attributes.find(model::well_known::kFillValue)) {
      if (const NDArray* a = std::get_if<NDArray>(fill);
          a && a->element_count() == 1 && !needs_conversion(a->dtype())) {
        const NDArray native = a->to_native();
        Handle mt = h5_type(native.dtype(), true);
        if (native.dtype().size() == n.dtype.size())
          H5Pset_fill_value(dcpl, mt.get(), native.data());
      }
    }
  }

  // A source of missing chunks: the dataset reads missing data as the source's fill value,
  // and only the stored chunks are written (write_data), chunked or, for a source never
  // written at all, contiguous and never allocated.
  void plan_sparse(hid_t dcpl, const Node& n, const std::string& full) {
    const size_t rank = n.shape.size();
    const bool strings = n.dtype.kind() == DTypeKind::kVLen && n.dtype.base().joins_units();
    if (n.data && strings && rank > 0) {
      // Strings whose missing chunks read as "": HDF5's own fill for strings (none stored
      // reads as empty), so only the stored chunks are written, as for numbers.
      std::optional<model::StoredChunks> stored = n.data->stored_chunks();
      if (stored && stored->fill.empty() && H5Pget_layout(dcpl) == H5D_CHUNKED)
        sparse_[full] = std::move(*stored);
    }
    if (n.data && !needs_conversion(n.dtype) && rank > 0) {
      std::optional<model::StoredChunks> stored = n.data->stored_chunks();
      const bool chunked = H5Pget_layout(dcpl) == H5D_CHUNKED;
      if (stored && (chunked || stored->chunks == 0)) {
        const DType native =
            n.dtype.size() > 1 ? n.dtype.with_byte_order(native_byte_order()) : n.dtype;
        Handle mt = h5_type(native, true);
        // A fill of zeros is HDF5's default: not stated, so that an element too large for
        // an object header's fill value message (64 KiB; h5py's 16 MiB strings) is written.
        const bool zeros = std::all_of(stored->fill.begin(), stored->fill.end(),
                                       [](std::byte b) { return b == std::byte{0}; });
        if (stored->fill.size() == native.size() &&
            (zeros || H5Pset_fill_value(dcpl, mt.get(), stored->fill.data()) >= 0)) {
          sparse_[full] = std::move(*stored);
        }
      }
    }
  }

  void dataset(hid_t group, const std::string& name, const Node& n, const std::string& full) {
    if (model::has_joined_units(n) && !(netcdf_ && n.dtype.encoding() == TextEncoding::kAscii)) {
      // Text units along the last dimension (a Dudley S1[2, 4]): strings, as h5py writes S4;
      // in a netCDF file, ASCII ones stay netCDF's char arrays (a netCDF-3 char variable's
      // last dimension keeps its name).
      converted_.push_back(model::as_joined_strings_node(n));
      dataset(group, name, *converted_.back(), full);
      return;
    }
    if (n.dtype.kind() == DTypeKind::kText && n.dtype.encoding() == TextEncoding::kUtf32) {
      // HDF5 has no UTF-32: the text as variable-length UTF-8 strings, as h5py writes str.
      notes_.push_back(
          fmt::format("{}: UTF-32 text ({}) written as variable-length UTF-8 "
                      "strings (HDF5 has no UTF-32)",
                      full, n.dtype.to_string()));
      converted_.push_back(model::as_strings_node(n));
      dataset(group, name, *converted_.back(), full);
      return;
    }
    Handle ftype;
    try {
      ftype = h5_type(n.dtype.kind() == DTypeKind::kText && !n.dtype.is_string()
                          ? DType::string(n.dtype.encoding(), 1)
                          : n.dtype,
                      false);
    } catch (const Error& e) {
      losses_.lose(fmt::format("{}: {}; left out", full, e.message()));
      return;
    }
    if (netcdf_) ftype = netcdf_type(std::move(ftype), name, full);
    const size_t rank = n.shape.size();
    std::vector<hsize_t> dims(n.shape.begin(), n.shape.end()), maxdims = dims;
    bool grows = false;
    if (n.storage.max_shape.size() == rank) {
      for (size_t d = 0; d < rank; ++d) {
        const int64_t m = n.storage.max_shape[d];
        maxdims[d] = m < 0 ? H5S_UNLIMITED : static_cast<hsize_t>(std::max(m, n.shape[d]));
        grows |= maxdims[d] != dims[d];
      }
    }
    if (n.empty) {  // no shape and no data: HDF5's null dataspace
      Handle null_space(H5Screate(H5S_NULL));
      Handle ds = checked(H5Dcreate2(group, name.c_str(), ftype.get(), null_space.get(),
                                     H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                          fmt::format("cannot create dataset {}", full), path_of_file(),
                          ErrorCategory::kIo);
      attributes(ds.get(), n, full);
      written_[full] = WrittenArray::of(n);
      return;
    }
    Handle space(rank == 0 ? H5Screate(H5S_SCALAR)
                           : H5Screate_simple(static_cast<int>(rank), dims.data(), maxdims.data()));
    Handle dcpl(H5Pcreate(H5P_DATASET_CREATE));
    H5Pset_attr_creation_order(dcpl.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    const bool chunked_source =
        n.storage.kind == model::Storage::Kind::kChunked && n.storage.chunking != nullptr;
    const bool compress = own_.deflate > 0 && rank > 0 && n.dtype.size() > 0;
    if (rank > 0 && (chunked_source || grows || compress)) set_chunks(dcpl.get(), n, dims, full);
    set_fill_value(dcpl.get(), n);
    plan_sparse(dcpl.get(), n, full);
    Handle ds =
        checked(H5Dcreate2(group, name.c_str(), ftype.get(), space.get(), H5P_DEFAULT, dcpl.get(),
                           H5P_DEFAULT),
                fmt::format("cannot create dataset {}", full), path_of_file(), ErrorCategory::kIo);
    attributes(ds.get(), n, full);
    written_[full] = WrittenArray::of(n);
    if (has_reference(n.dtype)) {
      deferred_.emplace_back(full, &n);  // after every target exists
      return;
    }
    write_data(full, n);
  }

  // Attribute `name` of `object`: native ints, as netCDF-C writes its own (a scalar when
  // `scalar`), replacing one of that name. False when it could not be written.
  static bool write_ints(hid_t object, const char* name, const std::vector<int>& values,
                         bool scalar) {
    if (H5Aexists(object, name) > 0) H5Adelete(object, name);
    const hsize_t n = values.size();
    Handle space(scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr));
    Handle attr(H5Acreate2(object, name, H5T_NATIVE_INT, space.get(), H5P_DEFAULT, H5P_DEFAULT));
    const bool written = attr.valid() && H5Awrite(attr.get(), H5T_NATIVE_INT, values.data()) >= 0;
    H5Eclear2(H5E_DEFAULT);
    return written;
  }

  // A source of netCDF's classic data model stays one ("netCDF-4 classic model" in ncdump
  // -k, as netCDF-C marks it with `_nc3_strict`) when what was written fits the model; a
  // note says why not otherwise (the data is all there, in netCDF-4's full model).
  void classic_model() {
    if (const std::optional<std::string> misfit = classic_model_misfit()) {
      notes_.push_back(
          fmt::format("written as netCDF-4, not the source's classic data model: {}", *misfit));
      return;
    }
    Handle root(H5Gopen2(file_, "/", H5P_DEFAULT));
    if (!write_ints(root.get(), kClassicModelMark, {1}, true)) {
      notes_.push_back(
          "written as netCDF-4, not the source's classic data model: the mark "
          "could not be written");
    }
  }

  // The first thing of the written file netCDF's classic model has no place for: a group,
  // a named type, a type other than byte, char, short, int, float and double (text
  // attributes as char), a second unlimited dimension.
  std::optional<std::string> classic_model_misfit() {
    Handle root(H5Gopen2(file_, "/", H5P_DEFAULT));
    std::optional<std::string> misfit = attributes_misfit(root.get(), "/");
    if (misfit) return misfit;
    std::vector<std::string> names;
    hsize_t at = 0;
    auto collect = [](hid_t, const char* name, const H5L_info_t*, void* data) -> herr_t {
      static_cast<std::vector<std::string>*>(data)->emplace_back(name);
      return 0;
    };
    if (H5Literate(root.get(), H5_INDEX_CRT_ORDER, H5_ITER_INC, &at, collect, &names) < 0) {
      H5Eclear2(H5E_DEFAULT);
      return "its members could not be listed";
    }
    int unlimited = 0;
    for (const std::string& name : names) {
      const std::string full = "/" + name;
      H5O_info_t info;
      Handle object(H5Oopen(root.get(), name.c_str(), H5P_DEFAULT));
      if (!object.valid() || H5Oget_info2(object.get(), &info, H5O_INFO_BASIC) < 0) {
        H5Eclear2(H5E_DEFAULT);
        return fmt::format("{} could not be opened", full);
      }
      if (info.type == H5O_TYPE_GROUP) return fmt::format("{} is a group", full);
      if (info.type != H5O_TYPE_DATASET) return fmt::format("{} is a named type", full);
      Handle type(H5Dget_type(object.get()));
      Handle space(H5Dget_space(object.get()));
      if (!classic_type(type.get(), false))
        return fmt::format("{} is {}", full, type_words(type.get()));
      if (H5DSis_scale(object.get()) > 0 && H5Sget_simple_extent_ndims(space.get()) == 1) {
        hsize_t size = 0, max = 0;
        H5Sget_simple_extent_dims(space.get(), &size, &max);
        if (max == H5S_UNLIMITED && ++unlimited > 1)
          return fmt::format("{} is a second unlimited dimension", full);
      }
      H5Eclear2(H5E_DEFAULT);
      if ((misfit = attributes_misfit(object.get(), full))) return misfit;
    }
    return std::nullopt;
  }

  // The first attribute of `object` the classic model has no type for; HDF5's and
  // netCDF's own bookkeeping aside.
  static std::optional<std::string> attributes_misfit(hid_t object, const std::string& owner) {
    struct Visit {
      std::string owner;
      std::optional<std::string> misfit;
    } visit{owner, std::nullopt};
    auto check = [](hid_t loc, const char* name, const H5A_info_t*, void* data) -> herr_t {
      auto* v = static_cast<Visit*>(data);
      const std::string_view n = name;
      if (n == "CLASS" || n == "NAME" || is_bookkeeping_attribute(n)) return 0;
      Handle attr(H5Aopen(loc, name, H5P_DEFAULT));
      Handle type(attr.valid() ? H5Aget_type(attr.get()) : H5I_INVALID_HID);
      Handle space(attr.valid() ? H5Aget_space(attr.get()) : H5I_INVALID_HID);
      const bool scalar = space.valid() && H5Sget_simple_extent_type(space.get()) == H5S_SCALAR;
      if (!type.valid() || !classic_type(type.get(), scalar)) {
        v->misfit = fmt::format("{}: the attribute {} is {}", v->owner, name,
                                type.valid() ? type_words(type.get()) : "of an unknown type");
        return 1;
      }
      return 0;
    };
    hsize_t at = 0;
    if (H5Aiterate2(object, H5_INDEX_NAME, H5_ITER_INC, &at, check, &visit) < 0) {
      H5Eclear2(H5E_DEFAULT);
      return fmt::format("{}: its attributes could not be listed", owner);
    }
    return visit.misfit;
  }

  // `type` for a note: "uint16", "strings of 64 bytes", "an enum".
  static std::string type_words(hid_t type) {
    const size_t size = H5Tget_size(type);
    switch (H5Tget_class(type)) {
      case H5T_INTEGER:
        return fmt::format("{}int{}", H5Tget_sign(type) == H5T_SGN_2 ? "" : "u", size * 8);
      case H5T_FLOAT:
        return fmt::format("float{}", size * 8);
      case H5T_STRING:
        return H5Tis_variable_str(type) > 0 ? "variable-length strings"
                                            : fmt::format("strings of {} bytes", size);
      case H5T_ENUM:
        return "an enum";
      case H5T_COMPOUND:
        return "a compound";
      default:
        return "of a type netCDF-3 lacks";
    }
  }

  // Whether `type` is one of the classic model's: byte, short, int (signed), float,
  // double, char (one character; a scalar text attribute of any length).
  static bool classic_type(hid_t type, bool text_attribute) {
    const size_t size = H5Tget_size(type);
    switch (H5Tget_class(type)) {
      case H5T_INTEGER:
        return H5Tget_sign(type) == H5T_SGN_2 && (size == 1 || size == 2 || size == 4);
      case H5T_FLOAT:
        return size == 4 || size == 8;
      case H5T_STRING:
        return H5Tis_variable_str(type) == 0 && (size == 1 || text_attribute);
      default:
        return false;
    }
  }

  // A dataset's type as netCDF can read it: netCDF-C skips, without a word, a variable
  // whose type is user-defined (an enum, a compound, an opaque, a sequence) and not a
  // committed datatype of the file. Such types are committed at the root, once each, named
  // after the first variable that has it ("flag_t").
  Handle netcdf_type(Handle type, const std::string& variable, const std::string& full) {
    if (!is_user_defined(type.get())) return type;
    // The first types are looked for (a file has a few); a file of thousands commits each.
    for (size_t k = 0; k < std::min<size_t>(netcdf_types_.size(), 256); ++k) {
      const auto& [committed, path] = netcdf_types_[k];
      if (H5Tequal(committed.get(), type.get()) > 0)
        return Handle(H5Topen2(file_, path.c_str(), H5P_DEFAULT));
    }
    // A name no member of the root has or will have.
    if (root_names_.empty()) {
      for (const auto& c : tree_.root->children) root_names_.insert(c->name);
    }
    auto taken = [&](const std::string& name) {
      return H5Lexists(file_, ("/" + name).c_str(), H5P_DEFAULT) > 0 || root_names_.count(name);
    };
    std::string name = variable + "_t";
    for (int k = 2; taken(name); ++k) name = fmt::format("{}_t{}", variable, k);
    const std::string path = "/" + name;
    Handle copy(H5Tcopy(type.get()));
    if (H5Tcommit2(file_, path.c_str(), copy.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) < 0) {
      H5Eclear2(H5E_DEFAULT);
      notes_.push_back(
          fmt::format("{}: its type could not be named in the file; netCDF "
                      "readers do not list it",
                      full));
      return type;
    }
    netcdf_types_.emplace_back(std::move(type), path);
    return Handle(H5Topen2(file_, path.c_str(), H5P_DEFAULT));
  }

  void write_data(const std::string& full, const Node& n) {
    if (!n.data) return;
    Handle ds(H5Dopen2(file_, full.c_str(), H5P_DEFAULT));
    const DType native = n.dtype.size() > 1 && n.dtype.kind() != DTypeKind::kVLen
                             ? n.dtype.with_byte_order(native_byte_order())
                             : n.dtype;
    Handle memtype = h5_type(native.kind() == DTypeKind::kText && !native.is_string()
                                 ? DType::string(native.encoding(), 1)
                                 : native,
                             true);
    // Writes `bytes` (elements of memtype) to the dataset's part `slab` selects.
    auto write_slab = [&](const Hyperslab& slab, const void* bytes) {
      Handle filespace(H5Dget_space(ds.get()));
      Handle memspace;
      if (n.shape.empty()) {
        memspace = Handle(H5Screate(H5S_SCALAR));
      } else {
        std::vector<hsize_t> start(slab.start.begin(), slab.start.end());
        std::vector<hsize_t> count(slab.count.begin(), slab.count.end());
        H5Sselect_hyperslab(filespace.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(),
                            nullptr);
        memspace = Handle(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr));
      }
      check(H5Dwrite(ds.get(), memtype.get(), memspace.get(), filespace.get(), H5P_DEFAULT, bytes),
            fmt::format("cannot write {}", full), path_of_file(), ErrorCategory::kIo);
    };
    if (needs_conversion(native)) {
      // Strings and references as libhdf5 takes them, converted a piece at a time: memory
      // follows one piece and its strings, not the array (10^9 strings stream too).
      RawElements conv(file_, refs_);
      std::vector<std::byte> raw;
      auto write_converted = [&](const model::Piece& p) {
        const NDArray a = n.data->read(p.slab).to_native();
        raw.resize(a.element_count() * raw_size(native));
        for (uint64_t i = 0; i < a.element_count(); ++i)
          conv.convert(native, static_cast<const std::byte*>(a.data()) + i * native.size(),
                       raw.data() + i * raw_size(native));
        if (!raw.empty()) write_slab(p.slab, raw.data());
        conv.release();
        progress(p.bytes);
        return true;
      };
      // Smaller pieces than plain copies: each element brings its string's own memory.
      const uint64_t piece = model::kPieceBytes / 8;
      if (const auto sparse = sparse_.find(full); sparse != sparse_.end()) {
        // Only the source's stored chunks; the rest reads as HDF5's empty string.
        const model::StoredChunks& stored = sparse->second;
        for (uint64_t k = 0; k < stored.chunks; ++k) {
          const Hyperslab box =
              model::chunk_box(&stored.positions[k * n.shape.size()], stored.chunk_shape, n.shape);
          model::for_each_piece(box, native.size(), n.data->read_unit(), piece, write_converted);
        }
      } else {
        model::for_each_piece(n.shape, native.size(), n.data->read_unit(), piece, write_converted);
      }
      for (const std::string& m : conv.missing())
        losses_.lose(fmt::format("{}: a reference to {}, which is not in the output; written null",
                                 full, m));
      return;
    }
    std::vector<std::byte> buffer;
    const model::ReadUnit unit = n.data->read_unit();
    auto write_piece = [&](const model::Piece& p) {
      buffer.resize(p.bytes);
      n.data->read_into(p.slab, buffer.data());
      write_slab(p.slab, buffer.data());
      progress(p.bytes);
      return true;
    };
    const auto sparse = sparse_.find(full);
    if (sparse == sparse_.end()) {
      // A contiguous dataset takes its whole extent on disk, refused before it is written
      // when the file system cannot hold it (a source may declare a terabyte).
      Handle dcpl(H5Dget_create_plist(ds.get()));
      if (H5Pget_layout(dcpl.get()) == H5D_CONTIGUOUS) {
        io::check_room(path_of_file(),
                       Shape(n.shape).byte_size(native.size()).value_or(UINT64_MAX));
      }
      // Compressed chunks are filtered here on every core (chunk_writer.hpp).
      if (auto chunks = ChunkWriter::make(ds.get(), n.dtype, n.shape)) {
        chunks->write(ds.get(), *n.data, path_of_file(), full,
                      [&](uint64_t bytes) { progress(bytes); });
        return;
      }
      model::for_each_piece(n.shape, native.size(), unit, model::kPieceBytes, write_piece);
      return;
    }
    // Only the source's stored chunks, each in pieces; the rest is the fill value.
    const model::StoredChunks& stored = sparse->second;
    const uint64_t written_before = done_;
    if (auto chunks = ChunkWriter::make(ds.get(), n.dtype, n.shape)) {
      chunks->write(
          ds.get(), *n.data, path_of_file(), full, [&](uint64_t bytes) { progress(bytes); },
          &stored);
      progress(written_before + Shape(n.shape).byte_size(native.size()).value_or(0) - done_);
      return;
    }
    for (uint64_t k = 0; k < stored.chunks; ++k) {
      const Hyperslab box =
          model::chunk_box(&stored.positions[k * n.shape.size()], stored.chunk_shape, n.shape);
      model::for_each_piece(box, native.size(), unit, model::kPieceBytes, write_piece);
    }
    progress(written_before + Shape(n.shape).byte_size(native.size()).value_or(0) - done_);
  }

  void progress(uint64_t bytes) {
    done_ += bytes;
    if (options_.progress) options_.progress(done_, total_);
  }

  void attributes(hid_t loc, const Node& n, const std::string& owner) {
    for (const auto& [name, value] : n.attributes) {
      if (name == model::well_known::kDimensionNames ||
          name == model::well_known::kDimensionCoordinates || name == model::well_known::kFillValue)
        continue;
      if (owner == "/" && model::well_known::is_bookkeeping(tree_.format, name)) continue;
      std::optional<NDArray> array;
      std::optional<DType> file_type;
      if (const Value* v = std::get_if<Value>(&value)) {
        if (const std::optional<DType> empty = model::well_known::empty_type(*v)) {
          try {
            write_empty_attribute(loc, name, *empty);
          } catch (const Error& e) {
            losses_.lose(fmt::format("{}: attribute '{}': {}; left out", owner, name, e.message()));
          }
          continue;
        }
        std::string why;
        if (v->is<std::string>())
          array = stored_text(v->as<std::string>(), n.attributes.stored_text_type(name));
        if (!array) array = model::value_as_array(*v, why);
        if (!array && (v->is<model::ValueMap>() || v->is<model::ValueList>())) {
          // A tree value (ASDF's `meta: {units: m}`, an Avro record's nested field) as its
          // JSON text, which any reader parses back.
          notes_.push_back(
              fmt::format("{}: attribute '{}' is {}; written as its JSON text", owner, name, why));
          array = model::value_as_array(Value(model::to_json(*v).dump()), why);
        }
        if (!array) {
          losses_.lose(fmt::format("{}: attribute '{}' is {}; HDF5 attributes are typed, left out",
                                   owner, name, why));
          continue;
        }
      } else {
        // Native in memory; in the file in the order the source stored it (a big-endian
        // attribute stays big-endian).
        file_type = std::get<NDArray>(value).dtype();
        array = std::get<NDArray>(value).to_native();
      }
      try {
        write_attribute(loc, name, *array, file_type);
      } catch (const Error& e) {
        losses_.lose(fmt::format("{}: attribute '{}': {}; left out", owner, name, e.message()));
      }
    }
  }

  // A text attribute as the source stored it (set_text: fixed-length text at its stored
  // length when the text fits, or variable-length ASCII); in a netCDF file (.nc, .nc4) also
  // ASCII text of no stored type as fixed-length text: netCDF's char attributes, as
  // netCDF-C and netCDF4-python write a str. nullopt: a variable-length UTF-8 string (h5py's
  // str; netCDF's NC_STRING, which ncdump shows as `string` and netCDF-3 tools cannot read).
  std::optional<NDArray> stored_text(const std::string& text, const DType* stored) const {
    const bool ascii = std::all_of(text.begin(), text.end(),
                                   [](char c) { return static_cast<unsigned char>(c) < 0x80; });
    if (!stored && !(netcdf_ && ascii)) return std::nullopt;
    if (stored && stored->kind() == DTypeKind::kVLen) {
      VLenArrayBuilder one(*stored, 1);
      one.append(text.data(), text.size());
      return one.finish(Shape(std::vector<int64_t>{}));
    }
    const TextEncoding encoding = stored ? stored->encoding() : TextEncoding::kAscii;
    if (encoding != TextEncoding::kAscii && encoding != TextEncoding::kUtf8) return std::nullopt;
    const uint64_t length =
        std::max<uint64_t>({text.size(), stored ? stored->size() : 0, uint64_t{1}});
    NDArray a(DType::string(encoding, length), Shape(std::vector<int64_t>{}));
    std::memcpy(a.mutable_data(), text.data(), text.size());
    return a;
  }

  // `stored`: the type in the file, when it differs from `a`'s (another byte order).
  void write_attribute(hid_t loc, const std::string& name, const NDArray& a,
                       const std::optional<DType>& stored = std::nullopt) {
    const DType& t = a.dtype();
    Handle ftype = h5_type(stored ? *stored : t, false);
    Handle mtype = h5_type(t, true);
    if (netcdf_ && t.kind() == DTypeKind::kText && !stored) {
      // netCDF-C writes a char attribute null-terminated at its length (no byte for the
      // terminator): so does this, and ncdump prints the two alike. The memory type must
      // say the same, or HDF5's conversion would give the last character to a terminator.
      H5Tset_strpad(ftype.get(), H5T_STR_NULLTERM);
      H5Tset_strpad(mtype.get(), H5T_STR_NULLTERM);
    }
    const auto& dims64 = a.shape().dims();
    std::vector<hsize_t> dims(dims64.begin(), dims64.end());
    Handle space(dims.empty()
                     ? H5Screate(H5S_SCALAR)
                     : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
    Handle attr =
        checked(H5Acreate2(loc, name.c_str(), ftype.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
                "cannot create the attribute", path_of_file(), ErrorCategory::kIo);
    if (needs_conversion(t)) {
      std::vector<std::byte> raw(a.element_count() * raw_size(t));
      RawElements conv(file_, refs_);
      for (uint64_t i = 0; i < a.element_count(); ++i)
        conv.convert(t, static_cast<const std::byte*>(a.data()) + i * t.size(),
                     raw.data() + i * raw_size(t));
      check(H5Awrite(attr.get(), mtype.get(), raw.data()), "cannot write the attribute",
            path_of_file(), ErrorCategory::kIo);
    } else {
      check(H5Awrite(attr.get(), mtype.get(), a.data()), "cannot write the attribute",
            path_of_file(), ErrorCategory::kIo);
    }
  }

  // An attribute of `type` and no value: HDF5's null dataspace.
  void write_empty_attribute(hid_t loc, const std::string& name, const DType& type) {
    Handle ftype = h5_type(type, false);
    Handle space(H5Screate(H5S_NULL));
    checked(H5Acreate2(loc, name.c_str(), ftype.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
            "cannot create the attribute", path_of_file(), ErrorCategory::kIo);
  }

  static const model::ValueList* list_attribute(const Node& n, const char* name) {
    const model::AttributeValue* a = n.attributes.find(name);
    const Value* v = a ? std::get_if<Value>(a) : nullptr;
    return v && v->is<model::ValueList>() ? &v->as<model::ValueList>() : nullptr;
  }

  // Arrays that are their own dimension's coordinate become scales; arrays naming them in
  // their dimension coordinates get them attached.
  void dimension_scales() {
    std::map<std::string, bool> scales;
    for (const auto& [path, node] : written_) {
      const auto& coords = node.coords;
      // Its first dimension's coordinate: one dimension, or a netCDF coordinate variable of
      // more ("z(z, strlen)"), whose other dimensions netcdf_dimension_ids() names.
      if (node.rank >= 1 && coords && coords->size() == node.rank &&
          (*coords)[0].is<std::string>() && (*coords)[0].as<std::string>() == path) {
        const auto& names = node.names;
        std::string dim = names && names->size() == node.rank && (*names)[0].is<std::string>()
                              ? (*names)[0].as<std::string>()
                              : node.name;
        Handle ds(H5Dopen2(file_, path.c_str(), H5P_DEFAULT));
        if (H5DSset_scale(ds.get(), dim.c_str()) >= 0) {
          scales[path] = true;
          scale_of_[path] = path;
        }
        H5Eclear2(H5E_DEFAULT);
      }
    }
    for (const auto& [path, node] : written_) {
      const auto& coords = node.coords;
      if (!coords || coords->size() != node.rank) continue;
      if (scales.count(path)) {
        // A scale takes no scales: its other dimensions are named by netCDF's ids.
        for (size_t d = 1; d < coords->size(); ++d) {
          const Value& c = (*coords)[d];
          if (c.is<std::string>() && scales.count(c.as<std::string>()))
            scale_dimensions_[path][d] = c.as<std::string>();
        }
        continue;
      }
      Handle ds(H5Dopen2(file_, path.c_str(), H5P_DEFAULT));
      for (size_t d = 0; d < coords->size(); ++d) {
        const Value& c = (*coords)[d];
        if (!c.is<std::string>() || !scales.count(c.as<std::string>())) continue;
        Handle scale(H5Dopen2(file_, c.as<std::string>().c_str(), H5P_DEFAULT));
        if (H5DSattach_scale(ds.get(), scale.get(), static_cast<unsigned>(d)) < 0) {
          H5Eclear2(H5E_DEFAULT);
          notes_.push_back(fmt::format("{}: dimension {} could not be attached to {}", path, d,
                                       c.as<std::string>()));
        }
      }
    }
  }

  // Named sizes without values as netCDF-4 keeps them: a group's parameters (a netCDF
  // file's dimensions, a Dudley layout's parameters) and dimension names no coordinate
  // array holds become dimension scales named "This is a netCDF dimension but not a netCDF
  // variable", attached to the arrays that name them, so netCDF readers and xarray see the
  // dimension names instead of phony ones.
  void netcdf_dimensions() {
    std::map<std::string, std::map<std::string, int64_t>> sizes;  // group -> name -> size
    // Every group's parameters, walked with a stack (a file may nest deeply); lists' items
    // are made on demand and hold none.
    std::vector<std::pair<const Node*, std::string>> groups;
    if (tree_.root->kind == model::NodeKind::kGroup) groups.emplace_back(tree_.root.get(), "/");
    while (!groups.empty()) {
      const auto [g, path] = groups.back();
      groups.pop_back();
      for (const model::Parameter& p : g->params) {
        if (p.value && *p.value >= 0) sizes[path][p.name] = *p.value;
      }
      for (const auto& c : g->children) {
        if (c->kind == model::NodeKind::kGroup && !c->link)
          groups.emplace_back(c.get(), join_path(path, c->name));
      }
    }
    // Where each array's named dimensions without coordinates live: the nearest group up
    // that has the name as a parameter, else the array's own group.
    std::vector<std::tuple<std::string, size_t, std::string>> attach;  // array, dim, scale
    for (const auto& [path, node] : written_) {
      if (!node.names || node.names->size() != node.rank) continue;
      for (size_t d = 0; d < node.rank; ++d) {
        const Value& name = (*node.names)[d];
        const bool has_coordinate =
            node.coords && node.coords->size() == node.rank && (*node.coords)[d].is<std::string>();
        if (has_coordinate || !name.is<std::string>() || name.as<std::string>().empty()) continue;
        const std::string& dim = name.as<std::string>();
        std::string group = path.substr(0, std::max<size_t>(path.rfind('/'), 1));
        for (std::string g = group;; g = g.substr(0, std::max<size_t>(g.rfind('/'), 1))) {
          if (sizes.count(g) && sizes[g].count(dim)) {
            group = g;
            break;
          }
          if (g == "/") break;
        }
        auto [it, fresh] = sizes[group].emplace(dim, node.shape[d]);
        if (!fresh && it->second != node.shape[d]) {
          notes_.push_back(
              fmt::format("{}: dimension {} is named {}, of size {} in {}, not {}; "
                          "not attached",
                          path, d, dim, it->second, group, node.shape[d]));
          continue;
        }
        attach.emplace_back(path, d, join_path(group, dim));
      }
    }
    for (const auto& [group, names] : sizes) {
      Handle g(H5Oopen(file_, group.c_str(), H5P_DEFAULT));
      if (!g.valid()) {
        H5Eclear2(H5E_DEFAULT);
        continue;
      }
      for (const auto& [name, size] : names) {
        const std::string full = join_path(group, name);
        if (scale_of_.count(full)) continue;  // made at its place among the members
        if (auto w = written_.find(full);
            w != written_.end() && w->second.is_coordinate(name, size)) {
          // A same-named array of the dimension's size is its coordinate (a netCDF
          // coordinate variable; xarray's Zarr coordinates, named only by
          // _ARRAY_DIMENSIONS): a scale of its own name.
          Handle ds(H5Dopen2(file_, full.c_str(), H5P_DEFAULT));
          if (H5DSis_scale(ds.get()) > 0 || H5DSset_scale(ds.get(), name.c_str()) >= 0) {
            scale_of_[full] = full;
          }
          H5Eclear2(H5E_DEFAULT);
          continue;
        }
        if (H5Lexists(g.get(), name.c_str(), H5P_DEFAULT) > 0) {
          // A dimension only arrays name (no parameter of the group), beside a member of its
          // name that does not hold its values.
          losses_.lose(fmt::format(
              "{}: the dimension {} of size {} cannot be written: the group has a member of "
              "that name; left out",
              full, name, size));
          continue;
        }
        if (dimension_scale(g.get(), name, size, full)) scale_of_[full] = full;
      }
    }
    for (const auto& [path, d, dimension] : attach) {
      const auto scale = scale_of_.find(dimension);
      if (scale == scale_of_.end() || path == scale->second) continue;
      if (scale_of_.count(path)) {  // a scale takes no scales: named by netCDF's ids
        scale_dimensions_[path][d] = dimension;
        continue;
      }
      Handle ds(H5Dopen2(file_, path.c_str(), H5P_DEFAULT));
      Handle sc(H5Dopen2(file_, scale->second.c_str(), H5P_DEFAULT));
      if (H5DSattach_scale(ds.get(), sc.get(), static_cast<unsigned>(d)) < 0) {
        H5Eclear2(H5E_DEFAULT);
        notes_.push_back(
            fmt::format("{}: dimension {} could not be attached to {}", path, d, scale->second));
      }
    }
  }

  // netCDF numbers a file's dimensions (ncdump lists them in that order) by the
  // "_Netcdf4Dimid" attribute of each scale, as netCDF-C writes it: here in the order the
  // source lists them (a group's parameters at their places among its members), the
  // remaining scales after them.
  void netcdf_dimension_ids() {
    std::map<std::string, int> ids;  // scale path -> id
    int id = 0;
    auto number = [&](const std::string& dimension) {
      const auto scale = scale_of_.find(dimension);
      if (scale == scale_of_.end() || !ids.emplace(scale->second, id).second) return;
      Handle ds(H5Dopen2(file_, scale->second.c_str(), H5P_DEFAULT));
      if (!write_ints(ds.get(), "_Netcdf4Dimid", {id++}, true)) {  // ids[scale] as emplaced
        notes_.push_back(fmt::format(
            "{}: its netCDF dimension id could not be written; netCDF numbers it itself",
            scale->second));
      }
    };
    for (const std::string& dimension : dimension_order_) number(dimension);
    for (const auto& [dimension, scale] : scale_of_) number(dimension);
    // Coordinate variables of more than one dimension: each dimension's id.
    for (const auto& [path, dimensions] : scale_dimensions_) {
      const auto written = written_.find(path);
      const auto own = ids.find(path);
      if (written == written_.end() || own == ids.end()) continue;
      std::vector<int> coordinates(written->second.rank, -1);
      coordinates[0] = own->second;
      for (const auto& [d, dimension] : dimensions) {
        const auto scale = scale_of_.find(dimension);
        const auto found = scale == scale_of_.end() ? ids.end() : ids.find(scale->second);
        if (found != ids.end()) coordinates[d] = found->second;
      }
      if (std::find(coordinates.begin(), coordinates.end(), -1) != coordinates.end()) {
        notes_.push_back(
            fmt::format("{}: not every dimension of it has a netCDF dimension; "
                        "netCDF readers name them phony_dim_N",
                        path));
        continue;
      }
      Handle ds(H5Dopen2(file_, path.c_str(), H5P_DEFAULT));
      if (!write_ints(ds.get(), "_Netcdf4Coordinates", coordinates, false)) {
        notes_.push_back(fmt::format("{}: its dimensions' netCDF ids could not be written", path));
      }
    }
  }

  const model::Tree& tree_;
  const model::ReferenceTable* refs_;
  hid_t file_;
  std::string destination_;  ///< the output's path, as given to run()
  const SaveOptions& options_;
  const Hdf5SaveOptions& own_;
  std::vector<std::string>& notes_;
  LossLog& losses_;
  // Arrays written in another form than the source's (UTF-32 text as strings), kept alive
  // while the writer refers to them.
  std::vector<std::unique_ptr<Node>> converted_;
  std::vector<std::pair<std::string, const Node*>> hard_links_;  ///< made after every object
  std::map<std::string, model::StoredChunks> sparse_;  ///< datasets written chunk by chunk
  std::vector<std::pair<std::string, const Node*>> deferred_;
  // What dimension_scales() needs of each dataset written, copied: items of a list made on
  // demand (an Avro container's records) no longer exist when it runs.
  struct WrittenArray {
    std::string name;
    size_t rank = 0;
    std::vector<int64_t> shape;
    std::optional<model::ValueList> coords, names;
    // Whether it holds the values of the dimension `name` of `size`: one dimension of that
    // size, named so (or not named).
    bool is_coordinate(const std::string& dimension, int64_t size) const {
      if (rank != 1 || shape[0] != size) return false;
      if (!names || names->size() != 1 || !(*names)[0].is<std::string>()) return true;
      const std::string& own = (*names)[0].as<std::string>();
      return own.empty() || own == dimension;
    }
    static WrittenArray of(const Node& n) {
      WrittenArray w{n.name, n.shape.size(), n.shape, std::nullopt, std::nullopt};
      if (const auto* c = list_attribute(n, model::well_known::kDimensionCoordinates))
        w.coords = *c;
      if (const auto* d = list_attribute(n, model::well_known::kDimensionNames)) w.names = *d;
      return w;
    }
  };
  std::map<std::string, WrittenArray> written_;
  uint64_t total_ = 0, done_ = 0;
  /// Each dimension's scale, by the dimension's path (a group's path and its name): its
  /// coordinate array, or a dataset made for it.
  std::map<std::string, std::string> scale_of_;
  /// Dimensions in the order the source lists them: parameters at their places among
  /// their group's members, one-dimensional arrays (perhaps coordinates) where written.
  std::vector<std::string> dimension_order_;
  /// User-defined types committed for netCDF (netcdf_type()), and where.
  std::vector<std::pair<Handle, std::string>> netcdf_types_;
  std::set<std::string> root_names_;  ///< the root's members, for netcdf_type()'s names
  /// Scales of more than one dimension (netCDF's "z(z, strlen)"): each other dimension's
  /// path by its index; netcdf_dimension_ids() writes their ids.
  std::map<std::string, std::map<size_t, std::string>> scale_dimensions_;
  bool netcdf_ = false;  // the file is named as netCDF (.nc, .nc4): text attributes as char
  int lists_noted_ = 0;
};

}  // namespace

uint64_t write_hdf5_file(const model::Tree& source, const std::string& path,
                         const SaveOptions& options, SaveReport& report) {
  prepare_library();
  model::Tree holder;
  const model::Tree& tree = model::with_group_root(source, holder);
  LossLog losses(source, options.lossy, "HDF5", path);
  std::vector<std::string> notes;
  io::NamedTempFile out(path);
  {
    Lock lock(library_mutex());
    Handle fcpl(H5Pcreate(H5P_FILE_CREATE));
    H5Pset_attr_creation_order(fcpl.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    const std::string ext = lowercase_extension(path);
    if (ext == ".nc" || ext == ".nc4" || needs_creation_order(*tree.root))
      H5Pset_link_creation_order(fcpl.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    Handle fapl(H5Pcreate(H5P_FILE_ACCESS));
    H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_STRONG);
    Handle file = checked(H5Fcreate(out.temp_path().c_str(), H5F_ACC_TRUNC, fcpl.get(), fapl.get()),
                          "cannot create the HDF5 file", path, ErrorCategory::kIo);
    Writer(tree, source.references.get(), file.get(), options, notes, losses).run(path);
    check(H5Fflush(file.get(), H5F_SCOPE_GLOBAL), "cannot write the HDF5 file", path,
          ErrorCategory::kIo);
  }
  losses.check();  // the temporary file is removed: nothing appears
  out.commit(options.fsync);
  report.notes = std::move(notes);
  report.lost = losses.take();
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

}  // namespace dudley::hdf5
