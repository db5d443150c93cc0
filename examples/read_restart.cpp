// Reading restart files through their Dudley layout, from C++ (docs/api.md walks through it).
//
//   python3 examples/make_restart_data.py /tmp/run_0.bin 0    # and run_1.bin 1, ...
//   cp examples/restart.dud /tmp/run_0.dud
//   build/examples/read_restart examples/restart.dud /tmp/run_*.bin
//
// Part 1 opens the first file as a model tree and reads by path; part 2 treats all files as
// one family: the layout is parsed and planned once, then each file costs a few reads.
#include <cstdio>
#include <span>
#include <vector>

#include "dudley/core/error.hpp"
#include "dudley/layout/bind/reader.hpp"
#include "dudley/formats/dudley/format.hpp"
#include "dudley/layout/syntax/parser.hpp"
#include "dudley/open.hpp"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s LAYOUT DATA...\n", argv[0]);
    return 2;
  }
  try {
    // 1. One file as a tree: navigate by path, query without reading, read whole or part.
    dudley::layout::DudleyOpenOptions dudley_options;  // the Dudley format's own options
    dudley_options.layout = argv[1];
    dudley::OpenOptions options;
    options.formats.set(dudley_options);
    dudley::model::Tree tree = dudley::open(argv[2], options);
    const dudley::model::Node* rho = tree.find("/hydro/rho");
    if (!rho || !rho->error.empty()) {
      std::fprintf(stderr, "%s: /hydro/rho: %s\n", argv[2],
                   rho ? rho->error.text().c_str() : "absent");
      return 1;
    }
    std::printf("/hydro/rho: %s, shape [%lld, %lld], at byte %llu\n", rho->dtype.typestr().c_str(),
                static_cast<long long>(rho->shape[0]), static_cast<long long>(rho->shape[1]),
                static_cast<unsigned long long>(*rho->storage.offset));
    dudley::NDArray all = rho->data->read();  // native byte order, C order
    std::printf("rho[2][3] = %g\n", all.get<double>({2, 3}));
    auto row = rho->data->read(dudley::Hyperslab::parse("[1, ::2]", rho->shape));
    std::printf("rho[1, ::2] has %llu values, the first %g\n",
                static_cast<unsigned long long>(row.element_count()), row.get<double>({0}));

    // 2. The whole family: parse and plan once; per file, bind and read one array.
    const dudley::layout::Layout layout = dudley::layout::load_layout(argv[1]);
    const dudley::layout::BindPlan plan(layout);
    const dudley::layout::NodeId target = layout.find("/hydro/rho");
    std::vector<double> buffer;
    for (int i = 2; i < argc; ++i) {
      dudley::layout::Binding binding(plan, dudley::io::open_file(argv[i]));
      dudley::layout::BoundArray where = binding.locate(target);
      buffer.resize(where.byte_size / sizeof(double));
      dudley::layout::read_array_into(binding, target, std::as_writable_bytes(std::span(buffer)));
      std::printf("%s: rho[0][0] = %g (%zu values)\n", argv[i], buffer[0], buffer.size());
    }
  } catch (const dudley::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
