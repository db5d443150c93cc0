#include "dudley/formats/avro.hpp"

#include <fmt/format.h>

#include "container.hpp"
#include "datum.hpp"
#include "dudley/core/big_memory.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/file_io.hpp"
#include "dudley/core/shape.hpp"
#include "dudley/model/read_pieces.hpp"
#include "ndarray_record.hpp"
#include "reader.hpp"
#include "table.hpp"

namespace dudley::avro {
namespace {

std::string child_path(const std::string& path, const std::string& name) {
  return path == "/" ? "/" + name : path + "/" + name;
}

// The attributes of `node` (at `path`): an ndarray record holds an array and nothing else.
void lose_attributes(const model::Node& node, const std::string& path, const std::string& format,
                     LossLog& losses) {
  for (const auto& [name, value] : node.attributes) {
    (void)value;
    if (path == "/" && model::well_known::is_bookkeeping(format, name)) continue;
    losses.lose(
        fmt::format("{}@{}: attribute not written (an ndarray record holds an array "
                    "only; give --avro-schema for records that hold more)",
                    path, name));
  }
}

// Every array under `node`, depth first, each one ndarray record.
void write_arrays(const model::Node& node, const std::string& path, ContainerWriter& out,
                  uint64_t& arrays, const SaveOptions& common, uint64_t total, uint64_t& done,
                  const std::string& format, LossLog& losses) {
  // What cannot be carried is listed, all of it (LossLog), before the file appears.
  if (!node.error.empty() && node.link) {  // a link not followed
    losses.lose(fmt::format("{}: {}; left out", path, node.error.message));
    return;
  }
  if (!node.error.empty()) {
    losses.lose(LossLog::unreadable(path, node.error));
    return;
  }
  lose_attributes(node, path, format, losses);
  if (node.kind == model::NodeKind::kArray) {
    if (!node.data) {
      losses.lose(fmt::format("{}: the array has no data; left out", path));
      return;
    }
    try {
      typestr_of(node.dtype);
    } catch (const Error& e) {
      losses.lose(fmt::format("{}: {}; left out", path, e.message()));
      return;
    }
    // A record holds its array whole, in memory: one that cannot fit is refused before it
    // is read (a source may declare a terabyte of missing chunks).
    const uint64_t bytes = Shape(node.shape).byte_size(node.dtype.size()).value_or(UINT64_MAX);
    if (bytes > physical_memory()) {
      throw Error(ErrorCategory::kLimit,
                  fmt::format("{}: an ndarray record holds its array whole, and {} bytes are "
                              "more than this machine's memory",
                              path, bytes));
    }
    BinaryWriter w(out.record_buffer());
    encode_ndarray(node.data->read(), w);
    out.commit_record();
    ++arrays;
    done += Shape(node.shape).byte_size(node.dtype.size()).value_or(0);
    if (common.progress) common.progress(done, total);
    return;
  }
  model::for_each_child(node, [&](uint64_t i, const model::Node& child) {
    const std::string name = node.kind == model::NodeKind::kList ? std::to_string(i) : child.name;
    write_arrays(child, child_path(path, name), out, arrays, common, total, done, format, losses);
    return true;
  });
}

// The array of structures `schema`'s flat records are rows of: the root group's only
// array (`/records` of an Avro source), of the schema's row type (byte order aside).
const model::Node* table_of(const model::Tree& tree, const Schema& schema) {
  const std::optional<DType> row = table_row_type(schema);
  if (!row || tree.root->kind != model::NodeKind::kGroup || tree.root->children.size() != 1)
    return nullptr;
  const model::Node& a = *tree.root->children.front();
  if (a.kind != model::NodeKind::kArray || a.shape.size() != 1 || !a.data || !a.error.empty())
    return nullptr;
  return a.dtype.with_byte_order(native_byte_order()) == *row ? &a : nullptr;
}

void write_rows(const model::Node& table, const Schema& schema, ContainerWriter& out,
                const SaveOptions& common) {
  const DType row = table.dtype.with_byte_order(native_byte_order());
  std::vector<std::byte> buffer;
  const auto rows = static_cast<uint64_t>(table.shape[0]);
  uint64_t done = 0;
  model::for_each_piece(table.shape, row.size(), table.data->read_unit(), model::kPieceBytes,
                        [&](const model::Piece& p) {
                          buffer.resize(p.bytes);
                          table.data->read_into(p.slab, buffer.data());
                          for (uint64_t i = 0; i < p.bytes / row.size(); ++i) {
                            BinaryWriter w(out.record_buffer());
                            encode_row(buffer.data() + i * row.size(), row, schema, w);
                            out.commit_record();
                          }
                          done += p.bytes / row.size();
                          if (common.progress) common.progress(done, rows);
                          return true;
                        });
}

// The list whose items are the records: the root list (an Avro container's own), or the
// root group's one member `items` when that is a list, as the writers of formats whose root
// is a group keep a container's records (Dudley's layout, an ASDF tree), so they convert
// back record for record.
const model::Node* record_list(const model::Node& root) {
  if (root.kind == model::NodeKind::kList) return &root;
  if (root.kind == model::NodeKind::kGroup && root.children.size() == 1 && root.params.empty() &&
      root.children[0]->name == "items" && root.children[0]->kind == model::NodeKind::kList) {
    return root.children[0].get();
  }
  return nullptr;
}

}  // namespace

SaveReport write_avro(const model::Tree& tree, const std::string& path,
                      const AvroSaveOptions& options, const SaveOptions& common) {
  LossLog losses(tree, common.lossy, "Avro", path);
  std::vector<std::string> notes;
  if (!tree.pointees.empty()) {
    losses.lose(
        fmt::format("{} pointee(s) (Dudley pointer targets): Avro records have no "
                    "place for them",
                    tree.pointees.size()));
  }

  // The schema: given, the source's own, or the ndarray record.
  std::optional<Schema> given;
  if (!options.schema_path.empty()) {
    given = parse_schema(read_text_file(options.schema_path), options.schema_path);
  } else if (const model::AttributeValue* a =
                 tree.format == "avro" ? tree.root->attributes.find(kSchemaAttribute) : nullptr) {
    // An Avro source's own schema (another format's copy of the attribute describes records
    // that are no longer there as such).
    const auto* text = std::get_if<model::Value>(a);
    if (text && text->is<std::string>())
      given = parse_schema(text->as<std::string>(), "the source's avro.schema");
  }
  const Schema& schema = given ? *given : ndarray_schema();
  ContainerWriter out(path, schema, options.codec, options.block_bytes);
  // The file appears only when nothing was lost (or the loss was asked for).
  auto finish = [&] {
    losses.check();
    SaveReport report;
    report.files.push_back({path, "data", out.commit(common.fsync)});
    report.notes = std::move(notes);
    report.lost = losses.take();
    return report;
  };
  if (!given) {
    // Progress in bytes (the tree walked once more for the total); records of a schema are
    // counted instead.
    const uint64_t total = common.progress ? model::array_bytes(*tree.root) : 0;
    uint64_t done = 0, arrays = 0;
    write_arrays(*tree.root, "/", out, arrays, common, total, done, tree.format, losses);
    if (tree.root->kind != model::NodeKind::kList) {
      notes.push_back(
          fmt::format("{} arrays written as ndarray records in tree order; their names "
                      "are not kept (give --avro-schema for records that name them)",
                      arrays));
    }
    return finish();
  }
  if (const model::Node* table = table_of(tree, schema)) {
    // A table of flat records (an Avro source's, or any array of such structures): a
    // record per row, read a piece at a time.
    write_rows(*table, schema, out, common);
    return finish();
  }
  if (const model::Node* records = record_list(*tree.root)) {
    const std::string base = records == tree.root.get() ? "" : "/items";
    model::for_each_child(*records, [&](uint64_t i, const model::Node& item) {
      BinaryWriter w(out.record_buffer());
      encode_node(item, schema, schema.root, w, base + "/" + std::to_string(i));
      out.commit_record();
      if (common.progress) common.progress(i + 1, model::child_count(*records));
      return true;
    });
  } else {
    BinaryWriter w(out.record_buffer());
    encode_node(*tree.root, schema, schema.root, w, "/");
    out.commit_record();
  }
  return finish();
}

}  // namespace dudley::avro
