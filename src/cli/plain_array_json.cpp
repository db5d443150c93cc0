#include "cli/plain_array_json.hpp"

#include <fmt/format.h>

#include <iterator>

#include <nlohmann/json.hpp>

#include "cli/json_stream.hpp"
#include "cli/model_json.hpp"

namespace dudley::cli {
using json = nlohmann::ordered_json;

bool write_plain_array_json(Output& out, const model::Node& node, int indent, int level) {
  const model::Storage& s = node.storage;
  const bool plain = node.kind == model::NodeKind::kArray && !node.link && node.error.empty() &&
                     node.attributes.empty() && node.doc.empty() &&
                     node.dtype.kind() != DTypeKind::kCompound &&
                     (s.kind == model::Storage::Kind::kContiguous ||
                      (s.kind == model::Storage::Kind::kUnknown && !s.offset)) &&
                     !s.mask && s.max_shape.empty();
  if (!plain) return false;
  auto number = [&](uint64_t v) { fmt::format_to(std::back_inserter(out.buffer()), "{}", v); };
  auto key = [&](const char* name, int at, bool first) {
    write_json_key(out, indent, at, name, first);
  };
  out.write("{");
  key("kind", level + 1, true);
  out.write("\"array\"");
  key("dtype", level + 1, false);
  write_json_at(out, json(node.dtype.to_string()), indent, level + 1);
  key("shape", level + 1, false);
  if (node.empty) {
    out.write("null");
  } else if (node.shape.empty()) {
    out.write("[]");
  } else {
    out.write("[");
    for (size_t i = 0; i < node.shape.size(); ++i) {
      write_json_separator(out, indent, level + 2, i == 0);
      fmt::format_to(std::back_inserter(out.buffer()), "{}", node.shape[i]);
    }
    write_json_separator(out, indent, level + 1, true);
    out.write("]");
  }
  if (node.empty) {
    key("empty", level + 1, false);
    out.write("true");
  }
  if (s.offset) {
    key("address", level + 1, false);
    number(*s.offset);
  }
  if (s.kind == model::Storage::Kind::kContiguous) {
    key("storage", level + 1, false);
    out.write("{");
    key("layout", level + 2, true);
    out.write("\"contiguous\"");
    if (s.offset) {
      key("offset", level + 2, false);
      number(*s.offset);
    }
    key("size", level + 2, false);
    number(s.size);
    key("byteorder", level + 2, false);
    out.write(fmt::format("\"{}\"", byte_order_text(s.order)));
    write_json_separator(out, indent, level + 1, true);
    out.write("}");
  }
  write_json_separator(out, indent, level, true);
  out.write("}");
  return true;
}

}  // namespace dudley::cli
