// The rule for reading (dudley/io/read_rule.hpp) applied to what libhdf5 opens by a name the
// file gives: external links' files, external raw storage, virtual datasets' sources.
//
// How libhdf5 1.10.8 (Debian 12) finds those files, from its source (H5Fint.c
// H5F_prefix_open_file, H5Lexternal.c H5L__extern_traverse, H5Dint.c H5D__build_file_prefix,
// H5Defl.c, H5Dvirtual.c H5D__virtual_open_source_dset, H5system.c H5_build_extpath):
//
// - An external link's file, or a virtual dataset's source file, is searched for: (1) an
//   absolute name as it is (when that fails, its last component stands in for it from then
//   on); (2) each folder of HDF5_EXT_PREFIX (links) or HDF5_VDS_PREFIX (sources), read from
//   the environment at each open, ':'-separated; (3) the prefix of the access property list
//   (H5Pset_elink_prefix; for sources the dataset's VDS prefix, which HDF5_VDS_PREFIX as read
//   when the library started overrides, "${ORIGIN}" standing for the dataset's file's folder);
//   (4) the folder of the file holding the link or dataset, as that file was opened (its
//   "extpath", made absolute with the current directory of that moment); (5) the name in the
//   current directory; (6) the folder of that file's resolved name. The first that opens as
//   HDF5 is taken: a file of that name that is not HDF5 sends the search on, to the current
//   directory.
// - An external link's callback (H5Pset_elink_cb) is called before the search with the
//   parent file's name and the name as stored; it may refuse (a negative return) or change
//   the access flags and file access list, not the name or the search.
// - External raw storage is not searched: each file is opened as prefix + name (the name
//   alone when absolute or when no prefix is set, that is relative to the current directory),
//   the prefix being HDF5_EXTFILE_PREFIX as read when the library started, else the dataset
//   access list's (H5Pset_efile_prefix, "${ORIGIN}" allowed).
// - A virtual dataset's source in the same file is named "."; names may be printf-like
//   patterns ("%b": a block number, "%%": a percent sign) naming many files. A missing
//   source reads as the fill value. The source dataset's path is followed with the default
//   link access of the read (no callback), its sources opened with a copy of the virtual
//   dataset's access list.
//
// - libhdf5 keeps one state per open dataset in a process: a dataset opened with one external
//   storage prefix cannot be opened with another while it is open (h5py or netCDF4 in the
//   same process, with the default list, say), so the prefix is set only where it matters.
//
// So dudley (a) sets no link prefix, and "${ORIGIN}" as the external storage prefix of the
// datasets that have external storage or virtual sources (the other datasets are opened
// with libhdf5's defaults but for the callback); (b) walks
// libhdf5's own search order itself for links and sources (find_hdf5_file), judging the first
// candidate that exists by the rule and opening it to see that libhdf5 will take it, and stops
// before the current directory and the resolved-name folder: a name found nowhere before
// them is refused, so libhdf5 never gets there; (c) refuses an external link in the
// callback, by that search, before libhdf5 opens anything; (d) checks every dataset's
// external storage and virtual sources (nested ones too) when it is listed, with libhdf5's
// effective prefixes read back from the dataset's access list; (e) checks, after opening a
// dataset through a link, that its file is one the rule allows. What remains is a race with
// whoever changes the files between the check and libhdf5's open.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "dudley/io/read_rule.hpp"
#include "library.hpp"

namespace dudley::hdf5 {

/// What the rule needs while a file is read: the folders it allows, whether the file is at
/// a URL (it then names no local file to read), and what the last external link refused.
struct ReadAccess {
  io::ReadRule rule;
  bool remote = false;
  /// The file number libhdf5 gives the main file (H5O_info_t::fileno): objects in it are
  /// always readable.
  unsigned long main_fileno = 0;
  /// The names libhdf5 opened the main file by (absolute), for messages.
  std::string main_name;
  /// Why the last external link was refused (set by the callback, read by the caller).
  std::string refusal;
  /// Whether that was because no file of its name exists (a dangling link), not the rule.
  bool refusal_missing = false;
  /// Files found before, by (parent folder, name, kind): a dataset read in pieces follows
  /// its link at each piece.
  std::map<std::string, std::string> found;
};

/// A dataset access list (also a link access list) whose external links go through the
/// rule of `access` (which must outlive it): the callback searches for each link's file as
/// libhdf5 does and refuses what the rule does not allow; no link prefix; at most 16 soft
/// and external links followed in one path (libhdf5's H5L_NUM_LINKS). With
/// `external_storage`, external raw storage is found relative to its dataset's file
/// ("${ORIGIN}"), for the datasets that have some (or virtual sources, which libhdf5 opens
/// with a copy of the list).
Handle link_access_list(ReadAccess& access, bool external_storage);

/// Which search find_hdf5_file follows.
enum class Search {
  kExternalLink,   ///< HDF5_EXT_PREFIX
  kVirtualSource,  ///< HDF5_VDS_PREFIX
};

/// The file libhdf5 will open for `name` (as stored) named by the file libhdf5 opened as
/// `parent`, with the property list's prefix `prefix` (empty: none), when the rule allows it
/// and it opens as HDF5: its path as libhdf5 will spell it. Otherwise nullopt and `why` says
/// why, naming the reference as `what` ("the link to ../x.h5 in /d/a.h5"): "outside /d: WHAT
/// leads to /x.h5", "WHAT: /d/twin.h5 is not an HDF5 file; the current directory is not
/// searched".
std::optional<std::string> find_hdf5_file(ReadAccess& access, const std::string& parent,
                                          const std::string& name, const std::string& prefix,
                                          Search search, const std::string& what, std::string& why);

/// Why the dataset `ds` (its creation list `dcpl`, the access list it was opened with as
/// libhdf5 reports it, `dapl`) may not be read under the rule: its external raw storage or a
/// virtual source (or theirs, at most 16 deep, at most 65536 sources) names a file the rule
/// refuses, one libhdf5 would not find where dudley looks, or a pattern of files; nullopt
/// when it may be. Sources are opened with `list` (link_access_list), as libhdf5 will.
std::optional<std::string> storage_refusal(ReadAccess& access, hid_t list, hid_t ds, hid_t dcpl,
                                           hid_t dapl);

/// Why the object `object`, opened through links, may not be read: it lies in a file other
/// than the main one that the rule refuses; nullopt when it may be.
std::optional<std::string> opened_outside(const ReadAccess& access, hid_t object);

/// The name libhdf5 opened the file of `object` by (H5Fget_name); empty when unknown.
std::string file_name_of(hid_t object);

}  // namespace dudley::hdf5
