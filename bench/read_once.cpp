// A whole array read through the library into new memory, once, in a fresh process: what a
// user's first call pays (page faults of the new memory included). bench/convert_vs_peers.py
// runs it beside numpy.fromfile, each in fresh processes; bench/zarr_vs_fastest.py beside
// tensorstore, zarrs and zarr-python, with a region of a 2-D array.
//   read_once FILE PATH [R0 R1 C0 C1]  ->  "SECONDS SUM" (the seconds of open + read; the
//                            sum of the float64 values, so the read cannot be skipped). With
//                            R0 R1 C0 C1 only rows [R0, R1) and columns [C0, C1) are read.
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "dudley/open.hpp"

int main(int argc, char** argv) {
  if (argc != 3 && argc != 7) {
    std::fprintf(stderr, "usage: read_once FILE PATH [R0 R1 C0 C1]\n");
    return 2;
  }
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const dudley::model::Tree tree = dudley::open(argv[1]);
  const dudley::model::Node* node = tree.find(argv[2]);
  if (!node || !node->data) {
    std::fprintf(stderr, "%s: no array %s\n", argv[1], argv[2]);
    return 1;
  }
  dudley::NDArray a;
  if (argc == 7) {
    auto at = [&](int i) { return static_cast<int64_t>(std::strtoll(argv[i], nullptr, 10)); };
    dudley::Hyperslab box;
    box.start = {at(3), at(5)};
    box.count = {at(4) - at(3), at(6) - at(5)};
    a = node->data->read(box);
  } else {
    a = node->data->read();
  }
  const auto t1 = Clock::now();
  // Summed after the clock stops: numpy.fromfile is timed the same way.
  const auto* v = static_cast<const double*>(a.data());
  const uint64_t n = a.element_count();
  double sum = 0;
  for (uint64_t i = 0; i < n; ++i) sum += v[i];
  std::printf("%.6f %g\n", std::chrono::duration<double>(t1 - t0).count(), sum);
  return 0;
}
