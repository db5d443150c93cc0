// Streaming reads: model::for_each_piece must cover a selection exactly, in the order of its
// result, in bounded runs; contiguous_run must say exactly when a selection is one run; and
// io::read_selection must read what numpy-style selection of the same bytes in memory gives
// (NDArray::select, itself checked against numpy in the CLI tests).
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <random>

#include "dudley/core/byte_swap.hpp"
#include "dudley/core/ndarray.hpp"
#include "dudley/io/byte_source.hpp"
#include "dudley/io/selection_read.hpp"
#include "dudley/model/read_pieces.hpp"

namespace dudley {
namespace {

ByteOrder foreign() {
  return native_byte_order() == ByteOrder::kLittle ? ByteOrder::kBig : ByteOrder::kLittle;
}

// An int32 array of `shape` holding 0, 1, 2, ... in C order.
NDArray iota(const std::vector<int64_t>& shape) {
  NDArray a(DType::int_(4), Shape(shape));
  auto* p = static_cast<int32_t*>(a.mutable_data());
  std::iota(p, p + a.element_count(), 0);
  return a;
}

std::vector<int32_t> values(const NDArray& a) {
  const NDArray n = a.to_native();
  std::vector<int32_t> out(n.element_count());
  if (!out.empty()) std::memcpy(out.data(), n.data(), n.byte_size());
  return out;
}

// A random selection of `shape`: any start, count and step (negative included) that fits.
Hyperslab random_slab(const std::vector<int64_t>& shape, std::mt19937& rng) {
  Hyperslab h;
  for (int64_t n : shape) {
    auto pick = [&](int64_t lo, int64_t hi) {
      return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
    };
    int64_t step = pick(0, 3) == 0 ? pick(-3, 3) : 1;
    if (step == 0) step = 1;
    const int64_t start = pick(0, n - 1);
    const int64_t room = step > 0 ? (n - 1 - start) / step + 1 : start / (-step) + 1;
    h.start.push_back(start);
    h.count.push_back(pick(0, 4) == 0 ? room : pick(1, room));
    h.stride.push_back(step);
  }
  return h;
}

// Reads a selection the way a streaming writer does: piece by piece into one buffer.
std::vector<int32_t> by_pieces(const NDArray& a, const Hyperslab& selection, uint64_t budget,
                               const model::ReadUnit& unit = {}, size_t whole_dims = 0) {
  std::vector<int32_t> out;
  uint64_t expected_offset = 0;
  model::for_each_piece(
      selection, 4, unit, budget,
      [&](const model::Piece& piece) {
        EXPECT_EQ(piece.offset, expected_offset);
        EXPECT_TRUE(piece.slab.dropped.empty());
        const std::vector<int32_t> got = values(a.select(piece.slab));
        EXPECT_EQ(piece.bytes, got.size() * 4);
        // Bounded unless a single unsplittable run is larger than the budget.
        uint64_t smallest = 4;
        for (size_t d = selection.count.size() - whole_dims; d < selection.count.size(); ++d) {
          smallest *= static_cast<uint64_t>(selection.count[d]);
        }
        EXPECT_LE(piece.bytes, std::max(budget, smallest));
        out.insert(out.end(), got.begin(), got.end());
        expected_offset += piece.bytes;
        return true;
      },
      whole_dims);
  return out;
}

TEST(ReadPieces, CoverTheWholeArrayInCOrder) {
  for (const auto& shape : std::vector<std::vector<int64_t>>{
           {}, {1}, {7}, {100}, {3, 5}, {4, 1, 9}, {2, 3, 4, 5}, {10, 0, 3}}) {
    const NDArray a = iota(shape);
    for (uint64_t budget : {uint64_t{1}, uint64_t{4}, uint64_t{12}, uint64_t{64}, uint64_t{1000},
                            uint64_t{1} << 30}) {
      SCOPED_TRACE(testing::Message() << Shape(shape).to_string() << " budget " << budget);
      EXPECT_EQ(by_pieces(a, Hyperslab::all(shape), budget), values(a));
    }
  }
}

TEST(ReadPieces, CoverAnySelectionInTheOrderOfItsResult) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 400; ++trial) {
    std::vector<int64_t> shape;
    const int rank = std::uniform_int_distribution<int>(1, 4)(rng);
    for (int d = 0; d < rank; ++d) shape.push_back(std::uniform_int_distribution<int>(1, 7)(rng));
    const NDArray a = iota(shape);
    const Hyperslab h = random_slab(shape, rng);
    const uint64_t budget = std::uniform_int_distribution<uint64_t>(1, 200)(rng);
    SCOPED_TRACE(testing::Message() << "trial " << trial);
    EXPECT_EQ(by_pieces(a, h, budget), values(a.select(h)));
    EXPECT_EQ(by_pieces(a, h, budget, {}, 1), values(a.select(h)));  // last dimension whole
  }
}

TEST(ReadPieces, AlignToTheReadUnit) {
  const NDArray a = iota({100, 6});
  model::ReadUnit unit{{8, 6}, 0};
  std::vector<int64_t> counts;
  model::for_each_piece(Hyperslab::all({100, 6}), 4, unit, 30 * 24, [&](const model::Piece& p) {
    counts.push_back(p.slab.count[0]);
    return true;
  });
  // 30 rows fit; 24 of them are whole units of 8.
  ASSERT_EQ(counts.size(), 5u);
  for (size_t i = 0; i + 1 < counts.size(); ++i) EXPECT_EQ(counts[i], 24);
  EXPECT_EQ(counts.back(), 4);
  EXPECT_EQ(by_pieces(a, Hyperslab::all({100, 6}), 30 * 24, unit), values(a));
}

TEST(ReadPieces, StopWhenAsked) {
  int seen = 0;
  model::for_each_piece(std::vector<int64_t>{100}, 4, {}, 40, [&](const model::Piece&) {
    ++seen;
    return seen < 3;
  });
  EXPECT_EQ(seen, 3);
}

TEST(ContiguousRun, IsOneRunExactlyWhenTheElementsAreConsecutive) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<int64_t> shape;
    const int rank = std::uniform_int_distribution<int>(1, 3)(rng);
    for (int d = 0; d < rank; ++d) shape.push_back(std::uniform_int_distribution<int>(1, 4)(rng));
    const Hyperslab h = random_slab(shape, rng);
    const std::vector<int32_t> picked = values(iota(shape).select(h));
    bool consecutive = true;
    for (size_t i = 1; i < picked.size(); ++i) consecutive &= picked[i] == picked[i - 1] + 1;
    const auto run = contiguous_run(shape, 4, h);
    SCOPED_TRACE(testing::Message() << "trial " << trial);
    EXPECT_EQ(run.has_value(), consecutive);
    if (run && !picked.empty()) {
      EXPECT_EQ(run->offset, static_cast<uint64_t>(picked[0]) * 4);
      EXPECT_EQ(run->bytes, picked.size() * 4);
    }
  }
  EXPECT_EQ(contiguous_run({}, 8, Hyperslab::all({}))->bytes, 8u);
}

TEST(ReadSelection, ReadsWhatSelectingInMemoryGives) {
  std::mt19937 rng(5);
  for (ByteOrder order : {native_byte_order(), foreign()}) {
    for (int trial = 0; trial < 300; ++trial) {
      std::vector<int64_t> shape;
      const int rank = std::uniform_int_distribution<int>(1, 4)(rng);
      for (int d = 0; d < rank; ++d) shape.push_back(std::uniform_int_distribution<int>(1, 9)(rng));
      NDArray stored = iota(shape);
      const DType type = DType::int_(4, order);
      if (order != native_byte_order())
        swap_elements(stored.mutable_data(), stored.element_count(), type);
      // The array lies 3 bytes into the source, after a prefix.
      std::vector<unsigned char> file(3 + stored.byte_size(), 0xee);
      std::memcpy(file.data() + 3, stored.data(), stored.byte_size());
      const auto source = io::memory_source(file.data(), file.size());
      const Hyperslab h = random_slab(shape, rng);
      const NDArray expected = iota(shape).select(h);
      std::vector<int32_t> got(expected.element_count());
      io::read_selection(*source, 3, type, shape, h, got.data());
      SCOPED_TRACE(testing::Message() << "trial " << trial);
      EXPECT_EQ(got, values(expected));
    }
  }
}

TEST(ReadSelection, RefusesARangeOutsideTheSource) {
  std::vector<unsigned char> file(40);
  const auto source = io::memory_source(file.data(), file.size());
  std::vector<int32_t> out(20);
  EXPECT_THROW(
      io::read_selection(*source, 0, DType::int_(4), {20}, Hyperslab::all({20}), out.data()),
      Error);
}

}  // namespace
}  // namespace dudley
