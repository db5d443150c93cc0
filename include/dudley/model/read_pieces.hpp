// Splitting an array into bounded pieces for streaming: every reader and writer that moves a
// whole array (dump, convert's writers) goes through it, so none holds more than a piece.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "dudley/core/hyperslab.hpp"

namespace dudley::model {

/// How an array is best read (ArraySource::read_unit): in pieces aligned to `shape` (a chunk
/// or inner chunk), each read holding `working_bytes` of memory besides its output.
struct ReadUnit {
  /// Empty: the array is one run of bytes, and any run of elements reads as well as another.
  std::vector<int64_t> shape;
  /// Memory one read holds besides its output: a compressed block decoded whole, a chunk.
  uint64_t working_bytes = 0;
};

/// The size of a piece when the caller has no reason to choose another: large enough that
/// per-read costs vanish, small enough that a reused buffer stays in the 64 MiB budget.
inline constexpr uint64_t kPieceBytes = uint64_t{8} << 20;

/// One piece: the selection, its byte offset in the array's C-ordered data and its size.
struct Piece {
  Hyperslab slab;
  uint64_t offset = 0;
  uint64_t bytes = 0;
};

/// Calls `visit` for pieces of `selection` (of an array whose elements have `element_size`
/// bytes) that cover it in the order of its result, C order: each piece is a run of
/// consecutive elements of the result (so a writer appends them one after the other) of at
/// most `max_bytes` (at least one element), in the array's coordinates with the selection's
/// steps and every dimension kept (no `dropped`). Its `offset` counts bytes of the result
/// before it. A piece spans whole multiples of the unit's extent along the dimension it
/// splits where that fits, so a chunked source decodes each chunk for as few pieces as it
/// can. The last `whole_dims` dimensions are never split (a string's code units). A 0-d
/// selection is one piece; one without elements none. `visit` returns false to stop.
void for_each_piece(const Hyperslab& selection, uint64_t element_size, const ReadUnit& unit,
                    uint64_t max_bytes, const std::function<bool(const Piece&)>& visit,
                    size_t whole_dims = 0);

/// for_each_piece over the whole of an array of `shape`.
void for_each_piece(const std::vector<int64_t>& shape, uint64_t element_size, const ReadUnit& unit,
                    uint64_t max_bytes, const std::function<bool(const Piece&)>& visit);

}  // namespace dudley::model
