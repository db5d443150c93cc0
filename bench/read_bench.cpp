// Reading through a layout vs the floor of plain C, in one run (issue 3 targets):
//  - bulk: a 1 GiB float64 array into a fresh buffer vs read() of the same bytes (and memcpy
//    for reference); the same array stored big-endian (swap on read); a zero-copy view.
//  - family: 1,000 files of one template layout (parameters first, 200 arrays): bind each
//    and read array #100, vs open + pread of the known offset and size + close, warm and
//    after dropping the page cache.
// Data goes to $DUDLEY_BENCH_DIR (default /tmp/dudley-bench), made on first use.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "dudley/layout/parser.hpp"
#include "dudley/layout/reader.hpp"

namespace {

namespace fs = std::filesystem;
using namespace dudley;

constexpr uint64_t kBulkBytes = uint64_t{1} << 30;
constexpr int kFamilyFiles = 1000;
constexpr int kFamilyArrays = 200;

fs::path bench_dir() {
  const char* d = std::getenv("DUDLEY_BENCH_DIR");
  fs::path p = d ? d : "/tmp/dudley-bench";
  fs::create_directories(p);
  return p;
}

void write_file(const fs::path& p, const std::vector<unsigned char>& bytes) {
  std::ofstream(p, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
}

// 1 GiB of float64 i*0.5, little and big endian.
const fs::path& bulk_file(bool big) {
  static const fs::path le = bench_dir() / "bulk_le.bin";
  static const fs::path be = bench_dir() / "bulk_be.bin";
  const fs::path& p = big ? be : le;
  if (!fs::exists(p) || fs::file_size(p) != kBulkBytes) {
    std::ofstream out(p, std::ios::binary);
    std::vector<double> chunk(1 << 20);
    for (uint64_t i = 0; i < kBulkBytes / 8; i += chunk.size()) {
      for (size_t k = 0; k < chunk.size(); ++k) {
        double v = static_cast<double>(i + k) * 0.5;
        uint64_t bits;
        std::memcpy(&bits, &v, 8);
        if (big) bits = __builtin_bswap64(bits);
        std::memcpy(&chunk[k], &bits, 8);
      }
      out.write(reinterpret_cast<const char*>(chunk.data()),
                static_cast<std::streamsize>(chunk.size() * 8));
    }
  }
  return p;
}

void touch(const fs::path& p) {  // bring the file into the page cache right before timing
  static std::vector<char> buf(1 << 20);
  int fd = ::open(p.c_str(), O_RDONLY);
  while (::read(fd, buf.data(), buf.size()) > 0) {
  }
  ::close(fd);
}

void BM_BulkCRead(benchmark::State& state) {
  const fs::path& p = bulk_file(false);
  touch(p);
  for (auto _ : state) {
    auto* buf = static_cast<char*>(std::malloc(kBulkBytes));
    int fd = ::open(p.c_str(), O_RDONLY);
    uint64_t done = 0;
    while (done < kBulkBytes) {
      ssize_t n = ::read(fd, buf + done, kBulkBytes - done);
      if (n <= 0) break;
      done += static_cast<uint64_t>(n);
    }
    ::close(fd);
    benchmark::DoNotOptimize(buf[kBulkBytes - 1]);
    std::free(buf);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBulkBytes));
}

void BM_BulkMemcpy(benchmark::State& state) {
  std::vector<char> src(kBulkBytes, 1);
  for (auto _ : state) {
    auto* buf = static_cast<char*>(std::malloc(kBulkBytes));
    std::memcpy(buf, src.data(), kBulkBytes);
    benchmark::DoNotOptimize(buf[kBulkBytes - 1]);
    std::free(buf);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBulkBytes));
}

void bulk_dudley(benchmark::State& state, bool big, bool view) {
  const fs::path& p = bulk_file(big);
  auto layout =
      layout::parse_layout(fmt::format("x = {}f8[{}]", big ? '>' : '<', kBulkBytes / 8)).layout;
  touch(p);
  for (auto _ : state) {
    auto source = io::open_file(p.string());
    layout::Binding binding(layout, source);
    if (view) {
      NDArray v = layout::view_array(binding, layout.find("/x"), source);
      benchmark::DoNotOptimize(v.data());
    } else {
      NDArray a = layout::read_array(binding, layout.find("/x"));
      benchmark::DoNotOptimize(a.get<double>({1}));
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBulkBytes));
}
void BM_BulkDudleyRead(benchmark::State& s) {
  bulk_dudley(s, false, false);
}
void BM_BulkDudleyReadSwapped(benchmark::State& s) {
  bulk_dudley(s, true, false);
}
void BM_BulkDudleyView(benchmark::State& s) {
  bulk_dudley(s, false, true);
}

// ---- family ----

struct Family {
  std::string layout_text;
  std::vector<std::string> files;
  std::vector<uint64_t> offset, bytes;  // of array #100 in each file (the floor's knowledge)
};

const Family& family() {
  static Family f = [] {
    Family fam;
    fam.layout_text = "!TEMPLATE\nN := <i4\nM := <i4\n";
    for (int a = 0; a < kFamilyArrays; ++a) {
      fam.layout_text += fmt::format("a{} = <f8[{}]\n", a, a % 2 ? "M" : "N");
    }
    fs::path dir = bench_dir() / "family";
    fs::create_directories(dir);
    for (int i = 0; i < kFamilyFiles; ++i) {
      const uint32_t n = 8 + i % 17, m = 5 + i % 11;
      std::vector<unsigned char> bytes(8);
      std::memcpy(bytes.data(), &n, 4);
      std::memcpy(bytes.data() + 4, &m, 4);
      uint64_t off = 8;
      for (int a = 0; a < kFamilyArrays; ++a) {
        const uint64_t count = a % 2 ? m : n;
        if (a == 100) {
          fam.offset.push_back(off);
          fam.bytes.push_back(count * 8);
        }
        for (uint64_t k = 0; k < count; ++k) {
          double v = a * 1000.0 + static_cast<double>(k);
          bytes.resize(bytes.size() + 8);
          std::memcpy(bytes.data() + bytes.size() - 8, &v, 8);
        }
        off += count * 8;
      }
      fs::path p = dir / fmt::format("run_{:04d}.bin", i);
      write_file(p, bytes);
      fam.files.push_back(p.string());
    }
    return fam;
  }();
  return f;
}

bool drop_caches() {
  ::sync();
  std::ofstream drop("/proc/sys/vm/drop_caches");
  if (!drop) return false;
  drop << "3\n";
  return static_cast<bool>(drop);
}

// One pass over the family: the floor (open + pread of the known place + close, in C) or
// dudley (open, bind with the shared plan, read array #100). Both read into the same
// reused buffer. Returns the
// sum of each file's first value, so nothing is optimized away and wrong reads show.
double family_pass(const Family& fam, const layout::BindPlan& plan, layout::NodeId target,
                   bool dudley_side, std::vector<char>& buf) {
  double sum = 0;
  for (size_t i = 0; i < fam.files.size(); ++i) {
    if (dudley_side) {
      layout::Binding binding(plan, io::open_file(fam.files[i]));
      layout::read_array_into(binding, target, std::as_writable_bytes(std::span(buf)));
      double v;
      std::memcpy(&v, buf.data(), 8);
      sum += v;
    } else {
      int fd = ::open(fam.files[i].c_str(), O_RDONLY);
      ssize_t n = ::pread(fd, buf.data(), fam.bytes[i], static_cast<off_t>(fam.offset[i]));
      ::close(fd);
      double v;
      std::memcpy(&v, buf.data(), 8);
      sum += n > 0 ? v : 0;
    }
  }
  return sum;
}

// The machine is shared and noisy, so each iteration runs both sides back to back (the
// order alternating) and the ratio is taken over the same stretch of time.
void family_run(benchmark::State& state, bool cold) {
  const Family& fam = family();
  auto layout = layout::parse_layout(fam.layout_text).layout;  // parsed and planned once
  const layout::BindPlan plan(layout);
  const layout::NodeId target = layout.find("/a100");
  std::vector<char> buf(1 << 16);
  const double expected = 100000.0 * static_cast<double>(fam.files.size());
  double seconds[2] = {0, 0};
  bool dudley_first = false;
  for (auto _ : state) {
    if (!cold) {
      for (const auto& f : fam.files) touch(f);
    }
    for (int k = 0; k < 2; ++k) {
      const bool dudley_side = (k == 0) == dudley_first;
      if (cold && !drop_caches()) {
        state.SkipWithError("cannot drop the page cache (needs root)");
        return;
      }
      const auto t0 = std::chrono::steady_clock::now();
      const double sum = family_pass(fam, plan, target, dudley_side, buf);
      seconds[dudley_side] +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (sum != expected) state.SkipWithError("wrong values read");
    }
    dudley_first = !dudley_first;
  }
  const double files = static_cast<double>(state.iterations() * fam.files.size());
  state.counters["floor_us_per_file"] = seconds[0] / files * 1e6;
  state.counters["dudley_us_per_file"] = seconds[1] / files * 1e6;
  state.counters["ratio"] = seconds[1] / seconds[0];
}
void BM_FamilyWarm(benchmark::State& s) {
  family_run(s, false);
}
void BM_FamilyCold(benchmark::State& s) {
  family_run(s, true);
}

}  // namespace

BENCHMARK(BM_BulkCRead)->Unit(benchmark::kMillisecond)->MinTime(3);
BENCHMARK(BM_BulkMemcpy)->Unit(benchmark::kMillisecond)->MinTime(3);
BENCHMARK(BM_BulkDudleyRead)->Unit(benchmark::kMillisecond)->MinTime(3);
BENCHMARK(BM_BulkDudleyReadSwapped)->Unit(benchmark::kMillisecond)->MinTime(3);
BENCHMARK(BM_BulkDudleyView)->Unit(benchmark::kMicrosecond)->MinTime(1);
BENCHMARK(BM_FamilyWarm)->Unit(benchmark::kMillisecond)->Iterations(400);
BENCHMARK(BM_FamilyCold)->Unit(benchmark::kMillisecond)->Iterations(6);
BENCHMARK_MAIN();
