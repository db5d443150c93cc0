// `dudley ls`: the tree of a data file: groups, lists, arrays with type, shape and address,
// parameters with their values.
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <unordered_set>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/data_options.hpp"
#include "cli/dump_items.hpp"
#include "cli/failure.hpp"
#include "cli/json_stream.hpp"
#include "cli/ls_json.hpp"
#include "cli/model_json.hpp"
#include "cli/tree_json.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/suggest.hpp"
#include "dudley/core/text.hpp"
#include "dudley/format.hpp"
#include "dudley/io/redact.hpp"

namespace dudley::cli {

namespace {

// "[6, 4]"; a dimension that may grow shows its limit as h5ls does: "[6/Inf, 4]", "[6/10]";
// an empty array (no shape) "Empty".
std::string shape_text(const model::Node& node) {
  if (node.empty) return "Empty";
  const std::vector<int64_t>& max = node.storage.max_shape;
  std::vector<std::string> dims;
  for (size_t d = 0; d < node.shape.size(); ++d) {
    std::string dim = std::to_string(node.shape[d]);
    if (max.size() == node.shape.size() && max[d] != node.shape[d])
      dim += max[d] < 0 ? "/Inf" : "/" + std::to_string(max[d]);
    dims.push_back(std::move(dim));
  }
  return fmt::format("[{}]", fmt::join(dims, ", "));
}

std::string type_text(const DType& t) {
  return t.kind() == DTypeKind::kCompound ? fmt::format("struct {} ({} bytes)", t.name(), t.size())
                                          : t.to_string();
}

// What stopped an item: its node's error, and the message that names the item. Most
// messages name their item already and are the cause itself; the cause is then not kept a
// second time (a layout of 100,000 items past the end kept 11 MB of copies).
struct Problem {
  Problem(std::string error, std::string text, bool unreadable = false)
      : message(std::move(text)), unreadable_only(unreadable) {
    if (error != message) cause = std::move(error);
  }
  /// What the items sharing one error have in common.
  std::string_view shared_cause() const { return cause.empty() ? message : cause; }

  std::string cause;  ///< empty when it is `message`
  std::string message;
  /// An array whose data this build cannot read (a type or codec it lacks,
  /// NodeError::unsupported): the listing is still complete, so it is reported and ls
  /// exits 0.
  bool unreadable_only = false;
};

// " {units=\"K\", ...}" after an item with attributes.
std::string attrs_suffix(const model::Attributes& attributes) {
  // Attribute names and texts are the file's: their control characters printed escaped.
  return attributes.empty() ? "" : " {" + escape_controls(attributes_text(attributes)) + "}";
}
std::string attrs_suffix(const model::Node& node) {
  // Attribute names and texts are the file's: their control characters printed escaped.
  std::string text = node.attributes.empty() ? "" : attributes_text(node.attributes);
  // Those that could not be read are named too (and reported as errors).
  for (const auto& [name, error] : node.unreadable_attributes)
    text += (text.empty() ? "" : ", ") + (name.empty() ? "(attributes)" : name) + "=ERROR";
  return text.empty() ? "" : " {" + escape_controls(text) + "}";
}

// One line per item, like `h5ls -r`; collects the problems of the items that could not be
// resolved, each naming its item.
void print_node(const model::Node& node, const std::string& path, std::vector<Problem>& errors,
                uint64_t max_items) {
  // Names and documents are the file's text: printed with their control characters
  // escaped, never as terminal controls or lines of their own.
  const std::string doc =
      node.doc.empty() ? "" : "  # " + escape_controls(node.doc.substr(0, node.doc.find('\n')));
  const std::string shown = escape_controls(path.empty() ? "/" : path);
  for (const auto& [name, error] : node.unreadable_attributes) {
    const std::string text = unreadable_attribute_text(path.empty() ? "/" : path, name, error);
    errors.push_back({text, text});
  }
  switch (node.kind) {
    case model::NodeKind::kGroup: {
      fmt::print("{:<32} group{}{}{}\n", shown,
                 node.link ? " -> " + escape_controls(node.link->text()) : "", attrs_suffix(node),
                 doc);
      for (const auto& p : node.params) {
        const std::string where = escape_controls(path + "/" + p.name);
        if (!p.error.empty()) {
          fmt::print("{:<32} parameter: ERROR\n", where);
          errors.push_back({p.error.text(), p.error.text()});
          continue;
        }
        std::string stored = p.dtype ? fmt::format(" {}", type_text(*p.dtype)) : "";
        std::string at = p.address ? fmt::format(" @ {}", *p.address) : "";
        const std::string p_doc =
            p.doc.empty() ? "" : "  # " + escape_controls(p.doc.substr(0, p.doc.find('\n')));
        fmt::print("{:<32} parameter = {}{}{}{}{}\n", where, *p.value, stored, at,
                   attrs_suffix(p.attributes), p_doc);
      }
      for_each_child(node, [&](uint64_t, const model::Node& c) {
        print_node(c, path + "/" + c.name, errors, max_items);
        return true;
      });
      break;
    }
    case model::NodeKind::kList: {
      const uint64_t count = model::child_count(node);
      fmt::print("{:<32} list of {}{}{}\n", shown, count, attrs_suffix(node), doc);
      uint64_t listed = 0;
      for_each_child(node, [&](uint64_t i, const model::Node& c) {
        if (max_items != 0 && i >= max_items) return false;
        print_node(c, fmt::format("{}/{}", path, i), errors, max_items);
        listed = i + 1;
        return true;
      });
      if (max_items != 0 && listed == max_items && count > listed) {
        fmt::print("{:<32} ... {} more items (--max-items 0 lists all)\n", shown, count - listed);
      }
      break;
    }
    case model::NodeKind::kArray:
      if (!node.error.empty() && node.link) {
        // A link not followed is listed, where it points and why: ls shows it all.
        std::string why = node.error.message;
        if (why.starts_with(path + ": ")) why.erase(0, path.size() + 2);
        fmt::print("{:<32} link -> {} ({})\n", shown, escape_controls(node.link->text()),
                   escape_controls(why));
        // One listed with where it points (to a group listed there, or to nothing) is
        // whole as it is.
        if (node.is_listed_link()) break;
        // And counted as --json counts it: the listing could not show what it points to.
        errors.push_back(
            {node.error.text(), item_problem(path, node.error.text()), node.error.unsupported});
        break;
      }
      if (!node.error.empty()) {
        fmt::print("{:<32} array: ERROR\n", shown);
        errors.push_back(
            {node.error.text(), item_problem(path, node.error.text()), node.error.unsupported});
        break;
      }
      const std::string stored = storage_text(node.storage);
      fmt::print("{:<32} array {} {}{}{}{}\n", shown, escape_controls(type_text(node.dtype)),
                 shape_text(node),
                 node.storage.offset ? fmt::format(" @ {}", *node.storage.offset) : "",
                 stored.empty() ? "" : " " + stored,
                 (!node.link ? "" : " -> " + escape_controls(node.link->text())) +
                     attrs_suffix(node) + doc);
      break;
  }
}

// The problems in a tree as printed: the JSON of each node says what could not be read. In
// tree order, as the text listing reports them.
void collect_errors(const nlohmann::ordered_json& root, std::vector<Problem>& errors,
                    const std::string& root_path = "") {
  struct Pending {
    const nlohmann::ordered_json* node;
    std::string path;
  };
  std::vector<Pending> pending{{&root, root_path}};  // no recursion: JSON can nest deeply
  while (!pending.empty()) {
    Pending here = std::move(pending.back());
    pending.pop_back();
    const nlohmann::ordered_json& n = *here.node;
    if (n.contains("attribute_errors")) {
      for (const auto& [name, text] : n["attribute_errors"].items())
        errors.push_back({text.get<std::string>(), text.get<std::string>()});
    }
    if (n.contains("error")) {
      const std::string cause = n["error"].get<std::string>();
      const bool array = n.value("kind", "") == "array";
      errors.push_back(
          {cause, array ? item_problem(here.path, cause) : cause, n.value("unsupported", false)});
    }
    std::vector<Pending> children;
    if (n.contains("params")) {
      for (const auto& [name, p] : n["params"].items())
        children.push_back({&p, here.path + "/" + name});
    }
    if (n.contains("members")) {
      for (const auto& [name, m] : n["members"].items())
        children.push_back({&m, here.path + "/" + name});
    }
    if (n.contains("items")) {
      size_t i = 0;
      for (const auto& item : n["items"])
        children.push_back({&item, fmt::format("{}/{}", here.path, i++)});
    }
    pending.insert(pending.end(), std::make_move_iterator(children.rbegin()),
                   std::make_move_iterator(children.rend()));
  }
}

struct LsOptions {
  DataOptions data;
  uint64_t max_items = 1000;
  std::vector<std::string> paths;  ///< subtrees to list (h5ls FILE PATH); empty: all
  bool schema = false;             ///< --schema: print the writer schema instead
};

// `ls --schema`: the schema the file was written with (Avro's writer schema), indented.
int print_writer_schema(const model::Tree& tree, const DataOptions& options) {
  const model::AttributeValue* a = tree.root->attributes.find(model::well_known::kWriterSchema);
  const auto* value = a ? std::get_if<model::Value>(a) : nullptr;
  const std::string text =
      value && value->is<std::string>() ? value->as<std::string>() : std::string();
  if (text.empty()) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("{} files carry no writer schema (Avro containers do)", tree.format),
                Location::file(options.data));
  }
  nlohmann::ordered_json schema;
  try {
    schema = nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::json::exception&) {
    schema = text;  // printed as the file holds it
  }
  if (options.json) {
    fmt::print("{}\n", json_text({{"format", tree.format}, {"schema", schema}}, 2));
  } else {
    fmt::print("{}\n", schema.is_string() ? text : json_text(schema, 2));
  }
  return kExitOk;
}

// The subtrees `paths` name, as dump resolves items (groups, lists, arrays, parameters,
// values of the tree). Error(kUsage) for a path that names nothing, with the nearest name.
std::vector<Request> listed_subtrees(const model::Tree& tree, const LsOptions& ls) {
  std::vector<Request> out = resolve_items(tree, ls.paths, ls.data.data);
  for (const Request& r : out) {
    if (!r.spec.fields.empty() || !r.spec.selection.empty() || r.pick) {
      throw Error(ErrorCategory::kUsage,
                  fmt::format("ls lists whole items: {} has a selection or fields (dump prints "
                              "those)",
                              r.label));
    }
  }
  return out;
}

int run_ls_one(const LsOptions& ls, const DataOptions& options, bool member) {
  model::Tree tree = open_data(options);
  if (ls.schema) return print_writer_schema(tree, options);
  const std::vector<Request> subtrees =
      ls.paths.empty() ? std::vector<Request>() : listed_subtrees(tree, ls);
  std::vector<Problem> errors;
  if (options.json) {
    // Printed as the tree is walked (a tree of 10^5 arrays is never one JSON document in
    // memory), in the form json_text(node_json(...)) gives.
    Output out(stdout);
    const int indent = member ? -1 : 2;  // a family: one JSON line per member
    const ListingInspector inspect = [&](const nlohmann::ordered_json& piece,
                                         const std::string& path) {
      collect_errors(piece, errors, path);
    };
    out.write("{");
    write_json_key(out, indent, 1, "format", true);
    out.write(json_text(tree.format));
    if (member) {
      write_json_key(out, indent, 1, "file", false);
      out.write(json_text(options.data));
    }
    if (!ls.paths.empty()) {
      // `ls FILE PATH...`: each subtree under its path, as "root" would hold it.
      write_json_key(out, indent, 1, "items", false);
      out.write("{");
      bool first = true;
      for (const Request& r : subtrees) {
        write_json_key(out, indent, 2, r.path, first);
        first = false;
        // A small entry, indented to sit at the second level like the listings beside it.
        auto nested = [&](const nlohmann::ordered_json& entry) {
          std::string text = json_text(entry, indent);
          if (indent > 0) {
            const std::string step = "\n" + std::string(static_cast<size_t>(2 * indent), ' ');
            for (size_t at = text.find('\n'); at != std::string::npos;
                 at = text.find('\n', at + step.size())) {
              text.replace(at, 1, step);
            }
          }
          out.write(text);
        };
        if (r.kind == Request::Kind::kValue) {
          nested({{"kind", "value"}, {"value", nlohmann::ordered_json::parse(r.value_text)}});
        } else if (r.kind == Request::Kind::kParameter) {
          nested(parameter_json(*r.parameter));
        } else {
          write_listing_json(out, *r.node, r.path, ls.max_items, indent, 2, inspect);
        }
      }
      write_json_separator(out, indent, 1, true);
      out.write("}");
      write_json_separator(out, indent, 0, true);
      out.write("}\n");
      out.flush();
    } else {
      write_json_key(out, indent, 1, "root", false);
      write_listing_json(out, *tree.root, "/", ls.max_items, indent, 1, inspect);
      // Pointees are global, outside the group tree [C19]: listed by key after it.
      if (!tree.pointees.empty()) {
        write_json_key(out, indent, 1, "pointees", false);
        out.write("{");
        bool first = true;
        for (const auto& [key, node] : tree.pointees) {
          const std::string name = std::to_string(key);
          write_json_key(out, indent, 2, name, first);
          first = false;
          write_listing_json(out, *node, "pointee " + name, ls.max_items, indent, 2, inspect);
        }
        write_json_separator(out, indent, 1, true);
        out.write("}");
      }
      write_json_separator(out, indent, 0, true);
      out.write("}\n");
      out.flush();
    }
  } else if (!ls.paths.empty()) {
    for (const Request& r : subtrees) {
      if (r.kind == Request::Kind::kValue) {
        fmt::print("{:<32} value = {}\n", escape_controls(r.path), r.value_text);
      } else if (r.kind == Request::Kind::kParameter) {
        const model::Parameter& p = *r.parameter;
        if (p.error.empty()) {
          fmt::print("{:<32} parameter = {}\n", escape_controls(r.path), *p.value);
        } else {
          fmt::print("{:<32} parameter: ERROR\n", escape_controls(r.path));
          errors.push_back({p.error.text(), p.error.text()});
        }
      } else {
        print_node(*r.node, r.path == "/" ? "" : r.path, errors, ls.max_items);
      }
    }
  } else {
    print_node(*tree.root, "", errors, ls.max_items);
    for (const auto& [key, node] : tree.pointees) {
      print_node(*node, fmt::format("pointee {}", key), errors, ls.max_items);
    }
  }
  // Items placed after a broken one share its error (their addresses depend on it): it is
  // told once, naming the first item it stopped; the listing marks the others.
  std::unordered_set<std::string_view> reported;
  for (const Problem& p : errors) {
    if (reported.insert(p.shared_cause()).second)
      fmt::print(stderr, "{}\n", shown_message(p.message));
  }
  // Arrays this build cannot read are listed with the reason; the listing is whole.
  const bool complete =
      std::all_of(errors.begin(), errors.end(), [](const Problem& p) { return p.unreadable_only; });
  return complete ? kExitOk : kExitInvalid;
}

int run_ls(const LsOptions& ls) {
  const DataOptions& options = ls.data;
  if (options.family.empty()) return run_ls_one(ls, options, false);
  if (!options.data.empty()) throw Error(ErrorCategory::kUsage, "give DATA or --family, not both");
  return for_each_member(options, [&](const DataOptions& m) {
    if (!options.json) fmt::print("== {}\n", io::redacted_url(m.data));
    return run_ls_one(ls, m, true);
  });
}

}  // namespace

void add_ls_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<LsOptions>();
  CLI::App* cmd = app.add_subcommand(
      "ls",
      "List a data file through its layout: every group, list and array (type, shape, byte "
      "address, doc) and every parameter with its value. Paths after DATA list only those "
      "subtrees or values ('ls run.asdf /meta /g/x', as h5ls FILE PATH). Exit 1 when some "
      "item cannot be resolved (each is reported with its place).");
  add_data_options(*cmd, options->data);
  cmd->add_option("--max-items", options->max_items,
                  "Items listed per list (0: all); the rest are counted, not listed")
      ->check(CLI::Validator(
          [](std::string& v) {
            return v.find('-') == std::string::npos ? std::string() : "must be 0 or more";
          },
          "N>=0"))
      ->capture_default_str();
  cmd->add_flag("--schema", options->schema,
                "Print the schema the file was written with (an Avro container's writer "
                "schema) instead of the listing");
  // Extra words are most likely an unquoted glob the shell expanded: said with a hint below,
  // rather than CLI11's "argument was not expected".
  cmd->allow_extras();
  cmd->callback([cmd, options, &exit_code] {
    exit_code = guarded(options->data.json, [&] {
      std::vector<std::string> extra;
      for (const std::string& word : cmd->remaining()) {
        // `ls FILE PATH...`: a subtree; an existing file is a data file the shell expanded
        // from an unquoted glob (/data/run_*.bin), said as such below.
        struct stat st {};
        const bool file = ::stat(word.c_str(), &st) == 0 && S_ISREG(st.st_mode);
        if (!word.empty() && word[0] == '/' && !file) {
          options->paths.push_back(word);
        } else {
          extra.push_back(word);
        }
      }
      for (const std::string& word : extra) {
        if (word.size() > 1 && word[0] == '-') {
          std::vector<std::string> names;
          for (const CLI::Option* o : cmd->get_options()) {
            for (const std::string& n : o->get_lnames()) names.push_back("--" + n);
          }
          throw Error(ErrorCategory::kUsage,
                      fmt::format("unknown option {}{} (dudley ls --help lists them)", word,
                                  did_you_mean(word, names)));
        }
      }
      if (!extra.empty()) {
        throw Error(ErrorCategory::kUsage,
                    fmt::format("ls reads one data file, and {} more were given ({}): for "
                                "several files, quote the pattern and give it to --family, as "
                                "in --family 'run_*.bin'",
                                extra.size(), fmt::join(extra, " ")));
      }
      return run_ls(*options);
    });
  });
}

}  // namespace dudley::cli
