// The NDL reader: every entity and datatype into the model, and YAML that is not NDL refused
// with the line, the column and the entity named.
#include <gtest/gtest.h>

#include <cstring>

#include "dudley/core/vlen.hpp"
#include "dudley/formats/ndl.hpp"

namespace dudley::ndl {
namespace {

const model::Node& at(const model::Tree& t, const char* path) {
  const model::Node* n = t.find(path);
  if (!n) throw std::runtime_error(std::string("no ") + path);
  return *n;
}

TEST(NdlRead, EntitiesAndDatatypes) {
  const char* text = R"(
/:
  attributes:
    title: hello
    count: 3
    ratio: 0.5
    big: 18446744073709551615
    state:
      shape: [3]
      type: string
      value: [power on, power off, error]
  dimcoords:
    d1:
      size: 3
      type: float32
      value: [1.0, 1.5, 2.0]
  ndarrays:
    n:
      shape: [2, d1]
      type: int16
      value: [[1, 2, 3], [4, 5, -6]]
      storage:
        endian: big
        chunk: [1, 3]
        filter: [shuffle, {deflate: {level: 4}}]
        fillvalue: -1
/g/h:
  dimcoords:
    t:
      size: null
      type: float64
      storage:
        size: 2
  ndarrays:
    e:
      shape: [2]
      type:
        enum:
          members: {OFF: 0, ON: 1, UNDEFINED: 255}
      value: [ON, 255]
    s:
      shape: [t, /d1]
      type: {compound: [{x: float32}, {y: {array: {base: uint8, shape: [2]}}}]}
    v:
      shape: [2]
      type: {vlen: {base: int32}}
      value: [[1, 2, 3], []]
    o:
      shape: []
      type: {opaque: {size: 4, tag: image/png}}
      value: !!binary AQID
    r:
      shape: [2]
      type: objref
      value: [/n, null]
    rr:
      shape: [1]
      type: {regref: {selection: element}}
      value: [{target: /n, elements: [[0, 1], [1, 2]]}]
)";
  const model::Tree t = read_ndl(text, "t.yaml");
  const model::Node& n = at(t, "/n");
  EXPECT_EQ(n.dtype, DType::int_(2, ByteOrder::kBig));
  EXPECT_EQ(n.shape, (std::vector<int64_t>{2, 3}));
  ASSERT_TRUE(n.storage.chunking);
  EXPECT_EQ(n.storage.chunking->chunk_shape, (std::vector<int64_t>{1, 3}));
  const NDArray values = n.data->read();
  EXPECT_EQ(values.get<int16_t>({1, 2}), -6);
  EXPECT_TRUE(n.attributes.find(model::well_known::kFillValue));
  // A shape naming a DimCoord: its size, and the coordinate recorded.
  const auto* coords =
      std::get_if<model::Value>(n.attributes.find(model::well_known::kDimensionCoordinates));
  ASSERT_TRUE(coords);
  EXPECT_TRUE(coords->as<model::ValueList>()[0].is_null());
  EXPECT_EQ(coords->as<model::ValueList>()[1].as<std::string>(), "/d1");
  // Enum without base: the smallest unsigned type holding 255.
  const model::Node& e = at(t, "/g/h/e");
  EXPECT_EQ(e.dtype.base(), DType::uint(1, ByteOrder::kNotApplicable));
  EXPECT_EQ(e.data->read().get<uint8_t>({0}), 1);
  // Unlimited DimCoord: current size from storage, maximum unlimited.
  const model::Node& tc = at(t, "/g/h/t");
  EXPECT_EQ(tc.shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(tc.storage.max_shape, (std::vector<int64_t>{-1}));
  const model::Node& s = at(t, "/g/h/s");
  EXPECT_EQ(s.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(s.dtype.fields().size(), 2u);
  EXPECT_EQ(s.dtype.size(), 6u);
  EXPECT_THROW(s.data->read(), Error);  // described only
  const NDArray v = at(t, "/g/h/v").data->read();
  const auto elements = vlen_elements(v);
  EXPECT_EQ(elements[0].count, 3u);
  EXPECT_EQ(elements[1].count, 0u);
  EXPECT_EQ(at(t, "/g/h/o").dtype.tag(), "image/png");
  ASSERT_TRUE(t.references);
  const NDArray r = at(t, "/g/h/r").data->read();
  EXPECT_EQ(t.references->find(r.get<uint64_t>({0})).as<std::string>(), "/n");
  EXPECT_EQ(r.get<uint64_t>({1}), 0u);
  EXPECT_EQ(at(t, "/g/h/rr").dtype.reference_kind(), ReferenceKind::kRegionElements);
  // Attributes: short forms and full forms.
  const model::Node& root = *t.root;
  EXPECT_EQ(std::get<model::Value>(*root.attributes.find("title")).as<std::string>(), "hello");
  EXPECT_EQ(std::get<NDArray>(*root.attributes.find("count")).dtype(), DType::int_(8));
  EXPECT_EQ(std::get<NDArray>(*root.attributes.find("big")).dtype(), DType::uint(8));
  EXPECT_EQ(std::get<NDArray>(*root.attributes.find("state")).element_count(), 3u);
}

TEST(NdlRead, NonHierarchicalDocumentIsTheRootGroup) {
  const model::Tree t =
      read_ndl("ndarrays:\n  x: {shape: [2], type: float64, value: [1, 2.5]}\n", "x.yaml");
  EXPECT_EQ(at(t, "/x").data->read().get<double>({1}), 2.5);
}

struct Bad {
  const char* text;
  ErrorCategory category;
  uint32_t line;
  const char* message;  // a part of it
};

TEST(NdlRead, ErrorsNameLineAndEntity) {
  const Bad cases[] = {
      {"/:\n  ndarrays:\n    x: {shape: [2], type: flaot32}\n", ErrorCategory::kType, 3,
       "ndarray /x: unknown NDL type 'flaot32'"},
      {"/:\n  ndarrays:\n    x: {shape: [2]}\n", ErrorCategory::kSemantic, 3,
       "ndarray /x: has no 'type'"},
      {"/g:\n  ndarrays:\n    x: {shape: [nope], type: int8}\n", ErrorCategory::kSemantic, 3,
       "shape names 'nope', which is no DimCoord"},
      {"/:\n  ndarrays:\n    x: {shape: [2], type: int8, value: [1, 300]}\n", ErrorCategory::kData,
       3, "300 does not fit"},
      {"/:\n  ndarrays:\n    x: {shape: [2, 2], type: int8, value: [1, 2]}\n", ErrorCategory::kData,
       3, "expected a list of 2 values"},
      {"/:\n  attributes:\n    a: [1, 2]\n", ErrorCategory::kSemantic, 3, "attribute a:"},
      {"/:\n  attributes:\n    a: {shape: [], type: string, value: No}\n", ErrorCategory::kData, 3,
       "'No' is not a string"},
      {"/:\n  attributes:\n    a: true\n", ErrorCategory::kData, 3, "not a string or a number"},
      {"/:\n  ndaray: {}\n", ErrorCategory::kSemantic, 2, "unknown key 'ndaray'"},
      {"/:\n  ndarrays:\n    x: {shape: [2], type: {enum: {base: int8, members: {A: 200}}}}\n",
       ErrorCategory::kType, 3, "does not fit its base"},
      {"/a: {}\nb: {}\n", ErrorCategory::kSemantic, 2, "not a group path"},
      {"/:\n  ndarrays:\n    x: {shape: [2], type: int8}\n  dimcoords:\n    x: {size: 2, type: "
       "int8}\n",
       ErrorCategory::kSemantic, 3, "is given twice"},
      {"/:\n  ndarrays:\n    x: {shape: [1], type: {opaque: {size: 1000000000000}}, value: "
       "[!!binary AQID]}\n",
       ErrorCategory::kLimit, 3, "more memory"},
      {"/:\n  ndarrays:\n    x: {shape: [2], type: objref, value: [x, null]}\n",
       ErrorCategory::kData, 3, "absolute path"},
      {"[1, 2]\n", ErrorCategory::kSemantic, 1, "mapping of group paths"},
      {"/: {ndarrays: {x: {shape: [2], type: int8, storage: {chunk: [1, 1]}}}}\n",
       ErrorCategory::kSemantic, 1, "chunk has 2 extents"},
  };
  for (const Bad& b : cases) {
    SCOPED_TRACE(b.text);
    try {
      read_ndl(b.text, "bad.yaml");
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.category(), b.category) << e.what();
      if (b.line) {
        EXPECT_EQ(e.location().line, b.line) << e.what();
      }
      EXPECT_EQ(e.location().path, "bad.yaml");
      EXPECT_NE(std::string(e.what()).find(b.message), std::string::npos) << e.what();
    }
  }
}

TEST(NdlWrite, DescribeReadsBackEqual) {
  const char* text = R"(
/:
  dimcoords:
    t: {size: 2, type: float64, value: [0.5, 1.5]}
  ndarrays:
    x:
      shape: [t, 3]
      type: float32
      value: [[0.1, 1.0e+20, .nan], [-.inf, 2, 3]]
      storage: {endian: little}
      attributes:
        units: "No"
        n: {shape: [2], type: uint16, value: [1, 2]}
/g: {}
)";
  DescribeProblems problems;
  DescribeOptions with_values;
  with_values.values = true;
  const std::string first = describe_text(read_ndl(text, "a.yaml"), with_values, problems);
  const std::string second = describe_text(read_ndl(first, "b.yaml"), with_values, problems);
  EXPECT_EQ(first, second);
  EXPECT_TRUE(problems.warnings.empty());
  EXPECT_TRUE(problems.errors.empty());
  // Hand-checked spellings of P7: float32 shortest text, specials, quoted YAML 1.1 words.
  EXPECT_NE(first.find("[[0.1, 1.0e+20, .nan],"), std::string::npos) << first;
  EXPECT_NE(first.find("units: \"No\""), std::string::npos) << first;
  EXPECT_NE(first.find("shape: [/t, 3]"), std::string::npos) << first;
  EXPECT_NE(first.find("/g: {}"), std::string::npos) << first;
}

}  // namespace
}  // namespace dudley::ndl
