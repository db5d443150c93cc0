// The viewer's API over one tree: requests parsed, bounded and answered (see api.hpp).
#include "view/api.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cli/dump_items.hpp"
#include "cli/dump_mask.hpp"
#include "cli/plot_values.hpp"
#include "cli/tree_json.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/shape.hpp"
#include "dudley/render/colormap.hpp"
#include "dudley/render/png.hpp"
#include "formats/npy/metadata.hpp"
#include "view/assets.hpp"
#include "view/tree_pages.hpp"

namespace dudley::view {

namespace {

using json = nlohmann::ordered_json;

// A query that cannot be answered as asked: its HTTP status and message.
struct Refusal {
  int status;
  std::string message;
};

HttpReply json_reply(const json& body, int status = 200) {
  HttpReply r;
  r.status = status;
  r.body = cli::json_text(body);
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

HttpReply refusal_reply(int status, std::string message) {
  // An Error's text starts as the command line prints it; the page shows it under the item.
  if (message.rfind("error: ", 0) == 0) message.erase(0, 7);
  return json_reply(json{{"error", message}}, status);
}

const std::string& required(const HttpRequest& request, const std::string& key) {
  auto it = request.query.find(key);
  if (it == request.query.end() || it->second.empty()) {
    throw Refusal{400, fmt::format("the query needs {}=", key)};
  }
  return it->second;
}

std::string optional_text(const HttpRequest& request, const std::string& key,
                          const std::string& otherwise = {}) {
  auto it = request.query.find(key);
  return it == request.query.end() ? otherwise : it->second;
}

// An integer query value in [low, high]; `otherwise` when absent.
int64_t integer(const HttpRequest& request, const std::string& key, int64_t otherwise, int64_t low,
                int64_t high) {
  auto it = request.query.find(key);
  if (it == request.query.end() || it->second.empty()) return otherwise;
  int64_t v = 0;
  const char* end = it->second.data() + it->second.size();
  auto [at, ec] = std::from_chars(it->second.data(), end, v);
  if (ec != std::errc() || at != end || v < low || v > high) {
    throw Refusal{
        400, fmt::format("{}={}: give a whole number from {} to {}", key, it->second, low, high)};
  }
  return v;
}

std::optional<double> real(const HttpRequest& request, const std::string& key) {
  auto it = request.query.find(key);
  if (it == request.query.end() || it->second.empty()) return std::nullopt;
  double v = 0;
  const char* end = it->second.data() + it->second.size();
  auto [at, ec] = std::from_chars(it->second.data(), end, v);
  if (ec != std::errc() || at != end || !std::isfinite(v)) {
    throw Refusal{400, fmt::format("{}={}: give a finite number", key, it->second)};
  }
  return v;
}

// One of `choices` (the first when absent): a flag "0"/"1", or a word.
std::string choice(const HttpRequest& request, const std::string& key,
                   std::initializer_list<std::string_view> choices) {
  auto it = request.query.find(key);
  if (it == request.query.end()) return std::string(*choices.begin());
  for (std::string_view c : choices) {
    if (it->second == c) return it->second;
  }
  throw Refusal{400, fmt::format("{}={}: give {}", key, it->second, fmt::join(choices, " or "))};
}

// The query parameters each endpoint reads. Any other is refused with the list: a misspelt
// one ("cmap=" for "colormap=") would otherwise be dropped and the answer drawn as if it had
// not been given.
const std::vector<std::string_view>* parameters_of(std::string_view endpoint) {
  static const std::vector<std::pair<std::string_view, std::vector<std::string_view>>> known = {
      {"/api/info", {}},
      {"/api/tree", {}},
      {"/api/members", {"path", "start"}},
      {"/api/search", {"q"}},
      {"/api/item", {"path"}},
      {"/api/array", {"path", "sel"}},
      {"/api/slice", {"path", "sel", "rows", "cols", "complex"}},
      {"/api/values", {"path", "sel", "row", "rows", "col", "cols"}},
      {"/api/plot",
       {"path", "sel", "width", "height", "colormap", "reverse", "scale", "vmin", "vmax", "fill",
        "complex"}},
      {"/api/export", {"path", "sel", "format"}},
  };
  for (const auto& [name, parameters] : known) {
    if (name == endpoint) return &parameters;
  }
  return nullptr;
}

void check_parameters(const HttpRequest& request) {
  const std::vector<std::string_view>* parameters = parameters_of(request.path);
  if (parameters == nullptr) return;
  for (const auto& [key, value] : request.query) {
    if (std::find(parameters->begin(), parameters->end(), key) != parameters->end()) continue;
    throw Refusal{400, parameters->empty()
                           ? fmt::format("{} takes no query parameters, not {}=", request.path, key)
                           : fmt::format("{} takes {}, not {}=", request.path,
                                         fmt::join(*parameters, ", "), key)};
  }
}

// The item a query names: its path and selection ("/x" and "[0, :, :]").
std::string item_of(const HttpRequest& request) {
  const std::string& path = required(request, "path");
  if (path[0] != '/') throw Refusal{400, fmt::format("path={}: a path starts with /", path)};
  return path + optional_text(request, "sel");
}

json axis_json(const render::Axis& a) {
  json out = {{"name", a.name.empty() ? json(nullptr) : json(a.name)},
              {"start", a.start},
              {"step", a.step}};
  if (!a.coordinates.empty()) out["coordinates"] = a.coordinates;
  return out;
}

// A line of more values than `buckets` x 4: each bucket's least and greatest value, in that
// order (NaN where a bucket has no number), so that a spike between pixels still shows.
std::vector<double> least_and_greatest(const std::vector<double>& values, size_t buckets) {
  std::vector<double> out;
  out.reserve(buckets * 2);
  const size_t n = values.size();
  for (size_t b = 0; b < buckets; ++b) {
    const size_t first = b * n / buckets, end = (b + 1) * n / buckets;
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (size_t i = first; i < end; ++i) {
      if (std::isnan(values[i])) continue;
      lo = std::min(lo, values[i]);
      hi = std::max(hi, values[i]);
    }
    const bool any = lo <= hi;
    out.push_back(any ? lo : std::nan(""));
    out.push_back(any ? hi : std::nan(""));
  }
  return out;
}

// Binary answer: a 4-byte little-endian length, that many bytes of JSON, padding to a
// multiple of 8, then the values (float64 or uint8, as the JSON's "data" says) and, when
// the JSON has "mask", one byte per value (1: masked).
HttpReply binary_reply(const json& head, const void* data, size_t bytes) {
  const std::string text = cli::json_text(head);
  HttpReply r;
  r.content_type = "application/octet-stream";
  r.headers.emplace_back("Cache-Control", "no-store");
  const auto length = static_cast<uint32_t>(text.size());
  r.body.resize(4);
  for (int i = 0; i < 4; ++i)
    r.body[static_cast<size_t>(i)] = static_cast<char>((length >> (8 * i)) & 0xff);
  r.body += text;
  r.body.resize((r.body.size() + 7) / 8 * 8, ' ');
  r.body.append(static_cast<const char*>(data), bytes);
  return r;
}

// `values` as bytes: float64, or float32 when `narrow` (every value then fits exactly).
std::string value_bytes(const std::vector<double>& values, bool narrow) {
  if (!narrow) {
    return {reinterpret_cast<const char*>(values.data()), values.size() * sizeof(double)};
  }
  std::string out(values.size() * sizeof(float), '\0');
  auto* p = reinterpret_cast<float*>(out.data());
  for (size_t i = 0; i < values.size(); ++i) p[i] = static_cast<float>(values[i]);
  return out;
}

// The selection of one array an item names, checked to be 1-D or 2-D, for pages of values.
struct TablePart {
  cli::ArrayRef ref;
  Hyperslab slab;
  std::vector<size_t> kept;  ///< the selection's dimensions that remain
};

// `most` dimensions the selection may keep (a table: 2; the values as JSON: any).
TablePart table_part(const model::Tree& tree, const std::string& item, const std::string& data,
                     size_t most = 2) {
  const std::vector<cli::Request> found = cli::resolve_items(tree, {item}, data);
  if (found.size() != 1 || found[0].kind != cli::Request::Kind::kArray || !found[0].node) {
    throw Refusal{400, fmt::format("{} is not an array", item)};
  }
  TablePart t{cli::ArrayRef::of(*found[0].node, found[0].path, found[0].spec), {}, {}};
  if (!t.ref.error.empty()) throw Error(ErrorCategory::kData, t.ref.error);
  if (t.ref.spec.selection_first && !t.ref.spec.fields.empty()) {
    throw Refusal{400, "select the array's elements before or after its fields, not both"};
  }
  t.slab = cli::selection_of(t.ref);
  for (size_t d = 0; d < t.slab.count.size(); ++d) {
    if (d >= t.slab.dropped.size() || !t.slab.dropped[d]) t.kept.push_back(d);
  }
  if (t.kept.size() > most) {
    throw Refusal{
        400, fmt::format("{} selects {} dimensions: a table shows 1 or 2", item, t.kept.size())};
  }
  return t;
}

// Narrows dimension d of `slab` to `count` elements from element `first` of it.
void narrow(Hyperslab& slab, size_t d, int64_t first, int64_t count) {
  first = std::min(first, slab.count[d]);
  slab.start[d] += first * slab.step(d);
  slab.count[d] = std::min(count, slab.count[d] - first);
}

// The elements `slab` selects of `t`, read by `deadline` (see cli::read_by).
NDArray read_part(const TablePart& t, const Hyperslab& slab, cli::Deadline deadline,
                  std::chrono::milliseconds limit, const std::string& what) {
  NDArray data = cli::read_by(*t.ref.data, t.ref.dtype, slab, t.kept.empty() ? 0 : t.kept[0],
                              deadline, limit, what);
  for (const std::string& f : t.ref.spec.fields) data = data.field(f);
  return data.is_c_contiguous() ? std::move(data) : data.to_native();
}

// Refuses (413) a read of more than kMaxReadBytes: `slab`'s elements of `t`'s type.
void check_read_bytes(const TablePart& t, const Hyperslab& slab, const std::string& item,
                      const char* smaller) {
  uint64_t elements = 1;
  for (int64_t n : slab.count)
    elements = checked_mul(elements, static_cast<uint64_t>(n)).value_or(UINT64_MAX);
  const uint64_t unit = std::max<uint64_t>(t.ref.dtype.size(), 1);
  const std::optional<uint64_t> bytes = checked_mul(elements, unit);
  if (bytes && *bytes <= ViewerApi::kMaxReadBytes) return;
  throw Refusal{413, fmt::format("{}: {} elements of {} bytes each are more than the {} MiB a "
                                 "request reads; {}",
                                 item, elements, unit, ViewerApi::kMaxReadBytes >> 20, smaller)};
}

// Fewer rows, then fewer columns, than a page asks for when its elements are large (long
// fixed-length strings, wide structs): as many as one read may hold, at least one element.
void fit_page(const TablePart& t, int64_t& rows, int64_t& cols) {
  const uint64_t fit = ViewerApi::kMaxReadBytes / std::max<uint64_t>(t.ref.dtype.size(), 1);
  if (fit == 0) return;  // one element is more than a read: check_read_bytes refuses it
  cols = static_cast<int64_t>(std::min<uint64_t>(static_cast<uint64_t>(cols), fit));
  rows = static_cast<int64_t>(std::min<uint64_t>(
      static_cast<uint64_t>(rows), std::max<uint64_t>(1, fit / static_cast<uint64_t>(cols))));
}

// `shown` (values_json of `data`, the elements `slab` selects of `t`) with the elements a
// mask hides as null, as `dump --json` prints them. The number hidden.
uint64_t hide_masked(const model::Tree& tree, const TablePart& t, const Hyperslab& slab,
                     const NDArray& data, json& shown) {
  if (!t.ref.mask || !t.ref.spec.fields.empty()) return 0;
  cli::MaskReader mask(tree, *t.ref.mask, t.ref.shape);
  const std::vector<uint8_t> hidden = mask.masked(slab, data);
  if (t.kept.empty()) {
    if (!hidden.empty() && hidden[0] != 0) shown = nullptr;
    return hidden.empty() ? 0 : hidden[0];
  }
  // The values' nested arrays, one level a kept dimension, walked in C order.
  uint64_t count = 0;
  size_t at = 0;
  std::vector<std::pair<json*, size_t>> stack{{&shown, 0}};
  while (!stack.empty()) {
    auto& [level, next] = stack.back();
    if (next == level->size()) {
      stack.pop_back();
      continue;
    }
    json& v = (*level)[next++];
    if (stack.size() < t.kept.size()) {
      stack.emplace_back(&v, 0);
      continue;
    }
    if (at < hidden.size() && hidden[at] != 0) {
      v = nullptr;
      ++count;
    }
    ++at;
  }
  return count;
}

// Answers that read nothing of the data (the page, its scripts, /api/info): never queued
// behind a read.
bool answered_at_once(const std::string& path) {
  return path == "/" || path == "/index.html" || path == "/viewer.js" || path == "/viewer.css" ||
         path == "/favicon.ico" || path == "/api/info";
}

double seconds(std::chrono::milliseconds t) {
  return static_cast<double>(t.count()) / 1000.0;
}

// One element as CSV text: numbers in the shortest text that reads back the same, strings
// and structured values quoted, a masked value (null) an empty field.
std::string csv_text(const json& v) {
  if (v.is_null()) return "";                // masked
  if (v.is_string() || v.is_structured()) {  // a struct or a complex number: its JSON, quoted
    const std::string s = v.is_string() ? v.get<std::string>() : cli::json_text(v);
    std::string quoted = "\"";
    for (char c : s) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
  }
  return cli::json_text(v);
}

}  // namespace

ViewerApi::ViewerApi(model::Tree tree, std::string data, std::chrono::milliseconds time_limit)
    : tree_(std::move(tree)), data_(std::move(data)), time_limit_(time_limit) {}

cli::Deadline ViewerApi::deadline() const {
  return std::chrono::steady_clock::now() + time_limit_;
}

void ViewerApi::set_listening(const std::string& host, int port) {
  const std::lock_guard lock(host_mutex_);
  host_ = host;
  port_ = port;
}

bool ViewerApi::host_allowed(const std::string& host) const {
  const std::string port = fmt::format(":{}", port_);
  for (const std::string& name :
       {std::string("127.0.0.1"), std::string("localhost"), std::string("[::1]"), host_}) {
    if (host == name + port || host == name) return true;
  }
  return false;
}

HttpReply ViewerApi::handle(const HttpRequest& request) {
  {
    const std::lock_guard lock(host_mutex_);
    if (!host_allowed(request.host)) {
      return refusal_reply(
          403, fmt::format("this viewer answers requests for 127.0.0.1:{} only", port_));
    }
  }
  try {
    if (answered_at_once(request.path)) return answer(request);
    // One request at a time walks the tree or reads; one that cannot start within its own
    // time limit is refused rather than queued for minutes.
    const cli::Deadline until = deadline();
    const std::unique_lock lock(reading_, until);
    if (!lock.owns_lock()) {
      return refusal_reply(503, fmt::format("{}: the viewer is still answering another request "
                                            "after {} s; try again",
                                            request.path, seconds(time_limit_)));
    }
    // Reads end at the deadline inside them too (a slow server's answers).
    const ThreadDeadline stop(
        until, fmt::format("{}: reading took longer than the viewer's time limit of {} s; "
                           "select a smaller part, or start the viewer with a longer "
                           "--time-limit",
                           request.path, seconds(time_limit_)));
    return answer(request);
  } catch (const Refusal& r) {
    return refusal_reply(r.status, r.message);
  } catch (const DeadlinePassed& e) {
    return refusal_reply(503, e.what());
  } catch (const Error& e) {
    const ErrorCategory c = e.category();
    const int status =
        c == ErrorCategory::kUsage || c == ErrorCategory::kSyntax || c == ErrorCategory::kType ? 400
        : c == ErrorCategory::kLimit                                                           ? 413
                                     : 500;
    return refusal_reply(status, e.what());
  } catch (const std::bad_alloc&) {
    return refusal_reply(413, "not enough memory to answer this request");
  } catch (const std::exception& e) {
    return refusal_reply(500, e.what());
  }
}

HttpReply ViewerApi::answer(const HttpRequest& request) {
  const std::string& p = request.path;
  if (p == "/" || p == "/index.html") {
    HttpReply r;
    r.content_type = "text/html; charset=utf-8";
    r.body = std::string(asset_html());
    return r;
  }
  if (p == "/viewer.js") {
    HttpReply r;
    r.content_type = "text/javascript; charset=utf-8";
    r.body = std::string(asset_js());
    return r;
  }
  if (p == "/viewer.css") {
    HttpReply r;
    r.content_type = "text/css; charset=utf-8";
    r.body = std::string(asset_css());
    return r;
  }
  if (p == "/favicon.ico") {
    HttpReply r;
    r.status = 204;  // none: said, so that browsers stop asking
    r.content_type = "image/x-icon";
    return r;
  }
  check_parameters(request);
  if (p == "/api/info") return info();
  if (p == "/api/tree") return tree();
  if (p == "/api/members") return members(request);
  if (p == "/api/search") return search(request);
  if (p == "/api/item") return item(request);
  if (p == "/api/slice") return slice(request);
  if (p == "/api/values") return values(request);
  if (p == "/api/array") return array(request);
  if (p == "/api/plot") return plot(request);
  if (p == "/api/export") return exported(request);
  return refusal_reply(404, fmt::format("nothing at {} (the API is /api/info, /api/tree, "
                                        "/api/members, /api/search, /api/item, /api/array, "
                                        "/api/slice, /api/values, /api/plot, /api/export)",
                                        p));
}

HttpReply ViewerApi::info() {
  json maps = json::object();
  for (const std::string& name : render::Colormap::names()) {
    const render::Colormap map = render::Colormap::named(name);
    json colours = json::array();
    for (int i = 0; i < 256; ++i) {
      const render::Rgb c = map.entry(i);
      colours.push_back({c.r, c.g, c.b});
    }
    maps[name] = std::move(colours);
  }
  const render::Rgb nan = render::kNotANumber, masked = render::kMasked;
  return json_reply(json{{"data", data_},
                         {"format", tree_.format},
                         {"version", DUDLEY_VERSION},
                         {"colormaps", std::move(maps)},
                         {"not_a_number", {nan.r, nan.g, nan.b}},
                         {"masked", {masked.r, masked.g, masked.b}}});
}

HttpReply ViewerApi::tree() {
  return json_reply(json{{"format", tree_.format}, {"root", first_view(*tree_.root)}});
}

HttpReply ViewerApi::members(const HttpRequest& request) {
  const std::string& path = required(request, "path");
  const std::vector<cli::Request> found = cli::resolve_items(tree_, {path}, data_);
  if (found.size() != 1 || !found[0].node || found[0].node->kind != model::NodeKind::kGroup) {
    throw Refusal{400, fmt::format("{} is not a group", path)};
  }
  const int64_t start = integer(request, "start", 0, 0, std::numeric_limits<int64_t>::max());
  return json_reply(members_page(*found[0].node, found[0].path, static_cast<uint64_t>(start)));
}

HttpReply ViewerApi::search(const HttpRequest& request) {
  const std::string& text = required(request, "q");
  if (text.size() > kMaxSearchBytes) {
    throw Refusal{400, fmt::format("q= holds {} bytes: a search is for at most {}", text.size(),
                                   kMaxSearchBytes)};
  }
  return json_reply(view::search(*tree_.root, text));
}

HttpReply ViewerApi::item(const HttpRequest& request) {
  const std::string& path = required(request, "path");
  const std::vector<cli::Request> found = cli::resolve_items(tree_, {path}, data_);
  if (found.size() != 1 || !found[0].node) throw Refusal{400, path + " is not an item"};
  // One item, not its subtree: no member walked, a list's first item only (then dropped).
  cli::TreeWalk walk;
  walk.max_items = 1;
  walk.include = [](const std::string&) { return false; };
  json out = cli::node_json(*found[0].node, walk, found[0].path);
  out.erase("members");
  out.erase("items");
  return json_reply(json{{"path", found[0].path}, {"item", std::move(out)}});
}

HttpReply ViewerApi::slice(const HttpRequest& request) {
  const std::string item = item_of(request);
  cli::PlotRead how;
  how.max_rows = static_cast<int>(integer(request, "rows", 1024, 1, kMaxSliceSide));
  how.max_cols = static_cast<int>(integer(request, "cols", 1024, 1, kMaxSliceSide));
  how.phase = choice(request, "complex", {"magnitude", "phase"}) == "phase";
  how.deadline = deadline();
  how.limit = time_limit_;
  cli::PlotValues v = cli::plot_values(tree_, item, data_, how);
  json head = {{"item", item},
               {"kind", cli::kind_name(v.kind)},
               {"dtype", cli::dtype_json(v.dtype)},
               {"selected", v.selected},
               {"step", v.step},
               {"x", axis_json(v.x)}};
  if (v.kind == cli::PlotValues::Kind::kRgb) {
    head["shown"] = {v.grid.rows, v.grid.cols};
    head["y"] = axis_json(v.y);
    head["data"] = "uint8";
    return binary_reply(head, v.rgb.data(), v.rgb.size());
  }
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (double x : v.grid.values) {
    if (std::isfinite(x)) {
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
  }
  head["min"] = lo <= hi ? json(lo) : json(nullptr);
  head["max"] = lo <= hi ? json(hi) : json(nullptr);
  head["not_numbers"] = v.not_numbers;
  head["masked"] = v.masked;
  head["missing"] = v.missing;
  // Values a float32 holds exactly (half and single floats, small integers, booleans) go as
  // float32: half the bytes to send and for the page to take in.
  const DType& stored = v.dtype.kind() == DTypeKind::kEnum ? v.dtype.base() : v.dtype;
  const bool narrow = stored.kind() == DTypeKind::kBool ||
                      (stored.kind() == DTypeKind::kFloat && stored.size() <= 4) ||
                      ((stored.kind() == DTypeKind::kInt || stored.kind() == DTypeKind::kUInt) &&
                       stored.size() <= 2);
  head["data"] = narrow ? "float32" : "float64";
  if (v.kind == cli::PlotValues::Kind::kLine) {
    head["shown"] = {v.grid.cols};
    const auto buckets = static_cast<size_t>(how.max_cols);
    if (v.grid.values.size() > buckets * 4) {
      // Each bucket's least and greatest: what a column of pixels shows of it.
      v.grid.values = least_and_greatest(v.grid.values, buckets);
      head["buckets"] = buckets;
    }
  } else {
    head["shown"] = {v.grid.rows, v.grid.cols};
    head["y"] = axis_json(v.y);
  }
  std::string bytes = value_bytes(v.grid.values, narrow);
  if (v.kind != cli::PlotValues::Kind::kLine && !v.grid.masked.empty()) {
    // One byte per value after the values, 1 where a mask hides it.
    head["mask"] = "uint8";
    bytes.append(v.grid.masked.begin(), v.grid.masked.end());
  }
  return binary_reply(head, bytes.data(), bytes.size());
}

HttpReply ViewerApi::values(const HttpRequest& request) {
  const std::string item = item_of(request);
  TablePart t = table_part(tree_, item, data_);
  Hyperslab slab = t.slab;
  int64_t rows = integer(request, "rows", 100, 1, kMaxPageValues);
  const int64_t row = integer(request, "row", 0, 0, std::numeric_limits<int64_t>::max());
  int64_t cols = t.kept.size() == 2 ? integer(request, "cols", 20, 1, kMaxPageValues) : 1;
  if (static_cast<uint64_t>(rows) * static_cast<uint64_t>(cols) > kMaxPageValues) {
    throw Refusal{413, fmt::format("a page holds at most {} values: ask for fewer rows or "
                                   "columns",
                                   kMaxPageValues)};
  }
  fit_page(t, rows, cols);
  if (!t.kept.empty()) narrow(slab, t.kept[0], row, rows);
  if (t.kept.size() == 2) {
    narrow(slab, t.kept[1], integer(request, "col", 0, 0, std::numeric_limits<int64_t>::max()),
           cols);
  }
  check_read_bytes(t, slab, item, "a table page holds one at least: `dudley dump` prints them");
  const NDArray data = read_part(t, slab, deadline(), time_limit_, item);
  json shown = cli::values_json(data);
  hide_masked(tree_, t, slab, data, shown);  // null: the page shows "--"
  std::vector<int64_t> selected;
  for (size_t d : t.kept) selected.push_back(t.slab.count[d]);
  json first = json::array();
  for (size_t d : t.kept) first.push_back(slab.start[d]);
  return json_reply(json{{"item", item},
                         {"dtype", cli::dtype_json(data.dtype())},
                         {"selected", selected},
                         {"row", t.kept.empty() ? 0 : std::min(row, t.slab.count[t.kept[0]])},
                         {"page", {rows, cols}},
                         {"stored_start", first},
                         {"values", std::move(shown)}});
}

HttpReply ViewerApi::array(const HttpRequest& request) {
  const std::string item = item_of(request);
  TablePart t = table_part(tree_, item, data_, SIZE_MAX);
  uint64_t elements = 1;
  for (size_t d : t.kept) elements *= static_cast<uint64_t>(t.slab.count[d]);
  if (elements > kMaxArrayValues) {
    throw Refusal{413, fmt::format("{} is {} elements: /api/array answers at most {}; select a "
                                   "part, page through /api/values, or download /api/export",
                                   item, elements, kMaxArrayValues)};
  }
  check_read_bytes(t, t.slab, item, "select a part, or page through /api/values");
  const NDArray data = read_part(t, t.slab, deadline(), time_limit_, item);
  json shown = cli::values_json(data);
  const uint64_t masked = hide_masked(tree_, t, t.slab, data, shown);
  std::vector<int64_t> selected;
  for (size_t d : t.kept) selected.push_back(t.slab.count[d]);
  return json_reply(json{{"item", item},
                         {"dtype", cli::dtype_json(data.dtype())},
                         {"shape", selected},
                         {"masked", masked},
                         {"data", std::move(shown)}});
}

HttpReply ViewerApi::plot(const HttpRequest& request) {
  const std::string item = item_of(request);
  render::FigureOptions figure;
  figure.width = static_cast<int>(integer(request, "width", 800, 1, 4096));
  figure.height = static_cast<int>(integer(request, "height", 600, 1, 4096));
  figure.colormap = optional_text(request, "colormap", "viridis");
  figure.reversed = choice(request, "reverse", {"0", "1"}) == "1";
  figure.scale = render::scale_kind(optional_text(request, "scale", "linear"));
  figure.vmin = real(request, "vmin");
  figure.vmax = real(request, "vmax");
  figure.keep_aspect = choice(request, "fill", {"0", "1"}) == "0";
  figure.title = item;
  (void)render::Colormap::named(figure.colormap);
  cli::PlotRead how;
  how.max_rows = figure.height;
  how.max_cols = figure.width;
  how.phase = choice(request, "complex", {"magnitude", "phase"}) == "phase";
  how.deadline = deadline();
  how.limit = time_limit_;
  const cli::PlotValues v = cli::plot_values(tree_, item, data_, how);
  HttpReply r;
  r.content_type = "image/png";
  r.body = render::encode_png(cli::draw_figure(v, figure), {{"Title", item}, {"Source", data_}});
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

HttpReply ViewerApi::exported(const HttpRequest& request) {
  const std::string item = item_of(request);
  const std::string format = optional_text(request, "format", "csv");
  if (format != "csv" && format != "npy") {
    throw Refusal{400, fmt::format("format={}: csv or npy", format)};
  }
  TablePart t = table_part(tree_, item, data_);
  uint64_t elements = 1;
  for (size_t d : t.kept) elements *= static_cast<uint64_t>(t.slab.count[d]);
  const uint64_t unit = std::max<uint64_t>(t.ref.dtype.size(), 1);
  if (elements > kMaxExportBytes / unit) {
    throw Refusal{413, fmt::format("{} is {} elements: an export holds at most {} MiB; select "
                                   "a part",
                                   item, elements, kMaxExportBytes >> 20)};
  }
  // CSV goes through each value's JSON (tens of bytes a value in memory): fewer values.
  if (format == "csv" && elements > kMaxCsvValues) {
    throw Refusal{413, fmt::format("{} is {} elements: a CSV export holds at most {}; select a "
                                   "part, or export .npy",
                                   item, elements, kMaxCsvValues)};
  }
  if (format == "npy" && t.ref.mask) {
    throw Refusal{400, fmt::format("{} is masked, which .npy cannot say: export CSV (masked "
                                   "values are empty fields there)",
                                   item)};
  }
  const NDArray data = read_part(t, t.slab, deadline(), time_limit_, item);
  std::string name = t.ref.spec.path.substr(t.ref.spec.path.rfind('/') + 1);
  if (name.empty()) name = "root";
  HttpReply r;
  r.headers.emplace_back("Cache-Control", "no-store");
  if (format == "npy") {
    const DTypeKind k = data.dtype().kind();
    if (k == DTypeKind::kVLen || k == DTypeKind::kReference || k == DTypeKind::kPointer) {
      throw Refusal{400, fmt::format("{} holds {} values, which .npy cannot carry; export CSV",
                                     item, data.dtype().to_string())};
    }
    r.content_type = "application/octet-stream";
    r.headers.emplace_back("Content-Disposition",
                           fmt::format("attachment; filename=\"{}.npy\"", name));
    r.body = npy::make_header(data.dtype(), data.shape().dims());
    r.body.append(static_cast<const char*>(data.data()), data.byte_size());
    return r;
  }
  json all = cli::values_json(data);
  hide_masked(tree_, t, t.slab, data, all);
  r.content_type = "text/csv; charset=utf-8";
  r.headers.emplace_back("Content-Disposition",
                         fmt::format("attachment; filename=\"{}.csv\"", name));
  auto row_text = [](const json& row) {
    std::string line;
    if (!row.is_array()) return csv_text(row);
    for (size_t i = 0; i < row.size(); ++i) line += (i ? "," : "") + csv_text(row[i]);
    return line;
  };
  if (t.kept.size() == 2) {
    for (const json& row : all) r.body += row_text(row) + "\n";
  } else if (all.is_array()) {
    for (const json& v : all) r.body += csv_text(v) + "\n";
  } else {
    r.body = csv_text(all) + "\n";
  }
  return r;
}

}  // namespace dudley::view
