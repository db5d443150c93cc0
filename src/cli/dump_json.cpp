// `dudley dump --json`: the tree as `ls --json` prints it, each array's values in place.
#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

#include "cli/dumper.hpp"
#include "cli/failure.hpp"
#include "cli/ls_json.hpp"
#include "cli/tree_json.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/path.hpp"

namespace dudley::cli {

// JSON: the ls tree, each requested array carrying its values, streamed into place.
int dump_json(const model::Tree& tree, const std::vector<Request>& wanted,
              const DumpOptions& options, bool member, Output& out, TemplateRecorder* record) {
  Dumper dumper(tree, options, out);
  std::map<std::string, std::vector<const Request*>> by_path;
  std::vector<const Request*> containers;
  for (const Request& r : wanted) {
    if (r.kind == Request::Kind::kBelow) containers.push_back(&r);
    if (r.kind == Request::Kind::kArray) by_path[r.path].push_back(&r);
  }
  std::map<uint64_t, ArrayRef> pending;  // values to stream, by marker id, until written
  uint64_t next_marker = 0;
  TreeWalk walk;
  walk.max_items = options.max_items;
  walk.stop = [&] { return dumper.exhausted(); };
  // Lists on the way to a requested item are shown up to it; below a requested group or list,
  // all of it (or up to the last picked item).
  walk.reach = [&](const std::string& list) -> uint64_t {
    uint64_t reach = 0;
    for (const Request& r : wanted) {
      if (r.kind == Request::Kind::kBelow && r.path == list && r.pick) {
        reach = std::max(reach, r.pick->reach());
        continue;
      }
      if (r.kind == Request::Kind::kBelow && is_below(list, r.path) && !r.pick) return UINT64_MAX;
      const std::string prefix = (list == "/" ? "" : list) + "/";
      if (r.path.compare(0, prefix.size(), prefix) != 0) continue;
      const std::string rest = r.path.substr(prefix.size());
      if (auto index = path_index(rest.substr(0, rest.find('/')))) {
        reach = std::max<uint64_t>(reach, *index + 1);
      }
    }
    return reach;
  };
  // Whether the array at `path` is asked for (by its path or below a requested container).
  auto wanted_here = [&](const std::string& path) {
    if (by_path.count(path)) return true;
    for (const Request* c : containers) {
      if (c->pick ? is_picked(path, c->path, *c->pick) : is_below(path, c->path)) return true;
    }
    return false;
  };
  // With items, only what leads to them or lies below them is listed.
  if (!wanted.empty()) {
    walk.include = [&](const std::string& path) {
      for (const Request& r : wanted) {
        if (r.path == path || is_below(path, r.path) || is_below(r.path, path)) return true;
      }
      return false;
    };
  }
  walk.unresolved = [&](const model::Node& array, const std::string& path) {
    if (wanted_here(path)) (void)dumper.unreadable(ArrayRef::of(array, path));
  };
  walk.unreadable_attribute = [&](const std::string& text) { dumper.report(text); };
  // A link listed with where it points is no array to print: one asked for by its path
  // (a dangling one: a path through a link to a group leads to the group) cannot be read.
  for (const Request& r : wanted) {
    if (r.kind == Request::Kind::kArray && r.node->is_listed_link())
      (void)dumper.unreadable(ArrayRef::of(*r.node, r.path, r.spec));
  }
  walk.decorate = [&](const model::Node& array, const std::string& path, json& node) {
    std::vector<ArrayRef> here;
    if (auto it = by_path.find(path); it != by_path.end()) {
      for (const Request* r : it->second) here.push_back(ArrayRef::of(array, path, r->spec));
    }
    for (const Request* c : containers) {
      if (c->pick ? is_picked(path, c->path, *c->pick) : is_below(path, c->path)) {
        here.push_back(ArrayRef::of(array, path));
        break;
      }
    }
    for (ArrayRef& ref : here) {
      const std::string key = ref.spec.suffix();
      json& slot = key.empty() ? node : node["selections"][key];
      if (ref.empty && key.empty()) {  // no data, not even a null element
        slot["data"] = nullptr;
        continue;
      }
      try {
        dumper.count_empty(ref);
        slot["data"] = stream_marker(next_marker);
        pending.emplace(next_marker++, std::move(ref));
      } catch (const Error& e) {
        slot["error"] = e.what();
        dumper.report(e.what());
      }
    }
  };
  // The tree is printed as it is walked (as ls --json prints it), each array's values in
  // place: memory follows one array, not the output.
  const int indent = member ? -1 : 2;  // a family: one JSON line per member
  out.write("{");
  write_json_key(out, indent, 1, "format", true);
  write_json_at(out, json(tree.format), indent, 1);
  if (member) {
    write_json_key(out, indent, 1, "file", false);
    if (record) record->open_hole({});
    write_json_at(out, json(options.data.data), indent, 1);
    if (record) record->close_hole();
  }
  write_json_key(out, indent, 1, "root", false);
  write_listing_json(
      out, *tree.root, "/", walk, indent, 1, [](const json&, const std::string&) {},
      [&](uint64_t id) {
        auto it = pending.find(id);
        if (record) {
          record->open_hole(
              {MemberTemplate::HoleKind::kValues, it->second, 0, 0, it->second.label});
        }
        json extra = dumper.values(it->second, it->second.label);
        if (record) {
          record->close_hole();
          if (!extra.empty()) record->refuse();  // "truncated", "error": not in the template
        }
        pending.erase(it);  // written: nothing of it is kept
        return extra;
      });
  write_json_separator(out, indent, 0, true);
  out.write("}\n");
  for (const Request& r : wanted) {
    if (r.kind == Request::Kind::kParameter && !r.parameter->value) {
      dumper.report(fmt::format("{}: {}", r.path, r.parameter->error.text()));
    }
  }
  return dumper.status();
}

}  // namespace dudley::cli
