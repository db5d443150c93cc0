// HDF5 filter pipelines to and from the model's codec lists ([{name, configuration}], the
// codec layer's names: deflate is zlib's stream).
#pragma once

#include <string>
#include <vector>

#include "dudley/core/dtype.hpp"
#include "dudley/model/value.hpp"
#include "library.hpp"

namespace dudley::hdf5 {

/// One filter of a dataset's pipeline: its id, (up to 16 of) its parameters and the name
/// stored with it.
struct PipelineFilter {
  H5Z_filter_t id = -1;
  std::vector<unsigned> values;
  std::string name;
};

/// The filters of the dataset creation property list `dcpl`, in the order they are applied
/// when writing (a chunk's filter mask counts them in this order).
std::vector<PipelineFilter> filter_pipeline(hid_t dcpl);

/// The codec list of a dataset creation property list's filters, in write order. Filters
/// the codec layer has no name for are named "hdf5-filter-ID" with their parameters.
model::Value codecs_of(hid_t dcpl, const DType& type);

/// Why the filters of `dcpl` cannot all be applied here: "filter 32004 (LZ4) is not
/// available: install hdf5-filter-plugin" for each missing one (joined by "; "); "" when
/// libhdf5 has them all (built in, or as plugins it finds). Codecs of codecs_of carry the
/// same text under "unavailable".
std::string missing_filters(hid_t dcpl);

/// Adds to `dcpl` the filters of a codec list that HDF5 can apply (deflate, shuffle,
/// fletcher32); other compressors become deflate. Returns one note per codec not kept as it
/// is.
std::vector<std::string> apply_codecs(hid_t dcpl, const model::Value& codecs);

}  // namespace dudley::hdf5
