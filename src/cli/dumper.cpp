#include "cli/dumper.hpp"

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

#include "cli/failure.hpp"
#include "cli/tree_json.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/path.hpp"
#include "dudley/core/shape.hpp"
#include "dudley/core/text.hpp"
#include "dudley/io/redact.hpp"
#include "dudley/model/read_pieces.hpp"

namespace dudley::cli {

namespace {

// Pointees may hold pointers in turn; a chain longer than this is reported, not followed.
constexpr int kMaxDerefDepth = 16;
// Bytes of an array read at once while printing it.
constexpr uint64_t kBlockBytes = uint64_t{8} << 20;
// Bytes of fill value (chunks never written) a dump reads unasked: about a second of
// libhdf5 filling them in.
constexpr uint64_t kMaxUnbackedBytes = uint64_t{1} << 30;

}  // namespace

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

void Dumper::report(const std::string& message, int status) {
  if (trial_) throw TrialFailed{};
  out_.flush();  // what came before the problem appears before it
  fmt::print(stderr, "{}\n", shown_message(message));
  status_ = std::max(status_, status);
}

void Dumper::note_listed_link(const model::Node& link, const std::string& path) {
  if (link.link->end != model::Link::End::kNothing) return;
  out_.flush();
  fmt::print(stderr, "note: {}: {}: {}; nothing to read\n", escape_controls(options_.data.data),
             escape_controls(path), escape_controls(link.error.message));
}

void Dumper::count_empty(const ArrayRef& ref) {
  if (!ref.error.empty() || (ref.dtype.size() != 0 && !holds_no_bytes(ref))) return;
  if (++empty_arrays_ <= empty_budget_) return;
  exhausted_ = true;
  throw Error(ErrorCategory::kLimit,
              fmt::format("more than {} arrays of no bytes in one output; stopping at {} "
                          "(dump items by path, such as LIST/5, to see others)",
                          empty_budget_, ref.label));
}

json Dumper::values(const ArrayRef& ref, const std::string& given) {
  json extra = json::object();
  ValueWriter::Options o;
  o.json = options_.data.json;
  // Text lines start with the path: its names are the file's, printed with their control
  // characters escaped (JSON escapes them itself).
  const std::string label = o.json ? given : escape_controls(given);
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

json Dumper::deref(const json& keys, size_t width, int depth) {
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

std::string Dumper::unreadable(const ArrayRef& ref) {
  const std::string path = ref.spec.path.empty() ? ref.label : ref.spec.path;
  auto [first, fresh] = causes_.emplace(ref.error, path);
  std::string message = fresh ? item_problem(path, ref.error)
                              : fmt::format("{}: error: {}: not read, for the same reason as {}",
                                            options_.data.data, path, first->second);
  report(message);
  return message;
}

std::string Dumper::line_label(const ArrayRef& ref, const std::string& label) {
  if (ref.spec.selection.empty()) return label;
  const size_t at = label.rfind(ref.spec.selection);
  return at == std::string::npos
             ? label
             : label.substr(0, at) + label.substr(at + ref.spec.selection.size());
}

bool Dumper::holds_no_bytes(const ArrayRef& ref) {
  for (int64_t d : ref.spec.selection.empty() || !ref.spec.fields.empty()
                       ? ref.shape
                       : Hyperslab::parse(ref.spec.selection, ref.shape).result_shape()) {
    if (d == 0) return true;
  }
  return false;
}

json Dumper::problem(const std::string& message) {
  report(message);
  return json{{"error", message}};
}

std::string Dumper::slice_text(const Hyperslab& h, size_t d, int64_t extent) {
  const int64_t first = h.start[d], n = h.count[d], step = h.step(d);
  if (step == 1 && first == 0 && n == extent) return ":";
  if (n == 0) return fmt::format("{}:{}", first, first);
  const int64_t last = first + (n - 1) * step;
  const std::string by = step == 1 ? "" : fmt::format(":{}", step);
  if (step > 0) return fmt::format("{}:{}{}", first, last + 1, by);
  // Walking down to 0 has no stop to write (-1 would mean the last element).
  return last == 0 ? fmt::format("{}:{}", first, by) : fmt::format("{}:{}{}", first, last - 1, by);
}

void Dumper::index_map(const Hyperslab& h, const DType& type, const std::vector<int64_t>& shape,
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

void Dumper::check_backed(const ArrayRef& ref, const Hyperslab& h) const {
  uint64_t values = 1;
  for (int64_t c : h.count)
    values = checked_mul(values, static_cast<uint64_t>(c)).value_or(UINT64_MAX);
  const uint64_t unit = std::max<uint64_t>(ref.dtype.size(), 1);
  auto too_many = [unit](uint64_t n) {
    return n > kMaxUnbackedValues || checked_mul(n, unit).value_or(UINT64_MAX) > kMaxUnbackedBytes;
  };
  if (options_.max_values != 0 || !too_many(values)) return;
  const std::optional<model::StoredChunks> stored = ref.data->stored_chunks();
  if (!stored) return;
  const uint64_t backed = stored->stored_elements();
  const uint64_t unbacked = values - std::min(values, backed);
  if (!too_many(unbacked)) return;
  // Few values of large elements: their size says why so few are refused.
  const std::string each =
      values > kMaxUnbackedValues ? "" : fmt::format(" of {} bytes each", ref.dtype.size());
  throw Error(ErrorCategory::kLimit,
              fmt::format("{} values{}, of which at most {} are stored ({} of its chunks): the "
                          "rest are the fill value of chunks never written; give --max-values "
                          "N to print the first N, or select a part",
                          values, each, backed, stored->chunks));
}

uint64_t Dumper::piece_bytes(uint64_t unit_bytes) const {
  if (options_.max_values == 0) return kBlockBytes;
  const uint64_t wanted = checked_mul(options_.max_values, unit_bytes).value_or(UINT64_MAX);
  return std::clamp<uint64_t>(wanted, std::max<uint64_t>(unit_bytes, 1), kBlockBytes);
}

void Dumper::stream(const ArrayRef& ref, ValueWriter::Options& o, json& extra) {
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

size_t Dumper::whole_dims(const ArrayRef& ref, const Hyperslab& h) {
  return ref.dtype.joins_units() && !h.count.empty() ? 1 : 0;
}

bool Dumper::one_piece(const ArrayRef& ref, const Hyperslab& h, uint64_t total) {
  return h.count.size() <= whole_dims(ref, h) || total <= kBlockBytes;
}

uint64_t Dumper::piece_limit(const ArrayRef& ref, const Hyperslab& h) const {
  if (options_.max_values == 0) return UINT64_MAX;
  uint64_t units = 1;
  const size_t dims = h.count.size() - std::min(h.count.size(), whole_dims(ref, h));
  for (size_t d = 0; d < dims; ++d) {
    units = checked_mul(units, static_cast<uint64_t>(h.count[d])).value_or(UINT64_MAX);
  }
  return options_.max_values < units ? kBlockBytes + 1 : UINT64_MAX;
}

void Dumper::stream_blocks(const ArrayRef& ref, const Hyperslab& h, ValueWriter& w,
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

void Dumper::in_memory(const ArrayRef& ref, ValueWriter::Options& o, json& extra, bool deref) {
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

void Dumper::begin() {
  if (!begun_) out_.write(prefix_);
  begun_ = true;
}

void Dumper::write_text(const std::string& text, const ValueWriter::Options& o) {
  if (!o.json && o.lines != LineStyle::kArray) {
    out_.write(fmt::format("{} = {}\n", whole_label_, text));
    return;
  }
  out_.write(text);
  if (!o.json) out_.write("\n");
}

void Dumper::finish(ValueWriter& w, json& extra) {
  w.finish();
  if (w.truncated()) {
    extra["truncated"] = json{{"shown", w.wanted()}, {"total", w.units()}};
  }
  if (!options_.data.json && line_style(options_.lines) == LineStyle::kArray) out_.write("\n");
}

DType Dumper::native(const DType& t) {
  return t.needs_swap() ? t.with_byte_order(native_byte_order()) : t;
}

}  // namespace dudley::cli
