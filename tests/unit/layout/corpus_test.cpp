// Every layout in tests/data/dudley/layouts: valid ones parse, survive emit -> parse unchanged and
// read the same with all three newline conventions; invalid ones fail with the line:col and
// diagnostic code written in their first line ("# expect: LINE:COL CODE").
#include <gtest/gtest.h>

#include <optional>

#include <regex>

#include "dudley/core/error.hpp"
#include "dudley/layout/bind/to_model.hpp"
#include "dudley/layout/syntax/emitter.hpp"

#include <functional>
#include "test_support.hpp"

namespace dudley {
namespace {

using testing::files_in;

TEST(Corpus, ValidLayoutsParseAndRoundTrip) {
  auto files = files_in(DUDLEY_TEST_DATA "/dudley/layouts/valid", ".dud");
  auto examples = files_in(DUDLEY_EXAMPLES, ".dud");
  files.insert(files.end(), examples.begin(), examples.end());
  ASSERT_GE(files.size(), 14u);
  for (const auto& path : files) {
    SCOPED_TRACE(path.string());
    std::string text = read_text_file(path.string());
    layout::Layout original = testing::parse_ok(text);

    std::string canonical = layout::emit_layout(original);
    layout::Layout reparsed = testing::parse_ok(canonical);
    EXPECT_TRUE(reparsed == original) << canonical;
    // Canonical text is a fixed point.
    EXPECT_EQ(layout::emit_layout(reparsed), canonical);

    // fmt's form keeps every ordinary comment, parses to the same layout, is a fixed point.
    layout::ParseOptions keep;
    keep.keep_comments = true;
    layout::ParseResult kept = layout::parse_layout(text, keep);
    ASSERT_TRUE(kept.ok());
    const std::string formatted = layout::emit_layout(kept.layout, kept.source);
    layout::ParseResult again = layout::parse_layout(formatted, keep);
    ASSERT_TRUE(again.ok()) << formatted;
    EXPECT_TRUE(again.layout == original) << formatted;
    EXPECT_EQ(layout::emit_layout(again.layout, again.source), formatted);
    ASSERT_EQ(again.source.comments.size(), kept.source.comments.size()) << formatted;
    for (size_t i = 0; i < kept.source.comments.size(); ++i) {
      EXPECT_EQ(again.source.comments[i].text, kept.source.comments[i].text);
    }

    for (const char* newline : {"\r\n", "\r"}) {
      std::string converted = testing::with_newlines(text, newline);
      layout::ParseResult r = layout::parse_layout(converted);
      ASSERT_TRUE(r.ok());
      EXPECT_TRUE(r.layout == original);
      // Lines are counted the same way whatever the convention [C1].
      ASSERT_EQ(r.layout.nodes.size(), original.nodes.size());
      for (size_t i = 0; i < original.nodes.size(); ++i) {
        EXPECT_EQ(r.layout.nodes[i].pos.line, original.nodes[i].pos.line);
        EXPECT_EQ(r.layout.nodes[i].pos.column, original.nodes[i].pos.column);
      }
    }
  }
}

TEST(Corpus, InvalidLayoutsReportTheExpectedPlaceAndKind) {
  auto files = files_in(DUDLEY_TEST_DATA "/dudley/layouts/invalid", ".dud");
  ASSERT_GE(files.size(), 50u);
  const std::regex expect_line(R"(^# expect: (\d+):(\d+) ([a-z0-9-]+))");
  for (const auto& path : files) {
    SCOPED_TRACE(path.string());
    std::string text = read_text_file(path.string());
    std::smatch m;
    std::string first_line = text.substr(0, text.find('\n'));
    ASSERT_TRUE(std::regex_search(first_line, m, expect_line)) << "missing '# expect:' line";
    layout::ParseResult r = layout::parse_layout(text);
    ASSERT_FALSE(r.ok());
    const auto& d = r.diagnostics.front();
    EXPECT_EQ(d.line, std::stoul(m[1])) << d.message;
    EXPECT_EQ(d.column, std::stoul(m[2])) << d.message;
    EXPECT_EQ(layout::diag_code_name(d.code), m[3].str()) << d.message;
    EXPECT_FALSE(d.message.empty());
  }
}

}  // namespace
}  // namespace dudley

namespace dudley {
namespace {

// Inputs the fuzzer once broke: each must still satisfy the fuzz target's properties.
// dudley_bind inputs (2-byte layout length, layout, data) that once crashed: listing and
// reading everything must end in values or dudley::Error.
TEST(Corpus, BindFuzzRegressions) {
  auto files = testing::files_in(DUDLEY_TEST_DATA "/fuzz_regressions", ".bin");
  ASSERT_FALSE(files.empty());
  for (const auto& path : files) {
    SCOPED_TRACE(path.string());
    std::string input = read_text_file(path.string());
    ASSERT_GE(input.size(), 2u);
    size_t n = std::min<size_t>(input.size() - 2, static_cast<unsigned char>(input[0]) |
                                                      (static_cast<unsigned char>(input[1]) << 8));
    auto parsed = layout::parse_layout(std::string_view(input).substr(2, n));
    if (!parsed.ok()) continue;
    auto l = std::make_shared<const layout::Layout>(std::move(parsed.layout));
    std::string data = input.substr(2 + n);
    // The plan's cursor formulas place every item where the walk does (or fail alike).
    {
      auto source = io::memory_source(data.data(), data.size());
      layout::BindOptions options;
      options.default_order = ByteOrder::kLittle;
      layout::BindPlan with(*l), without(*l, false, false);
      layout::Binding fast(with, source, options), walk(without, source, options);
      auto address = [](layout::Binding& b, layout::NodeId node) -> std::optional<uint64_t> {
        try {
          return b.array(node).address;
        } catch (const Error&) {
          return std::nullopt;
        }
      };
      for (layout::NodeId node = 0; node < l->nodes.size(); ++node) {
        if (l->nodes[node].kind != layout::NodeKind::kData || fast.has_varying_instances(node)) {
          continue;
        }
        EXPECT_EQ(address(fast, node), address(walk, node)) << l->path(node);
      }
    }
    // Read everything in both byte orders, as the fuzz target does.
    for (auto order : {ByteOrder::kLittle, ByteOrder::kBig}) try {
        layout::BindOptions options;
        options.default_order = order;
        auto tree = layout::dudley_tree(l, io::memory_source(data.data(), data.size()), options);
        std::function<void(const model::Node&)> read_all = [&](const model::Node& node) {
          if (node.data) {
            try {
              node.data->read();
            } catch (const Error&) {
            }
          }
          model::for_each_child(node, [&](uint64_t i, const model::Node& c) {
            read_all(c);
            return i < 256;  // lists made on demand may claim 2^60 items
          });
        };
        read_all(*tree.root);
      } catch (const Error&) {
      }
  }
}

TEST(Corpus, FuzzRegressions) {
  auto files = testing::files_in(DUDLEY_TEST_DATA "/fuzz_regressions", ".dud");
  ASSERT_FALSE(files.empty());
  for (const auto& path : files) {
    SCOPED_TRACE(path.string());
    std::string text = read_text_file(path.string());
    layout::ParseResult r = layout::parse_layout(text);
    for (const auto& d : r.diagnostics) EXPECT_LE(d.offset, text.size());
    if (!r.ok()) continue;
    std::string canonical = layout::emit_layout(r.layout);
    layout::ParseResult again = layout::parse_layout(canonical);
    ASSERT_TRUE(again.ok()) << canonical;
    EXPECT_TRUE(again.layout == r.layout) << canonical;
    EXPECT_EQ(layout::emit_layout(again.layout), canonical);
  }
}

}  // namespace
}  // namespace dudley
