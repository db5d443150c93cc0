// Property: whatever layout the builder makes and whatever data is written into it, the
// reader gives back exactly the bytes written. Layouts are generated at random from every
// construct the writer produces: groups, lists with items, anonymous groups and sublists,
// fixed and dynamic parameters, structs, counted arrays, structs with parameters per
// instance, a heterogeneous array of a parameter block, pointees, items written as regions,
// and items appended to lists, lists in lists (in lists), lists in anonymous groups, and
// names spelled like primitive types (the language has no reserved words). Both byte
// orders. Each file is then converted (model -> layout text -> writer) and read back again.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <random>

#include "dudley/core/error.hpp"
#include "dudley/core/file_io.hpp"
#include "dudley/io/byte_source.hpp"
#include "dudley/layout/bind/binder.hpp"
#include "dudley/layout/syntax/builder.hpp"
#include "dudley/layout/syntax/emitter.hpp"
#include "dudley/layout/syntax/parser.hpp"
#include "dudley/layout/write/from_model.hpp"
#include "dudley/layout/write/writer.hpp"
#include "dudley/open.hpp"
#include "test_support.hpp"

namespace dudley::layout {
namespace {

namespace fs = std::filesystem;

// Names a declaration may take although they spell primitive types [C1].
constexpr const char* kSpelledLikeTypes[] = {"i4", "f8", "S1", "u1", "p8", "b1", "c16", "U2"};

constexpr const char* kTypes[] = {"i1", "<u2", ">i4", "i8", "f4", ">f8", "<c8", "u1", "b1", "f2"};

DType native_of(std::string_view type) {
  if (type[0] == '<' || type[0] == '>') type.remove_prefix(1);
  return primitive_dtype(*primitive_from_name(type), native_byte_order());
}

class Generator {
 public:
  explicit Generator(uint32_t seed) : rng_(seed) {}

  uint32_t next(uint32_t n) { return static_cast<uint32_t>(rng_() % n); }
  const char* type() { return kTypes[next(10)]; }

  NDArray random(const DType& type, const std::vector<int64_t>& shape) {
    NDArray a(type, Shape(shape));
    auto* bytes = static_cast<unsigned char*>(a.mutable_data());
    for (uint64_t k = 0; k < a.byte_size(); ++k) bytes[k] = static_cast<unsigned char>(rng_());
    return a;
  }
  // `length` characters as an S1 array (a string of code units).
  NDArray text(int64_t length) {
    NDArray a(DType::text(TextEncoding::kAscii, 1), Shape({length}));
    auto* bytes = static_cast<char*>(a.mutable_data());
    for (int64_t k = 0; k < length; ++k) bytes[k] = static_cast<char>('a' + next(26));
    return a;
  }

 private:
  std::mt19937 rng_;
};

struct Expected {
  std::string path;  ///< in the model tree ("#17" for pointee 17)
  NDArray data;      ///< native bytes written
};

using WriterProperty = dudley::testing::TempDirTest;

// Every expected array is in the tree with exactly the bytes written.
void expect_contents(const model::Tree& tree, const std::vector<Expected>& expected) {
  for (const Expected& e : expected) {
    const model::Node* node = e.path[0] == '#'
                                  ? tree.pointees.at(std::stoull(e.path.substr(1))).get()
                                  : tree.find(e.path);
    ASSERT_NE(node, nullptr) << e.path;
    ASSERT_TRUE(node->error.empty()) << e.path << ": " << node->error.text();
    ASSERT_TRUE(node->data) << e.path;
    NDArray back = node->data->read().to_native();
    ASSERT_EQ(back.byte_size(), e.data.byte_size()) << e.path;
    EXPECT_EQ(std::memcmp(back.data(), e.data.data(), e.data.byte_size()), 0) << e.path;
  }
}

// One round: a random layout, random data written into it, read back and compared.
void round_trip(uint32_t seed, const fs::path& dir) {
  Generator g(seed);
  LayoutBuilder b;
  b.signature();
  // Root parameters, in scope everywhere below.
  std::vector<std::pair<std::string, int64_t>> dynamic;
  std::vector<std::string> dims_from{"F"};
  b.param("F", 2);
  const int nparams = 1 + static_cast<int>(g.next(3));
  for (int i = 0; i < nparams; ++i) {
    const std::string name = "P" + std::to_string(i);
    b.param(name, i % 2 ? ">u2" : "i4");
    dynamic.emplace_back(name, g.next(4));
    dims_from.push_back(name);
  }
  const std::string t1 = g.type(), t2 = g.type(), t3 = g.type(), t4 = g.type(), t5 = g.type();
  b.struct_type("Vec").data("a", t1).data("b", t2, {2}).end();
  b.struct_type("str").param("n", "u1").data("", "S1", {"n"}).end();
  b.struct_type("row").param("n", ">u2").param("m", "i4");
  b.data("v", t3, {"n"}).data("w", t4, {"m", 2}).end();
  b.param("NB", "i4").param_block("PB", {"NB"}).param("k", "i4").end();
  b.struct_type("rec").param("k", "u1").data("names", "str", {"k"}).data("id", t2).end();

  auto extent = [&] {
    return g.next(2) ? Extent(int64_t{g.next(4)})
                     : Extent(dims_from[g.next(static_cast<uint32_t>(dims_from.size()))]);
  };
  struct Plain {
    std::string path;
    bool as_regions = false;
  };
  std::vector<Plain> plain;  // written from the binding's shapes below
  std::vector<std::pair<std::string, std::vector<Instance>>> instances;
  std::vector<std::string> lists;
  std::vector<std::string> scope{""};  // path of each open group (lists handled inline)
  bool hetero = false;
  int64_t blocks = 0;  // elements of the heterogeneous array (NB)
  const int count = 4 + static_cast<int>(g.next(14));
  for (int i = 0; i < count; ++i) {
    const std::string name =
        i < 8 && g.next(3) == 0 ? kSpelledLikeTypes[i] : "x" + std::to_string(i);
    const std::string path = scope.back() + "/" + name;
    switch (g.next(9)) {
      case 0:
        if (scope.size() < 3) {
          b.group(name);
          scope.push_back(path);
        }
        break;
      case 1:
        if (scope.size() > 1) {
          b.end();
          scope.pop_back();
        }
        break;
      case 2: {  // a list: plain items, an anonymous group, a sublist
        b.list(name);
        lists.push_back(path);
        int item = 0;
        for (uint32_t k = g.next(3); k > 0; --k, ++item) {
          b.item(g.type(), {extent()});
          plain.push_back({path + "/" + std::to_string(item)});
        }
        if (g.next(2)) {
          b.item_group().data("y", g.type(), {extent(), 2}).end();
          plain.push_back({path + "/" + std::to_string(item++) + "/y"});
        }
        if (g.next(2)) {
          b.item_list().item(g.type()).end();
          plain.push_back({path + "/" + std::to_string(item++) + "/0"});
        }
        if (g.next(2)) {  // a list in a list in the list
          b.item_list().item_list().item(g.type(), {extent()}).end().end();
          plain.push_back({path + "/" + std::to_string(item++) + "/0/0"});
        }
        if (g.next(2)) {  // an anonymous group holding a list
          b.item_group().list("f4").item(g.type()).end().end();
          plain.push_back({path + "/" + std::to_string(item++) + "/f4/0"});
        }
        b.end();
        break;
      }
      case 3:  // structs of fixed size
        b.data(name, "Vec", {extent()});
        plain.push_back({path});
        break;
      case 4: {  // counted strings
        const uint32_t c = g.next(4);
        b.data(name, "str", {int64_t{c}});
        std::vector<Instance> strings(c);
        for (Instance& s : strings) s.members.emplace("", g.text(g.next(5)));
        instances.emplace_back(path, std::move(strings));
        break;
      }
      case 5: {  // structs with parameters per instance
        const uint32_t c = g.next(3);
        b.data(name, "row", {int64_t{c}});
        std::vector<Instance> rows(c);
        for (Instance& r : rows) {
          r.members.emplace("v", g.random(native_of(t3), {g.next(4)}));
          r.members.emplace("w", g.random(native_of(t4), {g.next(3), 2}));
        }
        instances.emplace_back(path, std::move(rows));
        break;
      }
      case 6:  // one heterogeneous array per layout: elements share the block's rows
        if (!hetero && scope.size() == 1) {
          hetero = true;
          b.heterogeneous(name, "PB").data("z", t5, {"k", "F"}).end();
          std::vector<Instance> elements(1 + g.next(3));
          blocks = static_cast<int64_t>(elements.size());
          for (Instance& e : elements) {
            e.members.emplace("z", g.random(native_of(t5), {g.next(3), 2}));
          }
          instances.emplace_back(path, std::move(elements));
        }
        break;
      case 7: {  // counted strings nested in counted records
        const uint32_t c = g.next(3);
        b.data(name, "rec", {int64_t{c}});
        std::vector<Instance> recs(c);
        for (Instance& r : recs) {
          std::vector<Instance>& names = r.nested["names"];
          names.resize(g.next(3));
          for (Instance& s : names) s.members.emplace("", g.text(g.next(4)));
          r.members.emplace("id", g.random(native_of(t2), {}));
        }
        instances.emplace_back(path, std::move(recs));
        break;
      }
      default: {
        const uint32_t rank = g.next(3);
        Extents shape;
        for (uint32_t d = 0; d < rank; ++d) shape.push_back(extent());
        b.data(name, g.type(), shape);
        plain.push_back({path, rank > 0 && g.next(2)});
        break;
      }
    }
  }
  while (scope.size() > 1) {
    b.end();
    scope.pop_back();
  }
  // Pointers and their pointees close the layout.
  b.data("refs", "p8", {3});
  b.pointee(17, t1, {2}).pointee(23, "u1", {5});
  const Layout layout = b.build();
  SCOPED_TRACE(b.text());

  const fs::path file = dir / ("p" + std::to_string(seed) + ".bin");
  WriteOptions options;
  options.order = g.next(2) ? ByteOrder::kBig : ByteOrder::kLittle;
  Writer w(layout, file.string(), options);
  std::vector<Expected> expected;
  for (const auto& [name, value] : dynamic) w.set_param(name, value);
  for (auto& [path, given] : instances) {
    w.write_instances(path, given);
    for (size_t i = 0; i < given.size(); ++i) {
      const std::string at = path + "/" + std::to_string(i);
      for (const auto& [member, data] : given[i].members) {
        expected.push_back({at + (member.empty() ? "" : "/" + member), data});
      }
      for (const auto& [member, nested] : given[i].nested) {
        for (size_t j = 0; j < nested.size(); ++j) {
          expected.push_back(
              {at + "/" + member + "/" + std::to_string(j), nested[j].members.at("")});
        }
      }
    }
  }
  if (!hetero) w.set_param("NB", 0);  // else the number of elements sets it
  // Shapes and types of the plain items come from a binding with the same parameters.
  BindOptions bind;
  bind.default_order = options.order;
  bind.signature_unread = true;
  for (const auto& [name, value] : dynamic) bind.params[name] = value;
  bind.params["NB"] = blocks;
  Binding shapes(layout, io::zero_source(uint64_t{1} << 40), bind);
  for (const Plain& p : plain) {
    const BoundArray a = shapes.array(layout.find(p.path));
    const DType type =
        a.dtype.needs_swap() ? a.dtype.with_byte_order(native_byte_order()) : a.dtype;
    NDArray data = g.random(type, a.shape);
    if (p.as_regions && a.shape[0] >= 2) {
      // Two calls: the first row, then the rest (a region of the item each).
      const int64_t rows = a.shape[0];
      std::vector<int64_t> first = a.shape, rest = a.shape;
      first[0] = 1;
      rest[0] = rows - 1;
      const uint64_t row_bytes = data.byte_size() / static_cast<uint64_t>(rows);
      NDArray head(type, Shape(first)), tail(type, Shape(rest));
      std::memcpy(head.mutable_data(), data.data(), row_bytes);
      std::memcpy(tail.mutable_data(), static_cast<const unsigned char*>(data.data()) + row_bytes,
                  data.byte_size() - row_bytes);
      std::vector<int64_t> start(a.shape.size(), 0);
      w.write(p.path, tail,
              Hyperslab{[&] {
                          auto s = start;
                          s[0] = 1;
                          return s;
                        }(),
                        rest,
                        {}});
      w.write(p.path, head, Hyperslab{start, first, {}});
    } else {
      w.write(p.path, data);
    }
    expected.push_back({p.path, data});
  }
  NDArray refs(DType::uint(8), Shape({3}));
  const uint64_t keys[3] = {23, 0, 17};
  std::memcpy(refs.mutable_data(), keys, sizeof keys);
  w.write("/refs", refs);
  expected.push_back({"/refs", refs});
  NDArray p17 = g.random(native_of(t1), {2}), p23 = g.random(DType::uint(1), {5});
  w.write_pointee(17, p17);
  w.write_pointee(23, p23);
  expected.push_back({"#17", p17});
  expected.push_back({"#23", p23});
  // Items appended to the lists, after everything else.
  for (const std::string& list : lists) {
    if (!g.next(2)) continue;
    NDArray item = g.random(native_of(g.type()), {g.next(3) + 1});
    expected.push_back({w.append(list, item), item});
  }
  w.commit();

  // The layout written beside the data is canonical and passes `dudley check`'s parse.
  const std::string layout_text =
      dudley::testing::without_pair_line(read_text_file(layout_path_for(file.string())));
  const ParseResult reparsed = parse_layout(layout_text);
  ASSERT_TRUE(reparsed.ok()) << reparsed.diagnostics.front().message;
  EXPECT_EQ(emit_layout(reparsed.layout), layout_text);
  model::Tree tree = dudley::open(file.string());
  expect_contents(tree, expected);
  // convert: the layout made from the model parses and the copy holds the same values.
  const fs::path copy = dir / ("c" + std::to_string(seed) + ".bin");
  write_tree(tree, copy.string(), {});
  expect_contents(dudley::open(copy.string()), expected);
  fs::remove(file);
  fs::remove(copy);
}

TEST_F(WriterProperty, GeneratedLayoutsReadBackExactlyWhatWasWritten) {
  for (uint32_t seed = 1; seed <= 150; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    round_trip(seed, dir_);
    if (::testing::Test::HasFailure()) break;
  }
}

}  // namespace
}  // namespace dudley::layout
