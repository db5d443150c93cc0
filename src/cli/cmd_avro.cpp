// `dudley avro encode|decode`: single raw Avro datums, as yaq sends them (no container, no
// header: the schema is the ndarray record's, or given with --schema for records that nest
// it). decode prints a datum (text or --json) or writes it in any format; encode writes an
// array (or a tree matching --schema) of any format as one datum.

#include <cstdio>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/data_options.hpp"
#include "cli/failure.hpp"
#include "cli/tree_json.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/file_io.hpp"
#include "dudley/core/text.hpp"
#include "dudley/formats/avro.hpp"
#include "dudley/io/atomic_file.hpp"
#include "dudley/model/value_json.hpp"
#include "dudley/open.hpp"

namespace dudley::cli {
namespace {

using json = nlohmann::ordered_json;

struct AvroOptions {
  std::string input;
  std::string output;
  std::string schema;
  std::string item;
  std::string to;  ///< decode's output format
  bool json = false;
  bool quiet = false;
};

void refuse_overwriting(const AvroOptions& o) {
  for (const std::string& in : {o.input, o.schema}) {
    if (!in.empty() && same_file(in, o.output)) {
      throw Error(ErrorCategory::kUsage,
                  fmt::format("the output {} is an input: refusing to replace it", o.output));
    }
  }
}

// Text: one line per array ("PATH = [values]") and per attribute ("PATH @NAME = value").
void print_text(const model::Node& node, const std::string& path) {
  const std::string shown = path.empty() ? "/" : path;
  for (const auto& [name, value] : node.attributes) {
    const auto* v = std::get_if<model::Value>(&value);
    fmt::print("{} @{} = {}\n", shown, name, v ? json_text(model::to_json(*v)) : "(array)");
  }
  if (node.kind == model::NodeKind::kArray) {
    fmt::print("{} = {}\n", shown, json_text(values_json(node.data->read())));
    return;
  }
  model::for_each_child(node, [&](uint64_t i, const model::Node& c) {
    print_text(c, child_path(node, path, c, i));
    return true;
  });
}

int run_decode(const AvroOptions& o) {
  const model::Tree tree = avro::read_avro_datum(o.input, o.schema);
  if (!o.output.empty()) {
    refuse_overwriting(o);
    SaveOptions save;
    save.format = o.to;
    const SaveReport report = dudley::save(tree, o.output, save);
    for (const std::string& note : report.notes)
      fmt::print(stderr, "note: {}\n", escape_controls(note));
    if (o.json) {
      fmt::print("{}\n", json_text({{"output", o.output}, {"bytes", report.bytes()}}, 2));
    } else if (!o.quiet) {
      fmt::print("wrote {} ({} bytes)\n", shown_path(o.output), report.bytes());
    }
    return kExitOk;
  }
  if (o.json) {
    const json doc = {
        {"format", "avro datum"},
        {"root", node_json(*tree.root, [](const model::Node& a, const std::string&, json& out) {
           out["data"] = values_json(a.data->read());
         })}};
    fmt::print("{}\n", json_text(doc, 2));
  } else {
    print_text(*tree.root, "");
  }
  return kExitOk;
}

const model::Node& item_of(const model::Tree& tree, const AvroOptions& o) {
  if (!o.item.empty()) {
    const model::Node* n = tree.find(o.item);
    if (!n) throw Error(ErrorCategory::kUsage, fmt::format("no item {} in {}", o.item, o.input));
    return *n;
  }
  // Without a schema or an item: the one array of the file.
  if (o.schema.empty() && tree.root->kind != model::NodeKind::kArray) {
    // Items made on demand live only while visited: the array is found again by its path.
    std::string only;
    uint64_t arrays = 0;
    std::function<void(const model::Node&, const std::string&)> walk =
        [&](const model::Node& n, const std::string& path) {
          if (n.kind == model::NodeKind::kArray) {
            only = path;
            ++arrays;
            return;
          }
          model::for_each_child(n, [&](uint64_t i, const model::Node& c) {
            if (arrays > 1) return false;
            walk(c, child_path(n, path, c, i));
            return true;
          });
        };
    walk(*tree.root, "");
    if (arrays != 1) {
      throw Error(ErrorCategory::kUsage,
                  fmt::format("{} holds {} arrays: name one with --item (or give --schema)",
                              o.input, arrays > 1 ? "several" : "no"));
    }
    return *tree.find(only);
  }
  return *tree.root;
}

int run_encode(const AvroOptions& o) {
  refuse_overwriting(o);
  const model::Tree tree = dudley::open(o.input);
  const model::Node& node = item_of(tree, o);
  const codec::Bytes datum = avro::encode_avro_datum(node, o.schema, o.item.empty() ? "/" : o.item);
  io::AtomicFile out(o.output);
  out.write_at(0, datum.data(), datum.size());
  out.commit();
  if (o.json) {
    fmt::print("{}\n", json_text({{"output", o.output}, {"bytes", datum.size()}}, 2));
  } else if (!o.quiet) {
    fmt::print("wrote {} ({} bytes, one datum)\n", shown_path(o.output), datum.size());
  }
  return kExitOk;
}

}  // namespace

void add_avro_command(CLI::App& app, int& exit_code) {
  CLI::App* avro = app.add_subcommand(
      "avro",
      "Single raw Avro datums (as yaq sends them): decode and encode ndarray records, "
      "or records of a schema that nests them");
  avro->require_subcommand(1);

  auto d = std::make_shared<AvroOptions>();
  CLI::App* decode = avro->add_subcommand(
      "decode", "Print one raw datum (text, or --json), or write it in another format");
  decode->add_option("datum", d->input, "File holding one datum")->required();
  decode->add_option("output", d->output,
                     "Write the datum here (format from its extension, or --to) instead of "
                     "printing it");
  decode
      ->add_option("--schema", d->schema, "Writer schema (JSON file); default: the ndarray record")
      ->check(CLI::ExistingFile);
  decode->add_option("--to", d->to, "Output format (default: from the output's extension)");
  decode->add_flag("--json", d->json, "JSON output");
  decode->add_flag("-q,--quiet", d->quiet, "Say nothing on success");
  decode->callback(
      [d, &exit_code] { exit_code = guarded(d->json, [d] { return run_decode(*d); }); });

  auto e = std::make_shared<AvroOptions>();
  CLI::App* encode = avro->add_subcommand(
      "encode", "Write an array of any format (or a tree matching --schema) as one raw datum");
  encode->add_option("input", e->input, "File of any format this build reads")->required();
  encode->add_option("output", e->output, "The datum file to write")->required();
  encode
      ->add_option("--schema", e->schema,
                   "Schema to encode with (JSON file); default: the ndarray record")
      ->check(CLI::ExistingFile);
  encode->add_option("--item", e->item,
                     "The item to encode (default: the file's only array, or its root with "
                     "--schema)");
  encode->add_flag("--json", e->json, "JSON output");
  encode->add_flag("-q,--quiet", e->quiet, "Say nothing on success");
  encode->callback(
      [e, &exit_code] { exit_code = guarded(e->json, [e] { return run_encode(*e); }); });
}

}  // namespace dudley::cli
