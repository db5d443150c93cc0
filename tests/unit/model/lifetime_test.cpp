// The lifetime contract of include/dudley/model/tree.hpp, held by every writer: items of an
// on-demand list are freed after their visit, so a writer that kept a pointer into one would
// read freed memory (ASan, in the sanitizer build, says so). Each writer writes a tree whose
// list items are made on demand, of a different shape each, and the values must read back.
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>

#include "dudley/formats/asdf.hpp"
#include "dudley/layout/write/from_model.hpp"
#include "dudley/model/tree.hpp"
#include "dudley/open.hpp"

namespace dudley::model {
namespace {

namespace fs = std::filesystem;

class MemorySource final : public ArraySource {
 public:
  explicit MemorySource(NDArray a) : a_(std::move(a)) {}
  NDArray read() override { return a_.to_native(); }
  NDArray read(const Hyperslab& slab) override { return a_.select(slab).to_native(); }

 private:
  NDArray a_;
};

// Item i: a group holding `v`, int16 [i] with values 100*i + k, and `s`, a string of i
// characters; each built anew and freed after its visit.
class VaryingItems final : public ItemSource {
 public:
  explicit VaryingItems(uint64_t n) : n_(n) {}
  uint64_t size() const override { return n_; }
  std::unique_ptr<Node> item(uint64_t i) override {
    auto group = std::make_unique<Node>();
    group->kind = NodeKind::kGroup;
    NDArray v(DType::int_(2), Shape({static_cast<int64_t>(i)}));
    for (uint64_t k = 0; k < i; ++k) {
      static_cast<int16_t*>(v.mutable_data())[k] = static_cast<int16_t>(100 * i + k);
    }
    group->children.push_back(array("v", std::move(v)));
    NDArray s(DType::string(TextEncoding::kAscii, i + 1), Shape(std::vector<int64_t>{}));
    for (uint64_t k = 0; k <= i; ++k) static_cast<char*>(s.mutable_data())[k] = char('a' + k);
    group->children.push_back(array("s", std::move(s)));
    return group;
  }

 private:
  static std::unique_ptr<Node> array(const std::string& name, NDArray a) {
    auto n = std::make_unique<Node>();
    n->kind = NodeKind::kArray;
    n->name = name;
    n->dtype = a.dtype();
    n->shape = a.shape().dims();
    n->data = std::make_shared<MemorySource>(std::move(a));
    return n;
  }
  uint64_t n_;
};

Tree on_demand_tree(uint64_t items) {
  Tree t;
  t.format = "test";
  t.root = std::make_unique<Node>();
  auto list = std::make_unique<Node>();
  list->kind = NodeKind::kList;
  list->name = "L";
  list->lazy = std::make_shared<VaryingItems>(items);
  t.root->children.push_back(std::move(list));
  return t;
}

class Lifetime : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("dudley_lifetime_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Every item's values, read back from `path`.
  static void check_read_back(const std::string& path, uint64_t items) {
    const Tree back = dudley::open(path);
    for (uint64_t i = 0; i < items; ++i) {
      const std::string at = "/L/" + std::to_string(i);
      const Node* v = back.find(at + "/v");
      ASSERT_NE(v, nullptr) << path << at;
      ASSERT_EQ(v->shape, std::vector<int64_t>{static_cast<int64_t>(i)}) << path << at;
      const NDArray values = v->data->read();
      for (uint64_t k = 0; k < i; ++k) {
        ASSERT_EQ(values.get<int16_t>({static_cast<int64_t>(k)}), int16_t(100 * i + k));
      }
      const Node* s = back.find(at + "/s");
      ASSERT_NE(s, nullptr) << path << at;
      const NDArray text = s->data->read();
      ASSERT_EQ(text.byte_size(), i + 1) << path << at;
      EXPECT_EQ(static_cast<const char*>(text.data())[i], char('a' + i)) << path << at;
    }
  }
  fs::path dir_;
};

TEST_F(Lifetime, DudleyWriterReadsOnDemandItemsWhileTheyLive) {
  const Tree t = on_demand_tree(7);
  const std::string path = (dir_ / "x.bin").string();
  layout::write_tree(t, path);
  check_read_back(path, 7);
}

TEST_F(Lifetime, AsdfWriterKeepsTheDataNotTheItems) {
  const Tree t = on_demand_tree(7);
  for (uint64_t inline_max : {uint64_t{0}, uint64_t{1000}}) {
    asdf::AsdfSaveOptions options;
    options.inline_threshold = inline_max;
    const std::string path = (dir_ / ("x" + std::to_string(inline_max) + ".asdf")).string();
    asdf::write_asdf(t, path, options);
    check_read_back(path, 7);
  }
}

}  // namespace
}  // namespace dudley::model
