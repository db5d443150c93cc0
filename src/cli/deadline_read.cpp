// A selection read in bands that follow the read units, with a deadline between them.
#include "cli/deadline_read.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "dudley/core/chunk_segments.hpp"

namespace dudley::cli {

namespace {

constexpr size_t kMostBands = 8;

// The bands of dimension `along` of `slab`: [first, end) selection positions each, cut on
// the read unit's boundaries (whole chunk rows) where the source has one.
std::vector<std::pair<int64_t, int64_t>> bands_of(const model::ArraySource& source,
                                                  const Hyperslab& slab, size_t along) {
  const int64_t count = slab.count[along];
  const model::ReadUnit unit = source.read_unit();
  std::vector<Segment> pieces;
  if (unit.shape.empty()) {
    // One run of bytes, cut anywhere: in equal parts.
    const int64_t parts = std::min<int64_t>(count, kMostBands);
    for (int64_t i = 0; i < parts; ++i) {
      pieces.push_back({i, i * count / parts, (i + 1) * count / parts});
    }
  } else if (unit.shape.size() > along && unit.shape[along] > 0) {
    // Whole rows of chunks, each decoded once (a selection inside one row stays whole).
    pieces = segments_of(slab.start[along], count, slab.step(along), unit.shape[along]);
  } else {
    pieces.push_back({0, 0, count});
  }
  // Neighbouring pieces joined into at most kMostBands bands of about equal length.
  std::vector<std::pair<int64_t, int64_t>> bands;
  const size_t n = pieces.size(), per = (n + kMostBands - 1) / kMostBands;
  for (size_t i = 0; i < n; i += per) {
    bands.emplace_back(pieces[i].k0, pieces[std::min(n, i + per) - 1].k1);
  }
  return bands;
}

}  // namespace

NDArray read_by(model::ArraySource& source, const DType& dtype, const Hyperslab& slab, size_t along,
                std::optional<Deadline> deadline, std::chrono::milliseconds limit,
                const std::string& what) {
  if (!deadline || dtype.holds_vlen() || along >= slab.count.size() || slab.count[along] <= 1) {
    return source.read(slab);
  }
  const std::vector<std::pair<int64_t, int64_t>> bands = bands_of(source, slab, along);
  if (bands.size() == 1) return source.read(slab);
  std::vector<NDArray> read;
  for (const auto& [first, end] : bands) {
    if (!read.empty() && std::chrono::steady_clock::now() > *deadline) {
      throw OutOfTime(
          ErrorCategory::kLimit,
          fmt::format("{}: reading took longer than the viewer's time limit of {} s ({} of {} "
                      "selected rows read); select a smaller part, or start the viewer with a "
                      "longer --time-limit",
                      what, static_cast<double>(limit.count()) / 1000.0, first, slab.count[along]));
    }
    Hyperslab band = slab;
    band.start[along] = slab.start[along] + first * slab.step(along);
    band.count[along] = end - first;
    NDArray part = source.read(band);
    read.push_back(part.is_c_contiguous() ? std::move(part) : part.to_native());
  }
  // The bands, one after the other: the dimensions before `along` select one element each.
  NDArray out(read[0].dtype(), Shape(slab.result_shape()));
  auto* to = static_cast<std::byte*>(out.mutable_data());
  for (const NDArray& part : read) {
    std::memcpy(to, part.data(), part.byte_size());
    to += part.byte_size();
  }
  return out;
}

}  // namespace dudley::cli
