// libFuzzer target for binding and reading: input = 2-byte little-endian layout length,
// the layout text, then the data bytes. Whatever the layout and bytes say, listing the tree
// and reading every array must end in values or dudley::Error: no crash, no out-of-bounds
// read, no hang, no allocation the data cannot justify. And the plan's compiled cursor
// formulas must place every item exactly where the step-by-step walk does.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include <cstdlib>
#include <optional>

#include "dudley/core/error.hpp"
#include "dudley/layout/bind/binder.hpp"
#include "dudley/layout/bind/to_model.hpp"
#include "dudley/layout/syntax/parser.hpp"
#include "fuzz_support.hpp"

namespace {

template <typename F>
auto attempt(F&& f) -> std::optional<decltype(f())> {
  try {
    return f();
  } catch (const dudley::Error&) {
    return std::nullopt;
  }
}

// Formulas and walk, queried in opposite orders (laziness must not change answers).
void compare_placements(const dudley::layout::Layout& layout,
                        const std::shared_ptr<dudley::io::ByteSource>& source) {
  using namespace dudley::layout;
  BindOptions options;
  options.default_order = dudley::ByteOrder::kLittle;
  BindPlan with(layout), without(layout, false, false);
  Binding fast(with, source, options), walk(without, source, options);
  const auto n = static_cast<uint32_t>(layout.nodes.size());
  for (uint32_t i = 0; i < n; ++i) {
    const NodeId a = i, b = n - 1 - i;
    if (layout.nodes[a].kind == NodeKind::kData && !fast.has_varying_instances(a)) {
      auto x = attempt([&] { return fast.array(a).address; });
      auto y = attempt([&] { return walk.array(a).address; });
      if (x.has_value() != y.has_value() || (x && *x != *y)) std::abort();
    }
    if (layout.nodes[b].kind == NodeKind::kData && !walk.has_varying_instances(b)) {
      auto y = attempt([&] { return walk.array(b).address; });
      auto x = attempt([&] { return fast.array(b).address; });
      if (x.has_value() != y.has_value() || (x && *x != *y)) std::abort();
    }
  }
  for (ParamId p = 0; p < layout.params.size(); ++p) {
    if (layout.params[p].group == kNone) continue;
    auto x = attempt([&] { return fast.param_value(p); });
    auto y = attempt([&] { return walk.param_value(p); });
    if (x.has_value() != y.has_value() || (x && *x != *y)) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto input = dudley::fuzz::split_input(data, size);
  if (!input) return 0;
  auto parsed = dudley::layout::parse_layout(input->text);
  if (!parsed.ok()) return 0;
  auto layout = std::make_shared<const dudley::layout::Layout>(std::move(parsed.layout));
  const uint8_t* bytes = input->bytes;
  const size_t byte_count = input->byte_count;
  try {
    compare_placements(*layout, dudley::io::memory_source(bytes, byte_count, "fuzz.bin"));
  } catch (const dudley::Error&) {
  }
  for (auto order : {dudley::ByteOrder::kLittle, dudley::ByteOrder::kBig}) {
    try {
      dudley::layout::BindOptions options;
      options.default_order = order;
      auto tree = dudley::layout::dudley_tree(
          layout, dudley::io::memory_source(bytes, byte_count, "fuzz.bin"), options);
      dudley::fuzz::read_all(*tree.root);
      for (const auto& [key, pointee] : tree.pointees) dudley::fuzz::read_all(*pointee);
    } catch (const dudley::Error&) {
    }
  }
  return 0;
}
