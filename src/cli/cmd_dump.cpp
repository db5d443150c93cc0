// `dudley dump`: array values, whole or a selection, and pointer targets with --deref. Values
// stream: an array is read and printed a block at a time, so memory stays bounded whatever
// its size, in text and in JSON.
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/dumper.hpp"
#include "cli/failure.hpp"

namespace dudley::cli {

int run_dump_one(const DumpOptions& options, bool member, Output& out, TemplateRecorder* record) {
  model::Tree tree = open_data(options.data);
  const std::vector<Request> wanted = resolve_items(tree, options.items, options.data.data);
  if (record) {
    // Only arrays asked for by path have values a template can hold; parameters, values
    // and whole groups print what each member has.
    for (const Request& r : wanted) {
      if (r.kind != Request::Kind::kArray) record->refuse();
    }
  }
  return options.data.json ? dump_json(tree, wanted, options, member, out, record)
                           : dump_text(tree, wanted, options, member, out, record);
}

namespace {

// The paths `items` name (without selections and fields): what a format need put in the
// tree. Empty (the whole tree) when an item is not a plain path.
std::vector<std::string> wanted_paths(const std::vector<std::string>& items) {
  std::vector<std::string> paths;
  for (const std::string& item : items) {
    if (item.empty() || item[0] != '/') return {};
    if (item.find('"') != std::string::npos) {  // quoted names: the path is exact
      paths.push_back(split_item_path(item).path);
      continue;
    }
    std::string path = item.substr(0, item.find('['));
    paths.push_back(path);
    // '/recs.pos': the field of /recs (or an HDF5 name with a dot: both are kept).
    const size_t slash = path.rfind('/');
    if (const size_t dot = path.find('.', slash); dot != std::string::npos) {
      paths.push_back(path.substr(0, dot));
    }
  }
  return paths;
}

int run_dump(const DumpOptions& given) {
  if (given.data.family.empty()) {
    DumpOptions options = given;
    options.data.wanted = wanted_paths(options.items);
    if (!options.binary.empty()) return run_dump_binary(options);
    Output out(stdout);
    return run_dump_one(options, false, out);
  }
  // With --family there is no DATA: the first positional argument is an item.
  DumpOptions options = given;
  if (!options.data.data.empty()) {
    options.items.insert(options.items.begin(), options.data.data);
    options.data.data.clear();
  }
  options.data.wanted = wanted_paths(options.items);
  if (!options.binary.empty()) return run_dump_binary(options);
  return run_dump_family(options);
}

CLI::Validator not_negative() {
  return CLI::Validator(
      [](std::string& v) {
        return v.find('-') == std::string::npos ? std::string() : "must be 0 or more";
      },
      "N>=0");
}

}  // namespace

void add_dump_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<DumpOptions>();
  CLI::App* cmd = app.add_subcommand(
      "dump",
      "Print array values: every array, or the named items. An item may carry numpy indexing "
      "('/g/x[0:2, ::-1]', '/x[..., 0]'), struct fields ('/recs.pos[3]'), or name a "
      "parameter ('/NX'). Groups and lists print every array below them; '/list[0:2]' picks "
      "items of a list.");
  add_data_options(*cmd, options->data);
  cmd->add_option("items", options->items, "Item paths, optionally with fields and a selection");
  cmd->add_option("--max-items", options->max_items,
                  "With --json: items shown per list that holds no requested item (0: all)")
      ->check(not_negative())
      ->capture_default_str();
  cmd->add_option("--max-values", options->max_values,
                  "Print at most N values of each array (strings count one; 0: all); text "
                  "ends a cut array with '...', JSON adds \"truncated\"")
      ->check(not_negative())
      ->capture_default_str();
  cmd->add_option("--lines", options->lines,
                  "Text output: 'array' (one array a line), 'row' (one innermost row a line, "
                  "with its indexes), 'value' (one value a line, with its indexes)")
      ->check(CLI::IsMember({"array", "row", "value"}))
      ->capture_default_str();
  cmd->add_option("--binary", options->binary,
                  "Write the one item's values as bytes to stdout (a file or a pipe), in this "
                  "machine's byte order and C order: 'raw' (the bytes alone) or 'npy' (numpy's "
                  "header first). With --family the members are stacked: the first dimension "
                  "is the member")
      ->check(CLI::IsMember({"raw", "npy"}));
  cmd->add_flag("--deref", options->deref,
                "Follow pointers: print each pointer's target (its pointee, with data)");
  cmd->add_flag("--unmasked", options->unmasked,
                "Print the values stored under a mask (default: masked elements print as --, "
                "null in JSON, as numpy prints masked arrays)");
  cmd->callback([options, &exit_code] {
    exit_code = guarded(options->data.json, [&] { return run_dump(*options); });
  });
}

}  // namespace dudley::cli
