// Reading a whole Zarr store (v2 or v3, groups, consolidated metadata, names of nodes and
// keys): the input is the store's keys and values, records separated by a 0xFF byte, each
// KEY, a NUL byte, then VALUE. The tree opens or fails with an Error; every node is visited,
// its attributes read, and every array of at most 1 MiB read whole, each read either
// succeeding or failing with an Error. What a listing names that is no node's name ('..',
// '/', NUL) never becomes a path: the store is in memory, and the tree's node names are
// checked below to be plain. An input of odd length is read as a remote store (S3, a web
// server): listed from its consolidated metadata where it has some.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
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

// The store as S3 or a web server presents it (remote: its consolidated metadata, when it
// has some, lists it), the same keys and values underneath.
class RemoteView final : public io::Store {
 public:
  explicit RemoteView(std::shared_ptr<io::Store> base) : base_(std::move(base)) {}
  const std::string& name() const override { return base_->name(); }
  std::optional<uint64_t> size(const std::string& key) const override { return base_->size(key); }
  void read(const std::string& key, uint64_t offset, uint64_t length,
            std::byte* out) const override {
    base_->read(key, offset, length, out);
  }
  std::vector<std::string> subdirectories(const std::string& prefix) const override {
    return base_->subdirectories(prefix);
  }
  bool for_each_key(const std::string& prefix,
                    const std::function<void(std::string_view)>& visit) const override {
    return base_->for_each_key(prefix, visit);
  }
  bool remote() const override { return true; }

 private:
  std::shared_ptr<io::Store> base_;
};

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
    // Inputs of odd length are read as a remote store would be.
    std::shared_ptr<io::Store> store = io::memory_store(std::move(values));
    if (size % 2 == 1) store = std::make_shared<RemoteView>(std::move(store));
    const model::Tree tree = zarr::open_zarr(store);
    if (tree.root) visit(*tree.root, 0);
  } catch (const Error&) {
  }
  return 0;
}
