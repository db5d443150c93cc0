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

}  // namespace
}  // namespace dudley::model
