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

// RFC 3629's well-formed byte sequences (Table 3-7 of the Unicode standard): Python's
// bytes.decode("utf-8") accepts exactly the first group and refuses the second.
TEST(Text, IsUtf8FollowsRfc3629) {
  for (const char* ok : {"", "plain ASCII", "\xc2\xb5m", "caf\xc3\xa9", "\xe2\x82\xac",
                         "\xed\x9f\xbf", "\xee\x80\x80", "\xf0\x90\x80\x80", "\xf4\x8f\xbf\xbf"}) {
    EXPECT_TRUE(dudley::is_utf8(ok)) << ok;
  }
  for (const char* bad : {"\xb5m",             // Latin-1 micro sign
                          "caf\xe9",           // Latin-1 e acute, at the end
                          "\xc0\x80",          // overlong NUL
                          "\xc1\xbf",          // overlong
                          "\xe0\x9f\xbf",      // overlong three-byte form
                          "\xed\xa0\x80",      // a surrogate
                          "\xf0\x8f\xbf\xbf",  // overlong four-byte form
                          "\xf4\x90\x80\x80",  // past U+10FFFF
                          "\xf5\x80\x80\x80",  // lead byte never used
                          "\xe2\x82",          // cut short
                          "\xe2\x28\xa1",      // a continuation byte missing
                          "\xff\xfe"}) {
    EXPECT_FALSE(dudley::is_utf8(bad)) << bad;
  }
  EXPECT_TRUE(dudley::is_utf8(std::string_view("a\0b", 3)));  // NUL is a character
}

// Text from a file printed to a terminal: control characters come out as escapes, so a name
// holding ESC [ 2 J cannot clear the screen, nor a line end start a line of its own.
TEST(Text, EscapeControls) {
  EXPECT_EQ(dudley::escape_controls("plain /g/x \xc2\xb5m"), "plain /g/x \xc2\xb5m");
  EXPECT_EQ(dudley::escape_controls("a\nb\rc\td"), "a\\nb\\rc\\td");
  EXPECT_EQ(dudley::escape_controls("\x1b[2J\x7f"), "\\x1b[2J\\x7f");
  EXPECT_EQ(dudley::escape_controls(std::string_view("a\0b", 3)), "a\\x00b");
  // C1 CSI (U+009B) escaped; other non-ASCII text (U+00B5) kept.
  EXPECT_EQ(dudley::escape_controls("\xc2\x9b"
                                    "2J \xc2\xb5m"),
            "\\u009b2J \xc2\xb5m");
  // A report of several lines keeps its line ends and tabs, not its other controls.
  EXPECT_EQ(dudley::escape_controls("one\n\ttwo\r\x1b", true), "one\n\ttwo\\r\\x1b");
  // An 8-bit CSI byte (not UTF-8) escaped; a Latin-1 byte (0xE9) kept as it is.
  EXPECT_EQ(dudley::escape_controls("a\x9b"
                                    "31m caf\xe9"),
            "a\\x9b31m caf\xe9");
  // Characters that reorder what is shown (RIGHT-TO-LEFT OVERRIDE, LEFT-TO-RIGHT ISOLATE).
  EXPECT_EQ(dudley::escape_controls("x\xe2\x80\xaeyz.npy \xe2\x81\xa6"), "x\\u202eyz.npy \\u2066");
  // Other three-byte characters (U+2028 is text here, U+20AC) are kept.
  EXPECT_EQ(dudley::escape_controls("\xe2\x82\xac"), "\xe2\x82\xac");
}
