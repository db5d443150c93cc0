// Avro container files as model trees: the root is a list of the file's records, built on
// demand (memory follows one block, not the file); each record as datum.hpp maps it (an
// ndarray record is an array). The root's attributes are the writer's schema
// ("avro.schema", its JSON text), the codec ("avro.codec") and the header's other metadata.
#pragma once

#include <memory>
#include <string>

#include "dudley/formats/avro/container.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::avro {

/// The root attribute holding the writer's schema (JSON text).
inline constexpr const char* kSchemaAttribute = model::well_known::kWriterSchema;
inline constexpr const char* kCodecAttribute = "avro.codec";

/// Opens the container file `path` (compressed blocks decoding to at most
/// `max_block_bytes`). Throws ContainerReader's errors.
model::Tree open_avro(const std::string& path, uint64_t max_block_bytes = kDefaultMaxBlockBytes);

/// The tree of an opened container (the reader shared by its items).
model::Tree tree_of(std::shared_ptr<const ContainerReader> reader);

}  // namespace dudley::avro
