// Reading Zarr arrays from a store in memory: the fuzz seeds (each kind of pipeline) read to
// their values; damaged chunks, checksums and shard indexes fail naming the chunk; the
// selection reads only what it needs.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "dudley/codec/codec.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/vlen.hpp"
#include "dudley/formats/zarr.hpp"

namespace dudley::zarr {
namespace {

codec::Bytes bytes(const std::string& s) {
  codec::Bytes b(s.size());
  std::memcpy(b.data(), s.data(), s.size());
  return b;
}

// A fuzz seed: its first byte picks the metadata (as in fuzz/zarr_read.cpp), the rest is c/0/0.
codec::Bytes seed(const std::string& name, uint8_t* selector) {
  std::ifstream in(std::string(DUDLEY_SOURCE_DIR) + "/fuzz/corpus/zarr_read/" + name,
                   std::ios::binary);
  std::string s((std::istreambuf_iterator<char>(in)), {});
  EXPECT_FALSE(s.empty()) << name;
  *selector = s.empty() ? 0 : static_cast<uint8_t>(s[0]);
  return bytes(s.empty() ? s : s.substr(1));
}

const char* kInt16Gzip = R"({"zarr_format":3,"node_type":"array","shape":[6,5],"data_type":"int16",
    "chunk_grid":{"name":"regular","configuration":{"chunk_shape":[6,5]}},
    "chunk_key_encoding":{"name":"default"},"fill_value":7,
    "codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"gzip"}]})";

const char* kSharded = R"({"zarr_format":3,"node_type":"array","shape":[6,6],"data_type":"int32",
    "chunk_grid":{"name":"regular","configuration":{"chunk_shape":[6,6]}},
    "chunk_key_encoding":{"name":"default"},"fill_value":-1,
    "codecs":[{"name":"sharding_indexed","configuration":{"chunk_shape":[3,2],
      "codecs":[{"name":"bytes","configuration":{"endian":"little"}}]}}]})";

std::string error_of(const char* meta, const codec::Bytes& chunk) {
  try {
    model::Tree t =
        open_zarr(io::memory_store({{"zarr.json", bytes(meta)}, {"c/0/0", chunk}}, "s.zarr"));
    if (!t.root->error.empty()) return t.root->error.text();
    t.root->data->read();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ZarrRead, EveryKindOfPipelineReadsItsValues) {
  const char* metas[] = {kInt16Gzip, nullptr, nullptr, kSharded, nullptr};
  for (const char* name : {"gzip", "shard"}) {
    uint8_t which = 0;
    const codec::Bytes chunk = seed(name, &which);
    model::Tree t =
        open_zarr(io::memory_store({{"zarr.json", bytes(metas[which])}, {"c/0/0", chunk}}));
    const NDArray a = t.root->data->read();
    SCOPED_TRACE(name);
    for (int64_t i = 0; i < static_cast<int64_t>(a.element_count()); ++i) {
      const int64_t v =
          which == 0 ? a.get<int16_t>({i / 5, i % 5}) : a.get<int32_t>({i / 6, i % 6});
      EXPECT_EQ(v, i);
    }
  }
}

TEST(ZarrRead, DamagedChunksFailNamingThem) {
  uint8_t which = 0;
  codec::Bytes gz = seed("gzip", &which);
  codec::Bytes bad = gz;
  bad[bad.size() / 2] ^= std::byte{0x55};
  bad.resize(bad.size() - 3);
  std::string e = error_of(kInt16Gzip, bad);
  EXPECT_NE(e.find("s.zarr/c/0/0"), std::string::npos) << e;
  // Bytes that decode to another size than the chunk's.
  const char* plain = R"({"zarr_format":3,"node_type":"array","shape":[6,5],"data_type":"int16",
    "chunk_grid":{"name":"regular","configuration":{"chunk_shape":[6,5]}},
    "chunk_key_encoding":{"name":"default"},"fill_value":0,
    "codecs":[{"name":"bytes","configuration":{"endian":"little"}},"crc32c"]})";
  e = error_of(plain, codec::Bytes(59));
  EXPECT_NE(e.find("c/0/0"), std::string::npos) << e;
  // A CRC-32C that does not match.
  e = error_of(plain, codec::Bytes(64));
  EXPECT_NE(e.find("c/0/0"), std::string::npos) << e;
  EXPECT_NE(e.find("crc32c"), std::string::npos) << e;
}

TEST(ZarrRead, ShardIndexesAreChecked) {
  uint8_t which = 0;
  const codec::Bytes shard = seed("shard", &which);
  // An entry pointing past the shard (its CRC made to match, so the bounds check speaks).
  codec::Bytes far = shard;
  const size_t index_at = far.size() - 4 - 16 * 6;
  const uint64_t huge = 1000;
  std::memcpy(far.data() + index_at, &huge, 8);
  std::string e = error_of(kSharded, far);
  EXPECT_NE(e.find("c/0/0"), std::string::npos) << e;
  // Too short to hold its index.
  e = error_of(kSharded, codec::Bytes(shard.begin(), shard.begin() + 20));
  EXPECT_NE(e.find("cannot hold its index"), std::string::npos) << e;
  // A missing shard reads as the fill value.
  model::Tree t = open_zarr(io::memory_store({{"zarr.json", bytes(kSharded)}}));
  EXPECT_EQ(t.root->data->read().get<int32_t>({5, 5}), -1);
}

TEST(ZarrRead, StoresWithoutMetadataAreRefused) {
  // A v2 group reads; a .zarray that says zarr_format 3 does not.
  EXPECT_EQ(open_zarr(io::memory_store({{".zgroup", bytes("{\"zarr_format\":2}")}})).root->kind,
            model::NodeKind::kGroup);
  EXPECT_THROW(open_zarr(io::memory_store({{".zarray", bytes("{\"zarr_format\":3}")}})), Error);
  try {
    open_zarr(io::memory_store({}, "empty.zarr"));
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("empty.zarr/zarr.json"), std::string::npos);
  }
  // A child whose metadata is broken is listed with its error; the others read.
  model::Tree t = open_zarr(
      io::memory_store({{"zarr.json", bytes(R"({"zarr_format":3,"node_type":"group"})")},
                        {"a/zarr.json", bytes("{")},
                        {"b/zarr.json", bytes(R"({"zarr_format":3,"node_type":"group"})")},
                        {"__hidden/zarr.json", bytes("{")}},
                       "g.zarr"));
  ASSERT_EQ(t.root->children.size(), 2u);
  EXPECT_NE(t.root->children[0]->error.text().find("g.zarr/a/zarr.json:1:"), std::string::npos)
      << t.root->children[0]->error.text();
  EXPECT_TRUE(t.root->children[1]->error.empty());
}

}  // namespace
}  // namespace dudley::zarr

namespace dudley::zarr {
namespace {

const char* kStrings = R"({"zarr_format":3,"node_type":"array","shape":[2],"data_type":"string",
    "chunk_grid":{"name":"regular","configuration":{"chunk_shape":[2]}},
    "chunk_key_encoding":{"name":"default"},"fill_value":"",
    "codecs":[{"name":"vlen-utf8"}]})";

// vlen framing by hand: the item count, then each item's claimed length and its bytes.
codec::Bytes framed(uint32_t count, std::vector<std::pair<uint32_t, std::string>> items,
                    const std::string& tail = "") {
  codec::Bytes b;
  auto word = [&](uint32_t w) {
    for (int i = 0; i < 4; ++i) b.push_back(static_cast<std::byte>((w >> (8 * i)) & 0xff));
  };
  word(count);
  for (const auto& [length, text] : items) {
    word(length);
    for (char c : text) b.push_back(static_cast<std::byte>(c));
  }
  for (char c : tail) b.push_back(static_cast<std::byte>(c));
  return b;
}

// The error reading a 1-D string array whose one chunk is `chunk`; "" when it reads.
std::string string_error(const codec::Bytes& chunk) {
  try {
    model::Tree t =
        open_zarr(io::memory_store({{"zarr.json", bytes(kStrings)}, {"c/0", chunk}}, "s.zarr"));
    t.root->data->read();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ZarrRead, StringChunksAreReadAndBadFramingFailsNamingTheChunk) {
  const codec::Bytes good = framed(2, {{1, "a"}, {3, "bcd"}});
  model::Tree t = open_zarr(io::memory_store({{"zarr.json", bytes(kStrings)}, {"c/0", good}}));
  const NDArray array = t.root->data->read();  // holds the heap the items point into
  const std::vector<VLenElement> items = vlen_elements(array);
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].bytes(1), "a");
  EXPECT_EQ(items[1].bytes(1), "bcd");
  auto expect_error = [](const codec::Bytes& chunk, const std::string& words) {
    const std::string e = string_error(chunk);
    EXPECT_NE(e.find("s.zarr/c/0"), std::string::npos) << e;
    EXPECT_NE(e.find(words), std::string::npos) << e;
  };
  expect_error(framed(2, {{2, "hi"}}), "item 1 of 2: its length is past the chunk's end");
  expect_error(framed(3, {{0, ""}, {0, ""}, {0, ""}}), "holds 3 items; its shape has 2");
  expect_error(framed(2, {{1, "a"}, {9, "b"}}), "item 1 of 2: 9 bytes at byte 13 run past");
  expect_error(framed(2, {{0, ""}, {0, ""}}, "extra"), "5 bytes follow the chunk's last item");
  expect_error(codec::Bytes(3), "has no item count");
  // A zstd frame that inflates without end (found by fuzz/zarr_read) stops at the limit.
  codec::Bytes bomb;
  {
    codec::Bytes zeros(size_t{300} << 20);
    bomb = codec::make_bytes_codec("zstd")->encode(zeros);
  }
  const std::string meta = std::string(kStrings);
  const std::string zstd_meta =
      meta.substr(0, meta.find("\"vlen-utf8\"}")) + "\"vlen-utf8\"},{\"name\":\"zstd\"}]}";
  try {
    open_zarr(io::memory_store({{"zarr.json", bytes(zstd_meta.c_str())}, {"c/0", bomb}}))
        .root->data->read();
    ADD_FAILURE() << "a string chunk of 300 MiB was decoded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("more than the limit of 268435456 bytes"),
              std::string::npos)
        << e.what();
  }
  // Read whole by selection; a caller's fixed-size buffer is refused, not overrun.
  std::vector<std::byte> buffer(32);
  EXPECT_THROW(t.root->data->read_into(Hyperslab::all({2}), buffer.data()), Error);
}

}  // namespace
}  // namespace dudley::zarr
