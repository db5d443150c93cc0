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

namespace dudley {
namespace {

std::vector<uint8_t> bytes_of(std::string_view s) {
  return {s.begin(), s.end()};
}

TEST(Base64, Rfc4648Vectors) {
  // RFC 4648 section 10.
  const std::pair<const char*, const char*> vectors[] = {{"", ""},
                                                         {"f", "Zg=="},
                                                         {"fo", "Zm8="},
                                                         {"foo", "Zm9v"},
                                                         {"foob", "Zm9vYg=="},
                                                         {"fooba", "Zm9vYmE="},
                                                         {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, coded] : vectors) {
    EXPECT_EQ(encode_base64(bytes_of(plain)), coded);
    EXPECT_EQ(decode_base64(coded), bytes_of(plain)) << coded;
  }
  EXPECT_EQ(decode_base64("Zm9v\n YmFy"), bytes_of("foobar"));  // whitespace is ignored
  EXPECT_FALSE(decode_base64("Zm9v!"));
  EXPECT_FALSE(decode_base64("Zg==Zg"));  // data after padding
}

TEST(Utf8ToUtf32, CodePointsAndInvalidText) {
  EXPECT_EQ(utf8_to_utf32("a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80"),
            std::u32string(U"a\u00e9\u20ac\U0001F600"));
  EXPECT_EQ(utf8_to_utf32(""), std::u32string());
  EXPECT_FALSE(utf8_to_utf32("\xC3"));          // cut short
  EXPECT_FALSE(utf8_to_utf32("\xE2\x28\xA1"));  // bad continuation
  EXPECT_FALSE(utf8_to_utf32("\xFF"));
}

}  // namespace
}  // namespace dudley
