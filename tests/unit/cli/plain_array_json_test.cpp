// ls --json prints plain arrays without building their JSON (write_plain_array_json): the
// text must be exactly what node_json's JSON prints as, indented and on one line, and any
// array with more to say must be left to node_json.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/json_stream.hpp"
#include "cli/plain_array_json.hpp"
#include "cli/tree_json.hpp"

namespace dudley::cli {
namespace {

model::Node array(const std::string& dtype, std::vector<int64_t> shape) {
  model::Node n;
  n.kind = model::NodeKind::kArray;
  n.name = "x";
  n.dtype = DType::from_typestr(dtype);
  n.shape = std::move(shape);
  return n;
}

model::Node contiguous(const std::string& dtype, std::vector<int64_t> shape, uint64_t offset,
                       ByteOrder order) {
  model::Node n = array(dtype, std::move(shape));
  n.storage.kind = model::Storage::Kind::kContiguous;
  n.storage.offset = offset;
  n.storage.size = 8;
  n.storage.order = order;
  return n;
}

std::string fast(const model::Node& n, int indent, int level) {
  Output out;
  EXPECT_TRUE(write_plain_array_json(out, n, indent, level));
  return std::string(*out.since(0));
}

std::string through_node_json(const model::Node& n, int indent, int level) {
  Output out;
  write_json_at(out, node_json(n, TreeWalk{}, "/x"), indent, level);
  return std::string(*out.since(0));
}

TEST(PlainArrayJson, PrintsWhatNodeJsonPrints) {
  std::vector<model::Node> nodes;
  nodes.push_back(contiguous("<f8", {3, 4}, 959359, ByteOrder::kLittle));
  nodes.push_back(contiguous(">i2", {7}, 0, ByteOrder::kBig));
  nodes.push_back(contiguous("|u1", {}, 12, ByteOrder::kUnspecified));  // a scalar
  nodes.push_back(array("<c16", {2, 0, 5}));  // stored nowhere the format says
  nodes.push_back(contiguous("<f4", {1}, 0, ByteOrder::kLittle));
  nodes.back().storage.offset.reset();
  nodes.push_back(array("<f8", {}));
  nodes.back().empty = true;
  nodes.push_back(array("|S5", {2}));
  for (const model::Node& n : nodes) {
    for (int indent : {2, 4, -1}) {
      for (int level : {0, 1, 3}) {
        const std::string expected = through_node_json(n, indent, level);
        EXPECT_EQ(fast(n, indent, level), expected) << "indent " << indent << " level " << level;
        // And it is JSON, the same document.
        EXPECT_EQ(nlohmann::ordered_json::parse(fast(n, indent, level)),
                  node_json(n, TreeWalk{}, "/x"));
      }
    }
  }
}

TEST(PlainArrayJson, LeavesEverythingElseToNodeJson) {
  std::vector<model::Node> nodes;
  auto plain = [] { return contiguous("<f8", {3}, 8, ByteOrder::kLittle); };
  nodes.push_back(plain());
  nodes.back().doc = "documented";
  nodes.push_back(plain());
  nodes.back().attributes.set("units", model::Value("K"));
  nodes.push_back(plain());
  nodes.back().error.message = "cannot locate it";
  nodes.push_back(plain());
  nodes.back().storage.max_shape = {-1};
  nodes.push_back(array("<f8", {4}));
  nodes.back().storage.kind = model::Storage::Kind::kChunked;
  nodes.push_back(model::Node{});
  nodes.back().kind = model::NodeKind::kGroup;
  for (const model::Node& node : nodes) {
    Output out;
    EXPECT_FALSE(write_plain_array_json(out, node, 2, 1));
    EXPECT_EQ(out.written(), 0u);
  }
}

}  // namespace
}  // namespace dudley::cli
