// Layouts embedded in their data file: the trailer's bytes, finding it when no .dud is
// beside the data, and clear errors (path and byte offset) for every kind of damage.
#include "dudley/layout/embedded.hpp"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "dudley/core/error.hpp"
#include "dudley/formats/dudley.hpp"
#include "dudley/io/byte_source.hpp"
#include "dudley/layout/write/writer.hpp"
#include "dudley/open.hpp"
#include "test_support.hpp"

namespace dudley::layout {
namespace {

namespace fs = std::filesystem;
using dudley::testing::parse_ok;

class Embedded : public dudley::testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    path_ = file("self.bin");
    Layout l = parse_ok("!DUDLEY := S1[8]  N := i4  x = f8[N]");
    WriteOptions options;
    options.embed_layout = true;
    options.write_layout = false;
    options.order = ByteOrder::kLittle;
    Writer w(l, path_, options);
    NDArray x(DType::float_(8), Shape({3}));
    const double values[3] = {1.5, 2.5, 3.5};
    std::memcpy(x.mutable_data(), values, sizeof values);
    w.write("/x", x);
    size_ = w.commit();
  }
  std::vector<unsigned char> bytes() const { return dudley::testing::bytes_of(path_); }
  void rewrite(const std::vector<unsigned char>& b) const {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  }
  std::string open_error() const {
    try {
      dudley::open(path_);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }
  std::string path_;
  uint64_t size_ = 0;
};

TEST_F(Embedded, TrailerBytesFollowTheDocumentedFormat) {
  const std::vector<unsigned char> b = bytes();
  ASSERT_EQ(b.size(), size_);
  EXPECT_FALSE(fs::exists(layout_path_for(path_)));
  const size_t data_end = 8 + 4 + 3 * 8;  // signature, N, x
  const size_t t = b.size() - 32;
  auto le = [&](size_t at, unsigned n) {
    uint64_t v = 0;
    for (unsigned i = 0; i < n; ++i) v |= uint64_t{b[at + i]} << (8 * i);
    return v;
  };
  EXPECT_EQ(le(t, 8), data_end);
  EXPECT_EQ(le(t + 8, 8), t - data_end);
  const std::string text(b.begin() + static_cast<std::ptrdiff_t>(data_end),
                         b.begin() + static_cast<std::ptrdiff_t>(t));
  EXPECT_EQ(text, "!DUDLEY := S1[8]\nN := i4\nx = f8[N]\n");
  // CRC-32 computed here with zlib directly, independent of the module.
  EXPECT_EQ(le(t + 16, 4),
            crc32(0, reinterpret_cast<const Bytef*>(text.data()), static_cast<uInt>(text.size())));
  EXPECT_EQ(le(t + 20, 4), 1u);
  const unsigned char magic[8] = {0x89, 'D', 'L', 'A', 'Y', 0x0d, 0x0a, 0x1a};
  EXPECT_EQ(std::memcmp(b.data() + t + 24, magic, 8), 0);
}

TEST_F(Embedded, TheReaderFindsItWhenNoLayoutIsBeside) {
  model::Tree tree = dudley::open(path_);
  const model::Node* x = tree.find("/x");
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->data->read().get<double>({2}), 3.5);
  // A .dud beside the data wins over the embedded copy.
  std::ofstream(layout_path_for(path_)) << "!DUDLEY := S1[8]  N := i4  y = f8[N]\n";
  model::Tree beside = dudley::open(path_);
  EXPECT_NE(beside.find("/y"), nullptr);
  EXPECT_EQ(beside.find("/x"), nullptr);
}

TEST_F(Embedded, DamageIsAnErrorWithTheByteOffset) {
  const std::vector<unsigned char> good = bytes();
  const size_t t = good.size() - 32;
  {
    std::vector<unsigned char> b = good;
    b[t + 8] ^= 0x40;  // the length no longer reaches the trailer
    rewrite(b);
    const std::string e = open_error();
    EXPECT_NE(e.find(fmt::format("{}:@{}", path_, t)), std::string::npos) << e;
    EXPECT_NE(e.find("does not end at the trailer"), std::string::npos) << e;
  }
  {
    std::vector<unsigned char> b = good;
    b[40] ^= 1;  // a character of the layout text
    rewrite(b);
    const std::string e = open_error();
    EXPECT_NE(e.find("CRC-32"), std::string::npos) << e;
  }
  {
    std::vector<unsigned char> b = good;
    b[t + 20] = 7;
    rewrite(b);
    EXPECT_NE(open_error().find("version 7"), std::string::npos);
  }
  {
    // An offset near 2^64 must not wrap around into a plausible range.
    std::vector<unsigned char> b = good;
    for (int i = 0; i < 8; ++i) b[t + static_cast<size_t>(i)] = 0xff;
    rewrite(b);
    EXPECT_NE(open_error().find("does not end at the trailer"), std::string::npos);
  }
  {
    // Without the magic the file simply has no embedded layout.
    std::vector<unsigned char> b = good;
    b.back() ^= 1;
    rewrite(b);
    EXPECT_NE(open_error().find("none embedded"), std::string::npos);
  }
  {
    // A layout text with a syntax error is reported at its line and column.
    std::vector<unsigned char> b = good;
    const std::string bad = "!DUDLEY := S1[8]\nN := i4\nx = f8[N\n";
    const size_t data_end = 36;
    b.resize(data_end);
    b.insert(b.end(), bad.begin(), bad.end());
    const std::string trailer = embedded_trailer(data_end, bad);
    b.insert(b.end(), trailer.begin(), trailer.end());
    rewrite(b);
    const std::string e = open_error();
    EXPECT_NE(e.find(path_ + "#layout:"), std::string::npos) << e;
  }
}

TEST_F(Embedded, SaveWritesAnyTreeAsOneSelfDescribingFile) {
  const model::Tree tree = dudley::open(path_);
  layout::DudleySaveOptions dudley_options;
  dudley_options.embed_layout = true;
  dudley_options.write_layout = false;
  dudley_options.order = ByteOrder::kBig;
  SaveOptions options;
  options.formats.set(dudley_options);
  const std::string copy = (dir_ / "copy.bin").string();
  const SaveReport report = dudley::save(tree, copy, options);
  ASSERT_EQ(report.files.size(), 1u);
  EXPECT_EQ(report.bytes(), fs::file_size(copy));
  EXPECT_EQ(report.layout, copy);
  EXPECT_FALSE(fs::exists(layout_path_for(copy)));
  const model::Tree back = dudley::open(copy);
  EXPECT_EQ(back.find("/x")->dtype.byte_order(), ByteOrder::kBig);
  EXPECT_EQ(back.find("/x")->data->read().to_native().get<double>({1}), 2.5);
  options.format = "netcdf";
  EXPECT_THROW(dudley::save(tree, (dir_ / "x.nc").string(), options), Error);
}

TEST_F(Embedded, ShortFilesHaveNoTrailer) {
  const std::vector<unsigned char> bytes(31, 0x1a);
  auto source = io::memory_source(bytes.data(), bytes.size(), "short");
  EXPECT_FALSE(read_embedded_layout(*source).has_value());
}

}  // namespace
}  // namespace dudley::layout
