// The pair record that ties a data file to the layout written beside it.
#include "dudley/layout/write/pair_record.hpp"

#include <gtest/gtest.h>

#include "dudley/core/error.hpp"

namespace dudley::layout {
namespace {

TEST(PairRecord, LineAndTrailerRoundTrip) {
  const PairRecord r = new_pair_record(4096);
  const std::string line = pair_line(r);
  ASSERT_EQ(line.substr(0, 15), "# dudley-pair: ");
  const auto back = parse_pair_line(line + "x = f8\n");
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->id, r.id);
  EXPECT_EQ(back->data_length, 4096u);
  const std::string trailer = pair_trailer(r);
  ASSERT_EQ(trailer.size(), kPairTrailerBytes);
  EXPECT_EQ(static_cast<unsigned char>(trailer[0]), 0x00);  // 4096 = 0x1000, little-endian
  EXPECT_EQ(static_cast<unsigned char>(trailer[1]), 0x10);
  EXPECT_EQ(trailer.substr(24), std::string("\x89"
                                            "DPAIR\r\n",
                                            8));
  EXPECT_NE(new_pair_record(4096).id, r.id);  // random: two writes never share one
}

TEST(PairRecord, MalformedLinesAreNotRecords) {
  for (const char* text :
       {"", "x = f8\n", "# dudley-pair: 12\n",
        "# dudley-pair: zz1c0000000000000000000000000000 5\n",
        "# dudley-pair: 6f1c0000000000000000000000000000 -5\n",
        "# dudley-pair: 6f1c0000000000000000000000000000 99999999999999999999999\n",
        " # dudley-pair: 6f1c0000000000000000000000000000 5\n"}) {
    EXPECT_FALSE(parse_pair_line(text).has_value()) << text;
  }
}

TEST(PairRecord, VerifyNamesBothFilesOnMismatch) {
  const PairRecord r = new_pair_record(4);
  std::string file = "abcd" + pair_trailer(r);
  EXPECT_NO_THROW(verify_pair(r, *io::memory_source(file.data(), file.size(), "d.bin"), "d.dud"));
  PairRecord other = new_pair_record(4);
  try {
    verify_pair(other, *io::memory_source(file.data(), file.size(), "d.bin"), "d.dud");
    ADD_FAILURE() << "another write's record was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("d.bin"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("d.dud"), std::string::npos) << e.what();
  }
  other = r;
  other.data_length = UINT64_MAX - 3;  // a crafted length must not wrap
  EXPECT_THROW(verify_pair(other, *io::memory_source(file.data(), file.size(), "d.bin"), "d.dud"),
               Error);
  EXPECT_THROW(verify_pair(r, *io::memory_source(file.data(), 10, "d.bin"), "d.dud"), Error);
}

}  // namespace
}  // namespace dudley::layout
