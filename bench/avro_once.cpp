// Avro's speed targets in a fresh process (what a user's first call pays, page faults of
// new memory included), each beside its baseline measured the same way in the same run.
//   avro_once record MIB REPEATS   a MIB-MiB float64 record: memcpy into new memory, encode
//                                  into a new buffer, decode (a native copy, and a view);
//                                  prints "memcpy S encode S decode S view S" (medians)
//   avro_once records N FILE       N records of shape [3] float64: written to the container
//                                  FILE, then read back, every array read; prints
//                                  "write S read S"
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "dudley/core/big_memory.hpp"
#include "formats/avro/container.hpp"
#include "formats/avro/ndarray_record.hpp"
#include "formats/avro/reader.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int record(uint64_t mib, int repeats) {
  using namespace dudley;
  const uint64_t n = (mib << 20) / 8;
  NDArray a(DType::float_(8), Shape({static_cast<int64_t>(n)}));
  auto* p = static_cast<double*>(a.mutable_data());
  for (uint64_t i = 0; i < n; ++i) p[i] = static_cast<double>(i) * 0.5;
  const uint64_t bytes = a.byte_size();
  std::vector<double> copy_fresh, copy_huge, copy_warm, encode_fresh, encode_warm, decode, view;
  double sink = 0;
  codec::Bytes reused;  // a writer's block buffer, reused record after record
  std::vector<std::byte> warm(bytes);
  for (int r = 0; r < repeats; ++r) {
    {  // baselines: the same bytes into memory never touched (4 KiB pages, then huge pages)
      auto t0 = Clock::now();
      auto* out = static_cast<std::byte*>(std::malloc(bytes));
      std::memcpy(out, a.data(), bytes);
      copy_fresh.push_back(seconds_since(t0));
      const size_t middle = bytes / 2;
      sink += std::to_integer<int>(out[middle]);
      std::free(out);
      t0 = Clock::now();
      const auto huge = allocate_zeroed(bytes);
      std::memcpy(huge.get(), a.data(), bytes);
      copy_huge.push_back(seconds_since(t0));
      t0 = Clock::now();
      std::memcpy(warm.data(), a.data(), bytes);
      copy_warm.push_back(seconds_since(t0));
    }
    codec::Bytes datum;
    {
      auto t0 = Clock::now();
      avro::BinaryWriter w(datum);
      encode_ndarray(a, w);
      encode_fresh.push_back(seconds_since(t0));
      t0 = Clock::now();
      reused.clear();
      avro::BinaryWriter again(reused);
      encode_ndarray(a, again);
      encode_warm.push_back(seconds_since(t0));
    }
    {
      auto t0 = Clock::now();
      avro::BinaryReader in(datum, "datum");
      const avro::DecodedNdarray d = avro::decode_ndarray(in);
      decode.push_back(seconds_since(t0));
      sink += static_cast<const double*>(d.array.data())[n / 2];
    }
    {
      auto owner = std::make_shared<codec::Bytes>(std::move(datum));
      auto t0 = Clock::now();
      avro::BinaryReader in(*owner, "datum");
      const avro::DecodedNdarray d = avro::decode_ndarray(in, owner);
      view.push_back(seconds_since(t0));
      sink += d.array.get<double>({static_cast<int64_t>(n / 2)});  // the view may be unaligned
    }
  }
  std::printf(
      "memcpy_fresh %.6f memcpy_huge %.6f memcpy_warm %.6f encode_fresh %.6f encode_warm %.6f "
      "decode %.6f view %.6f %g\n",
      median(copy_fresh), median(copy_huge), median(copy_warm), median(encode_fresh),
      median(encode_warm), median(decode), median(view), sink);
  return 0;
}

int records(uint64_t n, const char* file) {
  using namespace dudley;
  auto t0 = Clock::now();
  {
    avro::ContainerWriter w(file, avro::ndarray_schema(), "null", uint64_t{64} << 10);
    NDArray a(DType::float_(8), Shape({3}));
    auto* p = static_cast<double*>(a.mutable_data());
    for (uint64_t r = 0; r < n; ++r) {
      p[0] = static_cast<double>(r);
      p[1] = p[0] + 0.5;
      p[2] = -p[0];
      avro::BinaryWriter out(w.record_buffer());
      encode_ndarray(a, out);
      w.commit_record();
    }
    w.commit();
  }
  const double write = seconds_since(t0);
  t0 = Clock::now();
  double sum = 0;
  const model::Tree tree = avro::open_avro(file);
  model::for_each_child(*tree.root, [&](uint64_t, const model::Node& item) {
    const NDArray a = item.data->read();
    sum += static_cast<const double*>(a.data())[2];
    return true;
  });
  const double read = seconds_since(t0);
  std::printf("write %.6f read %.6f %g\n", write, read, sum);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::string(argv[1]) == "record") {
    return record(std::stoull(argv[2]), std::atoi(argv[3]));
  }
  if (argc == 4 && std::string(argv[1]) == "records") return records(std::stoull(argv[2]), argv[3]);
  std::fprintf(stderr, "usage: avro_once record MIB REPEATS | records N FILE\n");
  return 2;
}
