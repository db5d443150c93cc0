#include "dudley/core/text.hpp"

#include <gtest/gtest.h>

namespace dudley {
namespace {

TEST(Text, S1IsCp1252WithLatin1Fallback) {
  EXPECT_EQ(decode_s1("caf\xe9"), "caf\xc3\xa9");             // é
  EXPECT_EQ(decode_s1("\x80 5"), "\xe2\x82\xac 5");           // cp1252 0x80 is the euro sign
  EXPECT_EQ(decode_s1("\x80\x81"), "\xc2\x80\xc2\x81");       // 0x81 undefined: all latin-1
  EXPECT_EQ(decode_s1(std::string_view("ab\0\0", 4)), "ab");  // NUL padding dropped
  EXPECT_EQ(decode_s1(std::string_view("a\0b", 3)), std::string("a\0b", 3));  // inner NUL kept
}

TEST(Text, Utf8IsCheckedAndRepaired) {
  EXPECT_EQ(decode_utf8("\xe2\x82\xac"), "\xe2\x82\xac");
  EXPECT_EQ(decode_utf8("a\xff"
                        "b"),
            "a\xef\xbf\xbd"
            "b");                                                  // invalid byte -> U+FFFD
  EXPECT_EQ(decode_utf8("\xc0\x80"), "\xef\xbf\xbd\xef\xbf\xbd");  // overlong
  EXPECT_EQ(decode_utf8("\xe2\x82"), "\xef\xbf\xbd\xef\xbf\xbd");  // truncated
}

TEST(Text, Utf16AndUtf32) {
  const uint16_t pair[] = {0x0041, 0xD83D, 0xDE00, 0, 0};  // "A😀" + padding
  EXPECT_EQ(decode_utf16(pair, 5), "A\xf0\x9f\x98\x80");
  const uint16_t lone[] = {0xD800, 0x0042};
  EXPECT_EQ(decode_utf16(lone, 2),
            "\xef\xbf\xbd"
            "B");
  const uint32_t wide[] = {0x1F600, 0x110000, 0};
  EXPECT_EQ(decode_utf32(wide, 3), "\xf0\x9f\x98\x80\xef\xbf\xbd");
}

}  // namespace
}  // namespace dudley
