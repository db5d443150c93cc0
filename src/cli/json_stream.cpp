#include "cli/json_stream.hpp"

#include <string>

#include "cli/tree_json.hpp"

namespace dudley::cli {

using json = nlohmann::ordered_json;

json stream_marker(uint64_t id) {
  return json::binary({}, id);
}

namespace {

class Printer {
 public:
  Printer(Output& out, int indent, const StreamValue& stream)
      : out_(out), indent_(indent), stream_(stream) {}

  // Writes `v`; `extra` receives the members a marker adds to the object around it.
  void value(const json& v, int level, json* extra) {
    if (v.is_binary()) {
      const json more = stream_(v.get_binary().subtype());
      if (extra && more.is_object()) *extra = more;
      return;
    }
    if (v.is_object() && !v.empty()) return object(v, level);
    if (v.is_array() && !v.empty()) return array(v, level);
    out_.write(json_text(v));
  }

 private:
  void newline(int level) {
    if (indent_ < 0) return;
    out_.write("\n");
    out_.write(std::string(static_cast<size_t>(level * indent_), ' '));
  }

  void member(const std::string& key, const json& v, int level, bool first, json* extra) {
    if (!first) out_.write(",");
    newline(level);
    out_.write(json_text(json(key)));
    out_.write(indent_ < 0 ? ":" : ": ");
    value(v, level, extra);
  }

  void object(const json& v, int level) {
    out_.write("{");
    bool first = true;
    for (const auto& [key, item] : v.items()) {
      json extra;
      member(key, item, level + 1, first, &extra);
      first = false;
      if (extra.is_object()) {
        for (const auto& [k, e] : extra.items()) member(k, e, level + 1, false, nullptr);
      }
      out_.maybe_flush();
    }
    newline(level);
    out_.write("}");
  }

  void array(const json& v, int level) {
    out_.write("[");
    bool first = true;
    for (const json& item : v) {
      if (!first) out_.write(",");
      first = false;
      newline(level + 1);
      value(item, level + 1, nullptr);
      out_.maybe_flush();
    }
    newline(level);
    out_.write("]");
  }

  Output& out_;
  int indent_;
  const StreamValue& stream_;
};

}  // namespace

void write_json(Output& out, const json& doc, int indent, const StreamValue& stream) {
  Printer(out, indent, stream).value(doc, 0, nullptr);
}

void write_json_at(Output& out, const json& value, int indent, int level) {
  static const StreamValue no_markers = [](uint64_t) { return json(); };
  Printer(out, indent, no_markers).value(value, level, nullptr);
}

void write_json_separator(Output& out, int indent, int level, bool first) {
  if (!first) out.write(",");
  if (indent < 0) return;
  out.write("\n");
  out.write(std::string(static_cast<size_t>(level * indent), ' '));
}

}  // namespace dudley::cli
