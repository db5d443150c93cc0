// Reading NDL: any text either reads as a model tree or fails with an Error; every array
// with values is read and the tree described back (with values), so the emitter sees every
// type the reader makes. Memory follows the input (values are budgeted by its length).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dudley/core/error.hpp"
#include "dudley/formats/ndl.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const dudley::model::Tree tree = dudley::ndl::read_ndl(text, "fuzz.yaml");
    dudley::ndl::DescribeProblems problems;
    dudley::ndl::DescribeOptions options;
    options.values = true;
    const std::string again = dudley::ndl::describe_text(tree, options, problems);
    // What we write must read back, whatever it could not describe.
    (void)dudley::ndl::read_ndl(again, "again.yaml");
  } catch (const dudley::Error&) {
  }
  return 0;
}
