// Reading through a layout vs the strongest baselines, in one run (issues 3 and 10):
//  - bulk: a 1 GiB float64 array into new memory vs numpy.fromfile (Debian's python) and C
//    read() into a huge-page buffer; the same array stored big-endian vs C read + bswap (and
//    numpy fromfile + astype); a zero-copy view.
//  - family: 1,000 files of one template layout (parameters first, 200 arrays): bind each
//    and read array #100, vs open + pread of the known offset and size + close, warm and
//    after dropping the page cache.
// Data goes to $DUDLEY_BENCH_DIR (default /tmp/dudley-bench), made on first use.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "dudley/io/batch_io.hpp"
#include "dudley/layout/bind/reader.hpp"
#include "dudley/layout/family/family_reader.hpp"
#include "dudley/layout/syntax/parser.hpp"

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

// ---- bulk: side by side with the strongest baselines a user has ----

constexpr uint64_t kHugePage = uint64_t{2} << 20;

// What a careful C programmer (and numpy) does for a big buffer: 2 MiB-aligned memory with
// MADV_HUGEPAGE, so the read faults once per huge page. Written out here, independent of
// dudley's own allocator.
struct HugeBuffer {
  explicit HugeBuffer(uint64_t bytes) {
    data = static_cast<char*>(std::aligned_alloc(kHugePage, bytes));
    ::madvise(data, bytes, MADV_HUGEPAGE);
  }
  ~HugeBuffer() { std::free(data); }
  HugeBuffer(const HugeBuffer&) = delete;
  HugeBuffer& operator=(const HugeBuffer&) = delete;
  char* data;
};

// read() of the whole file into a fresh huge-page buffer; with `swap`, in 1 MiB pieces each
// byte-swapped right after it is read (while in cache), the fastest plain-C conversion.
double c_read(const fs::path& p, bool swap) {
  const auto t0 = std::chrono::steady_clock::now();
  HugeBuffer buf(kBulkBytes);
  int fd = ::open(p.c_str(), O_RDONLY);
  constexpr uint64_t kPiece = uint64_t{1} << 20;
  uint64_t done = 0;
  while (done < kBulkBytes) {
    const uint64_t want = swap ? std::min(kPiece, kBulkBytes - done) : kBulkBytes - done;
    ssize_t n = ::read(fd, buf.data + done, want);
    if (n <= 0) break;
    if (swap) {
      auto* w = reinterpret_cast<uint64_t*>(buf.data + done);
      for (uint64_t k = 0; k < static_cast<uint64_t>(n) / 8; ++k) w[k] = __builtin_bswap64(w[k]);
    }
    done += static_cast<uint64_t>(n);
  }
  ::close(fd);
  double v;
  std::memcpy(&v, buf.data + 8, 8);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return v == 0.5 && done == kBulkBytes ? seconds : -1;
}

double dudley_read(const fs::path& p, bool big) {
  static const auto le = layout::parse_layout(fmt::format("x = <f8[{}]", kBulkBytes / 8)).layout;
  static const auto be = layout::parse_layout(fmt::format("x = >f8[{}]", kBulkBytes / 8)).layout;
  const layout::Layout& l = big ? be : le;
  const auto t0 = std::chrono::steady_clock::now();
  double v;
  {
    layout::Binding binding(l, io::open_file(p.string()));
    NDArray a = layout::read_array(binding, l.find("/x"));
    v = a.get<double>({1});
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return v == 0.5 ? seconds : -1;
}

// numpy.fromfile in Debian's python, kept running so its start-up is not timed: it reads a
// path and a dtype from stdin and answers with the seconds fromfile (and, for a big-endian
// dtype, astype to native order) took, freeing the array before it answers.
class NumpyPeer {
 public:
  NumpyPeer() {
    int to_child[2], from_child[2];
    if (::pipe(to_child) != 0 || ::pipe(from_child) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(to_child[0], 0);
      ::dup2(from_child[1], 1);
      ::close(to_child[1]);
      ::close(from_child[0]);
      static const char* kScript =
          "import sys, time, numpy as np\n"
          "for line in sys.stdin:\n"
          "    path, dtype = line.split()\n"
          "    t0 = time.perf_counter()\n"
          "    a = np.fromfile(path, dtype=dtype)\n"
          "    if dtype[0] == '>': a = a.astype('<f8')\n"
          "    t = time.perf_counter() - t0\n"
          "    ok = a[1] == 0.5\n"
          "    del a\n"
          "    print(t if ok else -1, flush=True)\n";
      ::execl("/usr/bin/python3", "python3", "-c", kScript, static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(to_child[0]);
    ::close(from_child[1]);
    to_ = ::fdopen(to_child[1], "w");
    from_ = ::fdopen(from_child[0], "r");
  }
  ~NumpyPeer() {
    if (to_) std::fclose(to_);
    if (from_) std::fclose(from_);
    if (pid_ > 0) ::waitpid(pid_, nullptr, 0);
  }
  NumpyPeer(const NumpyPeer&) = delete;
  NumpyPeer& operator=(const NumpyPeer&) = delete;
  // Seconds numpy took, or -1 when it is not there or read wrong values.
  double fromfile(const fs::path& p, bool big) {
    if (!to_ || !from_) return -1;
    std::fprintf(to_, "%s %s\n", p.c_str(), big ? ">f8" : "<f8");
    std::fflush(to_);
    double seconds = -1;
    if (std::fscanf(from_, "%lf", &seconds) != 1) return -1;
    return seconds;
  }

 private:
  pid_t pid_ = -1;
  FILE* to_ = nullptr;
  FILE* from_ = nullptr;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Every side reads the same page-cached file into new memory, back to back in each round
// (the machine is shared and noisy: ratios come from the same stretch of time). Each read
// is preceded by a pass over the file, so it is in the page cache when the read is timed.
void BM_BulkSideBySide(benchmark::State& state) {
  const fs::path& le = bulk_file(false);
  const fs::path& be = bulk_file(true);
  NumpyPeer numpy;
  enum Side { kCRead, kNumpy, kDudley, kCSwap, kNumpySwap, kDudleySwap, kSides };
  std::vector<double> t[kSides];
  for (auto _ : state) {
    for (int side = 0; side < kSides; ++side) {
      const bool big = side >= kCSwap;
      touch(big ? be : le);
      double s = -1;
      switch (side) {
        case kCRead:
        case kCSwap:
          s = c_read(big ? be : le, big);
          break;
        case kNumpy:
        case kNumpySwap:
          s = numpy.fromfile(big ? be : le, big);
          break;
        default:
          s = dudley_read(big ? be : le, big);
      }
      if (s < 0) {
        state.SkipWithError("a side failed or read wrong values (is python3-numpy installed?)");
        return;
      }
      t[side].push_back(s);
    }
  }
  const double gb = static_cast<double>(kBulkBytes) / 1e9;
  const char* names[kSides] = {"c_read", "numpy", "dudley", "c_swap", "numpy_swap", "dudley_swap"};
  for (int side = 0; side < kSides; ++side) {
    state.counters[std::string(names[side]) + "_GBps"] = gb / median(t[side]);
  }
  const double best = std::min(median(t[kCRead]), median(t[kNumpy]));
  state.counters["read_ratio"] = best / median(t[kDudley]);
  state.counters["swap_ratio"] = median(t[kCSwap]) / median(t[kDudleySwap]);
}

void BM_BulkDudleyView(benchmark::State& state) {
  const fs::path& p = bulk_file(false);
  auto layout = layout::parse_layout(fmt::format("x = <f8[{}]", kBulkBytes / 8)).layout;
  touch(p);
  for (auto _ : state) {
    auto source = io::open_file(p.string());
    layout::Binding binding(layout, source);
    NDArray v = layout::view_array(binding, layout.find("/x"), source);
    benchmark::DoNotOptimize(v.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBulkBytes));
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
      fam.layout_text += fmt::format("a{} = <f8[{}]\n", a, a == 100 ? "8" : a % 2 ? "M" : "N");
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
        const uint64_t count = a == 100 ? 8 : a % 2 ? m : n;
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

// How one pass reads the family.
enum class FamilySide {
  kFloor,     // open + pread of the known place + close, in C, one file after another
  kBindings,  // dudley: open, bind with the shared plan, read array #100, file after file
  kRows,      // dudley's FamilyReader::read_rows: batches in flight, on every core
};

// One pass over the family. Every side reads into buffers it reuses. Returns the sum of
// each file's first value, so nothing is optimized away and wrong reads show.
double family_pass(const Family& fam, const layout::FamilyReader& reader, layout::NodeId target,
                   FamilySide side, std::vector<char>& buf) {
  double sum = 0;
  if (side == FamilySide::kRows) {
    static const std::optional<layout::FamilyItem> item = reader.item(target);
    std::vector<double> rows(fam.files.size() * static_cast<size_t>(item->shape[0]));
    if (reader.read_rows(target, *item, Hyperslab::all(item->shape), rows.data())) return -1;
    for (size_t i = 0; i < fam.files.size(); ++i)
      sum += rows[i * static_cast<size_t>(item->shape[0])];
    return sum;
  }
  for (size_t i = 0; i < fam.files.size(); ++i) {
    if (side == FamilySide::kBindings) {
      layout::Binding binding(reader.plan(), io::open_file(fam.files[i]));
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

// The machine is shared and noisy, so each iteration runs every side back to back (the
// order rotating) and the ratios are taken over the same stretch of time.
void family_run(benchmark::State& state, bool cold) {
  const Family& fam = family();
  // Parsed and planned once. Array #100 has the same shape in every member (its place
  // moves with N and M), so the rows side stacks it.
  auto layout =
      std::make_shared<const layout::Layout>(layout::parse_layout(fam.layout_text).layout);
  const layout::FamilyReader reader(layout, layout::FamilyReader::members_of(fam.files, {}));
  const layout::NodeId target = layout->find("/a100");
  std::vector<char> buf(1 << 16);
  const double expected = 100000.0 * static_cast<double>(fam.files.size());
  double seconds[3] = {0, 0, 0};
  size_t first = 0;
  for (auto _ : state) {
    if (!cold) {
      for (const auto& f : fam.files) touch(f);
    }
    for (size_t k = 0; k < 3; ++k) {
      const auto side = static_cast<FamilySide>((first + k) % 3);
      if (cold && !drop_caches()) {
        state.SkipWithError("cannot drop the page cache (needs root)");
        return;
      }
      const auto t0 = std::chrono::steady_clock::now();
      const double sum = family_pass(fam, reader, target, side, buf);
      seconds[static_cast<size_t>(side)] +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (sum != expected) state.SkipWithError("wrong values read");
    }
    first = (first + 1) % 3;
  }
  const double files = static_cast<double>(state.iterations() * fam.files.size());
  state.counters["floor_us_per_file"] = seconds[0] / files * 1e6;
  state.counters["dudley_us_per_file"] = seconds[1] / files * 1e6;
  state.counters["rows_us_per_file"] = seconds[2] / files * 1e6;
  state.counters["ratio"] = seconds[1] / seconds[0];
  state.counters["rows_speedup"] = seconds[0] / seconds[2];
  state.SetLabel(io::BatchIo::uses_io_uring() ? "io_uring" : "syscalls");
}
void BM_FamilyWarm(benchmark::State& s) {
  family_run(s, false);
}
void BM_FamilyCold(benchmark::State& s) {
  family_run(s, true);
}

}  // namespace

BENCHMARK(BM_BulkSideBySide)->Unit(benchmark::kMillisecond)->Iterations(7);
BENCHMARK(BM_BulkDudleyView)->Unit(benchmark::kMicrosecond)->MinTime(1);
BENCHMARK(BM_FamilyWarm)->Unit(benchmark::kMillisecond)->Iterations(400);
BENCHMARK(BM_FamilyCold)->Unit(benchmark::kMillisecond)->Iterations(6);
BENCHMARK_MAIN();
