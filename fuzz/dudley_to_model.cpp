// libFuzzer target for what ls and dump do with a bound file: input = 2-byte little-endian
// layout length, the layout text, then the data bytes. The tree is rendered as the CLI's
// JSON (node_json with values, values_json), pointees are followed as --deref does (each
// once), and the instances of every item whose instances vary are laid out both one at a
// time in order and at random (fresh binding, reverse order): the two must agree. Whatever
// the input, the result is output or dudley::Error, within bounded memory and time.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <set>
#include <string_view>

#include "cli/tree_json.hpp"
#include "dudley/core/error.hpp"
#include "dudley/layout/bind/binder.hpp"
#include "dudley/layout/bind/to_model.hpp"
#include "dudley/layout/syntax/parser.hpp"
#include "fuzz_support.hpp"

namespace {

using dudley::layout::BoundInstance;

// Lists are walked this far: a layout of a few bytes may claim 2^60 items.
constexpr uint64_t kItems = 32;

void same_instances(const BoundInstance& a, const BoundInstance& b) {
  if (a.address != b.address || a.size != b.size || a.members.size() != b.members.size() ||
      a.params.size() != b.params.size())
    std::abort();
  for (size_t i = 0; i < a.params.size(); ++i) {
    if (a.params[i].value != b.params[i].value) std::abort();
  }
  for (size_t i = 0; i < a.members.size(); ++i) {
    if (a.members[i].array.address != b.members[i].array.address ||
        a.members[i].array.byte_size != b.members[i].array.byte_size ||
        a.members[i].instances.size() != b.members[i].instances.size())
      std::abort();
  }
}

// Instance i from a walk in order and from a fresh binding asked in reverse order.
void compare_instance_walks(const dudley::layout::Layout& layout,
                            const std::shared_ptr<dudley::io::ByteSource>& source) {
  using namespace dudley::layout;
  BindOptions options;
  options.default_order = dudley::ByteOrder::kLittle;
  for (NodeId n = 0; n < layout.nodes.size(); ++n) {
    Binding forward(layout, source, options);
    if (!forward.has_varying_instances(n)) continue;
    std::vector<std::optional<BoundInstance>> in_order;
    for (uint64_t i = 0; i < kItems; ++i) {
      try {
        in_order.push_back(forward.instance(n, i));
      } catch (const dudley::Error&) {
        in_order.emplace_back();
      }
    }
    Binding backward(layout, source, options);
    for (uint64_t i = kItems; i-- > 0;) {
      std::optional<BoundInstance> x;
      try {
        x = backward.instance(n, i);
      } catch (const dudley::Error&) {
      }
      if (x.has_value() != in_order[i].has_value()) std::abort();
      if (x) same_instances(*x, *in_order[i]);
    }
  }
}

void render(const dudley::model::Tree& tree) {
  using json = nlohmann::ordered_json;
  std::set<uint64_t> shown;
  std::function<json(const json&, int)> deref = [&](const json& keys, int depth) -> json {
    if (keys.is_array()) {
      json out = json::array();
      for (const auto& k : keys) out.push_back(deref(k, depth));
      return out;
    }
    if (!keys.is_number_unsigned()) return nullptr;
    const uint64_t key = keys.get<uint64_t>();
    auto it = tree.pointees.find(key);
    if (it == tree.pointees.end() || !shown.insert(key).second || depth > 16) return nullptr;
    return dudley::cli::node_json(*it->second,
                                  [&](const dudley::model::Node& a, const std::string&, json& out) {
                                    try {
                                      out["data"] = dudley::cli::values_json(a.data->read());
                                      if (a.dtype.kind() == dudley::DTypeKind::kPointer)
                                        out["target"] = deref(out["data"], depth + 1);
                                    } catch (const dudley::Error&) {
                                    }
                                  });
  };
  dudley::cli::TreeWalk walk;
  walk.max_items = kItems;
  walk.decorate = [&](const dudley::model::Node& a, const std::string&, json& out) {
    try {
      // Arrays of values that hold no bytes are what dump refuses past 2^20; here, past 2^12.
      uint64_t values = 1;
      for (int64_t d : a.shape) values *= static_cast<uint64_t>(d > 0 ? d : 0);
      if (a.dtype.size() == 0 && values > 4096) return;
      if (a.dtype.kind() == dudley::DTypeKind::kText && values > (uint64_t{1} << 20)) return;
      out["data"] = dudley::cli::values_json(a.data->read());
      if (a.dtype.kind() == dudley::DTypeKind::kPointer) out["target"] = deref(out["data"], 0);
    } catch (const dudley::Error&) {
    }
  };
  (void)dudley::cli::json_text(dudley::cli::node_json(*tree.root, walk));
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
  auto source = dudley::io::memory_source(bytes, byte_count, "fuzz.bin");
  try {
    compare_instance_walks(*layout, source);
  } catch (const dudley::Error&) {
  }
  try {
    dudley::layout::BindOptions options;
    options.default_order = dudley::ByteOrder::kBig;
    render(dudley::layout::dudley_tree(layout, source, options));
  } catch (const dudley::Error&) {
  }
  return 0;
}
