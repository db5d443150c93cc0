// A container of flat records as a table: records whose fields are all numbers, booleans
// or enums (a sensor's readings, a Spark export of numeric columns) read as one array of
// structures, one row per record, instead of a list of groups, so that they convert to an
// HDF5 compound dataset, a Zarr structured array or an .npy file, and back.
#pragma once

#include <memory>
#include <optional>

#include "binary.hpp"
#include "container.hpp"
#include "dudley/core/dtype.hpp"
#include "dudley/model/tree.hpp"
#include "schema.hpp"

namespace dudley::avro {

/// The name of the table's array in the tree ("/records").
inline constexpr const char* kTableName = "records";

/// The row type of records of `schema` when they are flat: a record whose fields are all
/// boolean, int, long, float, double or enum (as its symbol's index, an enum of int32),
/// packed in field order, native byte order. nullopt for any other schema.
std::optional<DType> table_row_type(const Schema& schema);

/// The records of `reader` (whose schema is flat, of `row`) as an array of shape
/// [record_count]: a selection decodes only the records it selects, a block at a time.
std::shared_ptr<model::ArraySource> table_source(std::shared_ptr<const ContainerReader> reader,
                                                 DType row);

/// Encodes one row (`row_type`'s bytes at `row`, native order) as a record of `schema`,
/// field by field: the inverse of what table_source reads.
void encode_row(const std::byte* row, const DType& row_type, const Schema& schema,
                BinaryWriter& out);

}  // namespace dudley::avro
