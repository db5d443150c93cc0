// The writer: files it writes read back identically through the reader; its errors leave
// nothing under the final name; an interrupted write never corrupts an existing file.
#include "dudley/layout/write/writer.hpp"
#include "dudley/layout/write/pair_record.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "dudley/core/error.hpp"
#include "dudley/core/file_io.hpp"
#include "dudley/layout/bind/reader.hpp"
#include "dudley/layout/family/family.hpp"
#include "dudley/layout/syntax/parser.hpp"
#include "dudley/layout/write/from_model.hpp"
#include "dudley/open.hpp"
#include "test_support.hpp"

namespace dudley::layout {
namespace {

namespace fs = std::filesystem;
using dudley::testing::array_of;
using dudley::testing::bytes_of;
using dudley::testing::data_of;
using dudley::testing::parse_ok;

using WriterTest = dudley::testing::TempDirTest;

TEST_F(WriterTest, WritesBytesAReaderFindsAndTheLayoutBeside) {
  Layout l = parse_ok("!DUDLEY := S1[8]  N := i4  x = f8[N]  g /  y = >i2[2, N] ..  z = u1");
  const std::string path = file("run.bin");
  WriteOptions options;
  options.order = ByteOrder::kLittle;
  Writer w(l, path, options);
  w.write("/x", array_of<double>({3}, {1.5, -2.0, 1e300}, DType::float_(8)));
  w.write("/g/y", array_of<int16_t>({2, 3}, {1, -2, 3, -4, 5, 0x0102}, DType::int_(2)));
  EXPECT_EQ(w.commit(), 8u + 4 + 24 + 12 + 1 + kPairTrailerBytes);
  // Checked byte by byte: the spec's little-endian signature, N = 3, y big-endian.
  const auto b = data_of(path);
  ASSERT_EQ(b.size(), 49u);
  EXPECT_EQ((std::vector<unsigned char>(b.begin(), b.begin() + 8)),
            (std::vector<unsigned char>{0x89, 0x64, 0x95, 0x64, 0x0d, 0x0a, 0x1a, 0x0a}));
  EXPECT_EQ((std::vector<unsigned char>(b.begin() + 8, b.begin() + 12)),
            (std::vector<unsigned char>{3, 0, 0, 0}));
  EXPECT_EQ(b[36 + 10], 0x01);  // y[1][2] = 0x0102, most significant byte first
  EXPECT_EQ(b[36 + 11], 0x02);
  EXPECT_EQ(b[48], 0);  // z was not written: zero
  // The layout beside it is canonical and reads the file back.
  model::Tree tree = dudley::open(path);
  EXPECT_EQ(tree.find("/x")->data->read().get<double>({2}), 1e300);
  EXPECT_EQ(tree.find("/g/y")->data->read().get<int16_t>({1, 2}), 0x0102);
  EXPECT_EQ(tree.find("/g/y")->storage.offset, 36u);
  EXPECT_EQ(load_layout(layout_path_for(path)), l);
}

TEST_F(WriterTest, BigEndianFilesAndStructs) {
  Layout l =
      parse_ok("!DUDLEY := S1[8]  T := { a = f4  b = i2[2] }  v := { = f8[3] }  t = T[2]  u = v");
  const std::string path = file("s.bin");
  WriteOptions options;
  options.order = ByteOrder::kBig;
  Writer w(l, path, options);
  // A struct array in native packed records: a (f4), b (i2[2]); 8 bytes each.
  BindOptions planning;
  planning.default_order = ByteOrder::kBig;
  planning.signature_unread = true;
  Binding plan(l, io::zero_source(1 << 20), planning);
  DType record = plan.array(l.find("/t")).dtype.with_byte_order(native_byte_order());
  NDArray t(record, Shape({2}));
  auto* p = static_cast<unsigned char*>(t.mutable_data());
  const float a0 = 2.5f;
  const int16_t b0[2] = {-7, 300};
  std::memcpy(p, &a0, 4);
  std::memcpy(p + 4, b0, 4);
  w.write("/t", t);
  w.write("/u", array_of<double>({3}, {1, 2, 3}, DType::float_(8)));
  w.commit();
  const auto b = data_of(path);
  EXPECT_EQ(b[1], 0x44);   // "big" signature
  EXPECT_EQ(b[8], 0x40);   // 2.5f big-endian: 40 20 00 00
  EXPECT_EQ(b[12], 0xff);  // -7 big-endian: ff f9
  EXPECT_EQ(b[13], 0xf9);
  model::Tree tree = dudley::open(path);
  NDArray back = tree.find("/t")->data->read();
  EXPECT_EQ(std::memcmp(back.data(), t.data(), 8), 0);
  EXPECT_EQ(tree.find("/u")->shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(tree.find("/u")->data->read().get<double>({2}), 3.0);
}

// Data already in the file's byte order (big-endian values for big-endian items, a Python
// user's '>f8' array) is written as it is: the same bytes, whole arrays and regions alike.
TEST_F(WriterTest, DataInTheItemsByteOrderIsWrittenAsItIs) {
  Layout l = parse_ok("!DUDLEY := S1[8]  x = >u2[3]  y = >u4[2, 2]  z = <u2[2]");
  const std::string path = file("o.bin");
  Writer w(l, path);
  const unsigned char x_bytes[6] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06};
  const unsigned char row[8] = {0xa0, 0xa1, 0xa2, 0xa3, 0xb0, 0xb1, 0xb2, 0xb3};
  const unsigned char z_bytes[4] = {0x11, 0x22, 0x33, 0x44};  // big-endian 0x1122, 0x3344
  w.write("/x", NDArray::borrow(const_cast<unsigned char*>(x_bytes),
                                DType::uint(2, ByteOrder::kBig), Shape({3})));
  Hyperslab second_row{{1, 0}, {1, 2}, {}};
  w.write("/y",
          NDArray::borrow(const_cast<unsigned char*>(row), DType::uint(4, ByteOrder::kBig),
                          Shape({1, 2})),
          second_row);
  w.write("/z", NDArray::borrow(const_cast<unsigned char*>(z_bytes),
                                DType::uint(2, ByteOrder::kBig), Shape({2})));
  w.commit();
  const auto b = data_of(path);
  EXPECT_EQ(std::vector<unsigned char>(b.begin() + 8, b.begin() + 14),
            std::vector<unsigned char>(x_bytes, x_bytes + 6));
  EXPECT_EQ(std::vector<unsigned char>(b.begin() + 22, b.begin() + 30),
            std::vector<unsigned char>(row, row + 8));
  // Big-endian values into a little-endian item are swapped as before.
  EXPECT_EQ(std::vector<unsigned char>(b.begin() + 30, b.begin() + 34),
            (std::vector<unsigned char>{0x22, 0x11, 0x44, 0x33}));
}

TEST_F(WriterTest, ParametersFromShapesAndTheirContradictions) {
  Layout l = parse_ok("!DUDLEY := S1[8]  N := i4  M := u8  a = f4[N+, M]  b = f4[N]  c = f4[N]");
  Writer w(l, file("p.bin"));
  w.write("/a", NDArray(DType::float_(4), Shape({4, 2})));  // N+ = 4: N = 3, M = 2
  EXPECT_NO_THROW(w.write("/b", NDArray(DType::float_(4), Shape({3}))));
  try {
    w.write("/c", NDArray(DType::float_(4), Shape({5})));
    ADD_FAILURE() << "a contradiction was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/c"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("is 5"), std::string::npos) << e.what();
  }
  EXPECT_THROW(w.set_param("N", 4), Error);   // N is already 3
  EXPECT_THROW(w.set_param("/Q", 1), Error);  // no such parameter
  EXPECT_THROW(w.write("/g", NDArray()), Error);
  w.commit();
  model::Tree tree = dudley::open(file("p.bin"));
  EXPECT_EQ(tree.root->params[0].value, 3);
  EXPECT_EQ(tree.root->params[1].value, 2);
  EXPECT_EQ(tree.find("/c")->shape, (std::vector<int64_t>{3}));
}

TEST_F(WriterTest, ErrorsLeaveNothingUnderTheFinalName) {
  Layout l = parse_ok("!DUDLEY := S1[8]  N := i4  x = f8[N]  y = i4");
  const std::string path = file("e.bin");
  {
    Writer w(l, path);
    EXPECT_THROW(w.commit(), Error);  // N has no value
  }
  {
    Writer w(l, path);
    w.write("/x", NDArray(DType::float_(8), Shape({2})));
    w.write("/y", NDArray(DType::float_(8), Shape({})));  // declared i4
    EXPECT_THROW(w.commit(), Error);
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(layout_path_for(path)));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator{}), 0);
  // Not writable: a directory that does not exist.
  Writer w(l, file("missing/dir/e.bin"));
  w.set_param("N", 0);
  EXPECT_THROW(w.commit(), Error);
  // A layout whose byte order no reader could know is refused.
  Layout no_order = parse_ok("x = f8");
  EXPECT_THROW(Writer(no_order, path), Error);
  // A counted array is written with write_instances(), not write().
  Layout counted = parse_ok("!DUDLEY := S1[8]  s := { n := u1  = S1[n] }  t = s");
  Writer c(counted, path);
  EXPECT_THROW(c.write("/t", NDArray(DType::text(TextEncoding::kAscii, 2), Shape({}))), Error);
}

TEST_F(WriterTest, KilledWhileWritingLeavesTheOldFileIntact) {
  Layout l = parse_ok("!DUDLEY := S1[8]  N := i8  x = f8[N]");
  const std::string path = file("k.bin");
  {
    Writer w(l, path);
    w.write("/x", array_of<double>({2}, {1.0, 2.0}, DType::float_(8)));
    w.commit();
  }
  const auto before = bytes_of(path);
  const pid_t child = ::fork();
  if (child == 0) {
    // 64 MiB in 4 MiB chunks; kill -9 ourselves half way through.
    WriteOptions options;
    options.progress = [](uint64_t done, uint64_t total) {
      if (done * 2 >= total) ::raise(SIGKILL);
    };
    Writer w(l, path, options);
    w.write("/x", NDArray(DType::float_(8), Shape({int64_t{8} << 20})));
    w.commit();
    ::_exit(0);  // not reached
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  EXPECT_EQ(bytes_of(path), before);
  // Nothing else was left in the directory (the data went to an unnamed file).
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"k.bin", "k.dud"}));
}

TEST_F(WriterTest, AFullDiskIsAClearErrorAndLeavesNothing) {
  // A file size limit stands in for a full disk: writes past it fail as they would.
  Layout l = parse_ok("!DUDLEY := S1[8]  N := i8  x = f8[N]");
  const std::string path = file("full.bin");
  const pid_t child = ::fork();
  if (child == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{1 << 20, 1 << 20};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    Writer w(l, path);
    w.write("/x", NDArray(DType::float_(8), Shape({int64_t{1} << 20})));  // 8 MiB
    try {
      w.commit();
    } catch (const Error& e) {
      const std::string m = e.what();
      ::_exit(m.find(path) != std::string::npos && m.find("too large") != std::string::npos ? 0
                                                                                            : 3);
    }
    ::_exit(4);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "3: the message lacks the path or the reason; 4: no error";
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(layout_path_for(path)));
}

// Random layouts of parameters, groups and primitive arrays in random orders, random data:
// what the writer writes, the reader reads back identically.
TEST_F(WriterTest, RandomLayoutsRoundTrip) {
  std::mt19937 rng(4);
  static const char* kTypes[] = {"i1", "<u2", ">i4", "i8", "f4", ">f8", "<c8", "u1", "b1"};
  for (int round = 0; round < 60; ++round) {
    std::string text = "!DUDLEY := S1[8]\n";
    std::vector<std::string> params, arrays;
    int depth = 0;
    const int count = 3 + static_cast<int>(rng() % 20);
    for (int i = 0; i < count; ++i) {
      const auto roll = static_cast<unsigned>(rng() % 10);
      if (roll < 2 && depth == 0) {  // root parameters are in scope everywhere below
        params.push_back("P" + std::to_string(i));
        text += params.back() + (rng() % 2 ? " := i4\n" : " := >u2\n");
      } else if (roll == 2 && depth < 3) {
        text += "g" + std::to_string(i) + " /\n";
        ++depth;
      } else if (roll == 3 && depth > 0) {
        text += "..\n";
        --depth;
      } else {
        std::string name = "a" + std::to_string(i);
        text += name + " = " + kTypes[rng() % 9];
        const auto rank = static_cast<unsigned>(rng() % 3);
        for (unsigned d = 0; d < rank; ++d) {
          text += d == 0 ? "[" : ", ";
          text += rng() % 2 || params.empty() ? std::to_string(rng() % 4)
                                              : params[rng() % params.size()];
        }
        if (rank > 0) text += "]";
        text += "\n";
        arrays.push_back(name);
      }
    }
    SCOPED_TRACE(text);
    Layout l = parse_ok(text);
    const std::string path = file("r" + std::to_string(round) + ".bin");
    WriteOptions options;
    options.order = rng() % 2 ? ByteOrder::kBig : ByteOrder::kLittle;
    Writer w(l, path, options);
    BindOptions bind;  // the same parameter values, to learn each array's shape and type
    bind.default_order = options.order;
    bind.signature_unread = true;
    for (const std::string& p : params) {
      const auto value = static_cast<int64_t>(rng() % 4);
      w.set_param(p, value);
      bind.params[p] = value;
    }
    Binding shapes(l, io::zero_source(1 << 20), bind);
    std::vector<std::pair<NodeId, NDArray>> written;
    for (NodeId n = 0; n < l.nodes.size(); ++n) {
      if (l.nodes[n].kind != NodeKind::kData) continue;
      const BoundArray a = shapes.array(n);
      NDArray data(a.dtype.needs_swap() ? a.dtype.with_byte_order(native_byte_order()) : a.dtype,
                   Shape(a.shape));
      auto* bytes = static_cast<unsigned char*>(data.mutable_data());
      for (uint64_t k = 0; k < data.byte_size(); ++k) bytes[k] = static_cast<unsigned char>(rng());
      w.write(l.path(n), data);
      written.emplace_back(n, data);
    }
    w.commit();
    model::Tree tree = dudley::open(path);
    for (const auto& [n, data] : written) {
      const model::Node* node = tree.find(l.path(n));
      ASSERT_NE(node, nullptr);
      ASSERT_TRUE(node->error.empty()) << node->error.text();
      NDArray back = node->data->read();
      ASSERT_EQ(back.shape().dims(), data.shape().dims()) << l.path(n);
      EXPECT_EQ(std::memcmp(back.data(), data.data(), data.byte_size()), 0) << l.path(n);
    }
  }
}

// Every array of a tree, by path.
void collect(const model::Tree& tree, const model::Node& n, const std::string& path,
             std::vector<std::pair<std::string, const model::Node*>>& out) {
  if (n.kind == model::NodeKind::kArray) {
    out.emplace_back(path, tree.find(path));  // the tree keeps items made on demand alive
    return;
  }
  const std::string base = path == "/" ? "" : path;
  model::for_each_child(n, [&](uint64_t i, const model::Node& c) {
    collect(tree, c,
            n.kind == model::NodeKind::kList ? base + "/" + std::to_string(i) : base + "/" + c.name,
            out);
    return true;
  });
}

TEST_F(WriterTest, ConvertsATreeWithStructsTextListsAndDocs) {
  // The restart example, written byte by byte by its generator, converted and read back.
  const std::string src = file("restart.bin");
  const std::string cmd =
      std::string("python3 ") + DUDLEY_SOURCE_DIR + "/examples/make_restart_data.py " + src + " 3";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  fs::copy_file(std::string(DUDLEY_SOURCE_DIR) + "/examples/restart.dud", file("restart.dud"));
  model::Tree tree = dudley::open(src);
  WriteOptions options;
  options.order = ByteOrder::kBig;  // a foreign order, to exercise conversion
  write_tree(tree, file("copy.bin"), options);
  EXPECT_TRUE(parse_layout(read_text_file(file("copy.dud"))).ok());
  model::Tree copy = dudley::open(file("copy.bin"));
  std::vector<std::pair<std::string, const model::Node*>> a, b;
  collect(tree, *tree.root, "/", a);
  collect(copy, *copy.root, "/", b);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE(a[i].first);
    EXPECT_EQ(a[i].first, b[i].first);
    EXPECT_EQ(a[i].second->shape, b[i].second->shape);
    EXPECT_EQ(a[i].second->doc, b[i].second->doc);
    NDArray x = a[i].second->data->read(), y = b[i].second->data->read();
    ASSERT_EQ(x.byte_size(), y.byte_size());
    EXPECT_EQ(std::memcmp(x.data(), y.data(), x.byte_size()), 0);
  }
  EXPECT_EQ(copy.find("/NX"), nullptr);  // parameters are values now, not items
  EXPECT_EQ(copy.root->params.size(), tree.root->params.size());
}

TEST_F(WriterTest, ConvertedLargeArraysKeepTheirPlaceWithinAPage) {
  // Arrays of 1 MiB and more copied unchanged start at their source's offset within a page
  // (a `!@` line before each that is not there already); small ones stay packed; every
  // value reads back.
  const std::string layout_text =
      "head = u1[5]\nbig = <f8[262144]\nsmall = <i4[3]\ngrp /\n  !@ 3000000\n  big2 = "
      "<f8[131072]\n..\n";
  std::ofstream(file("src.dud")) << layout_text;
  std::vector<unsigned char> bytes(3000000 + 8 * 131072);  // big2 after a gap
  std::mt19937 random(7);
  for (auto& b : bytes) b = static_cast<unsigned char>(random());
  std::ofstream(file("src.bin"), std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  model::Tree tree = dudley::open(file("src.bin"));
  write_tree(tree, file("copy.bin"), {});
  const std::string text = read_text_file(file("copy.dud"));
  EXPECT_EQ(std::count(text.begin(), text.end(), '@'), 2) << text;
  model::Tree copy = dudley::open(file("copy.bin"));
  for (const char* path : {"/head", "/big", "/small", "/grp/big2"}) {
    SCOPED_TRACE(path);
    const model::Node* a = tree.find(path);
    const model::Node* b = copy.find(path);
    ASSERT_TRUE(a && b);
    const uint64_t from = *a->storage.offset, to = *b->storage.offset;
    if (a->storage.size >= (uint64_t{1} << 20)) {
      EXPECT_EQ(from % 4096, to % 4096);
    }
    NDArray x = a->data->read(), y = b->data->read();
    ASSERT_EQ(x.byte_size(), y.byte_size());
    EXPECT_EQ(std::memcmp(x.data(), y.data(), x.byte_size()), 0);
  }
  EXPECT_EQ(*copy.find("/head")->storage.offset, 8u);  // right after the signature
  EXPECT_EQ(*copy.find("/small")->storage.offset,
            *copy.find("/big")->storage.offset + 8 * 262144);  // packed after big
}

TEST_F(WriterTest, TemplatesThatBreakTheirRulesAreRefused) {  // [C22]
  // The parser reports this too; a layout built or changed in memory meets the writer's check.
  ParseResult parsed = parse_layout("!TEMPLATE  !DUDLEY := S1[8]  x = f8  N := i4  y = f8[N]");
  EXPECT_FALSE(parsed.ok());
  const Layout& bad = parsed.layout;
  EXPECT_THROW(Writer(bad, file("t.bin")), Error);
  Layout good = parse_ok("!TEMPLATE  !DUDLEY := S1[8]  N := i4  x = f8[N]");
  EXPECT_NO_THROW(Writer(good, file("t.bin")));
}

TEST_F(WriterTest, FamiliesWithAnIndexInBothModes) {  // [C22, C23]
  Layout l =
      parse_ok("!TEMPLATE  !DUDLEY := S1[8]  N := i4  g /  M := u2 ..  x = f8[N]  g/y = i2[M]");
  for (bool in_files : {true, false}) {
    SCOPED_TRACE(in_files ? "parameters in the files" : "parameters only in the index");
    const std::string stem = file(in_files ? "run" : "bare");
    FamilyOptions options;
    options.params_in_files = in_files;
    FamilyWriter family(l, stem, options);
    for (int i = 0; i < 3; ++i) {
      Writer& w = family.add();
      std::vector<double> x(static_cast<size_t>(i + 1), 10.0 * i);
      w.write("/x", array_of<double>({i + 1}, x, DType::float_(8)));
      w.write("/g/y", array_of<int16_t>({2}, {static_cast<int16_t>(i), -1}, DType::int_(2)));
      w.commit();
    }
    const std::string index_file = family.finish();
    EXPECT_EQ(index_file, stem + ".index.bin");
    ASSERT_TRUE(is_family_index(index_file));
    FamilyIndex index = read_family_index(index_file);
    EXPECT_EQ(index.layout_path, stem + ".dud");
    EXPECT_EQ(index.params_in_files, in_files);
    ASSERT_EQ(index.files.size(), 3u);
    EXPECT_EQ(index.files[2], stem + "_0002.bin");
    EXPECT_EQ(index.param_paths, (std::vector<std::string>{"/N", "/g/M"}));
    EXPECT_EQ(index.values[2], (std::vector<int64_t>{3, 2}));
    // Every member read through the index alone: parameters by path, then resolved to
    // their declarations once for the family.
    const Layout shared = load_layout(index.layout_path);
    BindPlan plan(shared, !in_files);
    for (size_t round = 0; round < 6; ++round) {
      if (round == 3) {
        index.resolve(shared);
        ASSERT_EQ(index.param_ids.size(), 2u);
        EXPECT_EQ(index.bind_options(2).params.size(), 0u);
        EXPECT_EQ(index.bind_options(2).param_values.size(), 2u);
      }
      const size_t i = round % 3;
      Binding b(plan, io::open_file(index.files[i]), index.bind_options(i));
      NDArray x = read_array(b, shared.find("/x"));
      EXPECT_EQ(x.shape().dims(), (std::vector<int64_t>{static_cast<int64_t>(i) + 1}));
      EXPECT_EQ(x.get<double>({0}), 10.0 * static_cast<double>(i));
      EXPECT_EQ(read_array(b, shared.find("/g/y")).get<int16_t>({0}), static_cast<int16_t>(i));
    }
    FamilyIndex wrong = index;
    wrong.param_paths[1] = "/g/Q";
    EXPECT_THROW(wrong.resolve(shared), Error);
    // Members with their parameters open on their own (STEM_NNNN.bin finds STEM.dud).
    model::Tree alone = dudley::open(index.files[1]);
    if (in_files) {
      EXPECT_EQ(alone.find("/x")->shape, (std::vector<int64_t>{2}));
      EXPECT_EQ(fs::file_size(index.files[1]), 8u + 4 + 2 + 16 + 4);
    } else {
      EXPECT_EQ(fs::file_size(index.files[1]), 8u + 16 + 4);  // no parameter bytes
    }
  }
}

}  // namespace
}  // namespace dudley::layout
