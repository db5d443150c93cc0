// Malformed ASDF files: each is a clear error naming the block or tree place, never a crash
// or an allocation of what the file merely claims.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "dudley/codec/checksum.hpp"
#include "dudley/formats/asdf.hpp"
#include "formats/asdf/blocks.hpp"

namespace dudley::asdf {
namespace {

const std::string kHead =
    "#ASDF 1.0.0\n#ASDF_STANDARD 1.5.0\n%YAML 1.1\n%TAG ! tag:stsci.edu:asdf/\n--- "
    "!core/asdf-1.1.0\n";

std::string block(const std::string& data, BlockHeader h = {}, bool checksum = true) {
  if (h.allocated_size == 0 && h.used_size == 0 && h.data_size == 0) {
    h.allocated_size = h.used_size = h.data_size = data.size();
  }
  if (checksum)
    h.checksum = codec::md5({reinterpret_cast<const std::byte*>(data.data()), data.size()});
  auto bytes = encode_block_header(h);
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()) + data;
}

std::string f8_tree(const std::string& extra = "", const std::string& shape = "[4]") {
  return kHead +
         "x: !core/ndarray-1.0.0 {source: 0, datatype: float64, byteorder: little, shape: " +
         shape + extra + "}\n...\n";
}

std::string four_doubles() {
  double v[4] = {1, 2, 3, 4};
  return std::string(reinterpret_cast<const char*>(v), sizeof v);
}

model::Tree read(const std::string& bytes, AsdfOpenOptions options = {}) {
  auto source = io::memory_source(bytes.data(), bytes.size(), "t.asdf");
  return open_asdf(source, "/tmp/dudley-asdf-test/t.asdf", options);
}

// The error reading array /x gives (on the node, or when reading its data).
std::string array_error(const std::string& bytes, AsdfOpenOptions options = {}) {
  model::Tree t = read(bytes, options);
  const model::Node* x = t.find("/x");
  if (!x) return "no /x";
  if (!x->error.empty()) return x->error.text();
  try {
    x->data->read();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(AsdfBadInput, AGoodFileReads) {
  const std::string bytes = f8_tree() + block(four_doubles());
  EXPECT_EQ(array_error(bytes), "");
  EXPECT_EQ(read(bytes).find("/x")->data->read().get<double>({3}), 4.0);
}

TEST(AsdfBadInput, WrongMagic) {
  try {
    read("#ASDX 1.0.0\n");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("t.asdf:@0"), std::string::npos) << e.what();
  }
}

TEST(AsdfBadInput, TreeWithoutEnd) {
  EXPECT_THROW(read(kHead + "x: 1\n"), Error);
}

TEST(AsdfBadInput, TruncatedBlockAndSizesBeyondTheFile) {
  std::string whole = f8_tree() + block(four_doubles());
  EXPECT_THROW(read(whole.substr(0, whole.size() - 5)), Error);
  BlockHeader h;
  h.allocated_size = h.used_size = h.data_size = uint64_t{1} << 60;
  try {
    read(f8_tree() + block(four_doubles(), h, false));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("block 0"), std::string::npos) << e.what();
  }
}

TEST(AsdfBadInput, UsedLargerThanAllocated) {
  BlockHeader h;
  h.allocated_size = 16;
  h.used_size = h.data_size = 32;
  EXPECT_THROW(read(f8_tree() + block(four_doubles(), h)), Error);
}

TEST(AsdfBadInput, BadChecksumIsReportedUnlessSkipped) {
  std::string bytes = f8_tree() + block(four_doubles());
  bytes[bytes.size() - 1] ^= 0x40;  // data changed after the MD5 was taken
  EXPECT_NE(array_error(bytes).find("MD5 checksum mismatch"), std::string::npos);
  AsdfOpenOptions skip;
  skip.verify_checksums = false;
  EXPECT_EQ(array_error(bytes, skip), "");
}

// Compressed blocks are hashed as they decode (lz4: on a second core, chunk by chunk), so
// the checks run on blocks of several 4 MiB chunks and several huge pages.
TEST(AsdfBadInput, CompressedBlocksAreVerifiedAsTheyDecode) {
  const size_t n = (size_t{9} << 20) / 8;  // 9 MiB: three lz4 chunks
  std::vector<double> values(n);
  for (size_t i = 0; i < n; ++i) values[i] = static_cast<double>(i % 1000) * 0.5;
  const codec::ByteView raw(reinterpret_cast<const std::byte*>(values.data()), n * 8);
  const std::string shape = "[" + std::to_string(n) + "]";
  for (const std::string compression : {"lz4", "zlib"}) {
    SCOPED_TRACE(compression);
    const codec::Bytes packed = compress_block(compression, raw);
    BlockHeader h;
    h.allocated_size = h.used_size = packed.size();
    h.data_size = raw.size();
    std::memcpy(h.compression.data(), compression.data(), 4);
    h.checksum = codec::md5(raw);
    const std::string data(reinterpret_cast<const char*>(packed.data()), packed.size());
    const std::string good = f8_tree("", shape) + block(data, h, false);
    model::Tree t = read(good);
    const NDArray x = t.find("/x")->data->read();
    ASSERT_EQ(x.byte_size(), raw.size());
    EXPECT_EQ(std::memcmp(x.data(), values.data(), raw.size()), 0);

    BlockHeader wrong = h;
    wrong.checksum[3] ^= 1;
    EXPECT_NE(
        array_error(f8_tree("", shape) + block(data, wrong, false)).find("MD5 checksum mismatch"),
        std::string::npos);
    // A damaged last chunk: the decoder fails, the hashing side stops (no hang).
    std::string damaged = good;
    for (size_t k = 1; k <= 64; ++k) damaged[damaged.size() - k] = '\xff';
    EXPECT_NE(array_error(damaged).find("block 0"), std::string::npos);
  }
}

TEST(AsdfBadInput, ZeroChecksumMeansNone) {
  EXPECT_EQ(array_error(f8_tree() + block(four_doubles(), {}, false)), "");
}

TEST(AsdfBadInput, BlockIndexPointingNowhereIsIgnored) {
  const std::string bytes = f8_tree() + block(four_doubles()) + encode_block_index({12345});
  EXPECT_EQ(array_error(bytes), "");
}

TEST(AsdfBadInput, SourcesOutsideTheDirectoryAreRefused) {
  const std::string bytes = kHead +
                            "x: !core/ndarray-1.0.0 {source: ../../etc/x.asdf, datatype: float64, "
                            "byteorder: little, shape: [4]}\n...\n";
  EXPECT_NE(array_error(bytes).find("outside the directory"), std::string::npos);
  const std::string absolute = kHead +
                               "x: !core/ndarray-1.0.0 {source: /etc/x.asdf, datatype: float64, "
                               "byteorder: little, shape: [4]}\n...\n";
  EXPECT_NE(array_error(absolute).find("outside the directory"), std::string::npos);
}

TEST(AsdfBadInput, StridesOutsideTheBlock) {
  EXPECT_NE(array_error(f8_tree(", strides: [16]") + block(four_doubles())).find("addresses bytes"),
            std::string::npos);
  EXPECT_NE(array_error(f8_tree(", offset: 8, strides: [-8]") + block(four_doubles()))
                .find("addresses bytes"),
            std::string::npos);
  EXPECT_NE(array_error(f8_tree("", "[5]") + block(four_doubles())).find("addresses bytes"),
            std::string::npos);
  // Reversed, inside: fine.
  EXPECT_EQ(array_error(f8_tree(", offset: 24, strides: [-8]") + block(four_doubles())), "");
}

TEST(AsdfBadInput, DecompressionBombIsRefusedBeforeAllocating) {
  BlockHeader h;
  std::memcpy(h.compression.data(), "zlib", 4);
  const codec::Bytes z =
      compress_block("zlib", {reinterpret_cast<const std::byte*>(four_doubles().data()), 32});
  const std::string zs(reinterpret_cast<const char*>(z.data()), z.size());
  h.allocated_size = h.used_size = zs.size();
  h.data_size = uint64_t{1} << 40;  // claims a terabyte
  AsdfOpenOptions options;
  options.max_block_bytes = 1 << 20;
  // More than deflate can expand to (about 1032:1): refused from the sizes alone.
  EXPECT_NE(array_error(f8_tree("", "[4]") + block(zs, h, false), options)
                .find("cannot decode to the 1099511627776 bytes its data_size claims"),
            std::string::npos);
  // A size the stream could honestly reach, beyond --max-block-size: the limit refuses it.
  const std::vector<double> zeros(1 << 18);  // 2 MiB, a few KiB once deflated
  const codec::Bytes zz =
      compress_block("zlib", {reinterpret_cast<const std::byte*>(zeros.data()), 8 * zeros.size()});
  BlockHeader big = h;
  big.allocated_size = big.used_size = zz.size();
  big.data_size = 8 * zeros.size();
  EXPECT_NE(array_error(f8_tree("", "[262144]") +
                            block(std::string(reinterpret_cast<const char*>(zz.data()), zz.size()),
                                  big, false),
                        options)
                .find("allowed (--max-block-size)"),
            std::string::npos);
  // Within the limit but more than the data decodes to: a data error, not a crash.
  h.data_size = 64;
  EXPECT_NE(array_error(f8_tree("", "[8]") + block(zs, h, false), options), "");
}

TEST(AsdfBadInput, UnknownDatatypeAndByteorderStayOnTheNode) {
  model::Tree t =
      read(kHead +
           "x: !core/ndarray-1.0.0 {source: 0, datatype: float128, byteorder: little, shape: [1]}\n"
           "y: 3\n...\n");
  const model::Node* x = t.find("/x");
  ASSERT_NE(x, nullptr);
  EXPECT_NE(x->error.text().find("unknown datatype 'float128'"), std::string::npos)
      << x->error.text();
  EXPECT_NE(x->error.text().find("t.asdf:6:"), std::string::npos) << x->error.text();
  EXPECT_NE(t.root->attributes.find("y"), nullptr);  // the rest of the tree is still read
}

TEST(AsdfBadInput, AliasBombInTheTree) {
  std::string text = kHead + "a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n";
  for (int i = 1; i <= 9; ++i) {
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) text += (k ? ", *a" : "*a") + std::to_string(i - 1);
    text += "]\n";
  }
  EXPECT_THROW(read(text + "...\n"), Error);
}

// Aliases inside a datatype multiply struct fields: nine levels of ten give 10^9 fields from a
// few hundred bytes. The expansion budget covers datatypes as it covers the tree.
TEST(AsdfBadInput, AliasBombInADatatype) {
  std::string t = kHead + "x: !core/ndarray-1.0.0\n  data: []\n  shape: [0]\n  datatype:\n";
  t += "  - {datatype: &d0 [int8, int8, int8, int8, int8, int8, int8, int8, int8, int8]}\n";
  for (int i = 1; i <= 8; ++i) {
    t += "  - {datatype: &d" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k)
      t += (k ? ", {datatype: *d" : "{datatype: *d") + std::to_string(i - 1) + "}";
    t += "]}\n";
  }
  try {
    read(t + "...\n");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::kLimit) << e.what();
  }
}

TEST(AsdfBadInput, MaskMustBroadcastToItsArray) {
  const std::string tree =
      "x: !core/ndarray-1.0.0\n  data: [[1, 2, 3]]\n  datatype: int8\n  shape: [1, 3]\n"
      "  mask: !core/ndarray-1.0.0 {data: MASK, datatype: bool8, shape: SHAPE}\n...\n";
  auto with = [&](const std::string& data, const std::string& shape) {
    std::string t = tree;
    t.replace(t.find("MASK"), 4, data);
    t.replace(t.find("SHAPE"), 5, shape);
    return array_error(kHead + t);
  };
  EXPECT_EQ(with("[[true, false, true]]", "[1, 3]"), "");
  EXPECT_EQ(with("[true, false, true]", "[3]"), "");  // broadcast over the first dimension
  EXPECT_EQ(with("[true]", "[1]"), "");
  const std::string e = with("[true, false]", "[2]");
  EXPECT_NE(e.find("t.asdf:10:"), std::string::npos) << e;  // at the mask
  EXPECT_NE(e.find("mask has shape [2], which does not broadcast to the array's shape [1, 3]"),
            std::string::npos)
      << e;
  EXPECT_NE(with("[[[true, false, true]]]", "[1, 1, 3]"), "");  // more dimensions than its array
}

TEST(AsdfBadInput, InlineShapeClaimingMoreThanTheTreeHolds) {
  const std::string bytes =
      kHead +
      "x: !core/ndarray-1.0.0 {data: [1, 2], datatype: int8, shape: [1000000000000]}\n...\n";
  EXPECT_NE(array_error(bytes), "");
}

// Blocks named by read_ahead() decode on another thread while the block before is used; what
// a reader sees is what it would see reading each block alone: the values, a damaged block's
// error, a checksum mismatch; and a tree closed with a block still decoding ahead.
TEST(AsdfBadInput, BlocksDecodedAheadReadAsAlone) {
  const size_t n = (size_t{5} << 20) / 8;  // above the size decoded with a second core
  std::string tree = kHead;
  std::string blocks;
  std::vector<std::vector<double>> values(4, std::vector<double>(n));
  for (size_t k = 0; k < 4; ++k) {
    for (size_t i = 0; i < n; ++i) values[k][i] = static_cast<double>((i * (k + 3)) % 977);
    const codec::ByteView raw(reinterpret_cast<const std::byte*>(values[k].data()), n * 8);
    const codec::Bytes packed = compress_block("zlib", raw);
    BlockHeader h;
    h.allocated_size = h.used_size = packed.size();
    h.data_size = raw.size();
    std::memcpy(h.compression.data(), "zlib", 4);
    h.checksum = codec::md5(raw);
    if (k == 2) h.checksum[0] ^= 1;  // block 2: a checksum mismatch
    std::string data(reinterpret_cast<const char*>(packed.data()), packed.size());
    if (k == 1) {
      for (size_t j = 1; j <= 64; ++j) data[data.size() - j] = '\xff';  // block 1: damaged
    }
    blocks += block(data, h, false);
    tree += fmt::format(
        "x{}: !core/ndarray-1.0.0 {{source: {}, datatype: float64, "
        "byteorder: little, shape: [{}]}}\n",
        k, k, n);
  }
  const std::string bytes = tree + "...\n" + blocks;
  const std::string path = testing::TempDir() + "/decoded_ahead.asdf";
  std::ofstream(path, std::ios::binary) << bytes;
  for (const bool from_file : {false, true}) {
    SCOPED_TRACE(from_file ? "file" : "memory");
    auto open = [&] { return from_file ? open_asdf(io::open_file(path), path, {}) : read(bytes); };
    auto equals = [&](const model::Tree& t, size_t k) {
      const NDArray x = t.find(fmt::format("/x{}", k))->data->read(Hyperslab::all({int64_t(n)}));
      return std::memcmp(x.data(), values[k].data(), n * 8) == 0;
    };
    auto error = [&](const model::Tree& t, size_t k) -> std::string {
      try {
        t.find(fmt::format("/x{}", k))->data->read(Hyperslab::all({int64_t(n)}));
      } catch (const Error& e) {
        return e.what();
      }
      return "";
    };
    {  // In order, each next block named before the one before is read.
      model::Tree t = open();
      t.find("/x1")->data->read_ahead();
      EXPECT_TRUE(equals(t, 0));
      t.find("/x2")->data->read_ahead();
      EXPECT_NE(error(t, 1).find("block 1"), std::string::npos);
      t.find("/x3")->data->read_ahead();
      EXPECT_NE(error(t, 2).find("MD5 checksum mismatch"), std::string::npos);
      EXPECT_TRUE(equals(t, 3));
      EXPECT_TRUE(equals(t, 0));  // read again, after its memory went to other blocks
    }
    {  // Named wrongly: the block read is decoded where it is asked for.
      model::Tree t = open();
      t.find("/x3")->data->read_ahead();
      EXPECT_TRUE(equals(t, 0));
      EXPECT_TRUE(equals(t, 0));
      EXPECT_NE(error(t, 2).find("MD5 checksum mismatch"), std::string::npos);
      EXPECT_TRUE(equals(t, 3));
    }
    {  // Closed while a block decodes ahead.
      model::Tree t = open();
      t.find("/x3")->data->read_ahead();
      EXPECT_TRUE(equals(t, 0));
    }
  }
}

}  // namespace
}  // namespace dudley::asdf

namespace dudley::asdf {
namespace {

// Eight arrays viewing one block (as python3-asdf writes a base array's views), verified
// several at once: one thread hashes the block while the others wait for its answer, and a
// wrong checksum fails them, then and whenever they are verified again.
TEST(AsdfBadInput, ViewsOfOneBlockVerifiedAtOnce) {
  const size_t per_view = (size_t{1} << 20) / 8;  // 1 MiB of doubles per view
  std::vector<double> values(8 * per_view);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(i);
  const std::string data(reinterpret_cast<const char*>(values.data()), values.size() * 8);
  std::string tree = kHead;
  for (size_t k = 0; k < 8; ++k) {
    tree += fmt::format(
        "x{}: !core/ndarray-1.0.0 {{source: 0, datatype: float64, byteorder: little, "
        "shape: [{}], offset: {}}}\n",
        k, per_view, k * per_view * 8);
  }
  tree += "...\n";
  for (const bool good : {true, false}) {
    SCOPED_TRACE(good ? "right checksum" : "wrong checksum");
    BlockHeader h;
    h.allocated_size = h.used_size = h.data_size = data.size();
    h.checksum = codec::md5({reinterpret_cast<const std::byte*>(data.data()), data.size()});
    if (!good) h.checksum[0] ^= 1;
    const std::string file = tree + block(data, h, false);  // read in place: kept alive
    const model::Tree t = read(file);
    std::vector<model::ArraySource*> sources;
    for (size_t k = 0; k < 8; ++k) sources.push_back(t.find(fmt::format("/x{}", k))->data.get());
    if (good) {
      model::verify_all(sources);
      for (size_t k = 0; k < 8; ++k) {
        const NDArray x = sources[k]->read();
        EXPECT_EQ(static_cast<const double*>(x.data())[0], static_cast<double>(k * per_view));
      }
    } else {
      EXPECT_THROW(model::verify_all(sources), Error);
      // Verified again when asked (a view of a large block is read without it).
      for (size_t k = 0; k < 8; ++k) {
        try {
          sources[k]->verify();
          ADD_FAILURE() << "view " << k << " verified with a wrong checksum";
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("MD5 checksum mismatch"), std::string::npos);
        }
      }
    }
  }
}

}  // namespace
}  // namespace dudley::asdf
