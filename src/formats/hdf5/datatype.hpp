// HDF5 datatypes to and from DType: the one place where the library's types meet the model.
#pragma once

#include <string>

#include "dudley/core/dtype.hpp"
#include "library.hpp"

namespace dudley::hdf5 {

/// The DType of an HDF5 datatype, byte order included. Compounds of two floats named `r` and
/// `i` are complex numbers and int8 enums of FALSE and TRUE are booleans (h5py's
/// spellings). Throws Error(kType) naming `what` for types the model has none for (time).
DType dtype_of(hid_t type, const std::string& what);

/// An HDF5 datatype for `type`. For a file (`memory` false) the byte order is the DType's;
/// for memory it is the machine's, and the layout is the DType's own (compound offsets, and
/// each variable-length slot of 16 bytes holding the library's char* or hvl_t), so that the
/// library reads straight into model layout but for those slots. Throws Error(kType) for
/// types HDF5 cannot hold (UTF-16/32 strings, Dudley pointers).
Handle h5_type(const DType& type, bool memory);

/// Bytes one element of `type` takes as the library writes it in memory (a variable string
/// is one pointer, a region reference 12 bytes).
uint64_t raw_size(const DType& type);

/// Registers with the library the conversions reading the model's types needs that it lacks
/// (bitfields to unsigned integers). Called once, by prepare_library.
void register_conversions();

/// Whether elements of `type` hold variable-length data or references, which the library
/// reads as its own pointers and handles (converted after reading).
bool needs_conversion(const DType& type);

/// Whether the elements of `type` are stored as the model holds them, byte order aside
/// (bool, integers, floats, complex): a chunk's decoded bytes are then its elements, which
/// chunk_reader.hpp and chunk_writer.hpp rely on.
bool stored_as_is(const DType& type);

/// Whether `type` is what netCDF calls user-defined (an enum, a compound, an opaque, a
/// sequence, an array type), which netCDF-C knows only as a committed datatype of the file.
bool is_user_defined(hid_t type);

}  // namespace dudley::hdf5
