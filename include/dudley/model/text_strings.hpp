// Fixed-length text read as variable-length UTF-8 strings: how a writer whose format has
// strings but not the source's fixed kind (Zarr v3 has no fixed-length strings, HDF5 no
// UTF-32) carries them without losing a character.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "dudley/model/tree.hpp"

namespace dudley::model {

/// Whether `type` is fixed-length text (one string, or one code unit, per element).
bool is_fixed_text(const DType& type);

/// The type fixed_text_as_strings() reads as: vlen of UTF-8 text.
DType utf8_strings_type();

/// One element of the fixed text `type` at `element` as UTF-8: its units before the zero
/// units numpy pads with; UTF-16 and UTF-32 re-encoded, ASCII and UTF-8 bytes as they are.
std::string fixed_text_utf8(const DType& type, const std::byte* element);

/// `source` (an array of `shape` whose elements are the fixed text `type`) read as UTF-8
/// strings (fixed_text_utf8). A selection is read from the source in pieces of at most
/// kPieceBytes, so memory follows the strings' lengths, not their fixed size. Its
/// stored_chunks() are the source's, the fill value as the string it reads as.
std::shared_ptr<ArraySource> fixed_text_as_strings(std::shared_ptr<ArraySource> source,
                                                   const DType& type, std::vector<int64_t> shape);

/// A copy of the array node `n` (fixed text) whose elements read as UTF-8 strings
/// (fixed_text_as_strings); name, attributes, shape and storage are `n`'s.
std::unique_ptr<Node> as_strings_node(const Node& n);

/// Whether `type` is variable-length text: UTF-8 or ASCII strings (DType::vlen of text).
bool is_text_strings(const DType& type);

/// A copy of the array node `n` (variable-length text) whose elements read as fixed-length
/// strings as long as its longest: ASCII S<n> for ASCII, UTF-32 U<n> (native order) for
/// UTF-8, how a writer whose format has only fixed strings (ASDF, .npy) carries them without
/// losing a character (trailing NULs aside, which numpy's padding hides too). Reads the
/// array once, piece by piece, to find the longest. nullptr when `n` has no data or holds
/// text that is not UTF-8.
std::unique_ptr<Node> as_fixed_text_node(const Node& n);

/// Whether `n` is an array of text units that join along its last dimension (a Dudley
/// `S1[2, 4]`: two strings of four characters), which formats with fixed strings write as
/// strings.
bool has_joined_units(const Node& n);

/// A copy of such an array node as fixed strings of the last dimension's length, one
/// dimension fewer (`S1[2, 4]` -> `|S4 [2]`): the same bytes, read through `n`'s source.
std::unique_ptr<Node> as_joined_strings_node(const Node& n);

}  // namespace dudley::model
