#include "cli/ls_json.hpp"

#include <algorithm>

#include "cli/failure.hpp"
#include "cli/json_stream.hpp"
#include "cli/model_json.hpp"
#include "cli/plain_array_json.hpp"
#include "cli/tree_json.hpp"

namespace dudley::cli {

namespace {

using json = nlohmann::ordered_json;

class ListingWriter {
 public:
  ListingWriter(Output& out, const TreeWalk& walk, int indent, const ListingInspector& inspect,
                const StreamValue& stream)
      : out_(out), walk_(walk), indent_(indent), inspect_(inspect), stream_(stream) {}

  void node(const model::Node& n, const std::string& path, int level) {
    if (n.kind == model::NodeKind::kArray) return leaf(n, path, level);
    out_.write("{");
    bool first = true;
    member("kind", n.kind == model::NodeKind::kGroup ? "group" : "list", level, first);
    if (n.link) member("link", link_json(*n.link), level, first);  // read through a link
    if (n.kind == model::NodeKind::kGroup) {
      group(n, path, level);
    } else {
      list(n, path, level);
    }
    if (!n.doc.empty()) member("doc", n.doc, level, first);
    write_json_separator(out_, indent_, level, true);
    out_.write("}");
  }

 private:
  // The parameters are looked at before the members, as the text listing reports them.
  void group(const model::Node& n, const std::string& path, int level) {
    json params = params_json(n);
    if (!params.empty()) inspect_(json{{"params", params}}, base(path));
    key("members", level, false);
    out_.write("{");
    bool any = false;
    for_each_child(n, [&](uint64_t i, const model::Node& c) {
      if (stopped()) return false;
      const std::string p = child_path(n, path, c, i);
      if (walk_.include && !walk_.include(p)) return true;
      key(c.name, level + 1, !any);
      any = true;
      node(c, p, level + 2);
      out_.maybe_flush();
      return true;
    });
    if (any) write_json_separator(out_, indent_, level + 1, true);
    out_.write("}");
    bool first = false;
    if (!params.empty()) {
      clean_error_texts(params);
      member("params", params, level, first);
    }
    if (!n.attributes.empty()) member("attributes", attributes_json(n.attributes), level, first);
    attribute_errors(n, path, level, first);
  }

  void list(const model::Node& n, const std::string& path, int level) {
    key("items", level, false);
    out_.write("[");
    uint64_t limit = walk_.max_items == 0 ? UINT64_MAX : walk_.max_items;
    if (walk_.reach) limit = std::max(limit, walk_.reach(path));
    uint64_t shown = 0;
    for_each_child(n, [&](uint64_t i, const model::Node& c) {
      if (i >= limit || stopped()) return false;
      write_json_separator(out_, indent_, level + 2, i == 0);
      node(c, child_path(n, path, c, i), level + 2);
      out_.maybe_flush();
      shown = i + 1;
      return true;
    });
    if (shown > 0) write_json_separator(out_, indent_, level + 1, true);
    out_.write("]");
    const uint64_t count = child_count(n);
    bool first = false;
    if (shown < count && limit < count) member("omitted", count - shown, level, first);
    // A list's own attributes (an Avro container's schema and metadata).
    if (!n.attributes.empty()) member("attributes", attributes_json(n.attributes), level, first);
    attribute_errors(n, path, level, first);
  }

  // An array's JSON, decorated by the walk (dump adds a marker for its values), its values
  // streamed in place.
  void leaf(const model::Node& n, const std::string& path, int level) {
    // Nothing to decorate, and nothing in it that inspect_ looks for (errors).
    if (!walk_.decorate && write_plain_array_json(out_, n, indent_, level)) return;
    json piece = node_json(n, walk_, path);
    inspect_(piece, path);
    clean_error_texts(piece);
    write_json_at(out_, piece, indent_, level, stream_);
  }

  // "attribute_errors" of a group or list, looked at as errors are.
  void attribute_errors(const model::Node& n, const std::string& path, int level, bool& first) {
    if (n.unreadable_attributes.empty()) return;
    json errors = attribute_errors_json(n, walk_, path);
    inspect_(json{{"attribute_errors", errors}}, base(path));
    member("attribute_errors", errors, level, first);
  }

  bool stopped() const { return walk_.stop && walk_.stop(); }

  // `"name": ` on its own line one level inside the object at `level`.
  void key(const std::string& name, int level, bool first) {
    write_json_key(out_, indent_, level + 1, name, first);
  }

  void member(const std::string& name, const json& value, int level, bool& first) {
    key(name, level, first);
    first = false;
    write_json_at(out_, value, indent_, level + 1);
  }

  static std::string base(const std::string& path) { return path == "/" ? "" : path; }

  Output& out_;
  const TreeWalk& walk_;
  int indent_;
  const ListingInspector& inspect_;
  const StreamValue& stream_;
};

}  // namespace

void write_listing_json(Output& out, const model::Node& node, const std::string& path,
                        uint64_t max_items, int indent, int level,
                        const ListingInspector& inspect) {
  TreeWalk walk;
  walk.max_items = max_items;
  static const StreamValue no_markers = [](uint64_t) { return json(); };
  ListingWriter(out, walk, indent, inspect, no_markers).node(node, path, level);
}

void write_listing_json(Output& out, const model::Node& node, const std::string& path,
                        const TreeWalk& walk, int indent, int level,
                        const ListingInspector& inspect, const StreamValue& stream) {
  ListingWriter(out, walk, indent, inspect, stream).node(node, path, level);
}

}  // namespace dudley::cli
