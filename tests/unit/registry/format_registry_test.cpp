// The format registry: choice by name, by signature, by extension and the Dudley fallback;
// per-format options; the built-in registry.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "dudley/core/error.hpp"
#include "dudley/format.hpp"
#include "dudley/formats/dudley.hpp"
#include "dudley/open.hpp"

namespace dudley {
namespace {

namespace fs = std::filesystem;

// A format recognised by the signature "FAKE" or the extension .fake, that reads an empty
// group and records what it was given.
class FakeFormat final : public Format {
 public:
  explicit FakeFormat(std::string name, bool writes = false)
      : name_(std::move(name)), writes_(writes) {}
  std::string name() const override { return name_; }
  std::string description() const override { return "a fake format"; }
  std::vector<std::string> extensions() const override { return {"." + name_}; }
  bool sniff(const std::string&, std::span<const std::byte> head) const override {
    return head.size() >= 4 && std::memcmp(head.data(), "FAKE", 4) == 0;
  }
  model::Tree open(const std::string&, const OpenOptions&) const override { return {}; }
  bool can_save() const override { return writes_; }

 private:
  std::string name_;
  bool writes_;
};

struct FakeOptions : FormatOptions {
  static constexpr const char* kFormat = "fake";
  int level = 1;
};

class Registry : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("dudley_registry_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    layout::register_dudley_format(registry_);
    registry_.add(std::make_unique<FakeFormat>("fake", true));
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const std::string& name, const std::string& bytes) {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p.string();
  }
  fs::path dir_;
  FormatRegistry registry_;
};

TEST_F(Registry, SignatureBeatsExtension) {
  EXPECT_EQ(registry_.for_reading(file("a.bin", "FAKE and more")).name(), "fake");
  EXPECT_EQ(registry_.for_reading(file("b.fake", "no signature")).name(), "fake");
  // Dudley data is recognised by its layout beside it, whatever its extension.
  const std::string data = file("c.fake", "12345678");
  file("c.dud", "x = <f8\n");
  EXPECT_EQ(registry_.for_reading(data).name(), "dudley");
  // A signature beats a layout beside the file, whatever the order of registration
  // (Dudley was registered first here): x.dud may be left from an earlier conversion.
  const std::string both = file("g.fake", "FAKE too");
  file("g.dud", "x = <f8\n");
  EXPECT_EQ(registry_.for_reading(both).name(), "fake");
}

TEST_F(Registry, DudleyIsTheFallbackAndNamesWin) {
  // A name without an extension falls back to Dudley (whose error then asks for a layout);
  // an extension no format owns is refused, naming the formats.
  EXPECT_EQ(registry_.for_reading(file("d", "??")).name(), "dudley");
  try {
    registry_.for_reading(file("d.xyz", "??"));
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::kUsage);
    EXPECT_NE(e.message().find("extension '.xyz'"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("this build reads: dudley, fake"), std::string::npos);
  }
  EXPECT_EQ(registry_.for_reading(file("e.bin", "FAKE"), "dudley").name(), "dudley");
  try {
    registry_.for_reading(file("f.bin", ""), "zarr");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::kUsage);
    EXPECT_EQ(e.message(), "unknown format 'zarr' (this build reads: dudley, fake)");
  }
}

TEST_F(Registry, WritingByNameOrExtension) {
  EXPECT_EQ(registry_.for_writing((dir_ / "out.fake").string()).name(), "fake");
  EXPECT_EQ(registry_.for_writing((dir_ / "out.bin").string()).name(), "dudley");
  EXPECT_EQ(registry_.for_writing((dir_ / "out").string()).name(), "dudley");
  // A trailing slash names the directory: its extension is the name's.
  EXPECT_EQ(registry_.for_writing((dir_ / "store.fake").string() + "/").name(), "fake");
  // out.h5 written as Dudley data would fool every reader going by the name.
  try {
    registry_.for_writing((dir_ / "out.h5").string());
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::kUsage);
    EXPECT_NE(e.message().find("no format writes '.h5' files (this build writes: dudley, fake"),
              std::string::npos)
        << e.message();
    EXPECT_NE(e.message().find("--to"), std::string::npos);
  }
  EXPECT_EQ(registry_.for_writing((dir_ / "out.bin").string(), "fake").name(), "fake");
  FormatRegistry readonly;
  readonly.add(std::make_unique<FakeFormat>("ro", false));
  EXPECT_THROW(readonly.for_writing("x.ro", "ro"), Error);
  EXPECT_THROW(registry_.add(std::make_unique<FakeFormat>("fake")), Error);  // twice
}

TEST_F(Registry, PerFormatOptionsByName) {
  PerFormatOptions options;
  EXPECT_EQ(options.get<FakeOptions>().level, 1);  // defaults when absent
  FakeOptions mine;
  mine.level = 7;
  options.set(mine);
  EXPECT_EQ(options.get<FakeOptions>().level, 7);
  EXPECT_TRUE(options.get<layout::DudleyOpenOptions>().layout.empty());
}

TEST(BuiltinRegistry, HasDudleyAndOpensThroughIt) {
  const FormatRegistry& r = FormatRegistry::builtin();
  ASSERT_NE(r.find("dudley"), nullptr);
  EXPECT_TRUE(r.find("dudley")->can_save());
  // A missing file: Dudley's own error, naming the file.
  try {
    (void)dudley::open("/nonexistent/dir/x.bin");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/x"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace dudley
