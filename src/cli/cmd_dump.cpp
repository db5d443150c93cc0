// `dudley dump`: array values, whole or a selection, and pointer targets with --deref. Values
// stream: an array is read and printed a block at a time, so memory stays bounded whatever
// its size, in text and in JSON.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/data_options.hpp"
#include "cli/dump_items.hpp"
#include "cli/dump_mask.hpp"
#include "cli/failure.hpp"
#include "cli/json_stream.hpp"
#include "cli/ls_json.hpp"
#include "cli/member_template.hpp"
#include "cli/tree_json.hpp"
#include "cli/value_text.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/path.hpp"
#include "dudley/core/shape.hpp"
#include "dudley/formats/dudley/bind/binder.hpp"
#include "dudley/formats/dudley/format.hpp"
#include "dudley/formats/dudley/syntax/parser.hpp"
#include "dudley/io/byte_source.hpp"
#include "dudley/model/contiguous_source.hpp"

namespace dudley::cli {

namespace {

using json = nlohmann::ordered_json;

struct DumpOptions {
  DataOptions data;
  std::vector<std::string> items;
  bool deref = false;
  uint64_t max_items = 1000;
  uint64_t max_values = 0;
  std::string lines = "array";
  bool unmasked = false;  ///< --unmasked: print the stored values under a mask
};

// Pointees may hold pointers in turn; a chain longer than this is reported, not followed.
constexpr int kMaxDerefDepth = 16;
// Bytes of an array read at once while printing it.
constexpr uint64_t kBlockBytes = uint64_t{8} << 20;

LineStyle line_style(const std::string& name) {
  if (name == "row") return LineStyle::kRow;
  if (name == "value") return LineStyle::kValue;
  return LineStyle::kArray;
}

// Calls visit(path, array) for every array below `node`, in order; returns false to stop.
// Items made on demand live only during their call.
bool for_each_array(const model::Node& node, const std::string& path,
                    const std::function<bool(const std::string&, const model::Node&)>& visit) {
  if (node.kind == model::NodeKind::kArray) return visit(path, node);
  bool go_on = true;
  for_each_child(node, [&](uint64_t i, const model::Node& c) {
    go_on = for_each_array(c, child_path(node, path, c, i), visit);
    return go_on;
  });
  return go_on;
}

bool is_below(const std::string& path, const std::string& container) {
  if (container == "/" || container.empty()) return true;
  return path == container ||
         (path.size() > container.size() && path.compare(0, container.size(), container) == 0 &&
          path[container.size()] == '/');
}

// Whether `path` lies below a picked item of the list at `list` (`/L[0:4]`).
bool is_picked(const std::string& path, const std::string& list, const ListPick& pick) {
  const std::string prefix = (list == "/" ? "" : list) + "/";
  if (path.compare(0, prefix.size(), prefix) != 0) return false;
  const std::string rest = path.substr(prefix.size());
  const auto index = path_index(rest.substr(0, rest.find('/')));
  return index && pick.has(*index);
}

// Thrown instead of reporting a problem by a Dumper on trial (a member printed by its
// family's template): the member is then printed the long way, which reports it.
struct TrialFailed {};

class Dumper {
 public:
  // Arrays that hold no bytes are backed by nothing in the file, so their number is capped
  // per output (text and JSON alike: both are printed as they are read).
  Dumper(const model::Tree& tree, const DumpOptions& options, Output& out, bool trial = false)
      : tree_(tree), options_(options), out_(out), empty_budget_(kMaxEmptyValues), trial_(trial) {}

  int status() const { return status_; }
  /// True once the output's budget of arrays holding no bytes is spent.
  bool exhausted() const { return exhausted_; }

  // `status`: 1 for data that is not valid, 2 for data that could not be read (an I/O error,
  // a web server past its deadline); the command exits with the worst.
  void report(const std::string& message, int status = kExitInvalid) {
    if (trial_) throw TrialFailed{};
    out_.flush();  // what came before the problem appears before it
    fmt::print(stderr, "{}\n", message);
    status_ = std::max(status_, status);
  }

  // Counts an array that holds no bytes against the budget; throws once it is spent.
  void count_empty(const ArrayRef& ref) {
    if (!ref.error.empty() || (ref.dtype.size() != 0 && !holds_no_bytes(ref))) return;
    if (++empty_arrays_ <= empty_budget_) return;
    exhausted_ = true;
    throw Error(ErrorCategory::kLimit,
                fmt::format("more than {} arrays of no bytes in one output; stopping at {} "
                            "(dump items by path, such as LIST/5, to see others)",
                            empty_budget_, ref.label));
  }

  // Writes the values of `ref` (JSON syntax, or the text line styles) and returns the
  // members a JSON object gets after them: "truncated", "target", "error".
  json values(const ArrayRef& ref, const std::string& label) {
    json extra = json::object();
    ValueWriter::Options o;
    o.json = options_.data.json;
    o.lines = line_style(options_.lines);
    o.max_values = options_.max_values;
    // Row and value lines carry their own indexes: the label is the array (and fields).
    o.label = o.lines == LineStyle::kArray ? label : line_label(ref, label);
    whole_label_ = label;
    begun_ = false;
    prefix_ = !o.json && o.lines == LineStyle::kArray ? label + " = " : "";
    if (!ref.error.empty()) {
      if (o.json) out_.write("null");
      extra["error"] = json_error_text(unreadable(ref));
      return extra;
    }
    try {
      const bool deref = options_.deref && ref.dtype.kind() == DTypeKind::kPointer;
      if (ref.spec.fields.empty() && !deref) {
        stream(ref, o, extra);
      } else {
        in_memory(ref, o, extra, deref);
      }
    } catch (const Error& e) {
      // Output stays well-formed: a line ends, a JSON value is there.
      if (begun_ && !prefix_.empty()) out_.write("\n");
      if (!begun_ && o.json) out_.write("null");
      extra["error"] = json_error_text(e.what());
      // The array is named too: "block 0: MD5 checksum mismatch" alone does not say which.
      report(item_problem(ref.label, e.what()), exit_status_for(e));
    }
    return extra;
  }

  // The pointee of every key in `keys` (nested lists of pointer values): null for a NULL
  // pointer (0 or all ones [C19]), the pointee with its data the first time it is met in
  // this output, {"ref": KEY} after that. Each pointee is read and printed once, so a graph
  // whose pointees all point at each other costs its size, not its paths.
  json deref(const json& keys, size_t width, int depth) {
    if (keys.is_array()) {
      json out = json::array();
      for (const auto& k : keys) out.push_back(deref(k, width, depth));
      return out;
    }
    const uint64_t key = keys.get<uint64_t>();
    const uint64_t all_ones = width == 4 ? 0xffffffffu : ~uint64_t{0};
    if (key == 0 || key == all_ones) return nullptr;
    auto it = tree_.pointees.find(key);
    if (it == tree_.pointees.end()) return problem(fmt::format("no pointee with key {}", key));
    if (!shown_.insert(key).second) return json{{"ref", key}};
    if (depth >= kMaxDerefDepth) {
      return problem(fmt::format("pointer chain deeper than {} at key {}", kMaxDerefDepth, key));
    }
    const model::Node& target = *it->second;
    return node_json(target, [&](const model::Node& array, const std::string&, json& out) {
      try {
        NDArray data = read_selected(ArrayRef::of(array, ""));
        out["data"] = values_json(data);
        if (array.dtype.kind() == DTypeKind::kPointer) {
          out["target"] = deref(out["data"], array.dtype.size(), depth + 1);
        }
      } catch (const Error& e) {
        out["error"] = json_error_text(e.what());
        report(e.what());
      }
    });
  }

  static constexpr uint64_t kMaxEmptyValues = uint64_t{1} << 20;

  // Reports an array that could not be located, naming it; an error that stopped several
  // arrays (a parameter they all depend on) is told in full once, then by reference.
  std::string unreadable(const ArrayRef& ref) {
    const std::string path = ref.spec.path.empty() ? ref.label : ref.spec.path;
    auto [first, fresh] = causes_.emplace(ref.error, path);
    std::string message = fresh ? item_problem(path, ref.error)
                                : fmt::format("{}: error: {}: not read, for the same reason as {}",
                                              options_.data.data, path, first->second);
    report(message);
    return message;
  }

 private:
  // "FILE /recs.pos" from "FILE /recs.pos[0:2]": the label without the selection.
  static std::string line_label(const ArrayRef& ref, const std::string& label) {
    if (ref.spec.selection.empty()) return label;
    const size_t at = label.rfind(ref.spec.selection);
    return at == std::string::npos
               ? label
               : label.substr(0, at) + label.substr(at + ref.spec.selection.size());
  }

  static bool holds_no_bytes(const ArrayRef& ref) {
    for (int64_t d : ref.spec.selection.empty() || !ref.spec.fields.empty()
                         ? ref.shape
                         : Hyperslab::parse(ref.spec.selection, ref.shape).result_shape()) {
      if (d == 0) return true;
    }
    return false;
  }

  json problem(const std::string& message) {
    report(message);
    return json{{"error", message}};
  }

  // Stored indexes for the row and value line styles: selection start + i * step.
  // numpy text for what dimension `d` (of `extent` elements) of `h` selects: ":" for all.
  static std::string slice_text(const Hyperslab& h, size_t d, int64_t extent) {
    const int64_t first = h.start[d], n = h.count[d], step = h.step(d);
    if (step == 1 && first == 0 && n == extent) return ":";
    if (n == 0) return fmt::format("{}:{}", first, first);
    const int64_t last = first + (n - 1) * step;
    const std::string by = step == 1 ? "" : fmt::format(":{}", step);
    if (step > 0) return fmt::format("{}:{}{}", first, last + 1, by);
    // Walking down to 0 has no stop to write (-1 would mean the last element).
    return last == 0 ? fmt::format("{}:{}", first, by)
                     : fmt::format("{}:{}{}", first, last - 1, by);
  }

  static void index_map(const Hyperslab& h, const DType& type, const std::vector<int64_t>& shape,
                        ValueWriter::Options& o) {
    size_t labelled = h.count.size();
    auto dropped = [&h](size_t s) { return s < h.dropped.size() && h.dropped[s]; };
    if (type.joins_units() && labelled > 0 && !dropped(labelled - 1)) --labelled;
    std::vector<size_t> kept;
    for (size_t s = 0; s < labelled; ++s) {
      o.fixed.push_back(dropped(s) ? h.start[s] : -1);
      if (!dropped(s)) kept.push_back(s);
    }
    if (!kept.empty()) o.row_slice = slice_text(h, kept.back(), shape[kept.back()]);
    o.stored_index = [h, kept](size_t d, int64_t i) {
      return h.start[kept[d]] + i * h.step(kept[d]);
    };
  }

  // Values of chunks never written are the fill value, backed by nothing in the file (a
  // 333-byte Zarr document may declare 10^12 chunks): past kMaxUnbackedValues of them, an
  // output must be asked for with --max-values, as Dudley's arrays of no bytes are, so
  // that what a dump costs follows what the file holds. Only large selections list chunks.
  void check_backed(const ArrayRef& ref, const Hyperslab& h) const {
    uint64_t values = 1;
    for (int64_t c : h.count)
      values = checked_mul(values, static_cast<uint64_t>(c)).value_or(UINT64_MAX);
    if (options_.max_values != 0 || values <= kMaxUnbackedValues) return;
    const std::optional<model::StoredChunks> stored = ref.data->stored_chunks();
    if (!stored) return;
    const uint64_t backed = stored->stored_elements();
    if (values - std::min(values, backed) <= kMaxUnbackedValues) return;
    throw Error(ErrorCategory::kLimit,
                fmt::format("{} values, of which at most {} are stored ({} of its chunks): the "
                            "rest are the fill value of chunks never written; give --max-values "
                            "N to print the first N, or select a part",
                            values, backed, stored->chunks));
  }

  // The most bytes of the selection read at once: a block, or, with --max-values, what
  // those values take (a dump of the first values of a huge array reads only those).
  uint64_t piece_bytes(uint64_t unit_bytes) const {
    if (options_.max_values == 0) return kBlockBytes;
    const uint64_t wanted = checked_mul(options_.max_values, unit_bytes).value_or(UINT64_MAX);
    return std::clamp<uint64_t>(wanted, std::max<uint64_t>(unit_bytes, 1), kBlockBytes);
  }

  // An array (no fields) read block by block and printed as it goes.
  void stream(const ArrayRef& ref, ValueWriter::Options& o, json& extra) {
    const Hyperslab h = selection_of(ref);
    const std::vector<int64_t> shape = h.result_shape();
    check_printable(ref.dtype, shape, ref.label);
    check_backed(ref, h);
    index_map(h, ref.dtype, ref.shape, o);
    // One code unit of each string picked (`/names[:, 0]`): each prints as a string of one.
    o.last_dim_is_string = !(ref.dtype.joins_units() && !h.count.empty() && h.dropped.back());
    uint64_t total = ref.dtype.size();
    for (int64_t c : h.count) total *= static_cast<uint64_t>(c);
    // A whole array is read in selections: its checksum (where the format has one) is
    // checked first, so a damaged array is an error before any of it is printed.
    if (ref.spec.selection.empty()) ref.data->verify();
    if (total == 0) {  // empty, or elements of no bytes: nested empty lists, bounded above
      NDArray none = ref.data->read(h);
      begin();
      write_text(json_text(values_json(none)), o);
      return;
    }
    // A selection read in one piece is read before anything is printed: an error reading
    // it leaves no half-printed line.
    std::optional<MaskReader> mask;
    if (ref.mask && !options_.unmasked && ref.dtype.kind() != DTypeKind::kText) {
      mask.emplace(tree_, *ref.mask, ref.shape);
    }
    std::optional<NDArray> whole;
    std::vector<uint8_t> whole_masked;
    if (one_piece(ref, h, std::min(total, piece_limit(ref, h)))) {
      whole = ref.data->read(h);
      if (mask) whole_masked = mask->masked(h, *whole);  // reads are in native order
    }
    begin();
    ValueWriter w(out_, native(ref.dtype), shape, o);
    try {
      if (whole) {
        w.add(whole->data(), whole->byte_size() / w.unit_bytes(),
              mask ? whole_masked.data() : nullptr);
      } else {
        stream_blocks(ref, h, w, mask ? &*mask : nullptr, piece_bytes(w.unit_bytes()));
      }
    } catch (...) {
      w.finish();  // brackets closed: the JSON stays well-formed
      throw;
    }
    finish(w, extra);
  }

  // Text keeps its last dimension, the strings, whole.
  static size_t whole_dims(const ArrayRef& ref, const Hyperslab& h) {
    return ref.dtype.joins_units() && !h.count.empty() ? 1 : 0;
  }

  // Whether the selection is printed from a single read (small, or nothing to split).
  // `total`: its bytes, or, when --max-values prints fewer, more than a block (read in
  // pieces of what is printed).
  static bool one_piece(const ArrayRef& ref, const Hyperslab& h, uint64_t total) {
    return h.count.size() <= whole_dims(ref, h) || total <= kBlockBytes;
  }

  // More than a block when --max-values prints less than the selection holds (then read in
  // pieces of what is printed), else UINT64_MAX: one_piece's `total` is then the selection's.
  uint64_t piece_limit(const ArrayRef& ref, const Hyperslab& h) const {
    if (options_.max_values == 0) return UINT64_MAX;
    uint64_t units = 1;
    const size_t dims = h.count.size() - std::min(h.count.size(), whole_dims(ref, h));
    for (size_t d = 0; d < dims; ++d) {
      units = checked_mul(units, static_cast<uint64_t>(h.count[d])).value_or(UINT64_MAX);
    }
    return options_.max_values < units ? kBlockBytes + 1 : UINT64_MAX;
  }

  // Pieces of the selection (model::for_each_piece) read into one reused buffer and printed
  // as they come: memory stays one piece whatever the selection's size.
  static void stream_blocks(const ArrayRef& ref, const Hyperslab& h, ValueWriter& w,
                            MaskReader* mask, uint64_t max_piece_bytes) {
    Hyperslab selection = h;
    selection.dropped.clear();
    const DType type = native(ref.dtype);
    std::vector<std::byte> buffer;
    model::for_each_piece(
        selection, ref.dtype.size(), ref.data->read_unit(), max_piece_bytes,
        [&](const model::Piece& piece) {
          std::vector<uint8_t> masked;
          if (type.kind() == DTypeKind::kVLen) {
            // Strings of variable length have no fixed size to read into a buffer: each
            // piece is an array holding its own strings, printed before the next is read.
            const NDArray part = ref.data->read(piece.slab);
            if (mask) masked = mask->masked(piece.slab, part);
            return w.add(part.data(), part.element_count(), mask ? masked.data() : nullptr);
          }
          if (buffer.size() < piece.bytes) buffer.resize(piece.bytes);
          ref.data->read_into(piece.slab, buffer.data());
          if (mask) {
            masked = mask->masked(piece.slab,
                                  NDArray::borrow(buffer.data(), type, Shape(piece.slab.count)));
          }
          return w.add(buffer.data(), piece.bytes / w.unit_bytes(), mask ? masked.data() : nullptr);
        },
        whole_dims(ref, h));
  }

  // Struct fields and pointer arrays: the selection is read whole, then printed.
  void in_memory(const ArrayRef& ref, ValueWriter::Options& o, json& extra, bool deref) {
    // A selection of struct fields also picks within fields: bounded by the records it
    // names, checked whole when none are named.
    if (ref.spec.selection.empty()) check_backed(ref, Hyperslab::all(ref.shape));
    NDArray data = read_selected(ref);
    check_printable(data.dtype(), data.shape().dims(), ref.label);
    begin();
    if (data.byte_size() == 0) {
      write_text(json_text(values_json(data)), o);
    } else {
      ValueWriter w(out_, data.dtype(), data.shape().dims(), o);
      w.add(data.data(), data.byte_size() / w.unit_bytes());
      finish(w, extra);
    }
    if (deref) {
      const json targets = this->deref(values_json(data), data.dtype().size(), 0);
      if (o.json) {
        extra["target"] = targets;
      } else {
        out_.write(fmt::format("{} -> {}\n", o.label, json_text(targets)));
      }
    }
  }

  // The start of an array's output, once it is known to be readable.
  void begin() {
    if (!begun_) out_.write(prefix_);
    begun_ = true;
  }

  // Whole values text (from values_json): one line in the text styles, labelled in the row
  // and value styles with the item as asked (`/x[5:1] = []`), since no indexes follow.
  void write_text(const std::string& text, const ValueWriter::Options& o) {
    if (!o.json && o.lines != LineStyle::kArray) {
      out_.write(fmt::format("{} = {}\n", whole_label_, text));
      return;
    }
    out_.write(text);
    if (!o.json) out_.write("\n");
  }

  void finish(ValueWriter& w, json& extra) {
    w.finish();
    if (w.truncated()) {
      extra["truncated"] = json{{"shown", w.wanted()}, {"total", w.units()}};
    }
    if (!options_.data.json && line_style(options_.lines) == LineStyle::kArray) out_.write("\n");
  }

  static DType native(const DType& t) {
    return t.needs_swap() ? t.with_byte_order(native_byte_order()) : t;
  }

  const model::Tree& tree_;
  const DumpOptions& options_;
  Output& out_;
  std::set<uint64_t> shown_;                   ///< pointees already printed in this output
  std::map<std::string, std::string> causes_;  ///< node error -> first array it stopped
  uint64_t empty_arrays_ = 0;
  uint64_t empty_budget_;
  bool trial_;  ///< problems throw TrialFailed instead of being reported
  bool exhausted_ = false;
  int status_ = kExitOk;
  std::string prefix_;       ///< text: "PATH = ", written by begin()
  bool begun_ = false;       ///< the current array's output has started
  std::string whole_label_;  ///< the current array as asked, selection included
};

// Text: `PATH = VALUES` per array (or the row/value line styles).
int dump_text(const model::Tree& tree, const std::vector<Request>& wanted,
              const DumpOptions& options, bool member, Output& out, TemplateRecorder* record) {
  Dumper dumper(tree, options, out);
  const std::string prefix = member ? options.data.data + " " : "";
  auto print = [&](const ArrayRef& ref) {
    if (ref.empty && ref.spec.suffix().empty()) {  // as h5py prints it
      out.write(fmt::format("{}{} = Empty({})\n", prefix, ref.label, ref.dtype.to_string()));
      return;
    }
    try {
      dumper.count_empty(ref);
    } catch (const Error& e) {
      dumper.report(e.what());
      return;
    }
    if (record) record->open_hole({MemberTemplate::HoleKind::kValues, ref, 0, 0, ref.label});
    (void)dumper.values(ref, prefix + ref.label);
    if (record) record->close_hole();
  };
  auto below = [&](const model::Node& node, const std::string& path) {
    return for_each_array(node, path == "/" ? "" : path,
                          [&](const std::string& p, const model::Node& array) {
                            print(ArrayRef::of(array, p));
                            return !dumper.exhausted();
                          });
  };
  for (const Request& r : wanted) {
    if (dumper.exhausted()) break;
    switch (r.kind) {
      case Request::Kind::kArray:
        print(ArrayRef::of(*r.node, r.path, r.spec));
        break;
      case Request::Kind::kValue:
        out.write(fmt::format("{}{} = {}\n", prefix, r.path, r.value_text));
        break;
      case Request::Kind::kParameter:
        if (r.parameter->value) {
          out.write(fmt::format("{}{} = {}\n", prefix, r.path, *r.parameter->value));
        } else {
          dumper.report(fmt::format("{}: {}", r.path, r.parameter->error.text()));
        }
        break;
      case Request::Kind::kBelow:
        if (!r.pick) {
          below(*r.node, r.path);
          break;
        }
        for (int64_t k = 0; k < r.pick->count && !dumper.exhausted(); ++k) {
          const auto index = static_cast<uint64_t>(r.pick->start + k * r.pick->step);
          const std::string path = fmt::format("{}/{}", r.path == "/" ? "" : r.path, index);
          const model::Node* item = tree.find(path);
          if (item) below(*item, path);
        }
        break;
    }
  }
  return dumper.status();
}

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

int run_dump_one(const DumpOptions& options, bool member, Output& out,
                 TemplateRecorder* record = nullptr) {
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

// The array of `hole` in a member's tree, when the tree prints the same around it as the
// recorded member's did: a contiguous array, unmasked, and no parameter (read from each
// file) on the groups leading to it. nullptr otherwise.
const model::Node* printed_alike(const model::Tree& tree, const MemberTemplate::Hole& hole) {
  const std::string& path = hole.array.spec.path;
  for (size_t slash = 0; slash != std::string::npos; slash = path.find('/', slash + 1)) {
    const model::Node* group = tree.find(slash == 0 ? "/" : path.substr(0, slash));
    if (group == nullptr || !group->params.empty()) return nullptr;
  }
  const model::Node* node = tree.find(path);
  if (node == nullptr || node->kind != model::NodeKind::kArray || !node->error.empty() ||
      !node->data || node->storage.mask ||
      node->storage.kind != model::Storage::Kind::kContiguous || !node->storage.offset ||
      node->dtype != hole.array.dtype || node->shape != hole.array.shape) {
    return nullptr;
  }
  return node;
}

// Whether a member's tree fits `hole`: printed alike, its bytes where the recorded member's
// were.
bool fits(const model::Tree& tree, const MemberTemplate::Hole& hole) {
  const model::Node* node = printed_alike(tree, hole);
  return node != nullptr && *node->storage.offset == hole.offset && node->storage.size == hole.size;
}

// A family's layout bound directly, for the members the template prints: the layout parsed
// and planned once, each member bound without building its tree (what the tree would
// print around the values is in the template). Only for a layout given by --layout alone:
// the options then are the same for every member.
struct DirectBinding {
  std::shared_ptr<const layout::Layout> layout;
  std::unique_ptr<layout::BindPlan> plan;
  layout::BindOptions bind;
  std::vector<layout::NodeId> nodes;  ///< the layout's item for each hole (kNone: the file)
};

std::optional<DirectBinding> direct_binding(const MemberTemplate& t, const DataOptions& data) {
  if (data.given.size() != 1 || data.given.count("--layout") == 0 ||
      data.given.at("--layout").size() != 1) {
    return std::nullopt;
  }
  OpenOptions open;
  apply_format_options(data.given, open);
  DirectBinding d;
  d.bind = open.formats.get<layout::DudleyOpenOptions>().bind;
  d.layout = std::make_shared<const layout::Layout>(
      layout::load_layout(data.given.at("--layout").front()));
  d.plan = std::make_unique<layout::BindPlan>(*d.layout, d.bind.params_absent);
  for (const MemberTemplate::Hole& hole : t.holes) {
    layout::NodeId id = layout::kNone;
    if (hole.kind == MemberTemplate::HoleKind::kValues) {
      id = d.layout->find(hole.array.spec.path);
      if (id == layout::kNone) return std::nullopt;
    }
    d.nodes.push_back(id);
  }
  return d;
}

// The array of `hole` in a member bound directly, when it lies where the template's did
// with the same type and shape. Located without asking the file's length: a file too short
// for it fails the read, and the member is then printed the long way, which says so.
std::optional<ArrayRef> bound_hole(layout::Binding& binding,
                                   const std::shared_ptr<io::ByteSource>& source,
                                   layout::NodeId node, const MemberTemplate::Hole& hole) {
  const layout::BoundArray a = binding.locate(node);
  if (a.address != hole.offset || a.byte_size != hole.size || a.dtype != hole.array.dtype ||
      a.shape != hole.array.shape) {
    return std::nullopt;
  }
  ArrayRef ref = hole.array;
  ref.data = model::contiguous_source(source, a.address, a.dtype, a.shape);
  return ref;
}

// A member printed by its family's template: its file opened, each hole filled with its
// own name or values. The member's text when the whole member printed without a problem
// and fits the template; nothing otherwise, for the member to be printed the long way.
std::optional<std::string> dump_by_template(const MemberTemplate& t, const DumpOptions& options,
                                            const DirectBinding* direct = nullptr) {
  try {
    // Bound directly, or through the member's tree.
    model::Tree tree;
    std::shared_ptr<io::ByteSource> source;
    std::optional<layout::Binding> binding;
    if (direct) {
      source = io::open_file(options.data.data);
      binding.emplace(*direct->plan, source, direct->bind);
      if (direct->layout->signature) (void)binding->default_order();
    } else {
      tree = open_data(options.data);
    }
    Output aside;
    Dumper dumper(tree, options, aside, /*trial=*/true);
    for (size_t i = 0; i < t.holes.size(); ++i) {
      aside.write(t.texts[i]);
      const MemberTemplate::Hole& hole = t.holes[i];
      if (hole.kind == MemberTemplate::HoleKind::kFile) {
        write_json_at(aside, json(options.data.data), -1, 1);
        continue;
      }
      std::optional<ArrayRef> bound;
      if (direct) {
        bound = bound_hole(*binding, source, direct->nodes[i], hole);
      } else if (fits(tree, hole)) {
        bound =
            ArrayRef::of(*tree.find(hole.array.spec.path), hole.array.spec.path, hole.array.spec);
      }
      if (!bound) return std::nullopt;
      ArrayRef& ref = *bound;
      dumper.count_empty(ref);
      const std::string label =
          options.data.json ? hole.label : options.data.data + " " + hole.label;
      if (!dumper.values(ref, label).empty()) return std::nullopt;
    }
    aside.write(t.texts.back());
    if (dumper.status() != kExitOk) return std::nullopt;
    return std::string(*aside.since(0));
  } catch (const TrialFailed&) {
    return std::nullopt;
  } catch (const Error&) {
    return std::nullopt;
  }
}

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

// dump --family: each member as `dump MEMBER` prints it, one after the other. Through one
// Dudley layout (given, so the same for every member) the members print alike around their
// values: the first is recorded as a template, checked against the second printed the long
// way, and then fills every later member that fits it.
int run_dump_family(const DumpOptions& options) {
  const std::vector<DataOptions> members = family_members(options.data);
  // One output buffer for every member (a write per MiB, not per member); flushed before a
  // member's problems go to stderr, so that they follow its values.
  Output out(stdout);
  const bool templated = !options.deref && options.data.given.count("--layout") != 0;
  std::optional<MemberTemplate> template_;
  std::optional<DirectBinding> direct;  // the template's members bound without their trees
  GivenOptions template_given;          // a family index may give members their own options
  int status = kExitOk;
  DumpOptions one = options;
  // Member i the long way (recording the template from the first, checking it on the
  // second). A member that fails as a whole is reported with its name; the others go on.
  auto long_way = [&](size_t i) {
    const DataOptions& m = members[i];
    one.data = m;
    try {
      int result = kExitOk;
      if (templated && i == 0) {
        out.flush();  // the template is cut from the buffer
        TemplateRecorder record(out);
        result = run_dump_one(one, true, out, &record);
        if (result == kExitOk) template_ = record.finish();
        if (template_) {
          model::Tree tree = open_data(one.data);
          for (MemberTemplate::Hole& hole : template_->holes) {
            if (hole.kind != MemberTemplate::HoleKind::kValues) continue;
            const model::Node* node = printed_alike(tree, hole);
            if (node == nullptr) {
              template_.reset();
              break;
            }
            hole.offset = *node->storage.offset;  // where the recorded member's bytes are
            hole.size = node->storage.size;
          }
          template_given = m.given;
          if (template_) direct = direct_binding(*template_, m);
        }
      } else {
        const uint64_t mark = out.written();
        result = run_dump_one(one, true, out);
        if (i == 1 && template_) {
          // The template is used only if it prints this member exactly as the long way did.
          const std::optional<std::string_view> printed = out.since(mark);
          const std::optional<std::string> by_template =
              m.given == template_given
                  ? dump_by_template(*template_, one, direct ? &*direct : nullptr)
                  : std::nullopt;
          if (result != kExitOk || !printed || by_template != printed) template_.reset();
        }
      }
      if (result != kExitOk) out.flush();
      status = std::max(status, result);
    } catch (const Error& e) {
      out.flush();
      status = std::max(status, report_failure(e, options.data.json, m.data));
    } catch (...) {
      out.flush();
      throw;
    }
  };
  size_t i = 0;
  for (; i < members.size() && (i < 2 || !template_); ++i) long_way(i);
  if (i >= members.size()) return status;
  for (; i < members.size(); ++i) {
    std::optional<std::string> text;
    if (members[i].given == template_given) {
      one.data = members[i];
      text = dump_by_template(*template_, one, direct ? &*direct : nullptr);
    }
    if (text) {
      out.write(*text);
    } else {
      long_way(i);
    }
  }
  return status;
}

int run_dump(const DumpOptions& given) {
  if (given.data.family.empty()) {
    DumpOptions options = given;
    options.data.wanted = wanted_paths(options.items);
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
