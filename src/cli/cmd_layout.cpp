// `dudley layout`: a Dudley layout for a file of another format (HDF5 contiguous datasets,
// uncompressed ASDF blocks), so that the Dudley reader reads its arrays in place; with
// --family, one layout checked against every member.
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/data_options.hpp"
#include "cli/failure.hpp"
#include "cli/output_file.hpp"
#include "cli/tree_json.hpp"
#include "dudley/core/file_io.hpp"
#include "dudley/core/path.hpp"
#include "dudley/core/text.hpp"
#include "dudley/formats/netcdf.hpp"
#include "dudley/io/atomic_file.hpp"
#include "dudley/io/byte_source.hpp"
#include "dudley/io/redact.hpp"
#include "dudley/layout/bind/to_model.hpp"
#include "dudley/layout/syntax/parser.hpp"
#include "dudley/layout/write/from_model.hpp"

namespace dudley::cli {

namespace {

struct LayoutCommandOptions {
  DataOptions data;
  std::string output;
  bool overwrite = false;  ///< --overwrite: replace -o's file although it is no layout
};

struct Placed {
  std::string path;
  uint64_t address = 0;
  std::string dtype;
  std::vector<int64_t> shape;
  std::vector<uint64_t> extent_offsets;  ///< where the file stores each extent, if it says
};

struct Skipped {
  std::string path;
  std::string reason;
  bool damaged = false;  ///< the array could not be read at all (its node's error)
};

// What can be laid out of one file: a tree of its contiguous arrays, and why the others
// cannot.
struct Plan {
  std::string text;  // the layout, without a header
  model::Tree laid;  // the arrays laid out, as the text has them
  std::vector<Placed> placed;
  std::vector<Skipped> skipped;
  /// Exit 1 when an array could not be read (as ls): the layout is still written.
  int status() const {
    for (const Skipped& s : skipped) {
      if (s.damaged) return kExitInvalid;
    }
    return kExitOk;
  }
};

// Why `n` cannot be read in place by a layout, or "".
std::string obstacle(const model::Node& n) {
  if (n.storage.mask) return "masked";
  if (n.storage.kind == model::Storage::Kind::kChunked) {
    const auto& c = *n.storage.chunking;
    return fmt::format("chunked [{}]{}", fmt::join(c.chunk_shape, ", "),
                       c.codecs.is<model::ValueList>() && !c.codecs.as<model::ValueList>().empty()
                           ? " and filtered"
                           : "");
  }
  if (n.storage.kind != model::Storage::Kind::kContiguous)
    return "not stored as one C-ordered run of bytes (Fortran order, or compact)";
  if (!n.storage.offset) return "no storage allocated (never written)";
  const std::optional<uint64_t> bytes = Shape(n.shape).byte_size(n.dtype.size());
  if (!bytes || *bytes != n.storage.size)
    return fmt::format("{} bytes stored where its shape needs {}", n.storage.size,
                       bytes ? *bytes : 0);
  if (n.dtype.kind() == DTypeKind::kVLen) return "variable-length (its elements lie elsewhere)";
  if (n.dtype.byte_order() == ByteOrder::kUnspecified) return "byte order unknown";
  // Types Dudley cannot state: ask the emitter with the array alone.
  model::Tree one;
  one.root = std::make_unique<model::Node>();
  auto copy = std::make_unique<model::Node>();
  copy->kind = model::NodeKind::kArray;
  copy->name = "x";
  copy->dtype = n.dtype;
  copy->shape = n.shape;
  one.root->children.push_back(std::move(copy));
  try {
    (void)layout::layout_text_for(one);
  } catch (const Error& e) {
    const std::string& m = e.message();
    return m.starts_with("/x: ") ? m.substr(4) : m;
  }
  return {};
}

void collect(const model::Node& from, model::Node& into, const std::string& path, Plan& plan) {
  for (const auto& c : from.children) {
    const std::string p = join_path(path, c->name);
    if (c->kind == model::NodeKind::kList) {
      plan.skipped.push_back({p, "a list"});
      continue;
    }
    if (c->kind == model::NodeKind::kGroup) {
      auto g = std::make_unique<model::Node>();
      g->kind = model::NodeKind::kGroup;
      g->name = c->name;
      g->attributes = c->attributes;  // written as `#@` lines
      collect(*c, *g, p, plan);
      if (!g->children.empty() || !g->attributes.empty()) into.children.push_back(std::move(g));
      continue;
    }
    if (!c->error.empty()) {
      const std::string& m = c->error.message;
      plan.skipped.push_back({p, m.starts_with(p + ": ") ? m.substr(p.size() + 2) : m, true});
      continue;
    }
    const std::string why = obstacle(*c);
    if (!why.empty()) {
      plan.skipped.push_back({p, why});
      continue;
    }
    auto a = std::make_unique<model::Node>();
    a->kind = model::NodeKind::kArray;
    a->name = c->name;
    a->dtype = c->dtype;
    a->shape = c->shape;
    a->doc = c->doc;
    a->attributes = c->attributes;
    a->storage.kind = model::Storage::Kind::kContiguous;
    a->storage.offset = c->storage.offset;
    a->storage.extent_offsets = c->storage.extent_offsets;
    plan.placed.push_back(
        {p, *c->storage.offset, c->dtype.to_string(), c->shape, c->storage.extent_offsets});
    into.children.push_back(std::move(a));
  }
}

layout::LayoutTextOptions text_options() {
  layout::LayoutTextOptions o;
  o.stored_addresses = true;
  o.signature = false;
  return o;
}

// `extents`: where each file stores its arrays' extents, for members that differ in shape
// (--family).
Plan plan_for(const DataOptions& given, bool extents) {
  DataOptions options = given;
  options.extent_offsets = extents;
  const model::Tree tree = open_data(options);
  model::Tree holder;
  const model::Tree& t = model::with_group_root(tree, holder);
  Plan plan;
  plan.laid.root = std::make_unique<model::Node>();
  plan.laid.root->attributes = t.root->attributes;
  plan.laid.format = t.format;  // whose bookkeeping attributes are not the file's data
  collect(*t.root, *plan.laid.root, "/", plan);
  std::vector<std::string> lost;  // attributes a layout cannot hold: named, not dropped
  plan.text = layout::layout_text_for(plan.laid, nullptr, text_options(), &lost);
  for (const std::string& item : lost) {
    const size_t colon = item.find(": ");
    plan.skipped.push_back({item.substr(0, colon),
                            colon == std::string::npos ? "not written" : item.substr(colon + 2)});
  }
  if (plan.placed.empty() && !plan.skipped.empty()) {
    // A layout without arrays would read nothing: refuse rather than write an empty one.
    std::string why;
    for (const Skipped& s : plan.skipped) why += fmt::format("\n  {}: {}", s.path, s.reason);
    throw Error(ErrorCategory::kType,
                fmt::format("no array of {} can be laid out:{}", options.data, why),
                Location::file(options.data));
  }
  return plan;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

// How `other` (member `name`) breaks the layout of `first` (member `first_name`): "" when
// it differs only in extents both files store at the same place, which are then added to
// `varying` (array path -> dimensions that differ).
std::string difference(const Plan& first, const std::string& first_name, const Plan& other,
                       std::map<std::string, std::set<size_t>>& varying) {
  std::map<std::string, std::set<size_t>> found;
  for (size_t k = 0; k < std::max(first.placed.size(), other.placed.size()); ++k) {
    if (k >= first.placed.size() || k >= other.placed.size()) {
      const Placed& extra = k < first.placed.size() ? first.placed[k] : other.placed[k];
      return fmt::format("{} is in one of the two only", extra.path);
    }
    const Placed& a = first.placed[k];
    const Placed& b = other.placed[k];
    if (a.path != b.path) return fmt::format("{} where {} has {}", b.path, first_name, a.path);
    if (a.address != b.address) {
      return fmt::format(
          "{} is at {}, not at {} as in {} (a layout's addresses are the same "
          "in every file it reads)",
          b.path, b.address, a.address, first_name);
    }
    if (a.dtype != b.dtype || a.shape.size() != b.shape.size()) {
      return fmt::format("{} is {} {}, not {} {} as in {}", b.path, b.dtype, shape_text(b.shape),
                         a.dtype, shape_text(a.shape), first_name);
    }
    for (size_t d = 0; d < a.shape.size(); ++d) {
      if (a.shape[d] == b.shape[d]) continue;
      if (d >= a.extent_offsets.size() || d >= b.extent_offsets.size() ||
          a.extent_offsets[d] != b.extent_offsets[d]) {
        return fmt::format(
            "{} is {} {}, not {} {} as in {}, and the two files do not store "
            "its extent {} at the same place",
            b.path, b.dtype, shape_text(b.shape), a.dtype, shape_text(a.shape), first_name, d);
      }
      found[a.path].insert(d);
    }
  }
  for (auto& [path, dims] : found) varying[path].insert(dims.begin(), dims.end());
  return {};
}

// Every array's shape in `tree`, in order (the order the layout declares them).
void shapes_in_order(const model::Node& n, std::vector<std::vector<int64_t>>& out) {
  if (n.kind == model::NodeKind::kArray) {
    out.push_back(n.shape);
    return;
  }
  for (const auto& c : n.children) shapes_in_order(*c, out);
}

// Reads each member through `text` and checks that every array has the member's own shape:
// the extent parameters read what the members' files store.
void check_through(const std::string& text, const std::vector<DataOptions>& members,
                   const std::vector<std::vector<std::vector<int64_t>>>& shapes) {
  auto layout =
      std::make_shared<const layout::Layout>(layout::layout_from_text(text, "the family's layout"));
  for (size_t i = 0; i < members.size(); ++i) {
    const model::Tree tree = layout::dudley_tree(layout, io::open_file(members[i].data), {});
    std::vector<std::vector<int64_t>> got;
    shapes_in_order(*tree.root, got);
    if (got != shapes[i]) {
      throw Error(ErrorCategory::kData,
                  "the family's layout, with extents read from each file, does not give this "
                  "member's shapes",
                  Location::file(members[i].data));
    }
  }
}

void write_output(const LayoutCommandOptions& options, const std::string& text,
                  const std::vector<std::string>& inputs) {
  if (options.output.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return;
  }
  check_output_file(options.output, layout_output(), inputs, options.overwrite);
  write_file_atomically(options.output, text);
}

nlohmann::ordered_json plan_json(const Plan& plan) {
  nlohmann::ordered_json arrays = nlohmann::ordered_json::array(),
                         skipped = nlohmann::ordered_json::array();
  for (const Placed& p : plan.placed)
    arrays.push_back(
        {{"path", p.path}, {"address", p.address}, {"dtype", p.dtype}, {"shape", p.shape}});
  for (const Skipped& s : plan.skipped) {
    skipped.push_back({{"path", s.path}, {"reason", s.reason}, {"damaged", s.damaged}});
  }
  return {{"arrays", arrays}, {"skipped", skipped}};
}

void print_skipped(const Plan& plan) {
  for (const Skipped& s : plan.skipped) {
    if (s.damaged) {
      fmt::print(stderr, "error: {}: cannot be read, not laid out: {}\n", escape_controls(s.path),
                 shown_message(s.reason));
    } else {
      fmt::print(stderr, "note: {}: not laid out: {}\n", escape_controls(s.path),
                 escape_controls(s.reason));
    }
  }
}

// The layout a netCDF classic file is read through (its header made into one), or nullopt
// for files of other formats.
std::optional<std::string> netcdf_layout(const std::string& path) {
  try {
    return netcdf::netcdf_layout_text(path);
  } catch (const Error& e) {
    if (e.category() == ErrorCategory::kIo) return std::nullopt;  // the usual path says why
    throw;
  }
}

int run_layout(const LayoutCommandOptions& options) {
  const DataOptions& data = options.data;
  if (data.family.empty()) {
    if (std::optional<std::string> nc = netcdf_layout(data.data)) {
      // Every variable is laid out: record variables as fields of /records.
      if (data.json) {
        nlohmann::ordered_json out{{"file", io::redacted_url(data.data)}, {"layout", *nc}};
        const std::string json = json_text(out, 2) + "\n";
        std::fwrite(json.data(), 1, json.size(), stdout);
      } else {
        write_output(options, *nc, input_files(data));
      }
      return 0;
    }
    const Plan plan = plan_for(data, false);
    const std::string text =
        fmt::format("# Dudley layout of {}: its arrays at their addresses (dudley layout)\n{}",
                    io::redacted_url(data.data), plan.text);
    if (data.json) {
      nlohmann::ordered_json out{{"file", io::redacted_url(data.data)}, {"layout", text}};
      out.update(plan_json(plan));
      const std::string json = json_text(out, 2) + "\n";
      std::fwrite(json.data(), 1, json.size(), stdout);
    } else {
      write_output(options, text, input_files(data));
      print_skipped(plan);
    }
    return plan.status();
  }
  if (!data.data.empty()) throw Error(ErrorCategory::kUsage, "give DATA or --family, not both");
  const std::vector<DataOptions> members = family_members(data);
  Plan first = plan_for(members.front(), true);
  std::vector<std::string> inputs{members.front().data};
  // Members may differ in the extents of arrays whose files store them at the same place:
  // those become parameters read from each file. Anything else breaks the layout.
  std::map<std::string, std::set<size_t>> varying;
  std::vector<std::vector<std::vector<int64_t>>> shapes(members.size());  // to check, if varying
  for (const Placed& p : first.placed) shapes[0].push_back(p.shape);
  for (size_t i = 1; i < members.size(); ++i) {
    inputs.push_back(members[i].data);
    const Plan other = plan_for(members[i], true);
    for (const Placed& p : other.placed) shapes[i].push_back(p.shape);
    if (other.text == first.text) continue;
    const std::string what = difference(first, members[0].data, other, varying);
    if (!what.empty()) {
      throw Error(ErrorCategory::kData,
                  fmt::format("{} breaks the family's layout: {}", members[i].data, what),
                  Location::file(members[i].data));
    }
  }
  std::string body = first.text;
  if (!varying.empty()) {
    layout::LayoutTextOptions with_extents = text_options();
    for (const auto& [path, dims] : varying) {
      with_extents.extent_parameters[path].assign(dims.begin(), dims.end());
    }
    body = layout::layout_text_for(first.laid, nullptr, with_extents);
    check_through(body, members, shapes);
  }
  const std::string text = fmt::format(
      "# Dudley layout of the family {} ({} members): arrays at the same addresses in each{} "
      "(dudley layout --family)\n{}",
      io::redacted_url(data.family), members.size(),
      varying.empty() ? "" : ", extents that differ read from each file", body);
  if (data.json) {
    nlohmann::ordered_json out{
        {"family", io::redacted_url(data.family)}, {"members", members.size()}, {"layout", text}};
    out.update(plan_json(first));
    nlohmann::ordered_json extents = nlohmann::ordered_json::array();
    for (const auto& [path, dims] : varying) extents.push_back({{"path", path}, {"dims", dims}});
    out["varying_extents"] = extents;
    const std::string json = json_text(out, 2) + "\n";
    std::fwrite(json.data(), 1, json.size(), stdout);
    return first.status();
  }
  write_output(options, text, inputs);
  print_skipped(first);
  return first.status();
}

}  // namespace

void add_layout_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<LayoutCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "layout",
      "Write a Dudley layout for a file of another format (HDF5 contiguous datasets, .npy "
      "files, uncompressed ASDF blocks): each array at its address, with type, byte order "
      "and shape, so 'dudley dump FILE --layout L.dud' reads it in place. Arrays that cannot "
      "be laid out (chunked, compressed, variable-length) are named with the reason; exit 1 "
      "when one cannot be read at all. With --family, every member must have its arrays at "
      "the same places; extents that differ are read from each file where it stores them "
      "(HDF5), and the first member that breaks the layout otherwise is named.");
  add_data_options(*cmd, options->data, true);
  cmd->add_option("-o,--output", options->output,
                  "Write the layout to this file (replacing only a layout, never an input)");
  cmd->add_flag("--overwrite", options->overwrite,
                "Replace -o's file although it is not a Dudley layout");
  cmd->callback([options, &exit_code] {
    exit_code = guarded(options->data.json, [&] { return run_layout(*options); });
  });
}

}  // namespace dudley::cli
