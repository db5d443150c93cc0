// Issue 4's family target: 1,000 files, each with 2 size parameters and 200 float64 arrays,
// written by dudley's FamilyWriter and, with the same arrays, as HDF5 files by the HDF5 C
// library (contiguous datasets). Then, per file, read array #100: dudley (open, bind with
// the family's one BindPlan and index values, read into a buffer) against libhdf5 (H5Fopen
// + H5Dopen + H5Dread + closes). Target: dudley at least 10x faster per file. Both sides run
// back to back in each iteration (order alternating), page cache warm.
// Files go to $DUDLEY_BENCH_DIR/family_h5 (default /tmp/dudley-bench), made on first use.
#include <benchmark/benchmark.h>
#include <hdf5.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "dudley/io/byte_source.hpp"
#include "dudley/layout/bind/reader.hpp"
#include "dudley/layout/family/family.hpp"
#include "dudley/layout/syntax/parser.hpp"

namespace {

namespace fs = std::filesystem;
using namespace dudley;

constexpr int kFiles = 1000;
constexpr int kArrays = 200;

fs::path dir() {
  const char* d = std::getenv("DUDLEY_BENCH_DIR");
  fs::path p = fs::path(d ? d : "/tmp/dudley-bench") / "family_h5";
  fs::create_directories(p);
  return p;
}

std::string layout_text() {
  std::string text = "!TEMPLATE\n!DUDLEY := S1[8]\nN := i4\nM := i4\n";
  for (int a = 0; a < kArrays; ++a) text += fmt::format("a{} = f8[{}]\n", a, a % 2 ? "M" : "N");
  return text;
}

// Writes both families once (kept between runs; remove the folder to rebuild).
void make_families() {
  const fs::path d = dir();
  if (fs::exists(d / "run.index.bin") && fs::exists(d / fmt::format("h5_{:04d}.h5", kFiles - 1))) {
    return;
  }
  const layout::Layout layout = layout::parse_layout(layout_text()).layout;
  layout::FamilyWriter family(layout, (d / "run").string());
  for (int i = 0; i < kFiles; ++i) {
    const int64_t n = 8 + i % 17, m = 5 + i % 11;
    layout::Writer& w = family.add();
    hid_t file = H5Fcreate((d / fmt::format("h5_{:04d}.h5", i)).c_str(), H5F_ACC_TRUNC, H5P_DEFAULT,
                           H5P_DEFAULT);
    for (int a = 0; a < kArrays; ++a) {
      const int64_t count = a % 2 ? m : n;
      NDArray x(DType::float_(8), Shape({count}));
      auto* p = static_cast<double*>(x.mutable_data());
      for (int64_t k = 0; k < count; ++k) p[k] = a * 1000.0 + static_cast<double>(k);
      w.write(fmt::format("/a{}", a), x);
      const hsize_t dims[1] = {static_cast<hsize_t>(count)};
      hid_t space = H5Screate_simple(1, dims, nullptr);
      hid_t set = H5Dcreate2(file, fmt::format("a{}", a).c_str(), H5T_IEEE_F64LE, space,
                             H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
      H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, p);
      H5Dclose(set);
      H5Sclose(space);
    }
    H5Fclose(file);
    w.commit();
  }
  family.finish();
}

void touch_all() {  // bring every file into the page cache right before timing
  static std::vector<char> buf(1 << 20);
  for (const auto& e : fs::directory_iterator(dir())) {
    std::ifstream in(e.path(), std::ios::binary);
    while (in.read(buf.data(), static_cast<std::streamsize>(buf.size()))) {
    }
  }
}

void BM_FamilyDudleyVsHdf5(benchmark::State& state) {
  make_families();
  layout::FamilyIndex index = layout::read_family_index((dir() / "run.index.bin").string());
  const layout::Layout layout = layout::load_layout(index.layout_path);
  index.resolve(layout);  // parameter paths -> declarations, once for the family
  const layout::BindPlan plan(layout);
  const layout::NodeId target = layout.find("/a100");
  std::vector<layout::BindOptions> options;
  for (size_t i = 0; i < index.files.size(); ++i) options.push_back(index.bind_options(i));
  std::vector<std::string> h5;
  for (int i = 0; i < kFiles; ++i) h5.push_back((dir() / fmt::format("h5_{:04d}.h5", i)).string());
  std::vector<double> buf(1 << 12);
  const double expected = 100000.0 * kFiles;
  double seconds[2] = {0, 0};
  bool dudley_first = false;
  for (auto _ : state) {
    touch_all();
    for (int k = 0; k < 2; ++k) {
      const bool dudley_side = (k == 0) == dudley_first;
      double sum = 0;
      const auto t0 = std::chrono::steady_clock::now();
      if (dudley_side) {
        for (size_t i = 0; i < index.files.size(); ++i) {
          layout::Binding b(plan, io::open_file(index.files[i]), options[i]);
          layout::read_array_into(b, target, std::as_writable_bytes(std::span(buf)));
          sum += buf[0];
        }
      } else {
        for (const std::string& f : h5) {
          hid_t file = H5Fopen(f.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
          hid_t set = H5Dopen2(file, "a100", H5P_DEFAULT);
          H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data());
          H5Dclose(set);
          H5Fclose(file);
          sum += buf[0];
        }
      }
      seconds[dudley_side] +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (sum != expected) state.SkipWithError("wrong values read");
    }
    dudley_first = !dudley_first;
  }
  const double files = static_cast<double>(state.iterations()) * kFiles;
  state.counters["hdf5_us_per_file"] = seconds[0] / files * 1e6;
  state.counters["dudley_us_per_file"] = seconds[1] / files * 1e6;
  state.counters["speedup"] = seconds[0] / seconds[1];  // >= 10 is the target
}

}  // namespace

BENCHMARK(BM_FamilyDudleyVsHdf5)->Unit(benchmark::kMillisecond)->Iterations(20);
BENCHMARK_MAIN();
