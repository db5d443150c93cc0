// Writing regions of arrays in place: every chunk the region touches is rewritten with the
// new values where the region covers it and its old values elsewhere (read-modify-write),
// checked against a plain array updated the same way; chunks that become all fill value
// are removed; sharded and v2 arrays too; paths and steps that make no sense are refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <numeric>

#include "dudley/core/error.hpp"
#include "dudley/formats/zarr.hpp"

namespace dudley::zarr {
namespace {

namespace fs = std::filesystem;

class RegionWrite : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("region_write_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "s.zarr" / "x");
  }
  void TearDown() override { fs::remove_all(dir_); }

  void put(const std::string& key, const std::string& text) {
    std::ofstream(dir_ / "s.zarr" / key) << text;
  }
  std::string store() const { return (dir_ / "s.zarr").string(); }

  // The whole array x as the reader reads it.
  std::vector<int32_t> read_back() {
    model::Tree t = open_zarr(store());
    const model::Node* x = nullptr;
    model::for_each_child(*t.root, [&](uint64_t, const model::Node& c) {
      if (c.name == "x") x = &c;
      return true;
    });
    EXPECT_NE(x, nullptr);
    if (!x || !x->data) return {};
    NDArray a = x->data->read();
    std::vector<int32_t> out(a.shape().element_count().value());
    std::memcpy(out.data(), a.data(), out.size() * 4);
    return out;
  }

  // Writes rows [r0, r0 + rows) x columns [c0, c0 + cols) of a 7 x 10 array, both through
  // the writer and into `want`.
  void write(RegionWriter& w, std::vector<int32_t>& want, int64_t r0, int64_t rows, int64_t c0,
             int64_t cols, int32_t base) {
    std::vector<int32_t> values(static_cast<size_t>(rows * cols));
    std::iota(values.begin(), values.end(), base);
    Hyperslab slab;
    slab.start = {r0, c0};
    slab.count = {rows, cols};
    w.write(slab, values.data());
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c) want[(r0 + r) * 10 + c0 + c] = values[r * cols + c];
    }
  }

  fs::path dir_;
};

constexpr const char* kGroup = R"({"zarr_format":3,"node_type":"group"})";

std::string array_json(const std::string& codecs, const std::string& chunks) {
  return R"({"zarr_format":3,"node_type":"array","shape":[7,10],"data_type":"int32",
    "chunk_grid":{"name":"regular","configuration":{"chunk_shape":)" +
         chunks + R"(}},
    "chunk_key_encoding":{"name":"default"},"fill_value":-1,"codecs":)" +
         codecs + "}";
}

TEST_F(RegionWrite, RegionsOfAPlainArrayReadBackWithTheOldValuesAround) {
  put("zarr.json", kGroup);
  put("x/zarr.json",
      array_json(R"([{"name":"bytes","configuration":{"endian":"big"}},{"name":"zstd"}])",
                 "[3,4]"));
  RegionWriter w(store(), "/x");
  EXPECT_EQ(w.shape(), (std::vector<int64_t>{7, 10}));
  EXPECT_EQ(w.dtype(), DType::int_(4, native_byte_order()));  // big-endian stored, native taken
  std::vector<int32_t> want(70, -1);
  EXPECT_EQ(read_back(), want);      // no chunks yet: all fill
  write(w, want, 0, 7, 0, 10, 100);  // everything
  EXPECT_EQ(read_back(), want);
  write(w, want, 2, 3, 3, 5, 500);  // inside chunks, across their edges
  EXPECT_EQ(read_back(), want);
  write(w, want, 6, 1, 8, 2, 900);  // the partial edge chunk
  EXPECT_EQ(read_back(), want);
}

TEST_F(RegionWrite, AChunkThatBecomesAllFillIsRemoved) {
  put("zarr.json", kGroup);
  put("x/zarr.json",
      array_json(R"([{"name":"bytes","configuration":{"endian":"little"}}])", "[3,4]"));
  RegionWriter w(store(), "x");
  std::vector<int32_t> want(70, -1);
  write(w, want, 0, 2, 0, 2, 7);
  EXPECT_TRUE(fs::exists(dir_ / "s.zarr/x/c/0/0"));
  std::vector<int32_t> fill(4, -1);
  Hyperslab slab;
  slab.start = {0, 0};
  slab.count = {2, 2};
  w.write(slab, fill.data());
  EXPECT_FALSE(fs::exists(dir_ / "s.zarr/x/c/0/0"));
  EXPECT_EQ(read_back(), std::vector<int32_t>(70, -1));
  // No temporary files are left beside the chunks.
  for (const auto& e : fs::recursive_directory_iterator(dir_)) {
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
  }
}

TEST_F(RegionWrite, ShardsAreRewrittenWithTheirOtherInnerChunks) {
  put("zarr.json", kGroup);
  put("x/zarr.json", array_json(R"([{"name":"sharding_indexed","configuration":{"chunk_shape":[2,2],
        "codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"gzip"}],
        "index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}],
        "index_location":"start"}}])",
                                "[4,6]"));
  RegionWriter w(store(), "x");
  std::vector<int32_t> want(70, -1);
  write(w, want, 1, 5, 1, 8, 0);
  EXPECT_EQ(read_back(), want);
  write(w, want, 3, 1, 5, 1, 4242);  // one element in one inner chunk of one shard
  EXPECT_EQ(read_back(), want);
}

TEST_F(RegionWrite, V2ArraysInFortranOrderToo) {
  put(".zgroup", R"({"zarr_format":2})");
  put("x/.zarray", R"({"zarr_format":2,"shape":[7,10],"chunks":[4,3],"dtype":">i4",
    "compressor":{"id":"zlib","level":1},"fill_value":-1,"order":"F","filters":null,
    "dimension_separator":"/"})");
  RegionWriter w(store(), "x");
  std::vector<int32_t> want(70, -1);
  write(w, want, 0, 7, 0, 10, 1);
  write(w, want, 3, 2, 2, 6, -50);
  EXPECT_EQ(read_back(), want);
  EXPECT_TRUE(fs::exists(dir_ / "s.zarr/x/1/3"));  // v2 keys, '/' separated
}

TEST_F(RegionWrite, BadPathsStepsAndRegionsAreRefused) {
  put("zarr.json", kGroup);
  put("x/zarr.json",
      array_json(R"([{"name":"bytes","configuration":{"endian":"little"}}])", "[3,4]"));
  EXPECT_THROW(RegionWriter(store(), "x/../../etc"), Error);
  EXPECT_THROW(RegionWriter(store(), "./x"), Error);
  EXPECT_THROW(RegionWriter(store(), "y"), Error);  // no such node
  EXPECT_THROW(RegionWriter(store(), "/"), Error);  // a group
  RegionWriter w(store(), "x");
  std::vector<int32_t> values(70, 1);
  Hyperslab strided;
  strided.start = {0, 0};
  strided.count = {3, 3};
  strided.stride = {2, 3};
  try {
    w.write(strided, values.data());
    FAIL() << "a strided region was written";
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::kUsage);
    EXPECT_NE(std::string(e.what()).find("steps of 1"), std::string::npos) << e.what();
  }
  Hyperslab outside;
  outside.start = {5, 0};
  outside.count = {3, 1};
  EXPECT_THROW(w.write(outside, values.data()), Error);
  EXPECT_EQ(read_back(), std::vector<int32_t>(70, -1));  // nothing written by either
}

}  // namespace
}  // namespace dudley::zarr
