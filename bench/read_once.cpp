// A whole array read through the library into new memory, once, in a fresh process: what a
// user's first call pays (page faults of the new memory included). bench/convert_vs_peers.py
// runs it beside numpy.fromfile, each in fresh processes.
//   read_once FILE PATH  ->  "SECONDS SUM" (the seconds of open + read; the sum of the
//                            float64 values, so the read cannot be skipped)
#include <chrono>
#include <cstdio>

#include "dudley/open.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: read_once FILE PATH\n");
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
  const dudley::NDArray a = node->data->read();
  const auto t1 = Clock::now();
  // Summed after the clock stops: numpy.fromfile is timed the same way.
  const auto* v = static_cast<const double*>(a.data());
  const uint64_t n = a.element_count();
  double sum = 0;
  for (uint64_t i = 0; i < n; ++i) sum += v[i];
  std::printf("%.6f %g\n", std::chrono::duration<double>(t1 - t0).count(), sum);
  return 0;
}
