// The classic header: dimensions, attributes and variables as stored, parsed and checked
// against the file's size; and the Dudley layout made from it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dudley/format.hpp"
#include "dudley/io/byte_source.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::netcdf {

/// A netCDF external type: 1 byte ... 6 double (CDF-1/2), 7 ubyte ... 11 uint64 (CDF-5).
enum class NcType : int {
  kByte = 1,
  kChar,
  kShort,
  kInt,
  kFloat,
  kDouble,
  kUByte,
  kUShort,
  kUInt,
  kInt64,
  kUInt64
};

/// One attribute: its type and values as stored (big-endian, unpadded).
struct NcAttribute {
  std::string name;
  NcType type = NcType::kByte;
  uint64_t count = 0;
  std::string bytes;  ///< count values of type, big-endian
};

struct NcDimension {
  std::string name;
  uint64_t length = 0;  ///< 0: the unlimited (record) dimension
};

struct NcVariable {
  std::string name;
  std::vector<uint64_t> dims;  ///< indexes into Header::dims; the record dimension first
  std::vector<NcAttribute> attributes;
  NcType type = NcType::kByte;
  uint64_t vsize = 0;   ///< as stored (may overflow for huge variables: not trusted)
  uint64_t begin = 0;   ///< the file offset of its data (of its first record's slab)
  bool record = false;  ///< its first dimension is the unlimited one
};

/// What a classic header says, checked against the file's size.
struct Header {
  int version = 1;         ///< 1, 2 or 5
  uint64_t numrecs = 0;    ///< records (counted from the file's size when streaming)
  bool streaming = false;  ///< numrecs was stored as all ones
  std::vector<NcDimension> dims;
  std::vector<NcAttribute> attributes;
  std::vector<NcVariable> vars;
  uint64_t header_size = 0;  ///< bytes the header takes
  uint64_t record_size = 0;  ///< bytes of one record (all record variables' slabs)
};

/// The longest name netCDF-C writes (NC_MAX_NAME): a longer one is refused where it starts.
constexpr uint64_t kMaxNameBytes = 256;
/// The most bytes one attribute may hold (64 MiB; netCDF sets no bound, and the longest
/// real attributes, histories and embedded documents, are kilobytes): a header claiming more
/// is refused where the attribute starts, before the header is read that far.
constexpr uint64_t kMaxAttributeBytes = uint64_t{64} << 20;
/// The most bytes a header may take (256 MiB: 100,000 variables with long names and
/// attributes take a few MB): past it, the header is refused rather than read on.
constexpr uint64_t kMaxHeaderBytes = uint64_t{256} << 20;

/// Thrown by parse_header when the bytes given end before the header does but the file
/// goes on: the caller reads more and parses again.
struct NeedMore {};

/// Parses the header at the start of `bytes` (the whole header; `file_size` the file's).
/// Throws Error(kData) naming `path` and the byte offset of what is wrong: a bad magic or
/// version, a count or name longer than the file, a name longer than kMaxNameBytes or an
/// attribute larger than kMaxAttributeBytes, an unknown type, a dimension id out of range,
/// a variable whose data lies past the end, sizes that overflow.
Header parse_header(std::string_view bytes, uint64_t file_size, const std::string& path);

/// The header of the file `source` reads (named `path` in errors), read in growing pieces
/// until it parses (a header of 1,000 variables is some 100 KB; most are a few KB).
/// Error(kLimit) at offset 0 for a header longer than kMaxHeaderBytes.
Header read_header(const io::ByteSource& source, const std::string& path);

/// The Dudley layout that reads the file `header` describes: fixed variables at their
/// addresses, record variables as members of one struct repeated over the records
/// (`records = record[NREC]`), NREC read from the header. Names that are no Dudley
/// identifier are respelled (`layout_names` gives them back).
std::string layout_text(const Header& header);

/// The Dudley name each variable gets in layout_text (a netCDF name as it is when it is an
/// identifier; else its letters and digits, made unique).
std::vector<std::string> layout_names(const Header& header);

}  // namespace dudley::netcdf
