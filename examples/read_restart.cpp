// Reading restart files through their Dudley layout, from C++ (docs/api.md walks through it).
//
//   python3 examples/make_restart_data.py /tmp/run_0.bin 0    # and run_1.bin 1, ...
//   cp examples/restart.dud /tmp/run_0.dud
//   build/examples/read_restart examples/restart.dud /tmp/run_*.bin
//
// Part 1 opens the first file as a model tree and reads by path; part 2 treats all files as
// one family: the layout is parsed and planned once, then each file costs a few reads
// (layout::FamilyReader).
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dudley/core/error.hpp"
#include "dudley/formats/dudley.hpp"
#include "dudley/layout/family/family_reader.hpp"
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

    // 2. The whole family: parse and plan once, then read one array of each file. Here the
    //    arrays differ in shape (NX grows by step), so each member is read on its own; an
    //    item of one shape in every file reads into the rows of one buffer with read_rows().
    const std::vector<std::string> files(argv + 2, argv + argc);
    const dudley::layout::FamilyReader family(
        std::make_shared<const dudley::layout::Layout>(dudley::layout::load_layout(argv[1])),
        dudley::layout::FamilyReader::members_of(files, {}));
    const dudley::layout::NodeId rho_id = family.layout().find("/hydro/rho");
    for (size_t i = 0; i < family.size(); ++i) {
      const dudley::NDArray values = family.read(i, rho_id);
      std::printf("%s: rho[0][0] = %g (%llu values)\n", family.member(i).path.c_str(),
                  values.get<double>({0, 0}),
                  static_cast<unsigned long long>(values.element_count()));
    }
    // /state, one `step` record (cycle i8, time f8, dt f8) in every file: one row each.
    struct Step {
      int64_t cycle;
      double time;
      double dt;
    };
    const dudley::layout::NodeId state_id = family.layout().find("/state");
    const std::optional<dudley::layout::FamilyItem> state = family.item(state_id);
    const dudley::Hyperslab whole = dudley::Hyperslab::all({});
    if (!state || state->row_bytes(whole) != sizeof(Step)) {
      std::fprintf(stderr, "/state is not one step record per file\n");
      return 1;
    }
    std::vector<Step> steps(family.size());
    if (auto differs = family.read_rows(state_id, *state, whole, steps.data())) {
      std::fprintf(stderr, "%s: /state differs from the first file's\n",
                   family.member(*differs).path.c_str());
      return 1;
    }
    for (size_t i = 0; i < steps.size(); ++i) {
      std::printf("%s: cycle %lld, time %g\n", family.member(i).path.c_str(),
                  static_cast<long long>(steps[i].cycle), steps[i].time);
    }
  } catch (const dudley::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
