// AtomicFile::copy_from: the kernel's file-to-file copy (copy_file_range) and the buffered
// copy it falls back to must both put exactly the source's bytes at the place asked, from a
// file, a window inside a file (an embedded Dudley file) and memory.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <numeric>
#include <vector>

#include "dudley/core/error.hpp"
#include "dudley/io/atomic_file.hpp"
#include "dudley/io/byte_source.hpp"

namespace dudley::io {
namespace {

namespace fs = std::filesystem;

class CopyFrom : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("dudley-copy-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    // 3 MiB + 5 bytes: more than one buffer of the fallback copy is not needed to cover
    // the loop, but a size that is no multiple of any step is.
    bytes_.resize((3u << 20) + 5);
    std::iota(bytes_.begin(), bytes_.end(), static_cast<unsigned char>(7));
    std::ofstream(dir_ / "in.bin", std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes_.data()), static_cast<long>(bytes_.size()));
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::vector<unsigned char> written(const std::string& name) const {
    std::ifstream in(dir_ / name, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }

  fs::path dir_;
  std::vector<unsigned char> bytes_;
};

TEST_F(CopyFrom, CopiesAFileRangeToItsPlace) {
  auto source = open_file((dir_ / "in.bin").string());
  uint64_t reported = 0;
  {
    AtomicFile out((dir_ / "out.bin").string());
    out.write_at(0, "head", 4);
    out.copy_from(*source, 100, 4, bytes_.size() - 100, [&](uint64_t n) { reported += n; });
    out.commit();
  }
  const auto got = written("out.bin");
  ASSERT_EQ(got.size(), 4 + bytes_.size() - 100);
  EXPECT_TRUE(std::equal(got.begin() + 4, got.end(), bytes_.begin() + 100));
  EXPECT_EQ(reported, bytes_.size() - 100);
}

TEST_F(CopyFrom, CopiesFromAWindowAndFromMemory) {
  auto file = open_file((dir_ / "in.bin").string());
  auto inner = window(file, 1000, 5000);
  auto memory = memory_source(bytes_.data(), bytes_.size());
  {
    AtomicFile out((dir_ / "out.bin").string());
    out.copy_from(*inner, 10, 0, 4000);     // file bytes 1010..5009
    out.copy_from(*memory, 50, 4000, 300);  // buffered: memory is no file
    out.commit();
  }
  const auto got = written("out.bin");
  ASSERT_EQ(got.size(), 4300u);
  EXPECT_TRUE(std::equal(got.begin(), got.begin() + 4000, bytes_.begin() + 1010));
  EXPECT_TRUE(std::equal(got.begin() + 4000, got.end(), bytes_.begin() + 50));
}

TEST_F(CopyFrom, RefusesARangeOutsideTheSource) {
  auto source = open_file((dir_ / "in.bin").string());
  AtomicFile out((dir_ / "out.bin").string());
  EXPECT_THROW(out.copy_from(*source, 10, 0, bytes_.size()), Error);
  auto inner = window(source, 0, 100);
  EXPECT_THROW(out.copy_from(*inner, 50, 0, 60), Error);
}

}  // namespace
}  // namespace dudley::io
