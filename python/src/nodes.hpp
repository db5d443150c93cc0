// The tree of an open file as Python sees it: groups and arrays that keep their tree alive,
// arrays read through numpy's basic indexing, and open() itself.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <utility>

#include "dudley/format.hpp"
#include "dudley/formats/dudley.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::python {

namespace py = pybind11;

/// How a file is opened from Python: what open() was given (or a family index says), kept
/// so that a pickled file, group or array reopens the same way in a Dask worker.
struct OpenRequest {
  /// The format to read; unset: found from the file (Dudley data when `dudley` is set).
  std::optional<std::string> format;
  /// The Dudley options given (a layout, an order, parameters), when any was.
  std::optional<layout::DudleyOpenOptions> dudley;
  /// How s3:// paths are reached (storage_options), when given.
  std::optional<io::S3Options> s3;
  /// Folders what the file names may also be read from (allow_outside; OpenOptions).
  std::vector<std::string> allow_outside;
};

/// fsspec's storage_options for S3 (key, secret, token, anon, endpoint_url, profile,
/// client_kwargs={endpoint_url, region_name}) as S3Options; UsageError naming any other.
io::S3Options s3_options(const py::dict& storage_options);

/// The request of open()'s arguments: a layout (a file or layout text), an order ("little",
/// "big", "<", ">") and parameter values (integers, by name or path). Raises UsageError for
/// an order or a parameter value that is none.
OpenRequest open_request(const std::optional<std::string>& layout,
                         const std::optional<std::string>& order,
                         const std::optional<py::dict>& params,
                         const std::optional<std::string>& format,
                         const std::optional<py::dict>& storage_options = std::nullopt);
/// `request` as plain Python values, for pickle, and back.
py::tuple request_state(const OpenRequest& request);
OpenRequest request_from_state(const py::tuple& state);

/// A node of an open tree; the tree stays alive while any of its nodes is used.
struct NodeRef {
  std::shared_ptr<const model::Tree> tree;
  const model::Node* node = nullptr;
  std::string path;  ///< "/" for the root
  /// The file opened: where a contiguous array's storage.offset points (view()).
  std::shared_ptr<const std::string> filename;
  /// How it was opened, to open it again in another process.
  std::shared_ptr<const OpenRequest> opened_with;
};

/// What pickles a node (or, with `file`, the File itself): dudley._reopen and its arguments
/// (the file's path, how it was opened, the node's path). Arrays and files then reopen by
/// path in worker processes.
py::tuple reduce_node(const NodeRef& ref, bool file);
/// dudley._reopen: the node at `node_path` of the file `path` opened as the request_state
/// `state` says ("" the File itself).
py::object reopen(const std::string& path, const py::tuple& state, const std::string& node_path);

/// The node at `key` below `at` ("x", "g/x", or absolute "/g/x"); KeyError when absent.
NodeRef lookup(const NodeRef& at, const std::string& key);
/// The path of member `name` of the group at `parent`.
std::string child_path(const std::string& parent, const std::string& name);
/// The names of a group's members (a list's item indexes), in order.
std::vector<std::string> member_names(const NodeRef& at);
/// The attributes of `node` as a read-only mapping (dudley._attributes.Attributes): JSON-like
/// values as Python objects, typed ones as numpy, references as what `references` says they
/// point to; one that cannot be read keeps its name, reading it raises why.
py::object attributes(const model::Node& node, const model::ReferenceTable* references);
/// The same of attributes held elsewhere (a Dudley parameter's), with those that could not
/// be read.
py::object attributes(const model::Attributes& attributes,
                      const std::vector<std::pair<std::string, model::NodeError>>& unreadable,
                      const model::ReferenceTable* references);

struct Group : NodeRef {};

struct Array : NodeRef {
  /// The shape Python sees: the model's, except that Dudley text (code units whose last
  /// dimension makes strings, `name = S1[20]`) is an array of strings, numpy's S20, one
  /// dimension fewer.
  std::vector<int64_t> shape() const;
  /// The element type Python sees (numpy's S<n>/U<n> for Dudley text), in the stored byte
  /// order (`stored`) or native (what reads return).
  py::dtype dtype(bool stored) const;
  /// Code units per string when Dudley text is read as strings, else 0.
  uint64_t string_units() const;

  /// a[index]: a numpy basic index, or a field name of a compound array.
  py::object read(py::handle index) const;
  /// A read-only numpy.memmap of the array in its file (no copy), for an array stored as one
  /// uncompressed run in C order; Error(kUsage) otherwise.
  py::object view() const;
  /// The selection `index` (a numpy basic index) read into a numpy array (no copy); for an
  /// empty array (no shape, no data), a dudley.Empty of its type, as h5py reads it.
  py::object read_selection(py::handle index) const;
  /// The outer selection `axes` (per dimension a (start, count, step) tuple or a list of
  /// ascending distinct coordinates) as (data, positions, reads): model::read_outer's result,
  /// what dudley._fancy picks numpy's advanced indexing from.
  py::tuple read_outer(const py::list& axes) const;
  /// Raises the array's own error (its reader's: an unknown codec, damage) when it has one.
  void check_readable() const;
};

/// An open file: the root group, and what it was opened from.
struct File : Group {
  std::string opened;  ///< the path given to open()
  std::string format;
};

/// The Python object for `ref`: an Array or a Group.
py::object wrap(const NodeRef& ref);

/// Opens `path` as `request` says (Dudley options make it Dudley data unless its format says
/// otherwise). The file is read with the GIL released.
File open_requested(const std::string& path, const OpenRequest& request);
/// dudley.open.
File open_path(const std::string& path, const std::optional<std::string>& layout,
               const std::optional<std::string>& order, const std::optional<py::dict>& params,
               const std::optional<std::string>& format,
               const std::optional<py::dict>& storage_options,
               const std::optional<std::vector<std::string>>& allow_outside);
/// "<dudley.Array /x <f8 shape=[3]>" or "<dudley.Group /g (2 members)>".
std::string short_repr(const NodeRef& r);
/// A group's tree, one member a line, indented, at most `limit` lines (then "..."): what
/// repr() of a group or file shows; `html` for notebooks (_repr_html_).
std::string tree_repr(const NodeRef& r, size_t limit, bool html);
/// An array's storage as a dict: layout ("contiguous", "chunked" or "unknown"), offset,
/// size, byteorder, chunk_shape, codecs, fill_value, max_shape, where the format says.
py::dict storage_dict(const model::Node& node);

}  // namespace dudley::python
