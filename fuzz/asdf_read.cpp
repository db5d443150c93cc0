// The ASDF reader on arbitrary bytes: open the file (header, YAML tree, blocks), walk the
// whole tree and read every array, whole and as a reversed selection, print the tree as
// `ls --json` does and make the Dudley layout `convert` would write. Never a crash, a hang
// or unbounded memory: errors are fine, but a layout made for a tree that fails to parse is
// a finding (convert would refuse its own output). External sources are refused (the
// fuzzer's bytes name no real files worth reading).
#include <cstdint>
#include <cstdlib>
#include <functional>

#include "cli/tree_json.hpp"
#include "dudley/core/error.hpp"
#include "dudley/formats/asdf.hpp"
#include "dudley/io/byte_source.hpp"
#include "dudley/layout/syntax/parser.hpp"
#include "dudley/layout/write/from_model.hpp"

namespace {

void walk(const dudley::model::Node& node, int& budget) {
  dudley::model::for_each_child(node, [&](uint64_t, const dudley::model::Node& child) {
    if (--budget < 0) return false;
    if (child.kind == dudley::model::NodeKind::kArray && child.data && child.error.empty()) {
      try {
        (void)child.data->read();
        dudley::Hyperslab all = dudley::Hyperslab::all(child.shape);
        for (size_t d = 0; d < all.count.size(); ++d) {
          if (all.count[d] > 0) {
            all.start[d] = all.count[d] - 1;
            all.stride.resize(all.count.size(), 1);
            all.stride[d] = -1;
          }
        }
        (void)child.data->read(all);
      } catch (const dudley::Error&) {
      }
    }
    walk(child, budget);
    return true;
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  dudley::asdf::AsdfOpenOptions options;
  options.max_block_bytes = 1 << 24;  // what a fuzzer may make us allocate
  try {
    auto source = dudley::io::memory_source(data, size, "fuzz.asdf");
    dudley::model::Tree tree = dudley::asdf::open_asdf(source, "/nonexistent/fuzz.asdf", options);
    int budget = 10000;
    walk(*tree.root, budget);
    (void)dudley::cli::json_text(dudley::cli::node_json(*tree.root), 1);
    std::string layout;
    try {
      layout = dudley::layout::layout_text_for(tree);
    } catch (const dudley::Error&) {
      return 0;  // a tree Dudley cannot describe: refused with a message
    }
    if (!dudley::layout::parse_layout(layout).ok()) std::abort();
  } catch (const dudley::Error&) {
  }
  return 0;
}
