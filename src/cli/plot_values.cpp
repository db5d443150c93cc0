// An item's values for a figure: resolved, checked, read with a stride where it is longer
// than the pixels, converted to doubles, with axis names and coordinates.
#include "cli/plot_values.hpp"

#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "cli/dump_items.hpp"
#include "cli/dump_mask.hpp"
#include "dudley/core/error.hpp"
#include "dudley/model/value.hpp"
#include "dudley/render/figure_values.hpp"

namespace dudley::cli {

namespace {

const model::ValueList* list_attribute(const model::Node& n, const char* name) {
  const model::AttributeValue* a = n.attributes.find(name);
  const model::Value* v = a ? std::get_if<model::Value>(a) : nullptr;
  return v && v->is<model::ValueList>() ? &v->as<model::ValueList>() : nullptr;
}

std::string parent_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

// Axis `d` of `node` over the elements h selects: its name and, where the file has a 1-D
// numeric coordinate array of that dimension's length, the coordinates of those elements.
render::Axis axis_of(const model::Tree& tree, const model::Node& node, const std::string& path,
                     const Hyperslab& h, size_t d) {
  render::Axis axis;
  axis.start = h.start[d];
  axis.step = h.step(d);
  const model::ValueList* names = list_attribute(node, model::well_known::kDimensionNames);
  if (names && names->size() == node.shape.size() && (*names)[d].is<std::string>()) {
    axis.name = (*names)[d].as<std::string>();
  }
  std::string coordinate_path;
  const model::ValueList* coords = list_attribute(node, model::well_known::kDimensionCoordinates);
  if (coords && coords->size() == node.shape.size() && (*coords)[d].is<std::string>()) {
    coordinate_path = (*coords)[d].as<std::string>();
  } else if (!axis.name.empty()) {  // netCDF and xarray: the variable named as the dimension
    const std::string group = parent_of(path);
    coordinate_path = (group == "/" ? "" : group) + "/" + axis.name;
  }
  if (axis.name.empty()) axis.name = fmt::format("axis {}", d);  // its place in the array
  if (coordinate_path.empty() || coordinate_path == path) return axis;
  const model::Node* c = tree.find(coordinate_path);
  if (c == nullptr || c->kind != model::NodeKind::kArray || !c->data || c->shape.size() != 1 ||
      c->shape[0] != node.shape[d] || !c->error.empty()) {
    return axis;
  }
  try {
    Hyperslab one;
    one.start = {h.start[d]};
    one.count = {h.count[d]};
    one.stride = {h.step(d)};
    const NDArray values = c->data->read(one);
    axis.coordinates = render::figure_values(values, false, coordinate_path);
  } catch (const Error&) {
    axis.coordinates.clear();  // coordinates that cannot be read: ticks say indexes
  }
  return axis;
}

// Every k-th element along dimension d when it has more than `most`.
int64_t thin(Hyperslab& h, size_t d, int64_t most) {
  if (h.count[d] <= most) return 1;
  const int64_t k = (h.count[d] + most - 1) / most;
  if (h.stride.empty()) h.stride.assign(h.count.size(), 1);
  h.stride[d] *= k;
  h.count[d] = (h.count[d] + k - 1) / k;
  return k;
}

// The values an array's `_FillValue` and `missing_value` attributes (netCDF, CF) say mark
// missing data, as numbers; none when it has neither.
std::vector<double> missing_values(const model::Node& array) {
  std::vector<double> out;
  for (const char* name : {"_FillValue", "missing_value"}) {
    const model::AttributeValue* a = array.attributes.find(name);
    if (a == nullptr) continue;
    if (const auto* v = std::get_if<model::Value>(a)) {
      if (v->is<double>()) out.push_back(v->as<double>());
      if (v->is<int64_t>()) out.push_back(static_cast<double>(v->as<int64_t>()));
      if (v->is<uint64_t>()) out.push_back(static_cast<double>(v->as<uint64_t>()));
    } else if (const auto* n = std::get_if<NDArray>(a)) {
      try {
        for (double x : render::figure_values(n->to_native(), false, name)) out.push_back(x);
      } catch (const Error&) {
        // not numbers (a string fill value): nothing is missing by it
      }
    }
  }
  return out;
}

}  // namespace

PlotValues plot_values(const model::Tree& tree, const std::string& item, const std::string& file,
                       const PlotRead& how) {
  const std::vector<Request> wanted = resolve_items(tree, {item}, file);
  if (wanted.size() != 1 || wanted[0].kind != Request::Kind::kArray || !wanted[0].node) {
    throw Error(
        ErrorCategory::kUsage,
        fmt::format("{}: a figure draws one array's values; {} is not an array", file, item));
  }
  PlotValues out = plot_array(tree, *wanted[0].node, wanted[0].path, wanted[0].spec, file, how);
  out.label = item;
  return out;
}

std::string preview_selection(const DType& dtype, const std::vector<int64_t>& shape) {
  const bool rgb =
      shape.size() == 3 && shape[2] == 3 && dtype.kind() == DTypeKind::kUInt && dtype.size() == 1;
  if (shape.size() <= 2 || rgb) return "";
  std::string out = "[";
  for (size_t d = 0; d < shape.size(); ++d) {
    out += d == 0 ? "" : ", ";
    out += d + 2 < shape.size() ? "0" : ":";
  }
  return out + "]";
}

const char* kind_name(PlotValues::Kind kind) {
  switch (kind) {
    case PlotValues::Kind::kLine:
      return "line";
    case PlotValues::Kind::kRgb:
      return "rgb";
    case PlotValues::Kind::kHeatmap:
      break;
  }
  return "heatmap";
}

PlotValues plot_array(const model::Tree& tree, const model::Node& array, const std::string& path,
                      const ItemSpec& spec, const std::string& file, const PlotRead& how) {
  const ArrayRef ref = ArrayRef::of(array, path, spec);
  const std::string item = path + spec.suffix();
  if (!ref.error.empty()) {
    throw Error(ErrorCategory::kData, fmt::format("{}: {}: {}", file, path, ref.error));
  }
  if (!spec.fields.empty()) {
    throw Error(
        ErrorCategory::kUsage,
        fmt::format("{}: plot draws arrays of numbers, not struct fields ({})", file, item));
  }
  if (!ref.data) {
    throw Error(ErrorCategory::kData, fmt::format("{}: {}: no data to read", file, item));
  }
  if (ref.shape.empty()) {
    throw Error(
        ErrorCategory::kUsage,
        fmt::format("{}: {} is a single value, not an array to draw (dump prints it)", file, item));
  }
  PlotValues out;
  out.label = item;
  out.dtype = ref.dtype;
  Hyperslab h = selection_of(ref);
  std::vector<size_t> kept;
  for (size_t d = 0; d < h.count.size(); ++d) {
    if (d >= h.dropped.size() || !h.dropped[d]) kept.push_back(d);
  }
  for (size_t d : kept) out.selected.push_back(h.count[d]);
  const bool rgb = kept.size() == 3 && h.count[kept[2]] == 3 &&
                   ref.dtype.kind() == DTypeKind::kUInt && ref.dtype.size() == 1;
  if (kept.empty() || (kept.size() > 2 && !rgb)) {
    std::string example = preview_selection(ref.dtype, ref.shape);
    if (example.empty()) example = "[" + std::string(ref.shape.size() == 1 ? ":" : ":, :") + "]";
    throw Error(ErrorCategory::kUsage,
                fmt::format("{}: {} selects {} dimensions: a figure draws 1 (a line) or 2 (a "
                            "heatmap, or H x W x 3 of uint8 as RGB); select some, as in {}{}",
                            file, item, kept.size(), path, example));
  }
  for (int64_t c : out.selected) {
    if (c == 0) {
      throw Error(ErrorCategory::kUsage, fmt::format("{}: {} selects no values", file, item));
    }
  }
  if (kept.size() == 1) {
    out.kind = PlotValues::Kind::kLine;
    // A line is drawn from every value up to a bound (each pixel column its least and
    // greatest), so that no spike between strided elements is lost.
    out.step.push_back(thin(h, kept[0], how.max_line_values));
  } else {
    out.kind = rgb ? PlotValues::Kind::kRgb : PlotValues::Kind::kHeatmap;
    out.step.push_back(thin(h, kept[0], how.max_rows));
    out.step.push_back(thin(h, kept[1], how.max_cols));
  }
  if (!rgb) render::check_figure_type(ref.dtype, path);  // before reading anything
  NDArray data = read_by(*ref.data, ref.dtype, h, kept[0], how.deadline, how.limit,
                         fmt::format("{}: {}", file, item));
  if (!data.is_c_contiguous()) data = data.to_native();
  if (kept.size() == 1) {
    out.x = axis_of(tree, array, path, h, kept[0]);
    out.grid.rows = 1;
    out.grid.cols = h.count[kept[0]];
  } else {
    out.y = axis_of(tree, array, path, h, kept[0]);
    out.x = axis_of(tree, array, path, h, kept[1]);
    out.grid.rows = h.count[kept[0]];
    out.grid.cols = h.count[kept[1]];
  }
  if (rgb) {
    out.rgb.resize(data.byte_size());
    std::memcpy(out.rgb.data(), data.data(), data.byte_size());
    return out;
  }
  out.grid.values = render::figure_values(data, how.phase, path);
  if (ref.mask) {
    MaskReader mask(tree, *ref.mask, ref.shape);
    out.grid.masked = mask.masked(h, data);
  }
  const std::vector<double> missing = missing_values(array);
  if (!missing.empty()) {
    out.grid.masked.resize(out.grid.values.size());
    for (size_t i = 0; i < out.grid.values.size(); ++i) {
      if (out.grid.masked[i] != 0) continue;
      for (double m : missing) {
        if (out.grid.values[i] == m) {  // once, though _FillValue and missing_value agree
          out.grid.masked[i] = 1;
          ++out.missing;
          break;
        }
      }
    }
  }
  for (size_t i = 0; i < out.grid.masked.size(); ++i) {
    if (out.grid.masked[i] == 0) continue;
    out.grid.values[i] = std::nan("");
    ++out.masked;
  }
  if (out.masked == 0) out.grid.masked.clear();
  for (double v : out.grid.values) out.not_numbers += std::isnan(v) ? 1 : 0;
  out.not_numbers -= out.masked;
  return out;
}

render::Canvas draw_figure(const PlotValues& v, const render::FigureOptions& options,
                           render::FigureLayout* layout) {
  switch (v.kind) {
    case PlotValues::Kind::kLine:
      return render::line_figure(v.grid.values, v.x, options, layout);
    case PlotValues::Kind::kRgb:
      return render::rgb_figure(v.rgb, v.grid.rows, v.grid.cols, v.y, v.x, options, layout);
    case PlotValues::Kind::kHeatmap:
      break;
  }
  return render::heatmap_figure(v.grid, v.y, v.x, options, layout);
}

}  // namespace dudley::cli
