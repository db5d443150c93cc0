// Container files: written with every codec and read back record by record (in order and
// out of order), and broken files refused naming the byte.
#include "formats/avro/container.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "dudley/core/error.hpp"
#include "dudley/io/byte_source.hpp"
#include "formats/avro/ndarray_record.hpp"
#include "formats/avro/reader.hpp"
#include "test_support.hpp"

namespace dudley::avro {
namespace {

class AvroContainer : public dudley::testing::TempDirTest {};

std::string write_records(const std::string& path, const std::string& codec, int records,
                          uint64_t block_bytes) {
  ContainerWriter w(path, ndarray_schema(), codec, block_bytes);
  for (int r = 0; r < records; ++r) {
    NDArray a(DType::int_(4), Shape({r % 5}));
    auto* p = static_cast<int32_t*>(a.mutable_data());
    for (int i = 0; i < r % 5; ++i) p[i] = r * 10 + i;
    BinaryWriter out(w.record_buffer());
    encode_ndarray(a, out);
    w.commit_record();
  }
  w.commit();
  return path;
}

TEST_F(AvroContainer, EveryCodecBothWaysInAnyOrder) {
  for (const std::string& codec : container_codecs()) {
    const std::string path = write_records(file("c_" + codec + ".avro"), codec, 1000, 256);
    const model::Tree tree = open_avro(path);
    ASSERT_EQ(model::child_count(*tree.root), 1000u) << codec;
    auto check = [&](uint64_t r) {
      const model::Node* item = tree.find("/" + std::to_string(r));
      ASSERT_TRUE(item) << r;
      ASSERT_EQ(item->shape, (std::vector<int64_t>{static_cast<int64_t>(r % 5)}));
      const NDArray a = item->data->read();
      for (int64_t i = 0; i < item->shape[0]; ++i) {
        EXPECT_EQ(a.get<int32_t>({i}), static_cast<int32_t>(r * 10 + i)) << codec << " " << r;
      }
    };
    uint64_t visited = 0;
    model::for_each_child(*tree.root, [&](uint64_t i, const model::Node& item) {
      EXPECT_EQ(item.shape[0], static_cast<int64_t>(i % 5));
      ++visited;
      return true;
    });
    EXPECT_EQ(visited, 1000u);
    for (uint64_t r : {999u, 0u, 517u, 516u, 3u}) check(r);
    const auto reader = ContainerReader(io::open_file(path));
    EXPECT_GT(reader.block_count(), 10u) << codec;
    EXPECT_EQ(reader.codec(), codec);
  }
}

TEST_F(AvroContainer, ZeroRecordsStillHaveAHeader) {
  const std::string path = write_records(file("empty.avro"), "deflate", 0, 256);
  EXPECT_GT(std::filesystem::file_size(path), 16u);
  const model::Tree tree = open_avro(path);
  EXPECT_EQ(model::child_count(*tree.root), 0u);
}

// The error opening `path` or reading its records: a record that cannot be read is an item
// whose error is set (the walk stops there), never an exception out of the walk.
std::string error_opening(const std::string& path,
                          uint64_t max_block_bytes = kDefaultMaxBlockBytes) {
  std::string found;
  try {
    AvroOpenOptions options;
    options.max_block_bytes = max_block_bytes;
    const model::Tree tree = open_avro(path, options);
    model::for_each_child(*tree.root, [&](uint64_t, const model::Node& item) {
      if (!item.error.empty()) found = item.error.text();
      return true;
    });
  } catch (const Error& e) {
    return e.what();
  }
  return found;
}

TEST_F(AvroContainer, BrokenFilesAreRefusedNamingTheByte) {
  const std::string path = write_records(file("good.avro"), "null", 10, 64);
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto variant = [&](const std::string& name, const std::string& content) {
    const std::string p = file(name);
    std::ofstream(p, std::ios::binary) << content;
    return p;
  };
  // A wrong sync marker after the last block.
  std::string bad_sync = bytes;
  bad_sync[bad_sync.size() - 1] ^= 0x55;
  const std::string e1 = error_opening(variant("sync.avro", bad_sync));
  EXPECT_NE(e1.find("sync marker after a block is not the header's"), std::string::npos) << e1;
  EXPECT_NE(e1.find(":@" + std::to_string(bytes.size() - 16) + ":"), std::string::npos) << e1;
  // Cut off in the middle of the last block.
  const std::string e2 = error_opening(variant("cut.avro", bytes.substr(0, bytes.size() - 20)));
  EXPECT_NE(e2.find("run past the end of the file"), std::string::npos) << e2;
  // Not a container.
  const std::string e3 = error_opening(variant("magic.avro", "Obj\x02" + bytes.substr(4)));
  EXPECT_NE(e3.find("no \"Obj\\x01\" magic"), std::string::npos) << e3;
  // A deflate block whose compressed bytes are damaged: the block's offset is named.
  const std::string deflated = write_records(file("d.avro"), "deflate", 10, 1 << 20);
  std::string d;
  {
    std::ifstream in(deflated, std::ios::binary);
    d.assign(std::istreambuf_iterator<char>(in), {});
  }
  for (size_t i = d.size() - 30; i < d.size() - 20; ++i) d[i] = static_cast<char>(d[i] ^ 0x5a);
  const std::string e5 = error_opening(variant("bad_deflate.avro", d));
  EXPECT_NE(e5.find("error: a deflate block: deflate: "), std::string::npos) << e5;
  EXPECT_NE(e5.find("bad_deflate.avro:@"), std::string::npos) << e5;
  // A codec this build lacks, named.
  std::string snappy = bytes;
  const size_t at = snappy.find("null");
  ASSERT_NE(at, std::string::npos);
  // "avro.codec" -> "null" is 4 bytes; "snap" keeps the length.
  snappy.replace(at, 4, "snap");
  const std::string e4 = error_opening(variant("snap.avro", snappy));
  EXPECT_NE(e4.find("codec \"snap\" is not read by this build"), std::string::npos) << e4;
}

TEST_F(AvroContainer, CompressedBlocksAreBoundedByTheLimitAndByTheirRecords) {
  // 4 MiB of zeros in one record: a bzip2 block of a few hundred bytes.
  const std::string path = file("zeros.avro");
  {
    ContainerWriter w(path, ndarray_schema(), "bzip2", uint64_t{8} << 20);
    NDArray a(DType::uint(1), Shape({int64_t{4} << 20}));
    std::memset(a.mutable_data(), 0, a.byte_size());
    BinaryWriter out(w.record_buffer());
    encode_ndarray(a, out);
    w.commit_record();
    w.commit();
  }
  EXPECT_EQ(error_opening(path), "");  // within the default limit
  const std::string e = error_opening(path, 1 << 20);
  EXPECT_NE(e.find("a bzip2 block decodes to more than 1048576 bytes (--max-block-size"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("zeros.avro:@"), std::string::npos) << e;
  // Records of a bounded type: a block of N records decodes to at most N times their size.
  const Schema longs = parse_schema(
      R"({"type": "record", "name": "r", "fields": [{"name": "a", "type": "long"},
          {"name": "u", "type": ["null", "int", {"type": "fixed", "name": "f", "size": 12}]}]})",
      "test");
  ASSERT_TRUE(longs.top().max_bytes);
  EXPECT_EQ(*longs.top().max_bytes, 10u + 10u + 12u);
  EXPECT_FALSE(ndarray_schema().top().max_bytes);  // bytes: no bound
  const Schema list = parse_schema(
      R"({"type": "record", "name": "node", "fields": [{"name": "v", "type": "int"},
          {"name": "next", "type": ["null", "node"]}]})",
      "test");
  EXPECT_FALSE(list.top().max_bytes);  // refers to itself: no bound
  const std::string lying = file("lying.avro");
  {
    ContainerWriter w(lying, longs, "zstandard");
    // 3 records claimed, each of 100 bytes of zeros (no record of this type is that long).
    codec::Bytes& b = w.record_buffer();
    b.resize(300);
    std::memset(b.data(), 0, b.size());
    for (int i = 0; i < 3; ++i) w.commit_record();
    w.commit();
  }
  const std::string e2 = error_opening(lying);
  EXPECT_NE(e2.find("a zstandard block of 3 records decodes to more than the 96 bytes such "
                    "records can take"),
            std::string::npos)
      << e2;
}

}  // namespace
}  // namespace dudley::avro
