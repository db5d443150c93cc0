// One array from each file of a family, three ways, timed in one process (the script
// bench/hdf5_vs_peers.py also times the whole process):
//   family_pread pread OFFSET BYTES FILE...      open + pread + close (the floor)
//   family_pread hdf5 DATASET FILE...            H5Fopen + H5Dopen2 + H5Dread + closes
//   family_pread layout LAYOUT PATH FILE...      the layout parsed and planned once, then per
//                                                file open_file + Binding + read_array_into
// Prints "SECONDS SUM" (the sum of every first element, to check all three read the same).
#include <fcntl.h>
#include <hdf5.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "dudley/io/byte_source.hpp"
#include "dudley/layout/bind/reader.hpp"
#include "dudley/layout/family/family.hpp"
#include "dudley/layout/syntax/parser.hpp"

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: family_pread pread|hdf5|layout ...\n");
    return 2;
  }
  const std::string mode = argv[1];
  std::vector<double> buf(1 << 16);
  double sum = 0;
  const auto t0 = std::chrono::steady_clock::now();
  if (mode == "pread") {
    const long offset = std::atol(argv[2]);
    const size_t bytes = static_cast<size_t>(std::atol(argv[3]));
    for (int i = 4; i < argc; ++i) {
      const int fd = ::open(argv[i], O_RDONLY | O_CLOEXEC);
      if (fd < 0 || ::pread(fd, buf.data(), bytes, offset) != static_cast<ssize_t>(bytes)) return 1;
      ::close(fd);
      sum += buf[0];
    }
  } else if (mode == "hdf5") {
    for (int i = 3; i < argc; ++i) {
      hid_t file = H5Fopen(argv[i], H5F_ACC_RDONLY, H5P_DEFAULT);
      hid_t set = H5Dopen2(file, argv[2], H5P_DEFAULT);
      if (H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()) < 0) return 1;
      H5Dclose(set);
      H5Fclose(file);
      sum += buf[0];
    }
  } else if (mode == "layout") {
    const dudley::layout::Layout layout = dudley::layout::load_layout(argv[2]);
    const dudley::layout::BindPlan plan(layout);
    const dudley::layout::NodeId target = layout.find(argv[3]);
    for (int i = 4; i < argc; ++i) {
      dudley::layout::Binding b(plan, dudley::io::open_file(argv[i]), {});
      dudley::layout::read_array_into(b, target, std::as_writable_bytes(std::span(buf)));
      sum += buf[0];
    }
  } else {
    return 2;
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%.6f %.17g\n", s, sum);
  return 0;
}
