// Writes the generated benchmark description as DIR/big.dud, big.yaml and big.json; with
// "plain" after the count, the plain layout (no documents, no parameters) as DIR/plain.dud
// and the same content as DIR/plain.json (simdjson's fresh-process baseline, parse_once).
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "layout_generator.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: generate_layout DIR [DECLARATIONS [plain]]\n");
    return 2;
  }
  std::string dir = argv[1];
  size_t n = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 100000;
  if (argc > 3 && std::string(argv[3]) == "plain") {
    const auto plain = dudley::bench::generate_plain(n);
    std::ofstream(dir + "/plain.dud") << plain.dudley;
    std::ofstream(dir + "/plain.json") << plain.json;
    std::printf("%zu plain declarations: %zu bytes of Dudley, %zu of JSON\n", plain.declarations,
                plain.dudley.size(), plain.json.size());
    return 0;
  }
  auto d = dudley::bench::generate_description(n);
  std::ofstream(dir + "/big.dud") << d.dudley;
  std::ofstream(dir + "/big.yaml") << d.yaml;
  std::ofstream(dir + "/big.json") << d.json;
  std::printf("%zu declarations: %zu bytes of Dudley, %zu of YAML, %zu of JSON\n", d.declarations,
              d.dudley.size(), d.yaml.size(), d.json.size());
  return 0;
}
