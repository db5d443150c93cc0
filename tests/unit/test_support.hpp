// Helpers shared by the unit tests.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "dudley/core/file_io.hpp"
#include "dudley/core/ndarray.hpp"
#include "dudley/layout/syntax/parser.hpp"

namespace dudley::testing {

/// All files with `extension` in a folder, sorted by name.
inline std::vector<std::filesystem::path> files_in(const std::string& folder,
                                                   const std::string& extension) {
  std::vector<std::filesystem::path> out;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (entry.path().extension() == extension) out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// Parses text that the test expects to be valid; fails the test with the diagnostics if not.
inline layout::Layout parse_ok(std::string_view text) {
  layout::ParseResult r = layout::parse_layout(text);
  std::string messages;
  for (const auto& d : r.diagnostics) {
    messages += std::to_string(d.line) + ":" + std::to_string(d.column) + " " + d.message + "\n";
  }
  EXPECT_TRUE(r.ok()) << messages;
  return std::move(r.layout);
}

/// Text with every LF line end replaced by `newline`.
inline std::string with_newlines(const std::string& text, const std::string& newline) {
  std::string out;
  for (char c : text) {
    if (c == '\n') {
      out += newline;
    } else {
      out += c;
    }
  }
  return out;
}

/// A test with a fresh directory of its own (named after the test and the process), removed
/// afterwards; file("x.bin") is a path inside it.
class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("dudley_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_suite()->name() + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

/// An array of `type` and `shape` holding `values` (as many as the shape has elements).
template <typename T>
NDArray array_of(std::vector<int64_t> shape, const std::vector<T>& values, DType type) {
  NDArray a(type, Shape(std::move(shape)));
  if (values.size() != a.element_count()) throw std::logic_error("array_of: count != shape");
  std::memcpy(a.mutable_data(), values.data(), values.size() * sizeof(T));
  return a;
}

/// Every byte of a file.
inline std::vector<unsigned char> bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

/// The data a layout describes in a file written with its layout beside it: the file less
/// its 32-byte pair trailer (layout/pair_record.hpp), which must be there.
inline std::vector<unsigned char> data_of(const std::string& path) {
  std::vector<unsigned char> b = bytes_of(path);
  static constexpr unsigned char kMagic[8] = {0x89, 'D', 'P', 'A', 'I', 'R', 0x0d, 0x0a};
  if (b.size() < 32 || !std::equal(b.end() - 8, b.end(), kMagic)) {
    ADD_FAILURE() << path << " has no pair trailer";
    return b;
  }
  b.resize(b.size() - 32);
  return b;
}

/// A layout file's text less its first line when that is the pair record.
inline std::string without_pair_line(std::string text) {
  if (text.rfind("# dudley-pair: ", 0) == 0) text.erase(0, text.find('\n') + 1);
  return text;
}

}  // namespace dudley::testing
