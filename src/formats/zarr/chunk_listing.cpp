#include "chunk_listing.hpp"

#include <algorithm>
#include <string_view>
#include <vector>

namespace dudley::zarr {

std::optional<model::StoredChunks> ChunkListing::list(const io::Store& store,
                                                      const std::string& prefix,
                                                      const ArrayMetadata& meta) {
  std::lock_guard lock(mutex_);
  if (listed_) return listed_;
  const size_t rank = meta.shape.size();
  std::vector<int64_t> grid(rank);
  for (size_t d = 0; d < rank; ++d) {
    grid[d] = meta.chunk_shape[d] == 0
                  ? 0
                  : (meta.shape[d] + meta.chunk_shape[d] - 1) / meta.chunk_shape[d];
  }
  std::vector<std::vector<int64_t>> found;
  auto keys = std::make_shared<std::unordered_set<std::string>>();
  const bool listed = store.for_each_key(prefix, [&](std::string_view key) {
    std::optional<std::vector<int64_t>> index = meta.keys.index_of(key, rank);
    if (!index) return;
    for (size_t d = 0; d < rank; ++d) {
      if ((*index)[d] >= grid[d]) return;  // beyond the grid: never read, as Zarr says
    }
    keys->emplace(key);
    found.push_back(std::move(*index));
  });
  if (!listed) return std::nullopt;
  std::sort(found.begin(), found.end());
  model::StoredChunks stored;
  stored.chunk_shape = meta.chunk_shape;
  stored.chunks = found.size();
  stored.positions.reserve(found.size() * rank);
  for (const auto& p : found) stored.positions.insert(stored.positions.end(), p.begin(), p.end());
  stored.fill = meta.fill.bytes;
  listed_ = std::move(stored);
  keys_ = std::move(keys);
  return listed_;
}

bool ChunkListing::known_missing(const std::string& relative_key) const {
  std::lock_guard lock(mutex_);
  return keys_ && !keys_->count(relative_key);
}

}  // namespace dudley::zarr
