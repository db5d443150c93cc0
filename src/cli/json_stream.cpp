#include "cli/json_stream.hpp"

#include <algorithm>
#include <iterator>
#include <string>

#include <fmt/format.h>

#include "cli/tree_json.hpp"

namespace dudley::cli {

using json = nlohmann::ordered_json;

json stream_marker(uint64_t id) {
  return json::binary({}, id);
}

namespace {

// Writes `text` as a JSON string: plain ASCII directly, anything needing escapes (or bytes
// that are not UTF-8) as nlohmann prints it. A listing writes 10^6 keys and strings, and
// json_text's serializer (a json value, a locale lookup and a string each) was a tenth of
// its time.
void write_string(Output& out, const std::string& s) {
  const bool plain = std::all_of(
      s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; });
  if (!plain) return out.write(json_text(json(s)));
  fmt::memory_buffer& b = out.buffer();
  b.push_back('"');
  b.append(s.data(), s.data() + s.size());
  b.push_back('"');
}

// A new line indented `spaces` deep, written without a temporary string.
void write_newline(Output& out, size_t spaces) {
  static constexpr char kSpaces[] =
      "                                                                ";
  fmt::memory_buffer& b = out.buffer();
  b.push_back('\n');
  for (size_t left = spaces; left > 0;) {
    const size_t n = std::min(left, sizeof kSpaces - 1);
    b.append(kSpaces, kSpaces + n);
    left -= n;
  }
}

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
    scalar(v);
  }

 private:
  // Integers and text are written directly; everything else (floats, booleans, null) as
  // nlohmann prints it.
  void scalar(const json& v) {
    fmt::memory_buffer& b = out_.buffer();
    if (v.is_number_integer()) {
      if (v.is_number_unsigned()) {
        fmt::format_to(std::back_inserter(b), "{}", v.get<uint64_t>());
      } else {
        fmt::format_to(std::back_inserter(b), "{}", v.get<int64_t>());
      }
      return;
    }
    if (v.is_string()) return write_string(out_, v.get_ref<const std::string&>());
    out_.write(json_text(v));
  }

  void newline(int level) {
    if (indent_ < 0) return;
    write_newline(out_, static_cast<size_t>(level) * static_cast<size_t>(indent_));
  }

  void member(const std::string& key, const json& v, int level, bool first, json* extra) {
    if (!first) out_.write(",");
    newline(level);
    write_string(out_, key);
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

void write_json_at(Output& out, const json& value, int indent, int level,
                   const StreamValue& stream) {
  Printer(out, indent, stream).value(value, level, nullptr);
}

void write_json_key(Output& out, int indent, int level, const std::string& name, bool first) {
  write_json_separator(out, indent, level, first);
  write_string(out, name);
  out.write(indent < 0 ? ":" : ": ");
}

void write_json_separator(Output& out, int indent, int level, bool first) {
  if (!first) out.write(",");
  if (indent < 0) return;
  write_newline(out, static_cast<size_t>(level) * static_cast<size_t>(indent));
}

}  // namespace dudley::cli
