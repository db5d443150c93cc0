// Large buffers: zeroed, 2 MiB-aligned, advised for huge pages where the kernel has them.
#include "dudley/core/big_memory.hpp"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "dudley/core/ndarray.hpp"

namespace dudley {
namespace {

bool all_zero(const void* p, uint64_t n) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (uint64_t i = 0; i < n; i += 4093) {
    if (b[i] != 0) return false;
  }
  return b[n - 1] == 0;
}

TEST(BigMemory, SmallBuffersAreZeroed) {
  for (uint64_t n : {uint64_t{0}, uint64_t{1}, uint64_t{4096}, kBigMemoryThreshold - 1}) {
    auto p = allocate_zeroed(n);
    ASSERT_NE(p.get(), nullptr);
    EXPECT_TRUE(all_zero(p.get(), n ? n : 1));
  }
}

TEST(BigMemory, LargeBuffersAreZeroedAlignedAndWritable) {
  const uint64_t n = kBigMemoryThreshold * 3 + 12345;  // not a multiple of the page size
  auto p = allocate_zeroed(n);
  ASSERT_NE(p.get(), nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p.get()) % (uint64_t{2} << 20), 0u);
  EXPECT_TRUE(all_zero(p.get(), n));
  std::memset(p.get(), 0xab, n);  // every byte asked for can be written
  EXPECT_EQ(static_cast<unsigned char*>(p.get())[n - 1], 0xab);
}

// Where the kernel offers transparent huge pages on request, the buffer gets them once
// touched (smaps shows AnonHugePages for its mapping).
TEST(BigMemory, LargeBuffersGetHugePagesWhereOffered) {
  std::ifstream mode("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string setting((std::istreambuf_iterator<char>(mode)), {});
  if (setting.find("[never]") != std::string::npos || setting.empty()) {
    GTEST_SKIP() << "transparent huge pages are off on this kernel";
  }
  const uint64_t n = uint64_t{64} << 20;
  auto p = allocate_zeroed(n);
  std::memset(p.get(), 1, n);
  std::ifstream smaps("/proc/self/smaps");
  const auto start = reinterpret_cast<uintptr_t>(p.get());
  std::string line;
  bool in_mapping = false;
  uint64_t huge_kb = 0;
  while (std::getline(smaps, line)) {
    if (!line.empty() && std::isxdigit(static_cast<unsigned char>(line[0])) &&
        line.find('-') != std::string::npos) {
      const size_t dash = line.find('-');
      const uint64_t low = std::stoull(line.substr(0, dash), nullptr, 16);
      const uint64_t high = std::stoull(line.substr(dash + 1), nullptr, 16);
      in_mapping = low <= start && start < high;
    } else if (in_mapping && line.rfind("AnonHugePages:", 0) == 0) {
      huge_kb = std::stoull(line.substr(14));
    }
  }
  // The kernel may be short of free huge pages on a busy machine: most, not all.
  EXPECT_GE(huge_kb, (n >> 10) / 2) << "huge pages in the buffer's mapping: " << huge_kb << " kB";
}

TEST(BigMemory, NDArrayStorageIsZeroed) {
  NDArray a(DType::float_(8), Shape({int64_t{1} << 20}));  // 8 MiB: the large path
  EXPECT_TRUE(all_zero(a.data(), a.byte_size()));
  EXPECT_EQ(a.get<double>({(int64_t{1} << 20) - 1}), 0.0);
}

}  // namespace
}  // namespace dudley

namespace dudley {
namespace {

// Small buffers share one allocation with their owner's count: every byte still reads 0,
// padding included, on a heap whose freed memory was dirty (this failed when the block's
// long doubles were value-initialized, which leaves their padding as it was).
TEST(AllocateZeroed, SmallBuffersAreZeroEvenOnADirtyHeap) {
  for (int round = 0; round < 3; ++round) {
    {
      std::vector<std::unique_ptr<unsigned char[]>> dirty;
      for (size_t n = 1; n <= 2048; n += 7) {
        dirty.emplace_back(new unsigned char[n]);
        std::memset(dirty.back().get(), 0xA5, n);
      }
    }  // freed: the next allocations reuse this memory
    for (uint64_t n :
         {uint64_t{0}, uint64_t{1}, uint64_t{10}, uint64_t{31}, uint64_t{32}, uint64_t{33},
          uint64_t{100}, uint64_t{1000}, uint64_t{1024}, uint64_t{1025}}) {
      const std::shared_ptr<void> p = allocate_zeroed(n);
      const auto* bytes = static_cast<const unsigned char*>(p.get());
      ASSERT_NE(bytes, nullptr);
      for (uint64_t i = 0; i < std::max<uint64_t>(n, 1); ++i) {
        ASSERT_EQ(bytes[i], 0) << "byte " << i << " of " << n;
      }
      EXPECT_EQ(reinterpret_cast<uintptr_t>(bytes) % alignof(std::max_align_t), 0u);
    }
  }
}

}  // namespace
}  // namespace dudley
