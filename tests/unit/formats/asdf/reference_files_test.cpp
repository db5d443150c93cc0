// The ASDF Standard's reference files (tests/data/asdf/reference, every standard version):
// each NAME.asdf must read as the tree its NAME.yaml writes out, with array values inline.
// The two files take different paths through the reader (blocks, compression, views,
// streams, external files vs inline data), so agreement checks both against the standard's
// own expectations.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>

#include "dudley/formats/asdf.hpp"

namespace dudley::asdf {
namespace {

namespace fs = std::filesystem;
const std::string kReference = std::string(DUDLEY_TEST_DATA) + "/asdf/reference";

bool same_float(const unsigned char* a, const unsigned char* b, uint64_t size) {
  if (size == 8) {
    double x, y;
    std::memcpy(&x, a, 8);
    std::memcpy(&y, b, 8);
    return x == y ? std::signbit(x) == std::signbit(y) : (std::isnan(x) && std::isnan(y));
  }
  float x, y;
  std::memcpy(&x, a, 4);
  std::memcpy(&y, b, 4);
  return x == y ? std::signbit(x) == std::signbit(y) : (std::isnan(x) && std::isnan(y));
}

// Equal elements; floats compared as numbers (NaN payloads do not survive YAML).
void expect_same_values(const NDArray& a, const NDArray& b, const std::string& where) {
  ASSERT_EQ(a.byte_size(), b.byte_size()) << where;
  const DType& t = a.dtype();
  const auto* p = static_cast<const unsigned char*>(a.data());
  const auto* q = static_cast<const unsigned char*>(b.data());
  const bool floating = t.kind() == DTypeKind::kFloat || t.kind() == DTypeKind::kComplex;
  const uint64_t part = t.kind() == DTypeKind::kComplex ? t.size() / 2 : t.size();
  if (!floating) {
    EXPECT_EQ(0, std::memcmp(p, q, a.byte_size())) << where;
    return;
  }
  for (uint64_t at = 0; at < a.byte_size(); at += part) {
    EXPECT_TRUE(same_float(p + at, q + at, part)) << where << " differs at byte " << at;
  }
}

void expect_same_tree(const model::Node& got, const model::Node& want, const std::string& where) {
  ASSERT_EQ(got.kind, want.kind) << where;
  EXPECT_TRUE(got.error.empty()) << where << ": " << got.error.text();
  if (got.kind == model::NodeKind::kArray) {
    EXPECT_EQ(got.shape, want.shape) << where;
    EXPECT_EQ(got.dtype.with_byte_order(native_byte_order()),
              want.dtype.with_byte_order(native_byte_order()))
        << where << ": " << got.dtype.to_string() << " vs " << want.dtype.to_string();
    ASSERT_TRUE(got.data && want.data) << where;
    expect_same_values(got.data->read(), want.data->read(), where);
    return;
  }
  ASSERT_EQ(got.attributes.size(), want.attributes.size()) << where;
  for (const auto& [name, value] : want.attributes) {
    const auto* mine = got.attributes.find(name);
    ASSERT_NE(mine, nullptr) << where << ": no attribute " << name;
    EXPECT_TRUE(std::get<model::Value>(*mine) == std::get<model::Value>(value))
        << where << "." << name;
  }
  ASSERT_EQ(got.children.size(), want.children.size()) << where;
  for (size_t i = 0; i < got.children.size(); ++i) {
    EXPECT_EQ(got.children[i]->name, want.children[i]->name) << where;
    expect_same_tree(*got.children[i], *want.children[i], where + "/" + want.children[i]->name);
  }
}

TEST(AsdfReferenceFiles, EveryFileReadsAsItsYaml) {
  int compared = 0;
  for (const auto& version : fs::directory_iterator(kReference)) {
    if (!version.is_directory()) continue;
    for (const auto& entry : fs::directory_iterator(version.path())) {
      if (entry.path().extension() != ".asdf") continue;
      fs::path yaml = entry.path();
      yaml.replace_extension(".yaml");
      if (!fs::exists(yaml)) continue;  // exploded0000.asdf: read through exploded.asdf
      SCOPED_TRACE(entry.path().string());
      model::Tree got = open_asdf(entry.path().string());
      model::Tree want = open_asdf(yaml.string());
      expect_same_tree(*got.root, *want.root, entry.path().filename().string());
      ++compared;
    }
  }
  EXPECT_EQ(compared, 7 * 15);  // 15 files with expectations in each of 7 versions
}

TEST(AsdfReferenceFiles, ArraysHaveTheValuesTheStandardWrote) {
  // Spot checks against the .yaml text itself, so the comparison above cannot pass by
  // both sides being wrong the same way.
  model::Tree t = open_asdf(kReference + "/1.5.0/shared.asdf");
  NDArray subset = t.find("/subset")->data->read();
  ASSERT_EQ(subset.element_count(), 4u);
  EXPECT_EQ(subset.get<int64_t>({0}), 1);
  EXPECT_EQ(subset.get<int64_t>({3}), 7);

  model::Tree s = open_asdf(kReference + "/1.6.0/stream.asdf");
  const model::Node* stream = s.find("/my_stream");
  EXPECT_EQ(stream->shape, (std::vector<int64_t>{8, 8}));
  EXPECT_EQ(stream->data->read().get<double>({7, 7}), 7.0);

  model::Tree c = open_asdf(kReference + "/1.0.0/compressed.asdf");
  EXPECT_EQ(c.find("/bzp2")->data->read().get<int64_t>({127}), 127);
  EXPECT_EQ(c.find("/zlib")->storage.kind, model::Storage::Kind::kChunked);

  model::Tree a = open_asdf(kReference + "/1.4.0/anchor.asdf");
  const auto* b = a.root->attributes.find("b");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(*std::get<model::Value>(*b).find("abc"), model::Value(123));

  model::Tree u = open_asdf(kReference + "/1.3.0/unicode_spp.asdf");
  NDArray spp = u.find("/datatype>U")->data->read();
  EXPECT_EQ(spp.get<uint32_t>({1}), 0x10020u);
}

}  // namespace
}  // namespace dudley::asdf
