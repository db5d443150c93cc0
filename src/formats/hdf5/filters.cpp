#include "filters.hpp"

#include <fmt/format.h>

namespace dudley::hdf5 {
namespace {

using model::Value;
using model::ValueMap;

// Registered filter ids of the plugins h5py and hdf5plugin write (The HDF Group's list).
constexpr H5Z_filter_t kBlosc = 32001;
constexpr H5Z_filter_t kLz4 = 32004;
constexpr H5Z_filter_t kBzip2 = 307;
constexpr H5Z_filter_t kZstd = 32015;

Value codec(std::string name, ValueMap config = {}) {
  return Value(ValueMap{{"name", std::move(name)}, {"configuration", Value(std::move(config))}});
}

}  // namespace

Value codecs_of(hid_t dcpl, const DType& type) {
  Lock lock(library_mutex());
  model::ValueList out;
  const int n = H5Pget_nfilters(dcpl);
  for (int i = 0; i < n; ++i) {
    unsigned flags = 0, config = 0;
    size_t nvalues = 16;
    unsigned values[16] = {};
    char name[256] = {};
    const H5Z_filter_t id = H5Pget_filter2(dcpl, static_cast<unsigned>(i), &flags, &nvalues, values,
                                           sizeof name, name, &config);
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
  }
  return Value(std::move(out));
}

std::vector<std::string> apply_codecs(hid_t dcpl, const Value& codecs) {
  Lock lock(library_mutex());
  std::vector<std::string> notes;
  if (!codecs.is<model::ValueList>()) return notes;
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
    } else if (n == "shuffle" || n == "numcodecs.shuffle") {
      H5Pset_shuffle(dcpl);
    } else if (n == "fletcher32") {
      H5Pset_fletcher32(dcpl);
    } else if (n == "bytes" || n == "byteorder") {
      // Byte order is the datatype's in HDF5.
    } else {
      notes.push_back(fmt::format("codec {} has no HDF5 filter here; written uncompressed", n));
    }
  }
  return notes;
}

}  // namespace dudley::hdf5
