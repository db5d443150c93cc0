// Array._repr_html_: the text repr and a small figure of the values.
#include "preview.hpp"

#include "cli/plot_values.hpp"
#include "dudley/core/error.hpp"
#include "dudley/render/png.hpp"
#include "text_objects.hpp"

namespace dudley::python {

namespace {

constexpr int kWidth = 360, kHeight = 260;

// The PNG of the preview (what `dudley plot` draws of the same selection, smaller), or an
// Error saying why there is none.
std::string preview_png(const NodeRef& r) {
  cli::ItemSpec spec;
  spec.path = r.path;
  spec.selection = cli::preview_selection(r.node->dtype, r.node->shape);
  cli::PlotRead how;
  how.max_rows = kHeight;
  how.max_cols = kWidth;
  how.max_line_values = int64_t{4} * kWidth;  // a preview reads about its pixels
  render::FigureOptions o;
  o.width = kWidth;
  o.height = kHeight;
  const cli::PlotValues v = cli::plot_array(*r.tree, *r.node, r.path, spec, *r.filename, how);
  return render::encode_png(cli::draw_figure(v, o), {}, /*fast=*/true);
}

}  // namespace

std::string array_html(const NodeRef& r) {
  py::module_ html = py::module_::import("html");
  std::string out =
      "<pre>" + html.attr("escape")(readable_str(short_repr(r))).cast<std::string>() + "</pre>";
  try {
    const std::string png = preview_png(r);
    const py::bytes encoded =
        py::module_::import("base64").attr("b64encode")(py::bytes(png)).cast<py::bytes>();
    out += "<img alt=\"" + html.attr("escape")(readable_str(r.path)).cast<std::string>() +
           "\" src=\"data:image/png;base64," + std::string(encoded) + "\">";
  } catch (const Error& e) {
    out += "<p><i>no picture: " + html.attr("escape")(readable_str(e.what())).cast<std::string>() +
           "</i></p>";
  }
  return out;
}

}  // namespace dudley::python
