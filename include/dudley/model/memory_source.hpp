// The source of an array whose values are already in memory (an ASDF inline array, an Avro
// record decoded from its block): reads copy out of it in native byte order.
#pragma once

#include <memory>

#include "dudley/core/ndarray.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::model {

/// A source reading `array` (owned, or borrowed with its owner kept alive by the NDArray).
std::shared_ptr<ArraySource> memory_source(NDArray array);

}  // namespace dudley::model
