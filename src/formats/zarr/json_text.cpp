#include "json_text.hpp"

#include <fmt/format.h>

#include <optional>
#include <unordered_set>
#include <vector>

#include "dudley/core/error.hpp"

namespace dudley::zarr {
namespace {

using Json = nlohmann::ordered_json;
using Members = std::vector<std::pair<const std::string, Json>>;  // ordered_map's base

// "~" and "/" escaped as a JSON pointer token (RFC 6901).
std::string pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

// Builds the document from nlohmann's SAX events (no recursion: an explicit stack), keeping
// float numbers' text and refusing what a DOM parse would resolve silently.
class Builder {
 public:
  explicit Builder(JsonDocument& doc) : doc_(doc) {}

  bool null() { return put(Json(nullptr)); }
  bool boolean(bool v) { return put(Json(v)); }
  bool number_integer(Json::number_integer_t v) { return put(Json(v)); }
  bool number_unsigned(Json::number_unsigned_t v) { return put(Json(v)); }
  bool number_float(Json::number_float_t v, const std::string& text) {
    doc_.number_text[pointer_here()] = text;
    return put(Json(v));
  }
  bool string(std::string& v) { return put(Json(std::move(v))); }
  bool binary(Json::binary_t&) { return put(Json(nullptr)); }  // not produced by JSON text
  bool start_object(std::size_t) { return open(Json::object()); }
  bool start_array(std::size_t) { return open(Json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(std::string& k) {
    Frame& f = stack_.back();
    // A set beside the object: ordered_json looks keys up one by one, which a document
    // with a million keys would make quadratic.
    if (!f.keys.insert(k).second) {
      problem_ = fmt::format("key \"{}\" is given twice in the object at {}", k,
                             f.pointer.empty() ? "/" : f.pointer);
      return false;
    }
    f.key = std::move(k);
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) {
    error_at_ = position;
    // nlohmann's messages start "[json.exception.parse_error.101] parse error at line 1,
    // column 2: "; the place is ours to give.
    std::string what = e.what();
    if (what.rfind("[json.exception.", 0) == 0 && what.find("] ") != std::string::npos) {
      what = what.substr(what.find("] ") + 2);
    }
    const auto colon = what.rfind("parse error", 0) == 0 ? what.find(": ") : std::string::npos;
    problem_ = colon == std::string::npos ? what : what.substr(colon + 2);
    return false;
  }

  const std::string& problem() const { return problem_; }
  std::optional<size_t> error_at() const { return error_at_; }

 private:
  struct Frame {
    Json* value;
    std::string pointer;                   // of this container
    std::string key;                       // objects: the key of the next member
    std::unordered_set<std::string> keys;  // objects: the keys so far
  };

  std::string pointer_here() const {
    if (stack_.empty()) return "";
    const Frame& f = stack_.back();
    if (f.value->is_array()) return fmt::format("{}/{}", f.pointer, f.value->size());
    return f.pointer + "/" + pointer_token(f.key);
  }

  // Places `v` where the next value goes; returns where it now lives.
  Json* place(Json v) {
    if (stack_.empty()) {
      doc_.value = std::move(v);
      return &doc_.value;
    }
    Frame& f = stack_.back();
    if (f.value->is_array()) {
      f.value->push_back(std::move(v));
      return &f.value->back();
    }
    auto& members = static_cast<Members&>(f.value->get_ref<Json::object_t&>());
    members.emplace_back(std::move(f.key), std::move(v));
    return &members.back().second;
  }

  bool put(Json v) {
    place(std::move(v));
    return true;
  }

  bool open(Json container) {
    if (stack_.size() >= kMaxJsonDepth) {
      problem_ = fmt::format("nesting deeper than {} levels", kMaxJsonDepth);
      return false;
    }
    std::string pointer = pointer_here();
    Json* at = place(std::move(container));
    stack_.push_back({at, std::move(pointer), {}, {}});
    return true;
  }

  bool close() {
    stack_.pop_back();
    return true;
  }

  JsonDocument& doc_;
  std::vector<Frame> stack_;
  std::string problem_;
  std::optional<size_t> error_at_;
};

// Line and column (from 1, in bytes) of byte `offset` of `text`.
std::pair<uint32_t, uint32_t> line_and_column(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  uint32_t line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return {line, static_cast<uint32_t>(offset - line_start + 1)};
}

}  // namespace

JsonDocument parse_json_document(std::string_view text, const std::string& path) {
  JsonDocument doc;
  Builder builder(doc);
  const bool ok = Json::sax_parse(text.begin(), text.end(), &builder, Json::input_format_t::json,
                                  /*strict=*/true);
  if (ok) return doc;
  if (auto at = builder.error_at()) {
    // nlohmann reports the offset just past the offending token.
    const auto [line, column] = line_and_column(text, *at == 0 ? 0 : *at - 1);
    throw Error(ErrorCategory::kSyntax, fmt::format("invalid JSON: {}", builder.problem()),
                Location::text(path, line, column));
  }
  throw Error(ErrorCategory::kSyntax, fmt::format("invalid JSON: {}", builder.problem()),
              Location::file(path));
}

}  // namespace dudley::zarr
