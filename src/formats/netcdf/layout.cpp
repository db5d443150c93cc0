// A classic header as a Dudley layout: what the binder then reads.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <set>

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

// `name` as an identifier not in `taken` (which it joins).
std::string unique_identifier(const std::string& name, std::set<std::string>& taken) {
  std::string base;
  for (char c : name) base += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (base.empty() || std::isdigit(static_cast<unsigned char>(base[0]))) base = "v_" + base;
  std::string out = base;
  for (int i = 2; taken.count(out); ++i) out = fmt::format("{}_{}", base, i);
  taken.insert(out);
  return out;
}

std::string shape_text(const NcVariable& v, const std::vector<std::string>& dim_names) {
  std::vector<std::string> dims;
  for (size_t k = v.record ? 1 : 0; k < v.dims.size(); ++k) dims.push_back(dim_names[v.dims[k]]);
  return dims.empty() ? "" : fmt::format("[{}]", fmt::join(dims, ", "));
}

}  // namespace

std::vector<std::string> layout_names(const Header& header) {
  std::set<std::string> taken{"NREC", "record", "records"};
  for (const NcVariable& v : header.vars)
    if (identifier(v.name)) taken.insert(v.name);
  std::vector<std::string> out;
  std::set<std::string> used;
  for (const NcVariable& v : header.vars) {
    if (identifier(v.name) && !used.count(v.name) && v.name != "NREC" && v.name != "record" &&
        v.name != "records") {
      used.insert(v.name);
      out.push_back(v.name);
    } else {
      out.push_back(unique_identifier(v.name, taken));
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
  std::set<std::string> taken{"NREC", "record", "records"};
  for (const NcVariable& v : h.vars) taken.insert(v.name);
  for (const NcDimension& d : h.dims) {
    if (d.length == 0) {
      dim_names.push_back("NREC");
      continue;
    }
    const std::string name = unique_identifier("DIM_" + d.name, taken);
    dim_names.push_back(name);
    out += fmt::format("{} := {}  #! dimension '{}'\n", name, d.length, d.name);
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
  const std::vector<std::string> names = layout_names(h);
  uint64_t first_record = UINT64_MAX;
  for (const NcVariable& v : h.vars)
    if (v.record) first_record = std::min(first_record, v.begin);
  std::string members;
  uint64_t data_end = 0;
  for (size_t i = 0; i < h.vars.size(); ++i) {
    const NcVariable& v = h.vars[i];
    const std::string doc = names[i] == v.name ? "" : fmt::format("  #! variable '{}'", v.name);
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
