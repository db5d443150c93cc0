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

namespace dudley {
namespace {

// error_from_text reads back what what() wrote, for each form of location.
TEST(Error, FromTextReadsEachLocationForm) {
  for (const Error& original :
       {Error(ErrorCategory::kData, "short", Location::binary("dir/a:b.bin", 248)),
        Error(ErrorCategory::kData, "bad: value", Location::text("x.dud", 3, 14)),
        Error(ErrorCategory::kData, "no place"),
        Error(ErrorCategory::kData, "whole file", Location::file("y.bin"))}) {
    const Error back = error_from_text(ErrorCategory::kData, original.what());
    EXPECT_EQ(back.message(), original.message());
    EXPECT_EQ(back.location().path, original.location().path);
    EXPECT_EQ(back.location().line, original.location().line);
    EXPECT_EQ(back.location().column, original.location().column);
    EXPECT_EQ(back.location().byte_offset, original.location().byte_offset);
    EXPECT_STREQ(back.what(), original.what());
  }
  // Text in no known form is the message.
  EXPECT_EQ(error_from_text(ErrorCategory::kIo, "plain words").message(), "plain words");
}

}  // namespace
}  // namespace dudley
