#include "dudley/model/tree.hpp"

#include <gtest/gtest.h>

#include "dudley/core/path.hpp"

namespace dudley::model {
namespace {

TEST(Path, SplitAndIndex) {
  EXPECT_EQ(split_path("/g//x/"), (std::vector<std::string_view>{"g", "x"}));
  EXPECT_EQ(split_path("g/x"), (std::vector<std::string_view>{"g", "x"}));
  EXPECT_TRUE(split_path("/").empty());
  EXPECT_EQ(path_index("12"), 12u);
  EXPECT_FALSE(path_index("x").has_value());
  EXPECT_FALSE(path_index("1x").has_value());
  EXPECT_FALSE(path_index("-1").has_value());
}

TEST(ModelTree, FindByPath) {
  Tree t;
  t.root = std::make_unique<Node>();
  auto list = std::make_unique<Node>();
  list->kind = NodeKind::kList;
  list->name = "L";
  auto item = std::make_unique<Node>();
  item->kind = NodeKind::kGroup;
  auto x = std::make_unique<Node>();
  x->kind = NodeKind::kArray;
  x->name = "x";
  Node* x_ptr = x.get();
  item->children.push_back(std::move(x));
  list->children.push_back(std::move(item));
  t.root->children.push_back(std::move(list));
  EXPECT_EQ(t.find("/"), t.root.get());
  EXPECT_EQ(t.find("/L/0/x"), x_ptr);
  EXPECT_EQ(t.find("L/0/x"), x_ptr);
  EXPECT_EQ(t.find("/L/1"), nullptr);
  EXPECT_EQ(t.find("/L/x"), nullptr);
  EXPECT_EQ(t.find("/L/0/x/deeper"), nullptr);
  EXPECT_EQ(t.find("/missing"), nullptr);
}

// A link listed where it points (HDF5's soft or hard link to a group of the same file).
std::unique_ptr<Node> group_link(const std::string& name, const std::string& to) {
  auto node = std::make_unique<Node>();
  node->kind = NodeKind::kArray;
  node->name = name;
  auto link = std::make_shared<Link>();
  link->kind = "soft";
  link->target = to;
  link->listed_at = to;
  link->end = Link::End::kGroupHere;
  node->link = std::move(link);
  node->error = {ErrorCategory::kData, "a soft link to " + to, {}};
  node->error.unsupported = true;
  return node;
}

TEST(ModelTree, PathsThroughLinksToGroupsLeadThereAndLoopsEnd) {
  Tree t;
  t.root = std::make_unique<Node>();
  auto g = std::make_unique<Node>();
  g->name = "g";
  auto x = std::make_unique<Node>();
  x->kind = NodeKind::kArray;
  x->name = "x";
  const Node* x_at = x.get();
  g->children.push_back(std::move(x));
  g->children.push_back(group_link("up", "/"));  // to the root: a loop
  const Node* g_at = g.get();
  t.root->children.push_back(std::move(g));
  t.root->children.push_back(group_link("alias", "/g"));
  t.root->children.push_back(group_link("a", "/b"));  // a -> b -> a: never a group
  t.root->children.push_back(group_link("b", "/a"));
  EXPECT_EQ(t.find("/alias"), g_at);
  EXPECT_EQ(t.find("/alias/x"), x_at);
  EXPECT_EQ(t.find("/g/up/alias/up/g/x"), x_at);
  EXPECT_TRUE(t.root->member("alias")->is_listed_link());
  EXPECT_EQ(t.find("/alias/nothing"), nullptr);
  EXPECT_EQ(t.find("/a"), nullptr);  // 40 hops, then nothing
  EXPECT_EQ(t.find("/a/x"), nullptr);
  EXPECT_STREQ(t.root->member("alias")->link->end_name(), "group here");
}

TEST(ModelTree, AttributeProblemsNameTheAttributeOnce) {
  const NodeError e{ErrorCategory::kData, "/v: attribute 'units': cannot convert", {}};
  EXPECT_EQ(attribute_problem("/v", "units", e), "/v: attribute 'units': cannot convert");
  const NodeError bare{ErrorCategory::kData, "bad heap", {}};
  EXPECT_EQ(attribute_problem("/v", "units", bare), "/v: attribute 'units': bad heap");
  const NodeError all{ErrorCategory::kData, "/: its attributes cannot be listed", {}};
  EXPECT_EQ(attribute_problem("/", "", all), "/: its attributes cannot be listed");
}

}  // namespace
}  // namespace dudley::model
