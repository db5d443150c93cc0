#include "dudley/io/byte_source.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "dudley/core/error.hpp"

namespace dudley::io {
namespace {

namespace fs = std::filesystem;

TEST(ByteSource, MemoryReadsAndViews) {
  const unsigned char bytes[6] = {1, 2, 3, 4, 5, 6};
  auto s = memory_source(bytes, sizeof bytes);
  unsigned char out[2];
  s->read(3, 2, out);
  EXPECT_EQ(out[0], 4);
  EXPECT_EQ(out[1], 5);
  EXPECT_EQ(s->view(1, 5), bytes + 1);
  s->read(6, 0, out);  // an empty read at the very end is fine
}

TEST(ByteSource, OutOfRangeNamesWhatAndWhere) {
  const unsigned char bytes[4] = {};
  auto s = memory_source(bytes, sizeof bytes, "run.bin");
  unsigned char out[8];
  try {
    s->read(2, 4, out, "variable /x");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::kData);
    EXPECT_EQ(e.location().path, "run.bin");
    EXPECT_EQ(e.location().byte_offset, 2u);
    EXPECT_NE(std::string(e.what()).find("variable /x"), std::string::npos);
  }
  // Offsets and lengths near 2^64 must not wrap around the check.
  EXPECT_THROW(s->read(~uint64_t{0}, 2, out), Error);
  EXPECT_THROW(s->read(2, ~uint64_t{0}, out), Error);
  EXPECT_THROW(s->view(5, 0), Error);
}

TEST(ByteSource, FileIsMappedAndWindowed) {
  fs::path p = fs::temp_directory_path() / ("dudley_bs_" + std::to_string(::getpid()));
  std::ofstream(p, std::ios::binary) << "0123456789";
  auto f = open_file(p.string());
  EXPECT_EQ(f->size(), 10u);
  EXPECT_EQ(f->name(), p.string());
  char out[3];
  f->read(7, 3, out);
  EXPECT_EQ(std::string(out, 3), "789");
  ASSERT_NE(f->view(0, 10), nullptr);
  auto w = window(f, 2, 5);  // "23456"
  EXPECT_EQ(w->size(), 5u);
  w->read(0, 3, out);
  EXPECT_EQ(std::string(out, 3), "234");
  EXPECT_THROW(w->read(4, 2, out), Error);
  EXPECT_THROW(window(f, 8, 5), Error);
  fs::remove(p);
}

// A file is read before its length is asked (one pread per read, no lseek); a read that
// falls short is the same range error, at the same offset, as when the length is known.
TEST(ByteSource, FileReadBeforeItsLengthIsKnown) {
  fs::path p = fs::temp_directory_path() / ("dudley_short_" + std::to_string(::getpid()));
  std::ofstream(p, std::ios::binary) << "0123456789";
  char out[8];
  auto fresh = open_file(p.string());
  fresh->read(2, 3, out);
  EXPECT_EQ(std::string(out, 3), "234");
  std::string fresh_error, known_error;
  try {
    open_file(p.string())->read(6, 8, out, "data item /x");
  } catch (const Error& e) {
    fresh_error = e.what();
    EXPECT_EQ(e.category(), ErrorCategory::kData);
    EXPECT_EQ(e.location().byte_offset, std::optional<uint64_t>(6));
  }
  auto known = open_file(p.string());
  EXPECT_EQ(known->size(), 10u);
  try {
    known->read(6, 8, out, "data item /x");
  } catch (const Error& e) {
    known_error = e.what();
  }
  EXPECT_FALSE(fresh_error.empty());
  EXPECT_EQ(fresh_error, known_error);
  EXPECT_NE(fresh_error.find("ends beyond the end of the data (10 bytes)"), std::string::npos);
  EXPECT_THROW(open_file(p.string())->read(~uint64_t{0} - 2, 2, out), Error);
  fs::remove(p);
}

TEST(ByteSource, EmptyFileAndMissingFile) {
  fs::path p = fs::temp_directory_path() / ("dudley_empty_" + std::to_string(::getpid()));
  std::ofstream(p, std::ios::binary).flush();
  auto f = open_file(p.string());
  EXPECT_EQ(f->size(), 0u);
  char c;
  EXPECT_THROW(f->read(0, 1, &c), Error);
  fs::remove(p);
  EXPECT_THROW(open_file("/nonexistent/file.bin"), Error);
}

TEST(ByteSource, DirectoryIsReportedWhenUsed) {
  // Opening is one system call (families open thousands of files); a directory is named as
  // such by the first read or length lookup.
  auto dir = open_file(fs::temp_directory_path().string());
  char c;
  for (auto use : {+[](const ByteSource&s, char*out) { s.read_some(0, 1, out); },
                   +[](const ByteSource&s, char*) { (void)s.size(); }}) {
    try {
      use(*dir, &c);
      ADD_FAILURE() << "a directory was read";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
    }
  }
}

TEST(ByteSource, ReadSomeStopsAtTheEnd) {
  fs::path p = fs::temp_directory_path() / ("dudley_some_" + std::to_string(::getpid()));
  std::ofstream(p, std::ios::binary) << "0123456789";
  auto f = open_file(p.string());
  char buf[16] = {};
  EXPECT_EQ(f->read_some(6, 16, buf), 4u);
  EXPECT_EQ(std::string(buf, 4), "6789");
  EXPECT_EQ(f->read_some(10, 4, buf), 0u);
  EXPECT_EQ(f->read_some(1000, 4, buf), 0u);
  const std::string text = "abc";
  auto m = memory_source(text.data(), text.size());
  EXPECT_EQ(m->read_some(1, 8, buf), 2u);
  EXPECT_EQ(std::string(buf, 2), "bc");
  EXPECT_EQ(m->read_some(5, 8, buf), 0u);
  fs::remove(p);
}

// Reads of 32 MiB and more are split into pieces read on several threads: every byte lands
// in its place, and a read past the end stops exactly where the file does, also inside a
// piece and with pieces after it empty.
TEST(ByteSource, BulkReadsInPiecesKeepEveryByteAndStopAtTheEnd) {
  fs::path p = fs::temp_directory_path() / ("dudley_bulk_" + std::to_string(::getpid()));
  const uint64_t size = (uint64_t{41} << 20) + 12345;  // 5 pieces of 8 MiB and a part
  std::vector<uint32_t> words(size / 4 + 1);
  for (size_t i = 0; i < words.size(); ++i) words[i] = static_cast<uint32_t>(i * 2654435761u);
  std::ofstream(p, std::ios::binary)
      .write(reinterpret_cast<const char*>(words.data()), static_cast<std::streamsize>(size));
  auto f = open_file(p.string());
  std::vector<unsigned char> got(size + (uint64_t{20} << 20));
  const auto* want = reinterpret_cast<const unsigned char*>(words.data());
  EXPECT_EQ(f->read_some(0, size, got.data()), size);
  EXPECT_EQ(std::memcmp(got.data(), want, size), 0);
  // From an odd offset, asking for 20 MiB more than there is.
  const uint64_t at = 3;
  EXPECT_EQ(f->read_some(at, got.size(), got.data()), size - at);
  EXPECT_EQ(std::memcmp(got.data(), want + at, size - at), 0);
  // read() of a range past the end: the error names it, as for small reads.
  EXPECT_THROW(f->read(1 << 20, size, got.data()), Error);
  fs::remove(p);
}

}  // namespace
}  // namespace dudley::io
