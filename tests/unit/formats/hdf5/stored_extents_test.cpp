// Where an HDF5 object header stores a dataset's extents: headers built by hand after the
// HDF5 file format specification (version 1 and 2 object headers, dataspace messages
// version 1 and 2); h5py's own files are checked by tests/cli/family_layout_dump_test.sh.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "formats/hdf5/stored_extents.hpp"

namespace dudley::hdf5 {
namespace {

class Bytes {
 public:
  Bytes& u(uint64_t v, size_t width) {
    for (size_t i = 0; i < width; ++i) b_.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xff));
    return *this;
  }
  Bytes& text(const char* s) {
    for (; *s; ++s) b_.push_back(static_cast<std::byte>(*s));
    return *this;
  }
  size_t size() const { return b_.size(); }
  std::vector<std::byte> take() { return b_; }

 private:
  std::vector<std::byte> b_;
};

// A version 1 header: a NIL message of 8 bytes, then a version 1 dataspace of `dims`.
std::vector<std::byte> v1_header(const std::vector<uint64_t>& dims) {
  const size_t space = 8 + 8 * dims.size();
  Bytes b;
  b.u(1, 1).u(0, 1).u(2, 2).u(1, 4).u(8 + 8 + 8 + space, 4).u(0, 4);  // prefix + padding
  b.u(0, 2).u(8, 2).u(0, 1).u(0, 3).u(0, 8);                          // NIL message
  b.u(1, 2).u(space, 2).u(0, 1).u(0, 3);                              // dataspace message
  b.u(1, 1).u(dims.size(), 1).u(0, 1).u(0, 1).u(0, 4);
  for (uint64_t d : dims) b.u(d, 8);
  return b.take();
}

// A version 2 header tracking attribute creation order (2 more bytes per message prefix):
// a fill value message first, then a version 2 dataspace.
std::vector<std::byte> v2_header(const std::vector<uint64_t>& dims) {
  const size_t space = 4 + 8 * dims.size();
  Bytes b;
  b.text("OHDR").u(2, 1).u(0x04, 1).u(6 + 4 + 6 + space, 1);
  b.u(5, 1).u(4, 2).u(0, 1).u(0, 2).u(0, 4);    // fill value message, 4 bytes
  b.u(1, 1).u(space, 2).u(0, 1).u(0, 2);        // dataspace message
  b.u(2, 1).u(dims.size(), 1).u(0, 1).u(1, 1);  // version 2, simple
  for (uint64_t d : dims) b.u(d, 8);
  return b.take();
}

TEST(StoredExtents, VersionOneHeader) {
  const auto offsets = stored_extent_offsets(v1_header({7, 3}), 1000, {7, 3});
  ASSERT_TRUE(offsets);
  // 16 (prefix) + 16 (NIL message) + 8 (message prefix) + 8 (dataspace prefix)
  EXPECT_EQ(*offsets, (std::vector<uint64_t>{1048, 1056}));
}

TEST(StoredExtents, VersionTwoHeader) {
  const auto offsets = stored_extent_offsets(v2_header({12}), 200, {12});
  ASSERT_TRUE(offsets);
  // 4 + 1 + 1 + 1 (signature, version, flags, chunk size) + 6 + 4 (fill value) + 6 + 4
  EXPECT_EQ(*offsets, (std::vector<uint64_t>{200 + 27}));
}

TEST(StoredExtents, NothingButTheExactAnswer) {
  // Sizes that are not the dataset's, another rank, a cut header, damage: no offsets.
  EXPECT_FALSE(stored_extent_offsets(v1_header({7, 3}), 0, {7, 4}));
  EXPECT_FALSE(stored_extent_offsets(v1_header({7, 3}), 0, {7}));
  std::vector<std::byte> cut = v1_header({7, 3});
  cut.resize(cut.size() - 4);
  EXPECT_FALSE(stored_extent_offsets(cut, 0, {7, 3}));
  std::vector<std::byte> other_version = v2_header({5});
  other_version[4] = std::byte{3};
  EXPECT_FALSE(stored_extent_offsets(other_version, 0, {5}));
  std::vector<std::byte> no_dataspace = v2_header({5});
  no_dataspace[17] = std::byte{0x0c};  // the dataspace message's type, now an attribute's
  EXPECT_FALSE(stored_extent_offsets(no_dataspace, 0, {5}));
  // A first chunk claimed longer than the bytes given is searched as far as they go.
  std::vector<std::byte> long_chunk = v2_header({5});
  long_chunk[6] = std::byte{0xff};
  EXPECT_TRUE(stored_extent_offsets(long_chunk, 0, {5}));
  EXPECT_FALSE(stored_extent_offsets({}, 0, {5}));
  // An address so high that the offsets would wrap.
  EXPECT_FALSE(stored_extent_offsets(v1_header({7}), UINT64_MAX - 8, {7}));
}

}  // namespace
}  // namespace dudley::hdf5
