// The first parse in a fresh process, what `dudley check` pays: reads a layout file and
// parses it once, printing the seconds of the parse alone and of reading plus parsing.
// bench/convert_vs_peers.py runs it in fresh processes (a loop in one process would reuse
// the memory of the first parse and hide its page faults).
//   parse_once FILE.dud  ->  "PARSE_SECONDS TOTAL_SECONDS"
#include <chrono>
#include <cstdio>

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
