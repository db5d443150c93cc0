// The first parse in a fresh process, what `dudley check` pays: reads a layout file and
// parses it once, printing the seconds of the parse alone and of reading plus parsing.
// bench/convert_vs_peers.py runs it in fresh processes (a loop in one process would reuse
// the memory of the first parse and hide its page faults). A FILE.json is parsed into
// simdjson's DOM instead: the same content (generate_layout's plain.json) parsed by the
// fastest JSON parser, a baseline measured in the same run on this noisy machine.
//   parse_once FILE.dud|FILE.json  ->  "PARSE_SECONDS TOTAL_SECONDS"
#include <simdjson.h>

#include <chrono>
#include <cstdio>
#include <string_view>

#include "dudley/core/file_io.hpp"
#include "dudley/layout/syntax/parser.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: parse_once FILE.dud\n");
    return 2;
  }
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const std::string text = dudley::read_text_file(argv[1]);
  const auto t1 = Clock::now();
  if (std::string_view(argv[1]).ends_with(".json")) {
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    const auto error = parser.parse(text).get(root);
    const auto t2 = Clock::now();
    if (error) {
      std::fprintf(stderr, "%s: %s\n", argv[1], simdjson::error_message(error));
      return 1;
    }
    std::printf("%.6f %.6f\n", std::chrono::duration<double>(t2 - t1).count(),
                std::chrono::duration<double>(t2 - t0).count());
    return 0;
  }
  const auto result = dudley::layout::parse_layout(text);
  const auto t2 = Clock::now();
  if (!result.ok()) {
    std::fprintf(stderr, "%s: not a valid layout\n", argv[1]);
    return 1;
  }
  std::printf("%.6f %.6f\n", std::chrono::duration<double>(t2 - t1).count(),
              std::chrono::duration<double>(t2 - t0).count());
  return 0;
}
