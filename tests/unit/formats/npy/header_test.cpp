// The .npy header: what numpy writes parses, what we write numpy's rules accept (64-byte
// alignment, version by size), and damaged headers are errors with the byte offset.
#include <gtest/gtest.h>

#include "dudley/core/error.hpp"
#include "formats/npy/metadata.hpp"

namespace dudley::npy {
namespace {

std::string v1(const std::string& dict) {
  std::string h = "\x93NUMPY";
  h += '\x01';
  h += '\0';
  h += static_cast<char>(dict.size() & 0xff);
  h += static_cast<char>(dict.size() >> 8);
  return h + dict;
}

TEST(NpyHeader, ParsesWhatNumpyWrites) {
  const Header h = parse_header(
      v1("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }          \n"), "x.npy");
  EXPECT_EQ(h.dtype, DType::float_(8, ByteOrder::kLittle));
  EXPECT_EQ(h.shape, (std::vector<int64_t>{3, 4}));
  EXPECT_FALSE(h.fortran_order);
  const Header s =
      parse_header(v1("{'descr': [('a', '<i4'), ('b', '>f8', (2,)), ('c', [('x', '|u1')])], "
                      "'fortran_order': True, 'shape': (), }\n"),
                   "s.npy");
  ASSERT_EQ(s.dtype.kind(), DTypeKind::kCompound);
  EXPECT_EQ(s.dtype.size(), 4u + 16u + 1u);
  EXPECT_EQ(s.dtype.fields()[1].shape, (std::vector<int64_t>{2}));
  EXPECT_TRUE(s.fortran_order);
  EXPECT_TRUE(s.shape.empty());
  // numpy's S<n> is one string per element.
  const Header t =
      parse_header(v1("{'descr': '|S5', 'fortran_order': False, 'shape': (2,), }\n"), "t.npy");
  EXPECT_TRUE(t.dtype.is_string());
  EXPECT_EQ(t.dtype.text_length(), 5u);
}

TEST(NpyHeader, WrittenHeadersAlignAndReadBack) {
  const DType f = DType::float_(4, ByteOrder::kBig);
  const std::string h = make_header(f, {7, 0, 2});
  EXPECT_EQ(h.size() % 64, 0u);
  EXPECT_EQ(h.back(), '\n');
  const Header back = parse_header(h, "w.npy");
  EXPECT_EQ(back.dtype, f);
  EXPECT_EQ(back.shape, (std::vector<int64_t>{7, 0, 2}));
  EXPECT_EQ(back.data_offset, h.size());
  EXPECT_EQ(parse_header(make_header(f, {5}), "w.npy").shape, (std::vector<int64_t>{5}));
  EXPECT_THROW(make_header(DType::vlen(DType::uint(1)), {1}), Error);
}

TEST(NpyHeader, DamageIsAnErrorAtItsOffset) {
  const struct {
    std::string bytes;
    uint64_t offset;
  } cases[] = {
      {"\x93NUMPX\x01\x00\x10\x00", 0},
      {v1("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4)"), 10},
      {v1("{'descr': '|O', 'fortran_order': False, 'shape': (3,), }\n"), 0},
      {v1("{'descr': '<f8', 'fortran_order': 0, 'shape': (3,), }\n"), 10},
      {v1("{'descr': '<f8', 'fortran_order': False, 'shape': (-3,), }\n"), 10},
      {v1(std::string(40, '(') + std::string(40, ')')), 10},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.bytes);
    try {
      parse_header(c.bytes, "bad.npy");
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.location().path, "bad.npy");
      if (e.location().byte_offset) {
        EXPECT_GE(*e.location().byte_offset, c.offset);
      }
    }
  }
  // A header length past the end of what is given.
  std::string cut = v1("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }\n");
  cut.resize(20);
  EXPECT_THROW(parse_header(cut, "cut.npy"), Error);
}

TEST(NpyHeader, DuplicateKeysAreRefusedAtTheSecond) {
  // Python keeps the last 'shape', so reading the first would read other bytes than numpy.
  const std::string dict =
      "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'shape': (3,), }\n";
  try {
    parse_header(v1(dict), "dup.npy");
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("the key 'shape' appears twice"), std::string::npos) << e.message();
    ASSERT_TRUE(e.location().byte_offset);
    EXPECT_EQ(*e.location().byte_offset, 10 + dict.find("'shape': (3"));
  }
  // Many distinct keys stay linear (a 1 MiB header of keys is read in well under a second).
  std::string many = "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), ";
  for (int i = 0; i < 50000; ++i) many += "'k" + std::to_string(i) + "': 0, ";
  many += "}\n";
  std::string v2 = "\x93NUMPY";
  v2 += '\x02';
  v2 += '\0';
  for (int b = 0; b < 4; ++b) v2 += static_cast<char>((many.size() >> (8 * b)) & 0xff);
  EXPECT_NO_THROW(parse_header(v2 + many, "many.npy"));
}

}  // namespace
}  // namespace dudley::npy
