// Array._repr_html_: the text repr and a small figure of the values.
#include "preview.hpp"

#include "dudley/core/error.hpp"
#include "dudley/model/value.hpp"
#include "dudley/render/figure.hpp"
#include "dudley/render/figure_values.hpp"
#include "dudley/render/png.hpp"

namespace dudley::python {

namespace {

constexpr int kWidth = 360, kHeight = 260;

// Every k-th element along dimension d when it has more than `most`.
void thin(Hyperslab& h, size_t d, int64_t most) {
  if (h.count[d] <= most) return;
  const int64_t k = (h.count[d] + most - 1) / most;
  h.stride[d] = k;
  h.count[d] = (h.count[d] + k - 1) / k;
}

// Axis d: its dimension's name (or place), and the elements shown.
render::Axis axis(const model::Node& n, const Hyperslab& h, size_t d) {
  render::Axis a;
  a.start = h.start[d];
  a.step = h.step(d);
  a.name = "axis " + std::to_string(d);
  const model::AttributeValue* names = n.attributes.find(model::well_known::kDimensionNames);
  const model::Value* v = names ? std::get_if<model::Value>(names) : nullptr;
  if (v && v->is<model::ValueList>() && v->as<model::ValueList>().size() == n.shape.size() &&
      v->as<model::ValueList>()[d].is<std::string>()) {
    a.name = v->as<model::ValueList>()[d].as<std::string>();
  }
  return a;
}

// The PNG of the preview, or an Error saying why there is none.
std::string preview_png(const NodeRef& r) {
  const model::Node& n = *r.node;
  if (!n.error.empty()) throw Error(ErrorCategory::kData, n.error.message);
  if (!n.data) throw Error(ErrorCategory::kUsage, "no data to draw");
  const size_t rank = n.shape.size();
  const bool rgb =
      rank == 3 && n.shape[2] == 3 && n.dtype.kind() == DTypeKind::kUInt && n.dtype.size() == 1;
  if (rank == 0) throw Error(ErrorCategory::kUsage, "a single value");
  Hyperslab h = Hyperslab::all(n.shape);
  h.stride.assign(rank, 1);
  h.dropped.assign(rank, false);
  const size_t drawn = rgb ? 2 : std::min<size_t>(rank, 2);
  const size_t first = rgb ? 0 : rank - drawn;
  for (size_t d = 0; d < rank; ++d) {
    if (n.shape[d] == 0) throw Error(ErrorCategory::kUsage, "no values");
    if (!rgb && d < first) {  // the dimensions not drawn: at index 0
      h.count[d] = 1;
      h.dropped[d] = true;
    }
  }
  render::FigureOptions o;
  o.width = kWidth;
  o.height = kHeight;
  if (drawn == 1) {
    thin(h, first, int64_t{4} * kWidth);
    const NDArray data = n.data->read(h);
    return render::encode_png(
        render::line_figure(render::figure_values(data, false, r.path), axis(n, h, first), o), {},
        /*fast=*/true);
  }
  thin(h, first, kHeight);
  thin(h, first + 1, kWidth);
  NDArray data = n.data->read(h);
  if (!data.is_c_contiguous()) data = data.to_native();
  const render::Axis y = axis(n, h, first), x = axis(n, h, first + 1);
  if (rgb) {
    const auto* p = static_cast<const uint8_t*>(data.data());
    return render::encode_png(render::rgb_figure(std::vector<uint8_t>(p, p + data.byte_size()),
                                                 h.count[0], h.count[1], y, x, o),
                              {}, true);
  }
  render::Grid grid{h.count[first], h.count[first + 1], render::figure_values(data, false, r.path)};
  return render::encode_png(render::heatmap_figure(grid, y, x, o), {}, true);
}

}  // namespace

std::string array_html(const NodeRef& r) {
  py::module_ html = py::module_::import("html");
  std::string out = "<pre>" + html.attr("escape")(short_repr(r)).cast<std::string>() + "</pre>";
  try {
    const std::string png = preview_png(r);
    const py::bytes encoded =
        py::module_::import("base64").attr("b64encode")(py::bytes(png)).cast<py::bytes>();
    out += "<img alt=\"" + html.attr("escape")(r.path).cast<std::string>() +
           "\" src=\"data:image/png;base64," + std::string(encoded) + "\">";
  } catch (const Error& e) {
    out += "<p><i>no picture: " + html.attr("escape")(e.what()).cast<std::string>() + "</i></p>";
  }
  return out;
}

}  // namespace dudley::python
