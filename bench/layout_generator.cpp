#include "layout_generator.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace dudley::bench {

namespace {
constexpr const char* kTypes[] = {"f8", "f4", "i4", "<f8", ">i8", "u2", "c16", "u1"};
// Docs as long as those in real simulation layouts (units, centering, provenance).
constexpr const char* kDocs[] = {
    "mass density in each zone after the remap step, cell centered (g/cm^3)",
    "specific internal energy of the material mix in each zone (erg/g)",
    "node velocity along the first logical mesh axis, node centered (cm/s)",
    "index of the dominant material in each zone, see /materials for names",
    "time history record of the total energy, one sample per output cycle",
    "tracer particle positions in the global frame at the end of the cycle (cm)"};
}  // namespace

GeneratedDescription generate_description(size_t declarations) {
  GeneratedDescription g;
  constexpr int kParams = 100;
  constexpr int kStructs = 100;
  constexpr int kPerGroup = 100;
  std::string& d = g.dudley;
  std::string& y = g.yaml;
  std::string& j = g.json;
  d.reserve(declarations * 110);
  y.reserve(declarations * 130);
  j.reserve(declarations * 130);

  y += "params:\n";
  j += "{\"params\":{";
  for (int p = 0; p < kParams; ++p) {
    d += fmt::format("N{} := i4  #! extent number {}\n", p, p);
    y += fmt::format("  N{}: {{type: i4, doc: \"extent number {}\"}}\n", p, p);
    j += fmt::format("{}\"N{}\":{{\"type\":\"i4\",\"doc\":\"extent number {}\"}}", p ? "," : "", p,
                     p);
  }
  j += "},\"types\":{";
  y += "types:\n";
  for (int t = 0; t < kStructs; ++t) {
    d +=
        fmt::format("rec{} := {{  #! record type {}\n  pos = f8[3]\n  id = i4\n  w = f4[N{}]\n}}\n",
                    t, t, t % kParams);
    y += fmt::format(
        "  rec{}:\n    doc: \"record type {}\"\n    members:\n      - {{name: pos, type: f8, "
        "shape: [3]}}\n      - {{name: id, type: i4}}\n      - {{name: w, type: f4, shape: "
        "[N{}]}}\n",
        t, t, t % kParams);
    j += fmt::format(
        "{}\"rec{}\":{{\"doc\":\"record type {}\",\"members\":[{{\"name\":\"pos\",\"type\":\"f8\","
        "\"shape\":[3]}},{{\"name\":\"id\",\"type\":\"i4\"}},{{\"name\":\"w\",\"type\":\"f4\","
        "\"shape\":[\"N{}\"]}}]}}",
        t ? "," : "", t, t, t % kParams);
  }
  j += "},\"groups\":{";
  y += "groups:\n";
  g.declarations = kParams + kStructs;
  size_t group = 0;
  while (g.declarations < declarations) {
    d += fmt::format("block{} /  #! block {} of the mesh\n", group, group);
    y += fmt::format("  block{}:\n    doc: \"block {} of the mesh\"\n    arrays:\n", group, group);
    j += fmt::format("{}\"block{}\":{{\"doc\":\"block {} of the mesh\",\"arrays\":[",
                     group ? "," : "", group, group);
    ++g.declarations;
    for (int a = 0; a < kPerGroup && g.declarations < declarations; ++a, ++g.declarations) {
      size_t k = group * kPerGroup + static_cast<size_t>(a);
      const char* type = kTypes[k % 8];
      int p1 = static_cast<int>(k % kParams);
      int p2 = static_cast<int>((k * 7 + 3) % kParams);
      const char* suffix = k % 3 == 0 ? "+" : "";
      const char* doc = kDocs[k % 6];
      std::string sep = a ? "," : "";
      if (k % 10 == 9) {
        d += fmt::format("  r{} = rec{}[N{}]  #! {}\n", a, k % kStructs, p1, doc);
        y += fmt::format("      - {{name: r{}, type: rec{}, shape: [N{}], doc: \"{}\"}}\n", a,
                         k % kStructs, p1, doc);
        j += fmt::format(
            "{}{{\"name\":\"r{}\",\"type\":\"rec{}\",\"shape\":[\"N{}\"],\"doc\":\"{}\"}}", sep, a,
            k % kStructs, p1, doc);
      } else {
        d += fmt::format("  field_{} = {}[N{}{}, N{}]  #! {}\n", a, type, p1, suffix, p2, doc);
        y += fmt::format(
            "      - {{name: field_{}, type: \"{}\", shape: [N{}{}, N{}], doc: \"{}\"}}\n", a, type,
            p1, suffix, p2, doc);
        j += fmt::format(
            "{}{{\"name\":\"field_{}\",\"type\":\"{}\",\"shape\":[\"N{}{}\",\"N{}\"],\"doc\":\"{}"
            "\"}}",
            sep, a, type, p1, suffix, p2, doc);
      }
    }
    d += "..\n";
    j += "]}";
    ++group;
  }
  j += "}}";
  return g;
}

GeneratedDescription generate_plain(size_t arrays) {
  GeneratedDescription g;
  constexpr size_t kPerGroup = 100;
  std::string& d = g.dudley;
  std::string& y = g.yaml;
  std::string& j = g.json;
  d.reserve(arrays * 30);
  y.reserve(arrays * 50);
  j.reserve(arrays * 60);
  j += "{";
  for (size_t group = 0; group * kPerGroup < arrays; ++group) {
    d += fmt::format("g{:03} /\n", group);
    y += fmt::format("g{:03}:\n", group);
    j += fmt::format("{}\"g{:03}\":{{", group ? "," : "", group);
    ++g.declarations;
    for (size_t a = group * kPerGroup; a < std::min(arrays, (group + 1) * kPerGroup); ++a) {
      d += fmt::format("  d{:05} = <f8[3, 4] @ 4096\n", a);
      y += fmt::format("  d{:05}: {{type: <f8, shape: [3, 4], address: 4096}}\n", a);
      j += fmt::format("{}\"d{:05}\":{{\"type\":\"<f8\",\"shape\":[3,4],\"address\":4096}}",
                       a % kPerGroup ? "," : "", a);
      ++g.declarations;
    }
    d += "..\n";
    j += "}";
  }
  j += "}";
  return g;
}

}  // namespace dudley::bench
