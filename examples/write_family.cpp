// Writing a family of restart files with the bundled layout, from C++ (docs/api.md).
//
//   build/examples/write_family examples/restart.dud /tmp/fam/run 3
//   build/dudley dump --family /tmp/fam/run.index.bin /hydro/rho
//
// Each member is what a simulation would dump at one step: its sizes (NX grows with the
// step) are taken from the arrays written, and the family's index collects them all.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "dudley/core/error.hpp"
#include "dudley/io/byte_source.hpp"
#include "dudley/layout/family/family.hpp"
#include "dudley/layout/syntax/parser.hpp"

using dudley::DType;
using dudley::NDArray;
using dudley::Shape;

namespace {

// A float64 grid whose value at [j][i] is f(j, i).
template <typename F>
NDArray grid(int64_t rows, int64_t cols, F f) {
  NDArray a(DType::float_(8), Shape({rows, cols}));
  auto* p = static_cast<double*>(a.mutable_data());
  for (int64_t j = 0; j < rows; ++j) {
    for (int64_t i = 0; i < cols; ++i) p[j * cols + i] = f(j, i);
  }
  return a;
}

// An array of the layout's own element type for `path` (structs, text), zero-filled.
NDArray like(const dudley::layout::Layout& layout, const char* path, std::vector<int64_t> shape) {
  dudley::layout::BindOptions planning;
  planning.default_order = dudley::native_byte_order();
  planning.signature_unread = true;
  planning.params_absent = true;
  for (const char* p : {"NX", "NY", "NMAT", "NTRACER", "NHIST"}) planning.params[p] = 1;
  dudley::layout::Binding b(layout, dudley::io::zero_source(1 << 20), planning);
  return NDArray(b.array(layout.find(path)).dtype.with_byte_order(dudley::native_byte_order()),
                 Shape(std::move(shape)));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s LAYOUT STEM COUNT\n", argv[0]);
    return 2;
  }
  try {
    const dudley::layout::Layout layout = dudley::layout::load_layout(argv[1]);
    dudley::layout::FamilyWriter family(layout, argv[2]);
    const int count = std::atoi(argv[3]);
    for (int step = 0; step < count; ++step) {
      dudley::layout::Writer& w = family.add();
      const int64_t nx = 4 + step, ny = 3, nhist = 5;
      w.set_param("NMAT", 1);  // the layout's materials list has one item
      NDArray title = like(layout, "/title", {80});
      const std::string text = "step " + std::to_string(step);
      std::memcpy(title.mutable_data(), text.data(), text.size());
      w.write("/title", title);
      w.write("/mesh/x", grid(ny + 1, nx + 1, [](int64_t, int64_t i) { return double(i); }));
      w.write("/mesh/y", grid(ny + 1, nx + 1, [](int64_t j, int64_t) { return double(j); }));
      w.write("/hydro/rho", grid(ny, nx, [&](int64_t j, int64_t i) {
                return 1000.0 * step + 10.0 * double(j) + double(i);
              }));
      w.write("/tracers", like(layout, "/tracers", {2}));  // NTRACER = 2, zeros
      NDArray time(DType::float_(8), Shape({nhist}));
      for (int64_t k = 0; k < nhist; ++k)
        static_cast<double*>(time.mutable_data())[k] = 0.5 * static_cast<double>(k);
      w.write("/history/time", time);
      w.commit();
    }
    std::printf("%s\n", family.finish().c_str());
  } catch (const dudley::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
