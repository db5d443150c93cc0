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

/// Calls `visit` for pieces of an array of `shape` and `element_size`-byte elements that
/// cover it in C order, each a run of consecutive elements (so a writer appends them one
/// after the other) of at most `max_bytes` (at least one element). A piece spans whole
/// multiples of the unit's extent along the dimension it splits where that fits, so a
/// chunked source decodes each chunk for as few pieces as it can. A 0-d array is one piece;
/// an array without elements none. `visit` returns false to stop.
void for_each_piece(const std::vector<int64_t>& shape, uint64_t element_size, const ReadUnit& unit,
                    uint64_t max_bytes, const std::function<bool(const Piece&)>& visit);

}  // namespace dudley::model
