#include "dudley/core/error.hpp"

#include <gtest/gtest.h>

namespace dudley {
namespace {

TEST(Error, TextLocationFormatsLikeACompiler) {
  Error e(ErrorCategory::kSyntax, "expected ']'", Location::text("a.dud", 3, 7));
  EXPECT_STREQ(e.what(), "a.dud:3:7: error: expected ']'");
  EXPECT_EQ(e.category(), ErrorCategory::kSyntax);
  EXPECT_EQ(e.message(), "expected ']'");
  EXPECT_EQ(e.location().line, 3u);
}

TEST(Error, BinaryLocationShowsByteOffset) {
  Error e(ErrorCategory::kData, "item ends beyond the file", Location::binary("run.bin", 4096));
  EXPECT_STREQ(e.what(), "run.bin:@4096: error: item ends beyond the file");
}

TEST(Error, NoLocationHasNoPrefix) {
  Error e(ErrorCategory::kUsage, "bad flag");
  EXPECT_STREQ(e.what(), "error: bad flag");
  EXPECT_STREQ(to_string(ErrorCategory::kUsage), "usage");
}

TEST(Error, FileOnlyLocation) {
  EXPECT_EQ(Location::file("x.bin").to_string(), "x.bin");
  EXPECT_EQ(Location{}.to_string(), "<input>");
}

}  // namespace
}  // namespace dudley
