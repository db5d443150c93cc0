// Writing a Zarr store into a key-value store (what a write to S3 does, here on a memory
// store that logs every write and erase): chunks before metadata, arrays' metadata before
// their groups', an overwrite that removes the old metadata first and the stale chunks
// after, a refused (lossy) write that touches nothing, and a failed one that leaves nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "dudley/core/error.hpp"
#include "dudley/formats/zarr.hpp"
#include "dudley/model/memory_source.hpp"

namespace dudley::zarr {
namespace {

// A memory store that logs "put KEY" and "erase KEY" in order, and can be made to refuse
// every write after the first `writes_allowed` values.
class LoggingStore final : public io::Store {
 public:
  const std::string& name() const override { return inner_->name(); }
  std::optional<uint64_t> size(const std::string& key) const override { return inner_->size(key); }
  void read(const std::string& key, uint64_t offset, uint64_t length,
            std::byte* out) const override {
    inner_->read(key, offset, length, out);
  }
  std::vector<std::string> subdirectories(const std::string& prefix) const override {
    return inner_->subdirectories(prefix);
  }
  bool for_each_key(const std::string& prefix,
                    const std::function<void(std::string_view)>& visit) const override {
    return inner_->for_each_key(prefix, visit);
  }
  bool writable() const override { return true; }
  void write_many(std::span<const io::WriteRequest> values) override {
    for (const io::WriteRequest& v : values) {
      if (writes_allowed == 0) {
        throw Error(ErrorCategory::kIo, "refused", Location::file(v.key));
      }
      --writes_allowed;
      log.push_back("put " + v.key);
      inner_->write_many({&v, 1});
    }
  }
  void erase_many(std::span<const std::string> keys) override {
    for (const std::string& k : keys) log.push_back("erase " + k);
    inner_->erase_many(keys);
  }

  std::vector<std::string> keys(const std::string& prefix) const {
    std::vector<std::string> out;
    inner_->for_each_key(prefix, [&](std::string_view k) { out.emplace_back(k); });
    std::sort(out.begin(), out.end());
    return out;
  }

  std::vector<std::string> log;
  uint64_t writes_allowed = UINT64_MAX;

 private:
  std::shared_ptr<io::Store> inner_ = io::memory_store({});
};

// A tree of one group "g" holding the int32 array "x" of `n` elements (0, 1, ...).
model::Tree tree_of(int64_t n) {
  NDArray values(DType::int_(4), Shape({n}));
  std::iota(static_cast<int32_t*>(values.mutable_data()),
            static_cast<int32_t*>(values.mutable_data()) + n, 0);
  auto x = std::make_unique<model::Node>();
  x->kind = model::NodeKind::kArray;
  x->name = "x";
  x->dtype = values.dtype();
  x->shape = {n};
  x->data = model::memory_source(std::move(values));
  auto g = std::make_unique<model::Node>();
  g->name = "g";
  g->children.push_back(std::move(x));
  model::Tree tree;
  tree.format = "test";
  tree.root = std::make_unique<model::Node>();
  tree.root->children.push_back(std::move(g));
  return tree;
}

ZarrSaveOptions chunks_of(int64_t n) {
  ZarrSaveOptions o;
  o.chunk_shape = {n};
  o.keep_source_chunks = false;
  o.compressor = "none";
  return o;
}

size_t position(const std::vector<std::string>& log, const std::string& entry) {
  return static_cast<size_t>(std::find(log.begin(), log.end(), entry) - log.begin());
}

TEST(ZarrStoreWrite, ChunksFirstThenArraysThenGroupsThenTheRoot) {
  LoggingStore store;
  const SaveReport report =
      write_zarr_to_store(tree_of(10), store, "s.zarr", "mem://b/s.zarr", chunks_of(4));
  ASSERT_EQ(report.files.size(), 1u);
  EXPECT_EQ(report.files[0].path, "mem://b/s.zarr");
  const std::vector<std::string> want = {"put s.zarr/g/x/c/0",     "put s.zarr/g/x/c/1",
                                         "put s.zarr/g/x/c/2",     "put s.zarr/g/x/zarr.json",
                                         "put s.zarr/g/zarr.json", "put s.zarr/zarr.json"};
  EXPECT_EQ(store.log, want);
  // Read back by the reader, from a store holding what was written under s.zarr/.
  std::map<std::string, Bytes> written;
  for (const std::string& key : store.keys("s.zarr")) written[key] = *store.get("s.zarr/" + key);
  model::Tree back = open_zarr(io::memory_store(std::move(written)));
  const model::Node* x = back.find("/g/x");
  ASSERT_NE(x, nullptr);
  const NDArray got = x->data->read();
  for (int32_t i = 0; i < 10; ++i) EXPECT_EQ(static_cast<const int32_t*>(got.data())[i], i);
}

TEST(ZarrStoreWrite, AnOverwriteRemovesOldMetadataFirstAndStaleChunksLast) {
  LoggingStore store;
  write_zarr_to_store(tree_of(10), store, "s.zarr", "mem://b/s.zarr", chunks_of(4));
  store.log.clear();
  write_zarr_to_store(tree_of(3), store, "s.zarr", "mem://b/s.zarr", chunks_of(4));
  const auto& log = store.log;
  const size_t first_put = position(log, "put s.zarr/g/x/c/0");
  ASSERT_LT(first_put, log.size());
  for (const char* old : {"s.zarr/zarr.json", "s.zarr/g/zarr.json", "s.zarr/g/x/zarr.json"}) {
    EXPECT_LT(position(log, std::string("erase ") + old), first_put) << old;
  }
  const size_t stale = position(log, "erase s.zarr/g/x/c/2");
  EXPECT_GT(stale, first_put);
  EXPECT_LT(stale, position(log, "put s.zarr/g/x/zarr.json"));
  EXPECT_EQ(store.keys("s.zarr"),
            (std::vector<std::string>{"g/x/c/0", "g/x/zarr.json", "g/zarr.json", "zarr.json"}));
}

TEST(ZarrStoreWrite, AWriteThatWouldLoseAnItemTouchesNothing) {
  LoggingStore store;
  write_zarr_to_store(tree_of(10), store, "s.zarr", "mem://b/s.zarr", chunks_of(4));
  store.log.clear();
  model::Tree lossy = tree_of(3);
  auto broken = std::make_unique<model::Node>();
  broken->kind = model::NodeKind::kArray;
  broken->name = "y";
  broken->error.message = "unreadable here";
  lossy.root->children.push_back(std::move(broken));
  EXPECT_THROW(write_zarr_to_store(lossy, store, "s.zarr", "mem://b/s.zarr", chunks_of(4)),
               LossError);
  EXPECT_TRUE(store.log.empty()) << store.log.front();
  EXPECT_EQ(store.keys("s.zarr").size(), 6u);  // the old store, whole
}

TEST(ZarrStoreWrite, AFailedWriteRemovesWhatItWrote) {
  LoggingStore store;
  store.writes_allowed = 2;  // two chunks go in, the third is refused
  try {
    write_zarr_to_store(tree_of(10), store, "s.zarr", "mem://b/s.zarr", chunks_of(4));
    FAIL() << "the refused chunk was not reported";
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::kIo);
  }
  EXPECT_TRUE(store.keys("s.zarr").empty());
}

}  // namespace
}  // namespace dudley::zarr
