// Building a layout in code and writing constructs beyond plain arrays (docs/api.md):
// a counted string, tracks of different lengths, and events appended to a list as they
// arrive; the layout is embedded in the one output file.
//
//   build/examples/write_tracks /tmp/tracks.bin
//   build/dudley dump /tmp/tracks.bin /tracks/2/x
//
// Track k has k + 2 points with x[i] = k + i / 2 and y[i] = -x[i]; event e is
// [e, e * e, -e]; the calibration is 1.5 per channel.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "dudley/core/error.hpp"
#include "dudley/layout/syntax/builder.hpp"
#include "dudley/layout/write/writer.hpp"

using dudley::DType;
using dudley::NDArray;
using dudley::Shape;
using namespace dudley::layout;

namespace {

NDArray floats(const std::vector<float>& values) {
  NDArray a(DType::float_(4), Shape({static_cast<int64_t>(values.size())}));
  std::memcpy(a.mutable_data(), values.data(), values.size() * sizeof(float));
  return a;
}

NDArray text(const std::string& s) {
  NDArray a(DType::text(dudley::TextEncoding::kAscii, 1), Shape({static_cast<int64_t>(s.size())}));
  std::memcpy(a.mutable_data(), s.data(), s.size());
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: write_tracks OUT.bin\n");
    return 2;
  }
  try {
    LayoutBuilder b;
    b.signature();
    b.param("NCH", "i4").doc("detector channels");
    b.param("NT", "i4").doc("tracks in this file");
    b.struct_type("string").param("n", "u4").data("", "S1", {"n"}).end();
    b.struct_type("track").param("n", "u4").data("x", "f4", {"n"}).data("y", "f4", {"n"}).end();
    b.data("station", "string").doc("where the data was taken");
    b.data("calibration", "f4", {"NCH"});
    b.data("tracks", "track", {"NT"});
    b.list("events").end();  // items are appended as events arrive
    const Layout layout = b.build();

    WriteOptions options;
    options.embed_layout = true;  // one self-describing file
    options.write_layout = false;
    Writer w(layout, argv[1], options);
    w.write("/calibration", floats(std::vector<float>(8, 1.5f)));  // sets NCH = 8
    w.write_instances("/station", {text("Jungfraujoch")});
    std::vector<Instance> tracks(4);  // sets NT = 4
    for (size_t k = 0; k < tracks.size(); ++k) {
      std::vector<float> x, y;
      for (size_t i = 0; i < k + 2; ++i) {
        x.push_back(static_cast<float>(k) + 0.5f * static_cast<float>(i));
        y.push_back(-x.back());
      }
      tracks[k].members.emplace("x", floats(x));
      tracks[k].members.emplace("y", floats(y));
    }
    w.write_instances("/tracks", tracks);
    for (int e = 0; e < 3; ++e) {
      NDArray event(DType::float_(8), Shape({3}));
      const double values[3] = {1.0 * e, 1.0 * e * e, -1.0 * e};
      std::memcpy(event.mutable_data(), values, sizeof values);
      std::printf("%s\n", w.append("/events", event).c_str());
    }
    std::printf("%s: %llu bytes\n", argv[1], static_cast<unsigned long long>(w.commit()));
  } catch (const dudley::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
