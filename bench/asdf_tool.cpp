// The C++ side of bench/asdf_vs_python.py: times our ASDF reader and writer on one array,
// in process, so the comparison with python3-asdf measures the libraries, not process
// start-up.
//   asdf_tool read FILE PATH [--no-checksums]   -> seconds to read the float64 array at PATH
//                                                  and sum it (as the Python side sums it:
//                                                  an array read as a view of the file is
//                                                  only read when its pages are touched)
//   asdf_tool read-all FILE [--no-checksums]    -> seconds to read and sum every array of the
//                                                  root group; checksums of uncompressed
//                                                  blocks taken several at once on every
//                                                  core first (model::verify_all, as convert
//                                                  does), compressed ones as they decode
//   asdf_tool write RAW DST COMPRESSION [--no-checksums] -> seconds to write RAW's float64 values
//                                                  as DST ("none", "zlib", "bzp2", "lz4")
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "dudley/formats/asdf.hpp"

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

class MemorySource final : public dudley::model::ArraySource {
 public:
  explicit MemorySource(dudley::NDArray a) : a_(std::move(a)) {}
  dudley::NDArray read() override {
    return dudley::NDArray::borrow(a_.mutable_data(), a_.dtype(), a_.shape());
  }
  dudley::NDArray read(const dudley::Hyperslab& slab) override {
    return a_.select(slab).to_native();
  }
  // Straight into the writer's buffer, as a file source reads: a fresh array per piece
  // would time this tool's page faults, not the writer.
  void read_into(const dudley::Hyperslab& slab, void* out) override {
    a_.select(slab).copy_native_into(out);
  }

 private:
  dudley::NDArray a_;
};

// Eight running sums, as numpy's pairwise sum keeps the adder busy: a single running sum
// would measure the adder's latency, not the read.
double sum(const dudley::NDArray& a) {
  const auto* v = static_cast<const double*>(a.data());
  const uint64_t n = a.byte_size() / 8;
  double s[8] = {};
  uint64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int k = 0; k < 8; ++k) s[k] += v[i + k];
  }
  for (; i < n; ++i) s[0] += v[i];
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

volatile double sink;

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || (argc < 4 && std::strcmp(argv[1], "read-all") != 0)) {
    fmt::print(
        stderr,
        "usage: asdf_tool read FILE PATH [--no-checksums] | read-all FILE [--no-checksums] | "
        "write RAW DST COMPRESSION\n");
    return 2;
  }
  const std::string mode = argv[1];
  try {
    if (mode == "read-all") {
      dudley::asdf::AsdfOpenOptions options;
      options.verify_checksums = !(argc > 3 && std::strcmp(argv[3], "--no-checksums") == 0);
      double best = 1e30;
      uint64_t bytes = 0;
      for (int i = 0; i < 3; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        dudley::model::Tree tree = dudley::asdf::open_asdf(argv[2], options);
        std::vector<dudley::model::ArraySource*> sources;
        for (const auto& child : tree.root->children) {
          if (child->data) sources.push_back(child->data.get());
        }
        if (options.verify_checksums) dudley::model::verify_all(sources);
        bytes = 0;
        double total = 0;
        for (dudley::model::ArraySource* source : sources) {
          const dudley::NDArray a = source->read();
          total += sum(a);
          bytes += a.byte_size();
        }
        sink = total;
        best = std::min(best, seconds_since(t0));
      }
      fmt::print("{:.6f} {}\n", best, bytes);
      return 0;
    }
    if (mode == "read") {
      dudley::asdf::AsdfOpenOptions options;
      options.verify_checksums = !(argc > 4 && std::strcmp(argv[4], "--no-checksums") == 0);
      // Best of three in one process, as the Python side is timed.
      double best = 1e30;
      uint64_t bytes = 0;
      for (int i = 0; i < 3; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        dudley::model::Tree tree = dudley::asdf::open_asdf(argv[2], options);
        dudley::NDArray a = tree.find(argv[3])->data->read();
        sink = sum(a);
        best = std::min(best, seconds_since(t0));
        bytes = a.byte_size();
      }
      fmt::print("{:.6f} {}\n", best, bytes);
      return 0;
    }
    // write: RAW holds float64 values (native order).
    std::ifstream in(argv[2], std::ios::binary | std::ios::ate);
    const auto bytes = static_cast<uint64_t>(in.tellg());
    in.seekg(0);
    dudley::NDArray a(dudley::DType::float_(8), dudley::Shape{static_cast<int64_t>(bytes / 8)});
    in.read(static_cast<char*>(a.mutable_data()), static_cast<std::streamsize>(a.byte_size()));
    dudley::model::Tree tree;
    tree.format = "asdf";
    tree.root = std::make_unique<dudley::model::Node>();
    auto x = std::make_unique<dudley::model::Node>();
    x->kind = dudley::model::NodeKind::kArray;
    x->name = "x";
    x->dtype = a.dtype();
    x->shape = a.shape().dims();
    x->data = std::make_shared<MemorySource>(std::move(a));
    tree.root->children.push_back(std::move(x));
    dudley::asdf::AsdfSaveOptions options;
    if (std::string(argv[4]) != "none") options.compression = argv[4];
    options.checksums = !(argc > 5 && std::strcmp(argv[5], "--no-checksums") == 0);
    const auto t0 = std::chrono::steady_clock::now();
    dudley::asdf::write_asdf(tree, argv[3], options);
    fmt::print("{:.6f}\n", seconds_since(t0));
    return 0;
  } catch (const dudley::Error& e) {
    fmt::print(stderr, "{}\n", e.what());
    return 1;
  }
}
