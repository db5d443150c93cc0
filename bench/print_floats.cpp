// The floor for printing float64 values as dudley's text does: the bytes read with plain
// system calls, each value printed by the same formatter (fmt's shortest round-trip text,
// its format compiled; ".0" added to integral values), written in 1 MiB pieces. Its output
// must equal dudley's byte for byte (bench/family_cli_vs_c.py checks).
//
//   print_floats family OFFSET COUNT ITEM FILE...   "FILE ITEM = [v,...]" per file: COUNT
//                                                   values at OFFSET (open + pread + close)
//   print_floats npy FILE                           "/ = [v,...]" of a 1-D <f8 .npy file
//   print_floats speed N                            formats N values of four kinds in memory
//                                                   and prints values per second for each
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <random>
#include <string>
#include <vector>

#include <fmt/compile.h>
#include <fmt/format.h>

namespace {

std::string out;

void flush() {
  if (!out.empty() && std::fwrite(out.data(), 1, out.size(), stdout) != out.size()) std::exit(1);
  out.clear();
}

char* put_double(char* p, double v) {
  char* start = p;
  p = fmt::format_to(p, FMT_COMPILE("{}"), v);
  if (std::find_if(start, p, [](char c) { return c == '.' || c == 'e'; }) == p) {
    *p++ = '.';
    *p++ = '0';
  }
  return p;
}

void print_values(const std::string& label, const double* v, size_t n) {
  out += label;
  out += " = [";
  for (size_t i = 0; i < n; i += 4096) {
    const size_t m = std::min<size_t>(4096, n - i);
    const size_t at = out.size();
    out.resize(at + m * 33);
    char* p = out.data() + at;
    for (size_t k = 0; k < m; ++k) {
      if (i + k > 0) *p++ = ',';
      p = put_double(p, v[i + k]);
    }
    out.resize(static_cast<size_t>(p - out.data()));
    if (out.size() >= (size_t{1} << 20)) flush();
  }
  out += "]\n";
}

bool read_at(const char* path, off_t offset, void* buf, size_t bytes) {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::pread(fd, buf, bytes, offset) == static_cast<ssize_t>(bytes);
  ::close(fd);
  return ok;
}

int speed(size_t n) {
  std::mt19937_64 g(1);
  std::uniform_real_distribution<double> d(-1e6, 1e6);
  const char* names[] = {"random (17 digits)", "integral", "float32 values", "3 decimals"};
  std::vector<double> v(n);
  std::vector<char> buf(n * 33);
  for (int kind = 0; kind < 4; ++kind) {
    for (double& x : v) {
      const double r = d(g);
      x = kind == 0   ? r
          : kind == 1 ? std::round(r)
          : kind == 2 ? double(float(r))
                      : std::round(r * 1000) / 1000;
    }
    const auto t0 = std::chrono::steady_clock::now();
    char* p = buf.data();
    for (double x : v) {
      p = put_double(p, x);
      *p++ = ',';
    }
    const auto t1 = std::chrono::steady_clock::now();
    unsigned long long acc = 0;
    for (double x : v) {
      const auto dec = fmt::detail::dragonbox::to_decimal(x);
      acc += dec.significand + static_cast<unsigned>(dec.exponent);
    }
    const auto t2 = std::chrono::steady_clock::now();
    const auto rate = [n](auto a, auto b) {
      return static_cast<double>(n) / std::chrono::duration<double>(b - a).count() / 1e6;
    };
    std::printf(
        "%s: %.1f M values/s printed, %.1f bytes each; the shortest digits alone "
        "(Dragonbox) %.1f M/s [%llu]\n",
        names[kind], rate(t0, t1), static_cast<double>(p - buf.data()) / static_cast<double>(n),
        rate(t1, t2), acc % 10);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: print_floats family OFFSET COUNT ITEM FILE... | npy FILE | speed N\n");
    return 2;
  }
  const std::string mode = argv[1];
  if (mode == "speed") return speed(std::strtoull(argv[2], nullptr, 10));
  if (mode == "family" && argc >= 5) {
    const off_t offset = std::strtoll(argv[2], nullptr, 10);
    const size_t count = std::strtoull(argv[3], nullptr, 10);
    const std::string item = argv[4];
    std::vector<double> v(count);
    for (int i = 5; i < argc; ++i) {
      if (!read_at(argv[i], offset, v.data(), count * 8)) return 1;
      print_values(std::string(argv[i]) + " " + item, v.data(), count);
    }
  } else if (mode == "npy") {
    // A 1-D <f8 array after numpy's header (its length in bytes 8-9, version 1.0).
    const int fd = ::open(argv[2], O_RDONLY | O_CLOEXEC);
    unsigned char head[10];
    if (fd < 0 || ::pread(fd, head, 10, 0) != 10) return 1;
    const off_t data = 10 + (head[8] | head[9] << 8);
    const off_t end = ::lseek(fd, 0, SEEK_END);
    std::vector<double> v(static_cast<size_t>(end - data) / 8);
    if (::pread(fd, v.data(), v.size() * 8, data) != static_cast<ssize_t>(v.size() * 8)) return 1;
    ::close(fd);
    print_values("/", v.data(), v.size());
  } else {
    return 2;
  }
  flush();
  return std::fflush(stdout) == 0 ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "print_floats: %s\n", e.what());
  return 1;
}
