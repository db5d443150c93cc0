// A picture of an array for notebooks: Array._repr_html_ shows it beside the text repr.
#pragma once

#include <string>

#include "nodes.hpp"

namespace dudley::python {

/// HTML for a notebook: the array's text repr and, for arrays of numbers, a small figure of
/// what `dudley plot` draws (a line for 1-D, a heatmap of the last two dimensions at index 0
/// of the others, an H x W x 3 uint8 array as a picture; axes named, masks shown), read
/// every k-th element so that a preview of any size reads about its pixels. An array that
/// cannot be drawn shows its text and why.
std::string array_html(const NodeRef& array);

}  // namespace dudley::python
