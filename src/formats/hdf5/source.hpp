// Reading an HDF5 dataset's elements (whole or a hyperslab) through libhdf5 into model
// layout, and its attributes.
#pragma once

#include <memory>
#include <string>

#include "dudley/model/tree.hpp"
#include "library.hpp"
#include "read_access.hpp"

namespace dudley::hdf5 {

/// An open file shared by the sources of its datasets.
struct OpenFile {
  /// The file's bytes when it is read from a URL (through store_driver.hpp); null for a
  /// file here, read by libhdf5 by its path.
  std::shared_ptr<io::ByteSource> remote;
  Handle id;
  std::string path;
  /// The rule for reading applied to what libhdf5 opens by names the file gives
  /// (read_access.hpp). `link_access` points to it: the struct is never moved.
  ReadAccess access;
  /// How every path is opened: external links through the rule's callback
  /// (link_access_list).
  Handle link_access;
  /// The same, with external storage relative to its dataset's file: for the datasets that
  /// have external storage or virtual sources.
  Handle external_access;
  std::shared_ptr<model::ReferenceTable> refs;
};

/// Reads `count` elements of `type` (the DType of `file_type`) that the library put in
/// `raw` with the memory type h5_type(type, true), into `out` in model layout: variable-
/// length data copied into the heap `keep` holds, references turned into keys of the file's
/// reference table. `raw`'s variable-length memory is not freed here.
void convert_elements(const OpenFile& file, const DType& type, const std::byte* raw, std::byte* out,
                      uint64_t count, std::shared_ptr<void>& keep);

/// The source of the dataset at `name` in `file` (type `dtype` as stored, `shape` current),
/// opened with `file`'s external_access when `elsewhere` (values in other files), else its
/// link_access.
std::shared_ptr<model::ArraySource> dataset_source(
    std::shared_ptr<OpenFile> file, std::string name, DType dtype, std::vector<int64_t> shape,
    std::vector<int64_t> chunk, std::optional<std::pair<uint64_t, uint64_t>> contiguous,
    bool elsewhere = false);

/// An attribute as read: its value, and for a scalar string of fixed length or of ASCII the
/// type it was stored as (model::Attributes::set_text keeps it for writers).
struct ReadAttribute {
  model::AttributeValue value;
  std::optional<DType> text_type;
};

/// Attribute `attr` (open): a string for a scalar string, else an array in native byte
/// order.
ReadAttribute read_attribute(const OpenFile& file, hid_t attr, const std::string& what);

}  // namespace dudley::hdf5
