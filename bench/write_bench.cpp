// Writing through a layout vs plain write() (issue 4 target: at least 0.8x), in one run:
// a 1 GiB float64 array from memory to a file in the page cache, no fsync. Each iteration
// runs both sides back to back (order alternating) on fresh file names, so the ratio
// compares the same stretch of a noisy machine. Also the same array written big-endian
// (swapped on the way), for reference.
// Files go to $DUDLEY_BENCH_DIR (default /tmp/dudley-bench) and are removed afterwards.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "dudley/layout/syntax/parser.hpp"
#include "dudley/layout/write/writer.hpp"

namespace {

namespace fs = std::filesystem;
using namespace dudley;

constexpr int64_t kCount = int64_t{1} << 27;  // 1 GiB of f8

fs::path bench_dir() {
  const char* d = std::getenv("DUDLEY_BENCH_DIR");
  fs::path p = d ? d : "/tmp/dudley-bench";
  fs::create_directories(p);
  return p;
}

const NDArray& source() {
  static const NDArray a = [] {
    NDArray x(DType::float_(8), Shape({kCount}));
    auto* p = static_cast<double*>(x.mutable_data());
    for (int64_t i = 0; i < kCount; ++i) p[i] = static_cast<double>(i) * 0.5;
    return x;
  }();
  return a;
}

void c_write(const std::string& path, const void* data, size_t size) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const auto* p = static_cast<const char*>(data);
  while (size > 0) {
    // 4 MiB per call: measured faster here than one 1 GiB call, so the stronger baseline.
    ssize_t n = ::write(fd, p, std::min<size_t>(size, size_t{4} << 20));
    if (n <= 0) break;
    p += n;
    size -= static_cast<size_t>(n);
  }
  ::close(fd);
}

void write_run(benchmark::State& state, ByteOrder order) {
  const NDArray& data = source();
  const layout::Layout layout = layout::parse_layout("!DUDLEY := S1[8]  N := i8  x = f8[N]").layout;
  const fs::path c_path = bench_dir() / "write_c.bin";
  const fs::path d_path = bench_dir() / "write_dudley.bin";
  // Stalls of the shared disk's writeback hit single runs by seconds here, so the figures
  // are medians: of each side's times, and of the ratio within each back-to-back pair.
  std::vector<double> times[2], ratios;
  bool dudley_first = false;
  for (auto _ : state) {
    double seconds[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
      const bool dudley_side = (k == 0) == dudley_first;
      fs::remove(c_path);
      fs::remove(d_path);
      ::sync();  // each side starts with no dirty pages (writeback would land on either)
      const auto t0 = std::chrono::steady_clock::now();
      if (dudley_side) {
        layout::WriteOptions options;
        options.order = order;
        layout::Writer w(layout, d_path.string(), options);
        w.write("/x", data);
        w.commit();
      } else {
        c_write(c_path.string(), data.data(), data.byte_size());
      }
      seconds[dudley_side] =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    times[0].push_back(seconds[0]);
    times[1].push_back(seconds[1]);
    ratios.push_back(seconds[0] / seconds[1]);
    dudley_first = !dudley_first;
  }
  fs::remove(c_path);
  fs::remove(d_path);
  fs::remove(layout::layout_path_for(d_path.string()));
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
  };
  state.counters["c_write_ms"] = median(times[0]) * 1e3;
  state.counters["dudley_ms"] = median(times[1]) * 1e3;
  state.counters["ratio"] = median(ratios);  // C time / dudley time: >= 0.8 is the target
}

void BM_WriteNative(benchmark::State& s) {
  write_run(s, native_byte_order());
}
void BM_WriteSwapped(benchmark::State& s) {
  write_run(s, native_byte_order() == ByteOrder::kLittle ? ByteOrder::kBig : ByteOrder::kLittle);
}

}  // namespace

BENCHMARK(BM_WriteNative)->Unit(benchmark::kMillisecond)->Iterations(10);
BENCHMARK(BM_WriteSwapped)->Unit(benchmark::kMillisecond)->Iterations(6);
BENCHMARK_MAIN();
