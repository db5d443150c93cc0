// A classic header as a Dudley layout: what the binder then reads.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "dudley/model/member_names.hpp"
#include "metadata.hpp"

namespace dudley::netcdf {
namespace {

const char* dudley_type(NcType type) {
  switch (type) {
    case NcType::kByte:
      return "i1";
    case NcType::kChar:
      return "S1";
    case NcType::kShort:
      return ">i2";
    case NcType::kInt:
      return ">i4";
    case NcType::kFloat:
      return ">f4";
    case NcType::kDouble:
      return ">f8";
    case NcType::kUByte:
      return "u1";
    case NcType::kUShort:
      return ">u2";
    case NcType::kUInt:
      return ">u4";
    case NcType::kInt64:
      return ">i8";
    default:
      return ">u8";
  }
}

bool identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

// Identifiers made from names, each one not taken before. Linear in the names' length: a
// base taken before continues from the suffix it reached (20,000 names that all respell to
// "v_" cost 20,000 steps, not 20,000^2).
class Identifiers {
 public:
  explicit Identifiers(std::set<std::string> taken) : taken_(std::move(taken)) {}

  /// Reserves `name` as it is (an identifier of the file's own).
  void reserve(const std::string& name) { taken_.insert(name); }

  /// `name` as an identifier not taken (which it then is).
  std::string unique(const std::string& name) {
    std::string base;
    for (char c : name) base += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    if (base.empty() || std::isdigit(static_cast<unsigned char>(base[0]))) base = "v_" + base;
    std::string out = base;
    if (taken_.count(out)) {
      uint64_t& next = next_suffix_[base];
      if (next < 2) next = 2;
      do {
        out = fmt::format("{}_{}", base, next++);
      } while (taken_.count(out));
    }
    taken_.insert(out);
    return out;
  }

 private:
  std::set<std::string> taken_;
  std::map<std::string, uint64_t> next_suffix_;
};

// The dimensions of v's layout item (a record variable's without the record dimension).
// Text in a layout counts its characters in a last dimension: a char variable with none
// (a scalar, or one of records only) is one character, S1[1].
std::string shape_text(const NcVariable& v, const std::vector<std::string>& dim_names) {
  std::vector<std::string> dims;
  for (size_t k = v.record ? 1 : 0; k < v.dims.size(); ++k) dims.push_back(dim_names[v.dims[k]]);
  if (dims.empty() && v.type == NcType::kChar) return "[1]";
  return dims.empty() ? "" : fmt::format("[{}]", fmt::join(dims, ", "));
}

}  // namespace

std::vector<std::string> layout_names(const Header& header) {
  const std::set<std::string> reserved{"NREC", "record", "records"};
  Identifiers ids(reserved);
  for (const NcVariable& v : header.vars)
    if (identifier(v.name)) ids.reserve(v.name);
  std::vector<std::string> out;
  std::set<std::string> used;
  for (const NcVariable& v : header.vars) {
    if (identifier(v.name) && !reserved.count(v.name) && used.insert(v.name).second) {
      out.push_back(v.name);
    } else {
      out.push_back(ids.unique(v.name));
    }
  }
  return out;
}

std::string layout_text(const Header& h) {
  std::string out = fmt::format(
      "# A netCDF classic file (CDF-{}) as a Dudley layout (dudley layout): fixed-size variables\n"
      "# at their addresses, record variables as the members of one struct per record.\n",
      h.version);
  // Dimensions as parameters (the record count read from the header, where it is stored).
  std::vector<std::string> dim_names;
  const std::vector<std::string> names = layout_names(h);
  Identifiers ids({"NREC", "record", "records"});
  for (const std::string& name : names) ids.reserve(name);
  for (const NcDimension& d : h.dims) {
    if (d.length == 0) {
      dim_names.push_back("NREC");
      continue;
    }
    const std::string name = ids.unique("DIM_" + d.name);
    dim_names.push_back(name);
    // The file's name of it, quoted with its control characters escaped: a line end in a
    // name would end the comment and make the rest of the name layout text.
    out += fmt::format("{} := {}  #! dimension {}\n", name, d.length, model::quoted_name(d.name));
  }
  const bool records = std::any_of(h.vars.begin(), h.vars.end(), [](auto& v) { return v.record; });
  if (records) {
    if (h.streaming) {
      out += fmt::format("NREC := {}  #! records (counted from the file's size: streaming)\n",
                         h.numrecs);
    } else {
      out += fmt::format("NREC := {} @ 4  #! records, as the header counts them\n",
                         h.version == 5 ? ">i8" : ">i4");
    }
  }
  uint64_t first_record = UINT64_MAX;
  for (const NcVariable& v : h.vars)
    if (v.record) first_record = std::min(first_record, v.begin);
  std::string members;
  uint64_t data_end = 0;
  for (size_t i = 0; i < h.vars.size(); ++i) {
    const NcVariable& v = h.vars[i];
    const std::string doc =
        names[i] == v.name ? "" : fmt::format("  #! variable {}", model::quoted_name(v.name));
    if (!v.record) {
      out += fmt::format("{} = {}{} @ {}{}\n", names[i], dudley_type(v.type),
                         shape_text(v, dim_names), v.begin, doc);
      continue;
    }
    // Record i of v starts at begin + i * record_size: v's offset in the record struct.
    const uint64_t at = v.begin - first_record;
    members += fmt::format("  {} = {}{} @ {}{}\n", names[i], dudley_type(v.type),
                           shape_text(v, dim_names), at, doc);
    data_end = std::max(data_end, at + v.vsize);
  }
  if (records) {
    // A record's tail padding, so that the struct is the record's size.
    if (data_end < h.record_size)
      members += fmt::format("  _pad = u1[{}] @ {}\n", h.record_size - data_end, data_end);
    out += fmt::format("record := {{\n{}}}\nrecords = record[NREC] @ {}\n", members, first_record);
  }
  return out;
}

}  // namespace dudley::netcdf
