// Reading a whole Zarr store (v2 or v3, groups, consolidated metadata, names of nodes and
// keys): the input is the store's keys and values, records separated by a 0xFF byte, each
// KEY, a NUL byte, then VALUE. The tree opens or fails with an Error; every node is visited,
// its attributes read, and every array of at most 1 MiB read whole, each read either
// succeeding or failing with an Error. What a listing names that is no node's name ('..',
// '/', NUL) never becomes a path: the store is in memory, and the tree's node names are
// checked below to be plain.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>

#include "dudley/core/error.hpp"
#include "dudley/core/shape.hpp"
#include "dudley/formats/zarr.hpp"
#include "dudley/io/store.hpp"
#include "dudley/model/tree.hpp"

namespace {

using namespace dudley;

constexpr uint64_t kMaxReadBytes = uint64_t{1} << 20;

void visit(const model::Node& node, int depth) {
  if (depth > 64) return;
  for (const auto& child : node.children) {
    // A node's name is one plain segment: never empty, '.', '..', nor holding '/' or NUL.
    const std::string& name = child->name;
    if (child->error.empty() &&
        (name.empty() || name == "." || name == ".." ||
         name.find_first_of(std::string_view("/\0", 2)) != std::string::npos)) {
      std::abort();
    }
    visit(*child, depth + 1);
  }
  if (!node.data) return;
  try {
    const std::optional<uint64_t> bytes = Shape(node.shape).byte_size(node.dtype.size());
    if (bytes && *bytes <= kMaxReadBytes) (void)node.data->read();
  } catch (const Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::map<std::string, Bytes> values;
  size_t at = 0;
  while (at <= input.size() && values.size() < 64) {
    const size_t end = std::min(input.find('\xff', at), input.size());
    const std::string_view record = input.substr(at, end - at);
    const size_t nul = record.find('\0');
    if (nul != std::string_view::npos) {
      const std::string_view value = record.substr(nul + 1);
      Bytes bytes(value.size());
      for (size_t i = 0; i < value.size(); ++i) bytes[i] = static_cast<std::byte>(value[i]);
      values[std::string(record.substr(0, nul))] = std::move(bytes);
    }
    at = end + 1;
  }
  try {
    const model::Tree tree = zarr::open_zarr(io::memory_store(std::move(values)));
    if (tree.root) visit(*tree.root, 0);
  } catch (const Error&) {
  }
  return 0;
}
