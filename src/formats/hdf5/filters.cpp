#include "filters.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace dudley::hdf5 {
namespace {

using model::Value;
using model::ValueMap;

// Registered filter ids of the plugins h5py and hdf5plugin write (The HDF Group's list).
constexpr H5Z_filter_t kBlosc = 32001;
constexpr H5Z_filter_t kLz4 = 32004;
constexpr H5Z_filter_t kBzip2 = 307;
constexpr H5Z_filter_t kZstd = 32015;
constexpr H5Z_filter_t kLzf = 32000;
constexpr H5Z_filter_t kBitshuffle = 32008;
constexpr H5Z_filter_t kZfp = 32013;

// A filter a file may use and that libhdf5 itself lacks: its name, and where a Debian
// machine gets it ("" where Debian has no package for the serial library).
struct KnownFilter {
  H5Z_filter_t id;
  const char* name;
  const char* package;
};

constexpr KnownFilter kKnownFilters[] = {
    {H5Z_FILTER_SZIP, "SZIP", "libhdf5-103-1 built with libaec"},
    {kLzf, "LZF", "hdf5-plugin-lzf"},
    {kBlosc, "Blosc", "hdf5-filter-plugin-blosc-serial"},
    {kLz4, "LZ4", "hdf5-filter-plugin"},
    {kBzip2, "BZip2", "hdf5-filter-plugin"},
    {kBitshuffle, "Bitshuffle", ""},
    {kZfp, "ZFP", "hdf5-filter-plugin-zfp-serial"},
    {kZstd, "Zstandard", ""},
    {32017, "SZ", ""},
    {32018, "FCIDECOMP", ""},
    {32026, "Blosc2", ""},
};

// What to do about filter `id` missing: "install PACKAGE", or where its plugins come from.
std::string remedy(H5Z_filter_t id) {
  for (const KnownFilter& k : kKnownFilters) {
    if (k.id == id && k.package[0] != '\0') return fmt::format("install {}", k.package);
  }
  return "Debian has no plugin for it; put one (such as hdf5plugin's, from PyPI) in a "
         "directory named by HDF5_PLUGIN_PATH";
}

std::string filter_name(H5Z_filter_t id, const char* stored_name) {
  for (const KnownFilter& k : kKnownFilters) {
    if (k.id == id) return k.name;
  }
  return stored_name[0] != '\0' ? stored_name : "unregistered";
}

Value codec(std::string name, ValueMap config = {}) {
  return Value(ValueMap{{"name", std::move(name)}, {"configuration", Value(std::move(config))}});
}

}  // namespace

std::vector<PipelineFilter> filter_pipeline(hid_t dcpl) {
  Lock lock(library_mutex());
  std::vector<PipelineFilter> out;
  const int n = H5Pget_nfilters(dcpl);
  for (int i = 0; i < n; ++i) {
    unsigned flags = 0, config = 0;
    size_t nvalues = 16;
    unsigned values[16] = {};
    char name[256] = {};
    const H5Z_filter_t id = H5Pget_filter2(dcpl, static_cast<unsigned>(i), &flags, &nvalues, values,
                                           sizeof name, name, &config);
    out.push_back(
        {id, std::vector<unsigned>(values, values + std::min<size_t>(nvalues, 16)), name});
  }
  H5Eclear2(H5E_DEFAULT);
  return out;
}

Value codecs_of(hid_t dcpl, const DType& type) {
  Lock lock(library_mutex());
  model::ValueList out;
  for (const PipelineFilter& f : filter_pipeline(dcpl)) {
    const H5Z_filter_t id = f.id;
    const size_t nvalues = f.values.size();
    unsigned values[16] = {};  // zero past the filter's own
    std::copy(f.values.begin(), f.values.end(), values);
    const char* name = f.name.c_str();
    const size_t before = out.size();
    switch (id) {
      case H5Z_FILTER_DEFLATE:
        out.push_back(codec("zlib", {{"level", int64_t{nvalues > 0 ? values[0] : 6}}}));
        break;
      case H5Z_FILTER_SHUFFLE:
        out.push_back(codec("shuffle", {{"elementsize", static_cast<int64_t>(type.size())}}));
        break;
      case H5Z_FILTER_FLETCHER32:
        out.push_back(codec("fletcher32"));
        break;
      case H5Z_FILTER_SZIP:
        out.push_back(codec("szip", {{"options_mask", int64_t{values[0]}},
                                     {"pixels_per_block", int64_t{nvalues > 1 ? values[1] : 0}}}));
        break;
      case H5Z_FILTER_NBIT:
        out.push_back(codec("nbit"));
        break;
      case H5Z_FILTER_SCALEOFFSET:
        out.push_back(
            codec("scaleoffset", {{"scale_type", int64_t{values[0]}},
                                  {"scale_factor", int64_t{nvalues > 1 ? values[1] : 0}}}));
        break;
      case kZstd:
        out.push_back(codec("zstd", {{"level", int64_t{nvalues > 0 ? values[0] : 3}}}));
        break;
      case kBzip2:
        out.push_back(codec("bz2", {{"level", int64_t{nvalues > 0 ? values[0] : 9}}}));
        break;
      case kLz4:
        out.push_back(codec("lz4"));
        break;
      case kLzf:
        out.push_back(codec("lzf"));
        break;
      case kBitshuffle:
        out.push_back(codec("bitshuffle"));
        break;
      case kZfp:
        out.push_back(codec("zfp"));
        break;
      case kBlosc: {
        static const char* const kNames[] = {"blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"};
        static const char* const kShuffles[] = {"noshuffle", "shuffle", "bitshuffle"};
        ValueMap c;
        if (nvalues > 6 && values[6] < 6) c.emplace_back("cname", kNames[values[6]]);
        if (nvalues > 4) c.emplace_back("clevel", int64_t{values[4]});
        if (nvalues > 5 && values[5] < 3) c.emplace_back("shuffle", kShuffles[values[5]]);
        out.push_back(codec("blosc", std::move(c)));
        break;
      }
      default: {
        model::ValueList params;
        for (size_t k = 0; k < std::min<size_t>(nvalues, 16); ++k)
          params.emplace_back(int64_t{values[k]});
        out.push_back(
            codec(fmt::format("hdf5-filter-{}", id), {{"values", Value(std::move(params))}}));
      }
    }
    if (out.size() > before && H5Zfilter_avail(id) <= 0) {
      // Listed as usual, marked so that ls says it cannot be read here and why.
      H5Eclear2(H5E_DEFAULT);
      ValueMap map = out.back().as<ValueMap>();
      map.emplace_back("unavailable", fmt::format("filter {} ({}) is not available: {}", id,
                                                  filter_name(id, name), remedy(id)));
      out.back() = Value(std::move(map));
    }
  }
  return Value(std::move(out));
}

std::string missing_filters(hid_t dcpl) {
  Lock lock(library_mutex());
  std::vector<std::string> missing;
  const int n = H5Pget_nfilters(dcpl);
  for (int i = 0; i < n; ++i) {
    unsigned flags = 0, config = 0;
    size_t nvalues = 0;
    char name[256] = {};
    const H5Z_filter_t id = H5Pget_filter2(dcpl, static_cast<unsigned>(i), &flags, &nvalues,
                                           nullptr, sizeof name, name, &config);
    if (id >= 0 && H5Zfilter_avail(id) <= 0) {
      missing.push_back(fmt::format("filter {} ({}) is not available: {}", id,
                                    filter_name(id, name), remedy(id)));
    }
  }
  H5Eclear2(H5E_DEFAULT);
  return fmt::format("{}", fmt::join(missing, "; "));
}

std::vector<std::string> apply_codecs(hid_t dcpl, const Value& codecs) {
  Lock lock(library_mutex());
  std::vector<std::string> notes;
  if (!codecs.is<model::ValueList>()) return notes;
  bool deflated = false;
  for (const Value& c : codecs.as<model::ValueList>()) {
    const Value* name = c.find("name");
    if (!name || !name->is<std::string>()) continue;
    const std::string& n = name->as<std::string>();
    const Value* config = c.find("configuration");
    auto param = [&](const char* key, int64_t fallback) {
      const Value* v = config ? config->find(key) : nullptr;
      return v && v->is<int64_t>() ? v->as<int64_t>() : fallback;
    };
    if (n == "zlib" || n == "gzip" || n == "deflate") {
      H5Pset_deflate(dcpl, static_cast<unsigned>(std::clamp<int64_t>(param("level", 6), 0, 9)));
      deflated = true;
    } else if (n == "shuffle" || n == "numcodecs.shuffle") {
      H5Pset_shuffle(dcpl);
    } else if (n == "fletcher32") {
      H5Pset_fletcher32(dcpl);
    } else if (n == "bytes" || n == "byteorder" || n == "vlen-utf8" || n == "vlen-bytes" ||
               n == "transpose") {
      // How elements are laid out, which the datatype and dataspace say in HDF5.
    } else if (n == "crc32c") {
      notes.push_back("its CRC-32C checksums are not kept (HDF5 has fletcher32 instead)");
    } else if (n == "numcodecs.delta") {
      notes.push_back("the delta filter has no HDF5 filter; values stored as they are");
    } else if (!deflated) {
      // A compressor HDF5 has no filter for everywhere (blosc, zstd, lz4, bz2 need plugins
      // the reader may lack): deflate, which every HDF5 reader has, keeps the file small.
      notes.push_back(
          fmt::format("compressor {} has no HDF5 filter every reader has; "
                      "compressed with deflate instead",
                      n));
      H5Pset_deflate(dcpl, 4);
      deflated = true;
    }
  }
  return notes;
}

}  // namespace dudley::hdf5
