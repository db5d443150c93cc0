// Text from elsewhere becomes `#!` lines only (issue 62): a line end of any kind in a
// document starts another comment line, never layout text.
#include "dudley/layout/syntax/doc_lines.hpp"

#include <gtest/gtest.h>

#include "dudley/layout/syntax/builder.hpp"
#include "dudley/layout/syntax/parser.hpp"

namespace dudley::layout {
namespace {

TEST(DocLines, EveryLineEndSplits) {
  EXPECT_EQ(doc_lines("one"), std::vector<std::string>{"one"});
  EXPECT_EQ(doc_lines(""), std::vector<std::string>{""});
  EXPECT_EQ(doc_lines("a\nb\rc\r\nd"), (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_EQ(doc_lines(std::string_view("a\0b", 3)), std::vector<std::string>{"a\\0b"});
  EXPECT_EQ(doc_lines("\xff"), std::vector<std::string>{"\xef\xbf\xbd"});  // U+FFFD
}

TEST(DocLines, ADocumentCannotDeclare) {
  LayoutBuilder b;
  b.data("x", "u1", {4}, 0).doc("units\rw = u1[4] @ 0\ng /\r\nend");
  const Layout layout = layout_from_text(b.text(), "<built>");
  ASSERT_EQ(layout.nodes.size(), 2U) << b.text();  // the root and x, nothing else
  EXPECT_EQ(layout.name(layout.nodes[1].name), "x");
}

}  // namespace
}  // namespace dudley::layout
