// Reading an outer selection: along each dimension either a strided run (a slice) or a list
// of coordinates, the result holding every combination (numpy's `x[np.ix_(rows, cols)]`).
// numpy's advanced indexing (integer arrays, boolean masks) reads through it: the caller
// reads the outer box of the coordinates it needs, then numpy picks the elements from it.
#pragma once

#include <cstdint>
#include <vector>

#include "dudley/core/ndarray.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::model {

/// One dimension of an outer selection.
struct OuterAxis {
  /// Ascending, distinct, in range: the coordinates to read. Empty: the run below.
  std::vector<int64_t> coords;
  /// When `coords` is empty: `count` elements from `start`, `stride` apart (negative walks
  /// backwards), as a Hyperslab dimension.
  int64_t start = 0;
  int64_t count = 0;
  int64_t stride = 1;
};

/// What read_outer read: the elements of every combination of the runs it chose, and where
/// each requested coordinate lies in it.
struct OuterResult {
  /// Native byte order, C order; along a run dimension the run's elements, along a
  /// coordinate dimension the rows of the blocks read (which may include coordinates not
  /// asked for, between asked ones, when one read of them costs less than several).
  NDArray data;
  /// Per dimension: for a coordinate dimension, the index in `data` of each of `coords`;
  /// empty for a run dimension.
  std::vector<std::vector<int64_t>> positions;
  /// How many reads of the source it took.
  uint64_t reads = 0;
};

/// Reads the outer selection `axes` (one per dimension of `shape`) of `source`, whose elements
/// are `type`. Coordinates close together are read as one run (consecutive ones always; ones
/// within one chunk of a chunked source, so each chunk is decoded once per combination of the
/// other dimensions; ones whose gap costs less to read than another request), so the number of
/// reads follows the runs the selection touches, not its elements. Throws Error(kUsage) for a
/// coordinate out of range or not ascending, and the source's errors.
OuterResult read_outer(ArraySource& source, const DType& type, const std::vector<int64_t>& shape,
                       const std::vector<OuterAxis>& axes);

}  // namespace dudley::model
