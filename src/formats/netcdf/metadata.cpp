// The classic header, read with every count and length checked against the bytes there are.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "datatype.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/text.hpp"
#include "metadata.hpp"

namespace dudley::netcdf {
namespace {

constexpr uint32_t kDimensionTag = 0x0A;
constexpr uint32_t kVariableTag = 0x0B;
constexpr uint32_t kAttributeTag = 0x0C;

class Cursor {
 public:
  Cursor(std::string_view bytes, uint64_t file_size, const std::string& path, int version)
      : bytes_(bytes), file_size_(file_size), path_(path), version_(version) {}

  uint64_t at() const { return at_; }

  [[noreturn]] void fail(uint64_t offset, const std::string& why) const {
    throw Error(ErrorCategory::kData, fmt::format("netCDF header: {}", why),
                Location::binary(path_, offset));
  }

  // `n` more bytes, or the signal that the caller should read more of the file.
  std::string_view take(uint64_t n, const char* what) {
    if (n > bytes_.size() - at_) {
      if (bytes_.size() < file_size_) throw NeedMore{};
      fail(at_, fmt::format("{} of {} bytes runs past the end of the file ({} bytes)", what, n,
                            file_size_));
    }
    std::string_view out = bytes_.substr(at_, n);
    at_ += n;
    return out;
  }

  uint64_t u32(const char* what) {
    const auto* p = reinterpret_cast<const unsigned char*>(take(4, what).data());
    return (uint64_t{p[0]} << 24) | (uint64_t{p[1]} << 16) | (uint64_t{p[2]} << 8) | p[3];
  }

  uint64_t u64(const char* what) {
    const auto* p = reinterpret_cast<const unsigned char*>(take(8, what).data());
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | p[i];
    return v;
  }

  // A count, length or id: 8 bytes in CDF-5, else 4.
  uint64_t number(const char* what) { return version_ == 5 ? u64(what) : u32(what); }
  // A variable's begin: 4 bytes in CDF-1, 8 in CDF-2 and CDF-5.
  uint64_t offset(const char* what) { return version_ == 1 ? u32(what) : u64(what); }

  // `count` items each taking at least `least` bytes: more than the file could hold is
  // damage, refused before anything is allocated for them.
  uint64_t count(const char* what, uint64_t least) {
    const uint64_t where = at_;
    const uint64_t n = number(what);
    if (n > file_size_ / least)
      fail(where, fmt::format("{} {} in a file of {} bytes", n, what, file_size_));
    return n;
  }

  std::string name(const char* what) {
    const uint64_t where = at_;
    const uint64_t n = count(what, 1);
    // netCDF-C writes no longer name (NC_MAX_NAME): a longer one is damage, refused before
    // the header is read as far as it claims.
    if (n > kMaxNameBytes)
      fail(where,
           fmt::format("a {} of {} bytes; netCDF names are at most {}", what, n, kMaxNameBytes));
    std::string_view text = take(n, what);
    skip_padding(n);
    // Old writers (netCDF-C's own nctest among them) count NULs after a name in its length:
    // netCDF-C reads names as C strings, so they are not part of it.
    while (!text.empty() && text.back() == '\0') text.remove_suffix(1);
    if (decode_utf8(text) != text) fail(where, fmt::format("{} is not UTF-8", what));
    if (text.empty()) fail(where, fmt::format("an empty {}", what));
    return std::string(text);
  }

  void skip_padding(uint64_t n) { take((4 - n % 4) % 4, "padding"); }

 private:
  std::string_view bytes_;
  uint64_t file_size_;
  const std::string& path_;
  int version_;
  uint64_t at_ = 0;
};

NcType nc_type(Cursor& c, int version) {
  const uint64_t where = c.at();
  const uint64_t t = c.u32("a type");
  if (t < 1 || t > (version == 5 ? 11U : 6U))
    c.fail(where, fmt::format("unknown type {} (CDF-{})", t, version));
  return static_cast<NcType>(t);
}

// A list's header: ABSENT (two zeros) or `tag` and a count. The count of a present list.
uint64_t list_count(Cursor& c, uint32_t tag, const char* what, uint64_t least) {
  const uint64_t where = c.at();
  const uint64_t got = c.u32(what);
  if (got == 0) {
    if (c.number(what) != 0) c.fail(where, fmt::format("an absent {} list with a count", what));
    return 0;
  }
  if (got != tag)
    c.fail(where, fmt::format("expected the {} list (tag {}), found {}", what, tag, got));
  return c.count(what, least);
}

std::vector<NcAttribute> attributes(Cursor& c, int version) {
  std::vector<NcAttribute> out;
  const uint64_t n = list_count(c, kAttributeTag, "attributes", 12);
  for (uint64_t i = 0; i < n; ++i) {
    NcAttribute a;
    a.name = c.name("attribute name");
    a.type = nc_type(c, version);
    const uint64_t size = type_size(a.type);
    const uint64_t where = c.at();
    a.count = c.count("attribute values", size);
    if (a.count * size > kMaxAttributeBytes)
      c.fail(where, fmt::format("attribute '{}' holds {} bytes; this reader takes attributes of "
                                "at most {} bytes",
                                a.name, a.count * size, kMaxAttributeBytes));
    a.bytes = std::string(c.take(a.count * size, "attribute values"));
    c.skip_padding(a.count * size);
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace

Header parse_header(std::string_view bytes, uint64_t file_size, const std::string& path) {
  Header h;
  if (bytes.size() < 4 || std::memcmp(bytes.data(), "CDF", 3) != 0)
    throw Error(ErrorCategory::kData, "not a netCDF classic file (no CDF signature)",
                Location::binary(path, 0));
  h.version = static_cast<unsigned char>(bytes[3]);
  if (h.version != 1 && h.version != 2 && h.version != 5)
    throw Error(ErrorCategory::kData,
                fmt::format("netCDF header: version byte {} is none of 1, 2 and 5", h.version),
                Location::binary(path, 3));
  Cursor c(bytes, file_size, path, h.version);
  c.take(4, "the signature");
  const uint64_t numrecs = c.number("the record count");
  h.streaming = numrecs == (h.version == 5 ? UINT64_MAX : 0xFFFFFFFFU);
  h.numrecs = numrecs;

  const uint64_t ndims = list_count(c, kDimensionTag, "dimensions", 8);
  bool unlimited = false;
  for (uint64_t i = 0; i < ndims; ++i) {
    const uint64_t where = c.at();
    NcDimension d;
    d.name = c.name("dimension name");
    d.length = c.number("a dimension length");
    if (d.length == 0) {
      if (unlimited) c.fail(where, "a second unlimited dimension");
      unlimited = true;
    }
    h.dims.push_back(std::move(d));
  }
  h.attributes = attributes(c, h.version);
  const uint64_t nvars = list_count(c, kVariableTag, "variables", 24);
  std::vector<uint64_t> where_var;
  for (uint64_t i = 0; i < nvars; ++i) {
    where_var.push_back(c.at());
    NcVariable v;
    v.name = c.name("variable name");
    const uint64_t rank = c.count("dimension ids", 4);
    for (uint64_t k = 0; k < rank; ++k) {
      const uint64_t at = c.at();
      const uint64_t id = c.number("a dimension id");
      if (id >= h.dims.size())
        c.fail(at,
               fmt::format("variable '{}' names dimension {}, of {}", v.name, id, h.dims.size()));
      if (h.dims[id].length == 0 && k != 0)
        c.fail(at,
               fmt::format("variable '{}' has the unlimited dimension after its first", v.name));
      v.dims.push_back(id);
    }
    v.record = !v.dims.empty() && h.dims[v.dims[0]].length == 0;
    v.attributes = attributes(c, h.version);
    v.type = nc_type(c, h.version);
    v.vsize = c.number("a variable size");
    v.begin = c.offset("a variable offset");
    h.vars.push_back(std::move(v));
  }
  h.header_size = c.at();

  // Sizes from the shapes (vsize may have overflowed), checked.
  uint64_t records = 0;
  size_t record_vars = 0;
  for (const NcVariable& v : h.vars) record_vars += v.record ? 1 : 0;
  for (size_t i = 0; i < h.vars.size(); ++i) {
    NcVariable& v = h.vars[i];
    uint64_t slab = type_size(v.type);
    for (size_t k = v.record ? 1 : 0; k < v.dims.size(); ++k) {
      const std::optional<uint64_t> next = checked_mul(slab, h.dims[v.dims[k]].length);
      if (!next)
        c.fail(where_var[i], fmt::format("variable '{}' is larger than 2^64 bytes", v.name));
      slab = *next;
    }
    if (v.record) {
      // Slabs are padded to 4 bytes, but for a lone record variable (packed records).
      const uint64_t padded = record_vars == 1 ? slab : slab + (4 - slab % 4) % 4;
      const std::optional<uint64_t> sum = checked_add(records, padded);
      if (!sum) c.fail(where_var[i], "the record size overflows");
      records = *sum;
    }
    v.vsize = slab;  // from here on: the bytes of its data (a record's slab for records)
    if (v.begin < h.header_size && slab > 0)
      c.fail(where_var[i],
             fmt::format("variable '{}' starts at {}, inside the header", v.name, v.begin));
    if (!v.record && (v.begin > file_size || slab > file_size - v.begin) && slab > 0)
      c.fail(where_var[i], fmt::format("variable '{}' ({} bytes at {}) ends past the end of the "
                                       "file ({} bytes)",
                                       v.name, slab, v.begin, file_size));
  }
  h.record_size = records;
  uint64_t first_begin = UINT64_MAX;
  for (const NcVariable& v : h.vars)
    if (v.record) first_begin = std::min(first_begin, v.begin);
  for (size_t i = 0; i < h.vars.size(); ++i) {
    const NcVariable& v = h.vars[i];
    // Each record variable's slab lies within one record (a header claiming otherwise would
    // make records overlap).
    if (v.record &&
        (v.begin - first_begin > records || v.vsize > records - (v.begin - first_begin)))
      c.fail(where_var[i], fmt::format("record variable '{}' ({} bytes at {}) does not fit in a "
                                       "record of {} bytes from {}",
                                       v.name, v.vsize, v.begin, records, first_begin));
  }
  // Records: as the header says, or (streaming) as many whole ones as the file holds; no
  // more than the file holds either way (a file cut short reads its whole records).
  uint64_t first = UINT64_MAX;
  for (const NcVariable& v : h.vars)
    if (v.record) first = std::min(first, v.begin);
  if (first != UINT64_MAX && records > 0) {
    const uint64_t room = first <= file_size ? (file_size - first) / records : 0;
    if (h.streaming) h.numrecs = room;
    if (h.numrecs > room)
      throw Error(ErrorCategory::kData,
                  fmt::format("netCDF header: {} records of {} bytes from byte {} run past the "
                              "end of the file ({} bytes)",
                              h.numrecs, records, first, file_size),
                  Location::binary(path, 4));
  } else if (h.streaming) {
    h.numrecs = 0;
  }
  return h;
}

}  // namespace dudley::netcdf
