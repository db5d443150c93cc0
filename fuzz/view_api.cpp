// libFuzzer target for the viewer's JSON API (src/view/api.hpp), what `dudley view` answers
// on 127.0.0.1: input = the request path on the first line, then one KEY=VALUE a line
// (already decoded, as the transport hands them over: any bytes). The tree is fixed: arrays
// of every kind the viewer draws (2-D floats with NaN and infinities, 3-D integers, a line,
// text, complex numbers, an RGB image). Whatever the request, the answer is one of the
// statuses the API documents, never 500; a JSON answer is UTF-8 text; memory and time stay
// bounded (the API's own limits).
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "dudley/core/text.hpp"
#include "dudley/io/byte_source.hpp"
#include "dudley/layout/bind/to_model.hpp"
#include "dudley/layout/syntax/parser.hpp"
#include "view/api.hpp"
#include "view/assets.hpp"

// The page's files are carried by the program (src/view/assets.S, from the esbuild bundle);
// the API is what is fuzzed here, so they are empty.
namespace dudley::view {
std::string_view asset_html() {
  return "<!doctype html>";
}
std::string_view asset_js() {
  return "";
}
std::string_view asset_css() {
  return "";
}
}  // namespace dudley::view

namespace {

constexpr std::string_view kLayout = R"(grid = <f8[16, 24] @ 0
cube = <i2[4, 8, 6] @ 3072
line = <f4[100] @ 3456
name = S1[5, 8] @ 3856
z = <c16[6, 5] @ 3896
rgb = u1[8, 8, 3] @ 4376
)";
constexpr size_t kDataBytes = 4568;

template <typename T>
void put(std::vector<uint8_t>& bytes, size_t offset, T value) {
  std::memcpy(bytes.data() + offset, &value, sizeof value);
}

std::vector<uint8_t> make_data() {
  std::vector<uint8_t> bytes(kDataBytes);
  for (size_t i = 0; i < 16 * 24; ++i) {
    const double v = i % 7 == 3    ? std::numeric_limits<double>::quiet_NaN()
                     : i % 29 == 5 ? std::numeric_limits<double>::infinity()
                                   : std::sin(static_cast<double>(i)) * 1e3;
    put(bytes, 8 * i, v);
  }
  for (size_t i = 0; i < 4 * 8 * 6; ++i) put(bytes, 3072 + 2 * i, static_cast<int16_t>(i * 97));
  for (size_t i = 0; i < 100; ++i) put(bytes, 3456 + 4 * i, static_cast<float>(i) - 50.0f);
  const std::string_view text = "alpha   beta\xff\xfe  gamma   delta   \xb5m      ";
  std::memcpy(bytes.data() + 3856, text.data(), 40);
  for (size_t i = 0; i < 2 * 6 * 5; ++i) put(bytes, 3896 + 8 * i, static_cast<double>(i) - 3.5);
  for (size_t i = 0; i < 8 * 8 * 3; ++i) bytes[4376 + i] = static_cast<uint8_t>(i * 5);
  return bytes;
}

dudley::view::ViewerApi& api() {
  static const std::vector<uint8_t> data = make_data();
  static dudley::view::ViewerApi* instance = [] {
    auto parsed = dudley::layout::parse_layout(kLayout);
    if (!parsed.ok()) std::abort();
    auto layout = std::make_shared<const dudley::layout::Layout>(std::move(parsed.layout));
    auto source = dudley::io::memory_source(data.data(), data.size(), "fuzz.bin");
    dudley::layout::BindOptions options;
    options.default_order = dudley::ByteOrder::kLittle;
    auto* a = new dudley::view::ViewerApi(dudley::layout::dudley_tree(layout, source, options),
                                          "fuzz.bin", std::chrono::milliseconds(2000));
    a->set_listening("127.0.0.1", 8000);
    return a;
  }();
  return *instance;
}

bool documented(int status) {
  for (int s : {200, 204, 400, 403, 404, 405, 413, 503}) {
    if (status == s) return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  dudley::view::HttpRequest request;
  request.host = "127.0.0.1:8000";
  size_t line_end = input.find('\n');
  request.path = std::string(input.substr(0, line_end));
  while (line_end != std::string_view::npos && request.query.size() < 16) {
    const size_t start = line_end + 1;
    line_end = input.find('\n', start);
    const std::string_view line = input.substr(
        start, line_end == std::string_view::npos ? std::string_view::npos : line_end - start);
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    request.query.emplace(std::string(line.substr(0, eq)), std::string(line.substr(eq + 1)));
  }
  const dudley::view::HttpReply reply = api().handle(request);
  if (!documented(reply.status)) std::abort();
  if (reply.content_type.starts_with("application/json") && !dudley::is_utf8(reply.body))
    std::abort();
  return 0;
}
