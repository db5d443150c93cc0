// `dudley plot DATA ITEM -o out.png`: a figure of an item's values, for scripts and papers.
#include <cmath>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/data_options.hpp"
#include "cli/failure.hpp"
#include "cli/output_file.hpp"
#include "cli/plot_values.hpp"
#include "cli/tree_json.hpp"
#include "dudley/core/error.hpp"
#include "dudley/io/redact.hpp"
#include "dudley/render/figure.hpp"
#include "dudley/render/png.hpp"

namespace dudley::cli {

namespace {

struct PlotOptions {
  DataOptions data;
  std::string item;
  std::string output;
  std::string colormap = "viridis";
  bool reverse = false;
  std::optional<double> vmin, vmax;
  std::string scale = "linear";
  bool log = false;
  std::string size = "800x600";
  std::string title;
  bool fill = false;
  bool phase = false;
  bool overwrite = false;  ///< --overwrite: replace OUT although it is no PNG
};

// "WxH" as two sides.
std::pair<int, int> parse_size(const std::string& text) {
  int w = 0, h = 0;
  char x = 0, extra = 0;
  // A figure needs room for its axes; 16384 pixels a side is 1 GiB of RGBA.
  constexpr int kLeast = 16, kMost = 16384;
  if (std::sscanf(text.c_str(), "%d%c%d%c", &w, &x, &h, &extra) != 3 || (x != 'x' && x != 'X') ||
      w < kLeast || h < kLeast || w > kMost || h > kMost) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("--size {}: give the width and height in pixels, as 800x600, each "
                            "from {} to {}",
                            text, kLeast, kMost));
  }
  return {w, h};
}

nlohmann::ordered_json axis_json(const render::Axis& a) {
  return {{"name", a.name.empty() ? nullptr : nlohmann::ordered_json(a.name)},
          {"start", a.start},
          {"step", a.step},
          {"coordinates", !a.coordinates.empty()}};
}

int run_plot(const PlotOptions& o) {
  render::FigureOptions figure;
  std::tie(figure.width, figure.height) = parse_size(o.size);
  figure.colormap = o.colormap;
  figure.reversed = o.reverse;
  figure.scale = o.log ? render::ScaleKind::kLog : render::scale_kind(o.scale);
  figure.vmin = o.vmin;
  figure.vmax = o.vmax;
  figure.keep_aspect = !o.fill;
  (void)render::Colormap::named(o.colormap);  // an unknown map fails before any reading
  model::Tree tree = open_data(o.data);
  check_output_file(o.output, png_output(), input_files(o.data, &tree), o.overwrite);
  PlotRead how;
  how.max_rows = figure.height;
  how.max_cols = figure.width;
  how.phase = o.phase;
  const PlotValues v = plot_values(tree, o.item, o.data.data, how);
  figure.title = o.title.empty() ? o.item : o.title;
  render::FigureLayout layout;
  const render::Canvas canvas = draw_figure(v, figure, &layout);
  nlohmann::ordered_json summary = {
      {"output", o.output},
      {"data", io::redacted_url(o.data.data)},  // kept in the PNG too: no secret
      {"item", o.item},
      {"kind", kind_name(v.kind)},
      {"dtype", dtype_json(v.dtype)},
      {"selected", v.selected},
      {"shown", v.kind == PlotValues::Kind::kLine
                    ? nlohmann::ordered_json::array({v.grid.cols})
                    : nlohmann::ordered_json::array({v.grid.rows, v.grid.cols})},
      {"step", v.step},
      {"width", figure.width},
      {"height", figure.height},
      {"plot",
       {{"x", layout.plot_x},
        {"y", layout.plot_y},
        {"width", layout.plot_width},
        {"height", layout.plot_height}}},
  };
  // Values the figure cannot place (NaN; 0 and below on a log scale): said, not hidden.
  uint64_t not_shown = 0;
  if (v.kind != PlotValues::Kind::kRgb) {
    for (double x : v.grid.values) not_shown += std::isnan(layout.scale.position(x)) ? 1 : 0;
    summary["scale"] = {{"kind", render::scale_name(layout.scale.kind)},
                        {"vmin", layout.scale.vmin},
                        {"vmax", layout.scale.vmax}};
    summary["not_numbers"] = v.not_numbers;
    summary["masked"] = v.masked;
    summary["missing"] = v.missing;
    summary["not_shown"] = not_shown - v.masked;
  }
  if (v.kind == PlotValues::Kind::kHeatmap) {
    summary["colormap"] = {{"name", figure.colormap}, {"reversed", figure.reversed}};
  }
  if (v.kind != PlotValues::Kind::kLine) summary["y_axis"] = axis_json(v.y);
  summary["x_axis"] = axis_json(v.x);
  render::write_png(o.output, canvas,
                    {{"Title", figure.title},
                     {"Source", io::redacted_url(o.data.data)},
                     {"Software", "dudley " DUDLEY_VERSION},
                     {"dudley-plot", json_text(summary)}});
  if (o.data.json) {
    fmt::print("{}\n", json_text(summary, 2));
    return kExitOk;
  }
  std::string shown = v.kind == PlotValues::Kind::kLine
                          ? fmt::format("{}", v.grid.cols)
                          : fmt::format("{} x {}", v.grid.rows, v.grid.cols);
  std::string note;
  for (int64_t s : v.step) {
    if (s > 1) note = fmt::format(" (every {} along the longer sides)", fmt::join(v.step, " x "));
  }
  fmt::print("{}: {} x {} pixels, {} of {} {} values shown{}", o.output, figure.width,
             figure.height, kind_name(v.kind), o.item, shown, note);
  if (v.kind != PlotValues::Kind::kRgb) {
    fmt::print(", {} scale from {:g} to {:g}", render::scale_name(layout.scale.kind),
               layout.scale.vmin, layout.scale.vmax);
  }
  if (v.masked > 0) {
    const std::string which = v.missing == v.masked ? "missing (_FillValue)"
                              : v.missing == 0
                                  ? "masked"
                                  : fmt::format("masked or missing ({} by _FillValue)", v.missing);
    fmt::print(", {} {} {} {}", v.masked, which, v.masked == 1 ? "value" : "values",
               v.kind == PlotValues::Kind::kHeatmap ? "shown in cyan" : "left as gaps in the line");
    not_shown -= v.masked;
  }
  if (not_shown > 0) {
    const bool heatmap = v.kind == PlotValues::Kind::kHeatmap;
    fmt::print(", {} {} not placed on the scale ({}){}", not_shown,
               not_shown == 1 ? "value" : "values",
               v.not_numbers == not_shown ? "NaN"
               : v.not_numbers == 0       ? "at or below 0"
                                          : "NaN, or at or below 0",
               heatmap ? ", shown in magenta" : ", left as gaps in the line");
  }
  fmt::print("\n");
  return kExitOk;
}

}  // namespace

void add_plot_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<PlotOptions>();
  CLI::App* cmd = app.add_subcommand(
      "plot",
      "Draw an item's values as a PNG figure: a 1-D selection as a line plot, 2-D as a "
      "heatmap with a colour bar, H x W x 3 uint8 as an RGB picture; axes carry the "
      "dimensions' names and coordinates where the file has them. Longer sides are read "
      "every k-th element, about one value a pixel. Example: dudley plot run.nc "
      "'/T[0, :, :]' -o t0.png");
  add_data_options(*cmd, options->data, /*family=*/false);
  cmd->add_option("item", options->item, "The array, with a selection ('/x[0, :, :]')")->required();
  cmd->add_option("-o,--output", options->output, "The PNG file to write")->required();
  cmd->add_option("--colormap", options->colormap,
                  fmt::format("Heatmap colours: {}", fmt::join(render::Colormap::names(), ", ")))
      ->capture_default_str();
  cmd->add_flag("--reverse", options->reverse, "Reverse the colour map");
  cmd->add_option("--vmin", options->vmin,
                  "The value at the colour map's low end (or the "
                  "line plot's bottom); default: the least value");
  cmd->add_option("--vmax", options->vmax, "The value at the high end; default: the greatest");
  cmd->add_option("--scale", options->scale, "linear, log or symlog")
      ->check(CLI::IsMember({"linear", "log", "symlog"}))
      ->capture_default_str();
  cmd->add_flag("--log", options->log, "The same as --scale log");
  cmd->add_option("--size", options->size, "The figure's width and height in pixels, WxH")
      ->capture_default_str();
  cmd->add_option("--title", options->title, "The title (default: the item)");
  cmd->add_flag("--fill", options->fill,
                "Stretch a heatmap over the whole area (default: square cells)");
  cmd->add_flag("--phase", options->phase,
                "Complex values: draw their phase (default: their amplitude)");
  cmd->add_flag("--overwrite", options->overwrite,
                "Replace OUT although it is not a PNG picture (never an input)");
  cmd->callback([options, &exit_code] {
    exit_code = guarded(options->data.json, [&] { return run_plot(*options); });
  });
}

}  // namespace dudley::cli
