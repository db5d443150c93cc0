// An HDF5 file -> model tree: groups and datasets by hard link (in creation order where the
// file keeps it, as netCDF, xarray and h5py list them; else in name order, as h5ls does),
// each object once (a second hard link to it is a link to the first, so cycles
// end), soft and external links as links (followed to arrays where the rule for reading
// allows: read_access.hpp), attributes read at open, dataset values read on demand through
// libhdf5.
#include <hdf5_hl.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "backend.hpp"
#include "crash_guard.hpp"
#include "datatype.hpp"
#include "dudley/core/path.hpp"
#include "dudley/formats/hdf5.hpp"
#include "dudley/io/byte_source.hpp"
#include "filters.hpp"
#include "netcdf_names.hpp"
#include "read_access.hpp"
#include "source.hpp"
#include "store_driver.hpp"
#include "stored_extents.hpp"

namespace dudley::hdf5 {
namespace {

using model::Node;
using model::Value;

class Reader {
 public:
  Reader(std::shared_ptr<OpenFile> file, bool extent_offsets)
      : file_(std::move(file)), extent_offsets_(extent_offsets) {}

  model::Tree read() {
    model::Tree tree;
    tree.format = "hdf5";
    tree.root = std::make_unique<Node>();
    tree.root->kind = model::NodeKind::kGroup;
    Lock lock(library_mutex());
    Handle root = checked(H5Gopen2(file_->id.get(), "/", H5P_DEFAULT), "cannot open the root group",
                          file_->path);
    H5O_info_t info;
    if (H5Oget_info2(root.get(), &info, H5O_INFO_BASIC | H5O_INFO_NUM_ATTRS) >= 0) {
      seen_[info.addr] = "/";
      if (info.num_attrs > 0) group_attributes(root.get(), "/", *tree.root);
      tree.netcdf_classic = H5Aexists(root.get(), kClassicModelMark) > 0;
      H5Eclear2(H5E_DEFAULT);
    }
    // Groups are walked with an explicit stack: a file may nest groups deeper than the
    // call stack could follow.
    std::vector<std::pair<Node*, std::string>> todo{{tree.root.get(), "/"}};
    while (!todo.empty()) {
      auto [node, path] = todo.back();
      todo.pop_back();
      members(*node, path, todo);
    }
    read_heap_attributes(!file_->remote);
    attach_scales();
    coordinate_dimensions();
    // A committed (named) datatype is not a member; one a dataset has as its type travels
    // with the dataset (netCDF's enums and compounds), only its name does not.
    for (const std::string& full : named_types_) {
      if (!type_used(full))
        skipped_.push_back(
            fmt::format("{}: a committed datatype no dataset or attribute uses; not listed", full));
    }
    tree.skipped = std::move(skipped_);
    tree.references = file_->refs;
    return tree;
  }

 private:
  struct Link {
    std::string name;
    H5L_type_t type;
  };

  static herr_t collect(hid_t, const char* name, const H5L_info_t* info, void* data) {
    static_cast<std::vector<Link>*>(data)->push_back({name, info->type});
    return 0;
  }

  // The group's links in creation order where the group tracks it (netCDF-4 files, h5py's
  // track_order): netCDF numbers dimensions and variables in that order, and a copy keeps
  // it. Name order otherwise.
  std::vector<Link> list_links(hid_t group, const std::string& path) {
    std::vector<Link> links;
    unsigned order_flags = 0;
    Handle gcpl(H5Gget_create_plist(group));
    if (!gcpl.valid() || H5Pget_link_creation_order(gcpl.get(), &order_flags) < 0) {
      H5Eclear2(H5E_DEFAULT);
      order_flags = 0;
    }
    hsize_t at = 0;
    if ((order_flags & H5P_CRT_ORDER_TRACKED) != 0 &&
        H5Literate(group, H5_INDEX_CRT_ORDER, H5_ITER_INC, &at, collect, &links) >= 0) {
      return links;
    }
    H5Eclear2(H5E_DEFAULT);  // tracked without an index, in dense storage: name order
    links.clear();
    at = 0;
    if (H5Literate(group, H5_INDEX_NAME, H5_ITER_INC, &at, collect, &links) < 0)
      throw library_error(ErrorCategory::kData, fmt::format("cannot list group {}", path),
                          file_->path);
    return links;
  }

  // A dataset's name as a member: netCDF-C stores a variable named like a dimension of its
  // group whose values it does not hold as "_nc4_non_coord_" and the name (the dimension
  // has the name); netCDF readers list it by the name, and so does this one.
  // `names` holds the group's link names once one is asked for.
  static std::string variable_name(const std::string& stored, const std::vector<Link>& links,
                                   std::unordered_set<std::string_view>& names) {
    std::string name = dimension_name(stored);
    if (name == stored) return stored;
    if (names.empty()) {
      for (const Link& link : links) names.insert(link.name);
    }
    return names.count(name) ? name : stored;
  }

  void members(Node& group, const std::string& path,
               std::vector<std::pair<Node*, std::string>>& todo) {
    // Through the file's access list: a group read through an external link is opened by
    // its path here, and every external link the path crosses is judged (read_access.hpp).
    Handle g = checked(H5Oopen(file_->id.get(), path.c_str(), file_->link_access.get()),
                       fmt::format("cannot open group {}", path), file_->path);
    std::vector<Link> links = list_links(g.get(), path);
    std::unordered_set<std::string_view> link_names;  // made by variable_name() if needed
    std::vector<std::pair<Node*, std::string>> groups;
    for (const Link& link : links) {
      const std::string full = join_path(path, link.name);
      if (link.type == H5L_TYPE_SOFT || link.type == H5L_TYPE_EXTERNAL) {
        group.children.push_back(link_node(g.get(), link, full));
        continue;
      }
      if (link.type != H5L_TYPE_HARD) {
        // A user-defined link class: listed as h5ls lists it ("UD Link"); libhdf5 follows
        // only the classes registered in the process reading it, none here.
        auto to = std::make_shared<model::Link>();
        to->kind = "user-defined";
        const std::string why = fmt::format(
            "a user-defined link (class {}); this build follows none", static_cast<int>(link.type));
        group.children.push_back(
            listed_link(link.name, std::move(to), model::Link::End::kOther, why));
        continue;
      }
      // Opened once by name (one traversal of the link), then asked for its kind and its
      // attribute count, which comes with the header: objects without attributes (most
      // datasets) skip every attribute lookup. With the file's access list, as every path
      // of it is opened (read_access.hpp).
      Handle object(H5Oopen(g.get(), link.name.c_str(), file_->link_access.get()));
      H5O_info_t info;
      if (!object.valid() ||
          H5Oget_info2(object.get(), &info, H5O_INFO_BASIC | H5O_INFO_NUM_ATTRS) < 0) {
        // libhdf5's own words, which say whether it is damage or something newer than
        // libhdf5 1.10 (HDF5 2.0's complex numbers: "unknown datatype class").
        const Error e =
            library_error(ErrorCategory::kData, "cannot read the object's header", file_->path);
        add_error(group, link.name, full,
                  fmt::format("{} (libhdf5 {}.{}.{})", e.message(), H5_VERS_MAJOR, H5_VERS_MINOR,
                              H5_VERS_RELEASE));
        continue;
      }
      if (const auto [first, fresh] = remember(info, full); !fresh) {
        // Another name of an object listed before: a link to it, so that the object is
        // read (and written) once, and a cycle of groups ends.
        std::unique_ptr<Node> alias;
        auto to = std::make_shared<model::Link>();
        to->kind = "hard";
        to->target = first;
        if (info.type == H5O_TYPE_DATASET) {
          alias = dataset(std::move(object), link.name, full, info.num_attrs > 0, info.addr,
                          info.fileno == file_->access.main_fileno);
        } else {
          to->listed_at = first;
          alias =
              listed_link(link.name, to, model::Link::End::kGroupHere,
                          fmt::format("another hard link to the group {}; listed there", first));
        }
        alias->link = std::move(to);
        group.children.push_back(std::move(alias));
        continue;
      }
      if (info.type == H5O_TYPE_GROUP) {
        auto node = std::make_unique<Node>();
        node->kind = model::NodeKind::kGroup;
        node->name = link.name;
        if (info.num_attrs > 0) group_attributes(object.get(), full, *node);
        groups.emplace_back(node.get(), full);
        group.children.push_back(std::move(node));
      } else if (info.type == H5O_TYPE_DATASET) {
        std::unique_ptr<Node> array =
            dataset(std::move(object), variable_name(link.name, links, link_names), full,
                    info.num_attrs > 0, info.addr, info.fileno == file_->access.main_fileno);
        if (dimension_only_.count(full) && array->shape.size() == 1) {
          // A netCDF dimension without a variable: a named size of its group, no array.
          model::Parameter p;
          p.name = dimension_name(link.name);
          p.value = array->shape[0];
          const bool unlimited =
              !array->storage.max_shape.empty() && array->storage.max_shape[0] < 0;
          p.doc = unlimited ? "a netCDF dimension (unlimited)" : "a netCDF dimension";
          p.members_before = group.children.size();
          group.params.push_back(std::move(p));
        } else {
          group.children.push_back(std::move(array));
        }
      } else {
        named_types_.push_back(full);
      }
    }
    place_dimensions(group, path);
    // Groups read through external links go as the group's own.
    groups.insert(groups.end(), pending_groups_.begin(), pending_groups_.end());
    pending_groups_.clear();
    // Depth first in the listing's order: push in reverse.
    for (auto it = groups.rbegin(); it != groups.rend(); ++it) todo.push_back(*it);
  }

  // A soft or external link: the array it points to, followed, or a node saying why not.
  std::unique_ptr<Node> link_node(hid_t group, const Link& link, const std::string& full) {
    auto node = std::make_unique<Node>();
    node->kind = model::NodeKind::kArray;
    node->name = link.name;
    auto to = std::make_shared<model::Link>();
    to->kind = link.type == H5L_TYPE_SOFT ? "soft" : "external";
    node->link = to;
    auto refuse = [&](const std::string& why) {
      H5Eclear2(H5E_DEFAULT);
      to->end = model::Link::End::kRefused;
      node->error = {ErrorCategory::kData, why, Location::file(file_->path)};
      return std::move(node);
    };
    H5L_info_t info;
    if (H5Lget_info(group, link.name.c_str(), &info, H5P_DEFAULT) < 0 || info.u.val_size == 0 ||
        info.u.val_size > (1U << 20))
      return refuse("cannot read the link");
    std::vector<char> value(info.u.val_size);
    if (H5Lget_val(group, link.name.c_str(), value.data(), value.size(), H5P_DEFAULT) < 0)
      return refuse("cannot read the link");
    if (link.type == H5L_TYPE_SOFT) {
      to->target.assign(value.data(), strnlen(value.data(), value.size()));
    } else {
      const char* file = nullptr;
      const char* object = nullptr;
      unsigned flags = 0;
      if (H5Lunpack_elink_val(value.data(), value.size(), &flags, &file, &object) < 0 || !file ||
          !object)
        return refuse("cannot read the external link");
      to->file = file;
      to->target = object;
    }
    // Followed through the file's access list: its callback judges the file of every
    // external link the path crosses (this one, one a soft link leads to, one in the other
    // file) by the rule for reading, before libhdf5 opens it (read_access.hpp).
    file_->access.refusal.clear();
    file_->access.refusal_missing = false;
    H5O_info_t object;
    if (H5Oget_info_by_name2(group, link.name.c_str(), &object, H5O_INFO_BASIC | H5O_INFO_NUM_ATTRS,
                             file_->link_access.get()) < 0) {
      if (!file_->access.refusal.empty() && file_->access.refusal_missing) {
        // An external link to a file that does not exist: dangling, as h5ls lists it.
        H5Eclear2(H5E_DEFAULT);
        const std::string why =
            fmt::format("{}; there is no such file ({})", to->describe(), file_->access.refusal);
        return listed_link(link.name, std::move(to), model::Link::End::kNothing, why);
      }
      if (!file_->access.refusal.empty()) {
        return refuse(fmt::format("{}; not followed ({})", to->describe(), file_->access.refusal));
      }
      // Dangling: listed as h5ls lists it; only reading it fails.
      H5Eclear2(H5E_DEFAULT);
      return listed_link(link.name, to, model::Link::End::kNothing,
                         fmt::format("{}, which does not exist", to->describe()));
    }
    if (object.type == H5O_TYPE_GROUP) return group_link(link.name, std::move(to), object, full);
    if (object.type != H5O_TYPE_DATASET) {
      // A committed datatype: no item of the tree (one no dataset uses is skipped too).
      const std::string why =
          fmt::format("{}, a committed datatype (no group or array)", to->describe());
      return listed_link(link.name, std::move(to), model::Link::End::kOther, why);
    }
    Handle ds(H5Dopen2(group, link.name.c_str(), file_->link_access.get()));
    if (!ds.valid()) return refuse(fmt::format("{}: cannot open it", to->describe()));
    if (auto why = opened_outside(file_->access, ds.get()))
      return refuse(fmt::format("{}; not followed ({})", to->describe(), *why));
    // In this file only when the path crossed no external link: a soft link may lead
    // through one.
    std::unique_ptr<Node> array = dataset(std::move(ds), link.name, full, object.num_attrs > 0,
                                          object.addr, object.fileno == file_->access.main_fileno);
    array->link = std::move(to);
    return array;
  }

  // The node of a link listed with where it points, not followed (Link::listed_only): an
  // array-kind node whose error, marked unsupported, says what it points to.
  std::unique_ptr<Node> listed_link(const std::string& name, std::shared_ptr<model::Link> to,
                                    model::Link::End end, const std::string& why) {
    auto node = std::make_unique<Node>();
    node->kind = model::NodeKind::kArray;
    node->name = name;
    to->end = end;
    node->link = std::move(to);
    node->error = {ErrorCategory::kData, why, Location::file(file_->path)};
    node->error.unsupported = true;
    return node;
  }

  // A soft or external link to a group. One listed before, or one of this file reached
  // from this file, is listed there (paths through the link lead to it: Tree::find); a group
  // of another file is read through the link, its members below it, as h5py follows it.
  std::unique_ptr<Node> group_link(const std::string& name, std::shared_ptr<model::Link> to,
                                   const H5O_info_t& object, const std::string& full) {
    const std::string* listed = listed_path(object, full);
    const bool here = object.fileno == file_->access.main_fileno;
    if (listed || (here && !inside_external(full))) {
      // Not yet listed, of this file: where the file's path to it leads.
      to->listed_at = listed ? *listed : absolute_target(to->target, full);
      const std::string why =
          fmt::format("{}; the group is listed at {}", to->describe(), to->listed_at);
      return listed_link(name, std::move(to), model::Link::End::kGroupHere, why);
    }
    // Read through the link: its attributes now, its members as any group's. Each object
    // of each file is read once (remember()): files that link to each other end.
    auto node = std::make_unique<Node>();
    node->kind = model::NodeKind::kGroup;
    node->name = name;
    node->link = std::move(to);
    (void)remember(object, full);
    external_roots_.push_back(full + "/");
    if (object.num_attrs > 0) {
      Handle g(H5Oopen(file_->id.get(), full.c_str(), file_->link_access.get()));
      if (g.valid()) group_attributes(g.get(), full, *node);
      H5Eclear2(H5E_DEFAULT);
    }
    pending_groups_.emplace_back(node.get(), full);
    return node;
  }

  // Whether `full` lies in a group read through an external link.
  bool inside_external(const std::string& full) const {
    return std::any_of(external_roots_.begin(), external_roots_.end(),
                       [&](const std::string& root) { return full.starts_with(root); });
  }

  // A soft link's target as a path from the root: relative ones start at the link's group.
  static std::string absolute_target(const std::string& target, const std::string& full) {
    if (target.starts_with('/')) return target;
    const size_t slash = full.rfind('/');
    const std::string parent =
        slash == 0 || slash == std::string::npos ? "" : full.substr(0, slash);
    return parent + "/" + target;
  }

  // An object of another file, by its file's name and its address there: libhdf5 opens
  // that file afresh for each path through an external link, under a new file number.
  std::pair<std::string, haddr_t> elsewhere_key(const std::string& full, haddr_t addr) const {
    Handle object(H5Oopen(file_->id.get(), full.c_str(), file_->link_access.get()));
    std::string name = object.valid() ? file_name_of(object.get()) : std::string();
    H5Eclear2(H5E_DEFAULT);
    return {std::move(name), addr};
  }

  // Where the tree lists `object` (of this file or another, at `full` through links), or
  // nullptr.
  const std::string* listed_path(const H5O_info_t& object, const std::string& full) const {
    if (object.fileno == file_->access.main_fileno) {
      auto it = seen_.find(object.addr);
      return it == seen_.end() ? nullptr : &it->second;
    }
    auto it = seen_elsewhere_.find(elsewhere_key(full, object.addr));
    return it == seen_elsewhere_.end() ? nullptr : &it->second;
  }

  // Records where `object` is listed; the path it was listed at first, and whether this
  // is the first time.
  std::pair<std::string, bool> remember(const H5O_info_t& object, const std::string& full) {
    if (object.fileno == file_->access.main_fileno) {
      auto [it, fresh] = seen_.emplace(object.addr, full);
      return {it->second, fresh};
    }
    auto [it, fresh] = seen_elsewhere_.emplace(elsewhere_key(full, object.addr), full);
    return {it->second, fresh};
  }

  void add_error(Node& group, const std::string& name, const std::string& full,
                 const std::string& why) {
    auto node = std::make_unique<Node>();
    node->kind = model::NodeKind::kArray;
    node->name = name;
    node->error = {ErrorCategory::kData, fmt::format("{}: {}", full, why),
                   Location::file(file_->path)};
    group.children.push_back(std::move(node));
  }

  // The array of dataset `ds`; `in_this_file` false for one reached through an external
  // link, whose bytes lie in another file (no address here to read them at).
  std::unique_ptr<Node> dataset(Handle ds, const std::string& name, const std::string& full,
                                bool has_attributes, haddr_t header, bool in_this_file = true) {
    auto node = std::make_unique<Node>();
    node->kind = model::NodeKind::kArray;
    node->name = name;
    try {
      Handle type = checked(H5Dget_type(ds.get()), full + ": cannot read its type", file_->path);
      Handle space =
          checked(H5Dget_space(ds.get()), full + ": cannot read its dataspace", file_->path);
      node->dtype = dtype_of(type.get(), full);
      note_user_type(type.get());
      if (H5Sget_simple_extent_type(space.get()) == H5S_NULL) {
        // No shape and no data (h5py's Empty): read as no element.
        node->empty = true;
        node->shape = {0};
        if (has_attributes) {
          Handle plist = checked(H5Dget_create_plist(ds.get()),
                                 full + ": cannot read its creation properties", file_->path);
          attributes(ds.get(), plist.get(), full, *node);
        }
        node->data = dataset_source(file_, full, node->dtype, node->shape, {}, std::nullopt);
        return node;
      }
      const int rank = H5Sget_simple_extent_ndims(space.get());
      std::vector<hsize_t> dims(static_cast<size_t>(std::max(rank, 0))), maxdims(dims.size());
      H5Sget_simple_extent_dims(space.get(), dims.data(), maxdims.data());
      node->shape.assign(dims.begin(), dims.end());
      std::vector<int64_t> max;
      max.reserve(maxdims.size());
      for (hsize_t m : maxdims) max.push_back(m == H5S_UNLIMITED ? -1 : static_cast<int64_t>(m));
      if (max != node->shape) node->storage.max_shape = std::move(max);
      node->storage.order = node->dtype.byte_order();
      std::vector<int64_t> chunk;
      std::optional<std::pair<uint64_t, uint64_t>> contiguous;
      Handle plist = checked(H5Dget_create_plist(ds.get()),
                             full + ": cannot read its creation properties", file_->path);
      // Values stored in other files (external raw storage, virtual sources): read only
      // where the rule allows, else the array is this error.
      const bool elsewhere =
          H5Pget_layout(plist.get()) == H5D_VIRTUAL || H5Pget_external_count(plist.get()) > 0;
      if (elsewhere) {
        // Judged as every read opens it: H5Dopen2 with the file's external_access, whose
        // prefixes libhdf5 takes only from H5Dopen2 (H5Oopen gives a dataset the defaults),
        // and keeps while the dataset is open, so the other handle goes first.
        ds.reset();
        plist.reset();
        ds = checked(H5Dopen2(file_->id.get(), full.c_str(), file_->external_access.get()),
                     full + ": cannot open it", file_->path);
        plist = checked(H5Dget_create_plist(ds.get()),
                        full + ": cannot read its creation properties", file_->path);
        Handle dapl = checked(H5Dget_access_plist(ds.get()),
                              full + ": cannot read its access properties", file_->path);
        if (auto why = storage_refusal(file_->access, file_->external_access.get(), ds.get(),
                                       plist.get(), dapl.get()))
          throw Error(ErrorCategory::kData, *why, Location::file(file_->path));
      }
      storage(ds.get(), plist.get(), *node, chunk, contiguous);
      if (!in_this_file) {
        contiguous.reset();
        node->storage.offset.reset();
      }
      if (extent_offsets_ && contiguous)
        node->storage.extent_offsets = extents_at(header, node->shape);
      if (has_attributes) attributes(ds.get(), plist.get(), full, *node);
      if (has_attributes && H5DSis_scale(ds.get()) > 0) {
        // A dimension scale is its own dimension's coordinate, named by its NAME.
        char scale_name[1024] = {};
        const ssize_t n = H5DSget_scale_name(ds.get(), scale_name, sizeof scale_name);
        std::string dim = n > 0 ? std::string(scale_name) : name;
        if (dim.starts_with(kDimensionOnlyLabel)) {
          dim = dimension_name(name);
          dimension_only_.insert(full);
        }
        // Its first dimension; the others of a netCDF coordinate variable of more than one
        // are named by coordinate_dimensions().
        model::ValueList names(std::max<size_t>(node->shape.size(), 1)), coordinates(names.size());
        names[0] = Value(dim);
        coordinates[0] = Value(full);
        node->attributes.set(model::well_known::kDimensionNames, Value(std::move(names)));
        node->attributes.set(model::well_known::kDimensionCoordinates,
                             Value(std::move(coordinates)));
        netcdf_ids(ds.get(), *node, full);
        if (const auto* c = node->attributes.find("CLASS")) {
          if (const auto* v = std::get_if<Value>(c);
              v && v->is<std::string>() && v->as<std::string>() == "DIMENSION_SCALE")
            erase_attribute(*node, "CLASS");
        }
        erase_attribute(*node, "NAME");
      } else if (has_attributes && rank > 0 && H5Aexists(ds.get(), "DIMENSION_LIST") > 0) {
        scaled_.push_back({node.get(), full});
      }
      node->data =
          dataset_source(file_, full, node->dtype, node->shape, chunk, contiguous, elsewhere);
    } catch (const Error& e) {
      H5Eclear2(H5E_DEFAULT);
      node->error = model::NodeError::from(e);
      // A type this build has no form for: the item is listed (its listing complete), not
      // read.
      node->error.unsupported = e.category() == ErrorCategory::kType;
    }
    return node;
  }

  static void erase_attribute(Node& node, const std::string& name) { node.attributes.erase(name); }

  void storage(hid_t ds, hid_t dcpl, Node& node, std::vector<int64_t>& chunk,
               std::optional<std::pair<uint64_t, uint64_t>>& contiguous) {
    const H5D_layout_t layout = H5Pget_layout(dcpl);
    if (layout == H5D_CONTIGUOUS) {
      node.storage.kind = model::Storage::Kind::kContiguous;
      // External raw storage has no place in this file: no offset to read it at here.
      const bool external = H5Pget_external_count(dcpl) > 0;
      const haddr_t addr = external ? HADDR_UNDEF : H5Dget_offset(ds);
      node.storage.size = H5Dget_storage_size(ds);
      if (addr != HADDR_UNDEF) {
        node.storage.offset = addr;
        contiguous = std::make_pair(static_cast<uint64_t>(addr), node.storage.size);
      }
    } else if (layout == H5D_CHUNKED) {
      const int rank = H5Pget_chunk(dcpl, 0, nullptr);
      std::vector<hsize_t> dims(static_cast<size_t>(std::max(rank, 0)));
      H5Pget_chunk(dcpl, rank, dims.data());
      auto chunking = std::make_shared<model::Chunking>();
      chunking->chunk_shape.assign(dims.begin(), dims.end());
      chunk = chunking->chunk_shape;
      chunking->codecs = codecs_of(dcpl, node.dtype);
      node.storage.kind = model::Storage::Kind::kChunked;
      node.storage.size = H5Dget_storage_size(ds);
      node.storage.chunking = std::move(chunking);
    }
    H5D_fill_value_t fill_state;
    if (H5Pfill_value_defined(dcpl, &fill_state) >= 0 &&
        fill_state == H5D_FILL_VALUE_USER_DEFINED && !needs_conversion(node.dtype)) {
      const DType native =
          node.dtype.size() > 1 ? node.dtype.with_byte_order(native_byte_order()) : node.dtype;
      NDArray fill(native, Shape(std::vector<int64_t>{}));
      Handle memtype = h5_type(native, true);
      if (H5Pget_fill_value(dcpl, memtype.get(), fill.mutable_data()) >= 0)
        node.attributes.set(model::well_known::kFillValue, std::move(fill));
      H5Eclear2(H5E_DEFAULT);
    }
  }

  struct AttrVisit {
    Reader* self;
    const std::string* owner;
    Node* node;
    bool dataset;
    haddr_t address = HADDR_UNDEF;  // the owner's header, when in the main file
  };

  static herr_t attribute(hid_t loc, const char* name, const H5A_info_t*, void* data) {
    auto* v = static_cast<AttrVisit*>(data);
    const std::string n = name;
    if (is_bookkeeping_attribute(n)) return 0;
    const std::string what = fmt::format("{}: attribute '{}'", *v->owner, n);
    try {
      Handle a =
          checked(H5Aopen(loc, name, H5P_DEFAULT), what + ": cannot open", v->self->file_->path);
      Handle type(H5Aget_type(a.get()));
      if (type.valid()) v->self->note_user_type(type.get());  // a named type it has is used
      if (type.valid() && dtype_of(type.get(), what).holds_vlen()) {
        // Its value lies in the file's global heap, where a damaged file sends libhdf5
        // astray: read after the walk, first in a child process (read_heap_attributes).
        v->node->attributes.set(n, model::Value());  // its place, in the file's order
        v->self->heap_attributes_.push_back({v->node, *v->owner, n, v->address});
        return 0;
      }
      v->self->store_attribute(*v->node, n, read_attribute(*v->self->file_, a.get(), what));
    } catch (const Error& e) {
      // Named with why, never dropped: listings report it (model::Node).
      H5Eclear2(H5E_DEFAULT);
      v->node->unreadable_attributes.push_back({n, model::NodeError::from(e)});
    }
    return 0;
  }

  static void store_attribute(Node& node, const std::string& name, ReadAttribute read) {
    if (read.text_type) {
      node.attributes.set_text(name, std::get<model::Value>(read.value).as<std::string>(),
                               std::move(*read.text_type));
    } else {
      node.attributes.set(name, std::move(read.value));
    }
  }

  // An attribute whose value is variable-length (strings, sequences): read after the walk.
  struct HeapAttribute {
    Node* node;
    std::string owner;  // the path of the object it belongs to
    std::string name;
    haddr_t address;  // of the owner's header in the main file (HADDR_UNDEF: elsewhere)
  };

  // The attributes of variable-length values, read once in a child process (a crash there
  // refuses the file: crash_guard.hpp), then here. `guarded` false for a file at a URL.
  void read_heap_attributes(bool guarded) {
    if (heap_attributes_.empty()) return;
    // Opened anew, by the owner's address (no path to walk) where it is in the main file:
    // libhdf5 1.10 slows with each handle left open (20,000 attribute handles kept from the
    // walk made listing such a file take 45 s, not 2).
    auto read_one = [&](const HeapAttribute& h) {
      const std::string what = fmt::format("{}: attribute '{}'", h.owner, h.name);
      Handle object = checked(h.address != HADDR_UNDEF ? H5Oopen_by_addr(file_->id.get(), h.address)
                                                       : H5Oopen(file_->id.get(), h.owner.c_str(),
                                                                 file_->link_access.get()),
                              what + ": cannot open its object", file_->path);
      Handle a = checked(H5Aopen(object.get(), h.name.c_str(), H5P_DEFAULT), what + ": cannot open",
                         file_->path);
      return read_attribute(*file_, a.get(), what);
    };
    if (guarded) {
      in_crash_proof_child(file_->path, "reading its variable-length attributes", [&] {
        for (const HeapAttribute& h : heap_attributes_) (void)read_one(h);
      });
    }
    for (const HeapAttribute& h : heap_attributes_) {
      try {
        store_attribute(*h.node, h.name, read_one(h));
      } catch (const Error& e) {
        H5Eclear2(H5E_DEFAULT);
        h.node->attributes.erase(h.name);
        h.node->unreadable_attributes.push_back({h.name, model::NodeError::from(e)});
      }
    }
    heap_attributes_.clear();
  }

  void group_attributes(hid_t group, const std::string& owner, Node& node) {
    Handle gcpl(H5Gget_create_plist(group));
    attributes(group, gcpl.get(), owner, node);
  }

  // The attributes of `loc` in creation order where the file tracks it (its creation
  // property list says), else in name order, as h5py lists them.
  void attributes(hid_t loc, hid_t create_plist, const std::string& owner, Node& node) {
    AttrVisit visit{this, &owner, &node, true};
    H5O_info_t info;
    if (H5Oget_info2(loc, &info, H5O_INFO_BASIC) >= 0 && info.fileno == file_->access.main_fileno)
      visit.address = info.addr;
    H5Eclear2(H5E_DEFAULT);
    unsigned order_flags = 0;
    if (create_plist < 0 || H5Pget_attr_creation_order(create_plist, &order_flags) < 0) {
      H5Eclear2(H5E_DEFAULT);
      order_flags = 0;
    }
    hsize_t at = 0;
    const H5_index_t index =
        (order_flags & H5P_CRT_ORDER_TRACKED) != 0 ? H5_INDEX_CRT_ORDER : H5_INDEX_NAME;
    if (H5Aiterate2(loc, index, H5_ITER_INC, &at, attribute, &visit) < 0) {
      // Creation order is tracked only when the writer asked for it: name order then.
      H5Eclear2(H5E_DEFAULT);
      at = 0;
      node.attributes = model::Attributes();
      node.unreadable_attributes.clear();
      if (H5Aiterate2(loc, H5_INDEX_NAME, H5_ITER_INC, &at, attribute, &visit) < 0) {
        H5Eclear2(H5E_DEFAULT);
        node.unreadable_attributes.push_back(
            {"",
             {ErrorCategory::kData, owner + ": its attributes cannot be listed",
              Location::file(file_->path)}});
      }
    }
  }

  struct ScaleVisit {
    std::string path;
    int count = 0;
    const std::unordered_map<haddr_t, std::string>* paths = nullptr;  ///< seen_
  };

  static herr_t scale(hid_t, unsigned, hid_t scale_id, void* data) {
    auto* v = static_cast<ScaleVisit*>(data);
    ++v->count;
    // The scale's path by its header's address among the objects listed: H5Iget_name of an
    // object opened through a reference searches the whole file (1,000 scaled datasets took
    // 0.8 s), so it is asked only for a scale not listed.
    H5O_info_t info;
    if (H5Oget_info2(scale_id, &info, H5O_INFO_BASIC) >= 0) {
      if (auto it = v->paths->find(info.addr); it != v->paths->end()) {
        v->path = it->second;
        return 0;
      }
    } else {
      H5Eclear2(H5E_DEFAULT);
    }
    char name[4096];
    const ssize_t n = H5Iget_name(scale_id, name, sizeof name);
    if (n > 0 && static_cast<size_t>(n) < sizeof name) v->path = name;
    return 0;
  }

  // Datasets with DIMENSION_LIST: each dimension's attached scale (when exactly one is).
  void attach_scales() {
    for (const auto& [node, full] : scaled_) {
      Handle ds(H5Dopen2(file_->id.get(), full.c_str(), file_->link_access.get()));
      if (!ds.valid()) {
        H5Eclear2(H5E_DEFAULT);
        continue;
      }
      model::ValueList paths, names;
      bool any = false;
      for (size_t d = 0; d < node->shape.size(); ++d) {
        ScaleVisit v;
        v.paths = &seen_;
        int idx = 0;
        if (H5DSiterate_scales(ds.get(), static_cast<unsigned>(d), &idx, scale, &v) < 0)
          H5Eclear2(H5E_DEFAULT);
        if (v.count == 1 && !v.path.empty()) {
          // A netCDF dimension without a variable names the dimension and has no values.
          paths.emplace_back(coordinate_of(v.path));
          names.emplace_back(dimension_only_.count(v.path)
                                 ? dimension_name(v.path.substr(v.path.rfind('/') + 1))
                                 : v.path.substr(v.path.rfind('/') + 1));
          any = true;
        } else {
          paths.emplace_back();
          names.emplace_back();
        }
      }
      if (any) {
        node->attributes.set(model::well_known::kDimensionNames, Value(std::move(names)));
        node->attributes.set(model::well_known::kDimensionCoordinates, Value(std::move(paths)));
      }
    }
  }

  // A dataset's or attribute's type, kept when user-defined (an enum, a compound...) for
  // type_used().
  void note_user_type(hid_t type) {
    if (!is_user_defined(type)) return;
    for (const Handle& seen : user_types_) {
      if (H5Tequal(seen.get(), type) > 0) return;
    }
    if (user_types_.size() < kUserTypes) user_types_.emplace_back(H5Tcopy(type));
    H5Eclear2(H5E_DEFAULT);
  }

  // Whether a dataset or an attribute read has the committed datatype at `full` as its type.
  // netCDF-C's variables have a copy of their named type, so the types are compared, not
  // their addresses.
  bool type_used(const std::string& full) {
    Handle named(H5Topen2(file_->id.get(), full.c_str(), H5P_DEFAULT));
    bool used = false;
    for (const Handle& seen : user_types_) {
      if (named.valid() && H5Tequal(seen.get(), named.get()) > 0) used = true;
    }
    H5Eclear2(H5E_DEFAULT);
    return used;
  }

  // A scale's netCDF dimension id ("_Netcdf4Dimid"), and of a coordinate variable of more
  // than one dimension (netCDF-C's "z(z, strlen)") the ids of its dimensions
  // ("_Netcdf4Coordinates"): a scale cannot have scales attached, so they name its others.
  void netcdf_ids(hid_t ds, Node& node, const std::string& full) {
    if (auto id = int_attribute(ds, "_Netcdf4Dimid"); id.size() == 1) {
      dimension_id_[full] = id[0];
      dimension_of_id_.emplace(id[0], full);
    }
    if (node.shape.size() > 1) {
      std::vector<int> ids = int_attribute(ds, "_Netcdf4Coordinates");
      if (ids.size() == node.shape.size()) coordinate_ids_.push_back({&node, std::move(ids)});
    }
  }

  // The integers of attribute `name` of `loc` (at most 64 of them: a rank); none when it
  // is absent or not integers.
  static std::vector<int> int_attribute(hid_t loc, const char* name) {
    if (H5Aexists(loc, name) <= 0) {
      H5Eclear2(H5E_DEFAULT);
      return {};
    }
    Handle attr(H5Aopen(loc, name, H5P_DEFAULT));
    Handle space(attr.valid() ? H5Aget_space(attr.get()) : H5I_INVALID_HID);
    Handle type(attr.valid() ? H5Aget_type(attr.get()) : H5I_INVALID_HID);
    const hssize_t n = space.valid() ? H5Sget_simple_extent_npoints(space.get()) : -1;
    std::vector<int> values;
    if (n >= 1 && n <= 64 && H5Tget_class(type.get()) == H5T_INTEGER) {
      values.resize(static_cast<size_t>(n));
      if (H5Aread(attr.get(), H5T_NATIVE_INT, values.data()) < 0) values.clear();
    }
    H5Eclear2(H5E_DEFAULT);
    return values;
  }

  // A netCDF group's dimensions in netCDF's order, its dimension ids: each dimension
  // without a variable placed after the coordinate variables of lower ids, so a copy
  // numbers them as the source did (netCDF-C may create them in another order).
  void place_dimensions(Node& group, const std::string& path) {
    if (dimension_id_.empty() || group.params.empty()) return;
    auto id_of = [&](const std::string& name) {
      const auto id = dimension_id_.find(join_path(path, name));
      return id == dimension_id_.end() ? std::optional<int>() : std::optional<int>(id->second);
    };
    for (const model::Parameter& p : group.params) {
      if (!id_of(p.name)) return;  // not every dimension numbered: creation order stays
    }
    std::stable_sort(group.params.begin(), group.params.end(),
                     [&](const model::Parameter& a, const model::Parameter& b) {
                       return *id_of(a.name) < *id_of(b.name);
                     });
    // The coordinate variables' ids with their places, by id; after[i]: the place after
    // the last of the first i + 1 of them.
    std::vector<std::pair<int, size_t>> coordinates;
    for (size_t k = 0; k < group.children.size(); ++k) {
      const std::string member = join_path(path, group.children[k]->name);
      const auto own = dimension_id_.find(member);
      if (own != dimension_id_.end() && !dimension_only_.count(member))
        coordinates.emplace_back(own->second, k + 1);
    }
    std::sort(coordinates.begin(), coordinates.end());
    std::vector<size_t> after(coordinates.size());
    for (size_t i = 0; i < coordinates.size(); ++i)
      after[i] = std::max(coordinates[i].second, i ? after[i - 1] : 0);
    for (model::Parameter& p : group.params) {
      const auto lower = std::lower_bound(coordinates.begin(), coordinates.end(),
                                          std::make_pair(*id_of(p.name), size_t{0}));
      const size_t below = static_cast<size_t>(lower - coordinates.begin());
      p.members_before = below ? after[below - 1] : 0;
    }
  }

  // The coordinate a dimension's scale at `scale` gives: the scale, or none for a netCDF
  // dimension without a variable.
  Value coordinate_of(const std::string& scale) const {
    if (dimension_only_.count(scale)) return Value();
    return Value(scale);
  }

  // Coordinate variables of more than one dimension: their other dimensions by the ids
  // "_Netcdf4Coordinates" lists.
  void coordinate_dimensions() {
    for (const auto& [node, ids] : coordinate_ids_) {
      model::ValueList names, paths;
      for (size_t d = 0; d < ids.size(); ++d) {
        const auto scale = dimension_of_id_.find(ids[d]);
        if (scale == dimension_of_id_.end()) {
          names.emplace_back();
          paths.emplace_back();
          continue;
        }
        const std::string& at = scale->second;
        names.emplace_back(dimension_name(at.substr(at.rfind('/') + 1)));
        paths.emplace_back(coordinate_of(at));
      }
      node->attributes.set(model::well_known::kDimensionNames, Value(std::move(names)));
      node->attributes.set(model::well_known::kDimensionCoordinates, Value(std::move(paths)));
    }
  }

  // Where the object header at `header` stores `dims` (stored_extents.hpp); empty when
  // that cannot be told for sure.
  std::vector<uint64_t> extents_at(haddr_t header, const std::vector<int64_t>& dims) {
    if (header == HADDR_UNDEF || dims.empty()) return {};
    if (!raw_) raw_ = io::open_file(file_->path);
    if (header >= raw_->size()) return {};
    std::vector<std::byte> bytes(std::min<uint64_t>(kHeaderBytes, raw_->size() - header));
    if (raw_->read_some(header, bytes.size(), bytes.data()) != bytes.size()) return {};
    return stored_extent_offsets(bytes, header, dims).value_or(std::vector<uint64_t>{});
  }

  // The first bytes of an object header searched for its dataspace message.
  static constexpr uint64_t kHeaderBytes = 4096;

  std::shared_ptr<OpenFile> file_;
  bool extent_offsets_;
  std::shared_ptr<io::ByteSource> raw_;  ///< the file's bytes, for extents_at
  std::unordered_map<haddr_t, std::string> seen_;
  std::vector<HeapAttribute> heap_attributes_;
  /// Objects of other files (reached through external links) -> where they are listed.
  std::map<std::pair<std::string, haddr_t>, std::string> seen_elsewhere_;
  /// "/PATH/" of each group read through an external link.
  std::vector<std::string> external_roots_;
  /// Groups read through external links while listing a group's members, to be walked.
  std::vector<std::pair<Node*, std::string>> pending_groups_;
  std::vector<std::string> skipped_;
  std::vector<std::pair<Node*, std::string>> scaled_;
  /// Scales that are a netCDF dimension without a variable (read as group parameters).
  std::set<std::string> dimension_only_;
  std::vector<std::string> named_types_;  ///< committed datatypes
  /// The distinct user-defined types of datasets (at most kUserTypes of them).
  std::vector<Handle> user_types_;
  static constexpr size_t kUserTypes = 256;
  std::unordered_map<std::string, int> dimension_id_;     ///< scale path -> _Netcdf4Dimid
  std::unordered_map<int, std::string> dimension_of_id_;  ///< the first scale of each id
  /// Coordinate variables of more than one dimension, and their _Netcdf4Coordinates.
  std::vector<std::pair<Node*, std::vector<int>>> coordinate_ids_;
};

}  // namespace

namespace {

// Whether `source` starts with HDF5's signature, at 0 or after a user block (512 bytes,
// doubling).
bool has_signature(const io::ByteSource& source) {
  static constexpr unsigned char kSignature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  unsigned char head[8];
  for (uint64_t at = 0; at + 8 <= source.size(); at = at == 0 ? 512 : at * 2) {
    source.read(at, 8, head);
    if (std::memcmp(head, kSignature, 8) == 0) return true;
  }
  return false;
}

// The main file's number (H5O_info_t::fileno) and the access list every path of it is
// opened with, which applies the rule for reading (read_access.hpp).
void prepare_access(OpenFile& file, const std::string& opened_as) {
  file.access.main_name = opened_as;
  H5O_info_t info;
  check(H5Oget_info2(file.id.get(), &info, H5O_INFO_BASIC), "cannot read the root group",
        file.path);
  file.access.main_fileno = info.fileno;
  file.link_access = link_access_list(file.access, false);
  file.external_access = link_access_list(file.access, true);
}

// A file here, opened by libhdf5 by its path.
void open_local(OpenFile& file, const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw Error(ErrorCategory::kIo, fmt::format("cannot open: {}", std::strerror(errno)),
                Location::file(path));
  if (!S_ISREG(st.st_mode))
    throw Error(ErrorCategory::kIo, "not a regular file", Location::file(path));
  Lock lock(library_mutex());
  if (H5Fis_hdf5(path.c_str()) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    throw Error(ErrorCategory::kData, "not an HDF5 file (no signature found)",
                Location::file(path));
  }
  // The library's default close degree (weak: every object is closed by its own handle
  // here), as h5py and most programs use: libhdf5 refuses to open one file twice in a
  // process with two degrees, so a Python user's h5py.File on a file dudley has open
  // (or the other way round) would fail with "file close degree doesn't match".
  Handle fapl(H5Pcreate(H5P_FILE_ACCESS));
  // By its absolute name: libhdf5 keeps the folder of the name a file was opened by, and
  // looks for its external links' files there (read_access.hpp); absolute, that folder
  // does not depend on the current directory of a later read.
  std::error_code ec;
  std::string absolute = std::filesystem::absolute(path, ec).string();
  if (ec) absolute = path;
  file.id = checked(H5Fopen(absolute.c_str(), H5F_ACC_RDONLY, fapl.get()),
                    "cannot open the HDF5 file", path);
  prepare_access(file, absolute);
}

// A file at a URL, read by ranges through the store driver. What it names is never read:
// a local file would be found relative to the current directory.
void open_remote(OpenFile& file, const std::string& url, const io::StoreOptions& stores) {
  file.remote = io::open_source(url, stores);
  if (!has_signature(*file.remote)) {
    throw Error(ErrorCategory::kData, "not an HDF5 file (no signature found)", Location::file(url));
  }
  Lock lock(library_mutex());
  Handle fapl(source_access_list(file.remote));
  file.id = checked(H5Fopen(file.remote->name().c_str(), H5F_ACC_RDONLY, fapl.get()),
                    "cannot open the HDF5 file", url);
  file.access.remote = true;
  prepare_access(file, url);
}

}  // namespace

model::Tree read_hdf5_file(const std::string& path, const OpenOptions& options) {
  prepare_library();
  auto file = std::make_shared<OpenFile>();
  file->path = path;
  file->refs = std::make_shared<model::ReferenceTable>();
  if (io::is_url(path)) {
    open_remote(*file, path, options.store);
  } else {
    file->access.rule = io::ReadRule::for_file(path, options.allow_outside);
    open_local(*file, path);
  }
  return Reader(file, options.extent_offsets).read();
}

}  // namespace dudley::hdf5
