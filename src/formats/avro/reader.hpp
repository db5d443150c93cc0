// The tree of an opened container, for the readers of bytes already held (fuzzing).
#pragma once

#include <memory>

#include "container.hpp"
#include "dudley/formats/avro.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::avro {

/// The tree of an opened container (the reader shared by its items).
model::Tree tree_of(std::shared_ptr<const ContainerReader> reader);

}  // namespace dudley::avro
