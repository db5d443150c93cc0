#include "view/assets.hpp"

#include <cstdint>

extern "C" {
extern const char dudley_viewer_html_data[];
extern const uint64_t dudley_viewer_html_size;
extern const char dudley_viewer_js_data[];
extern const uint64_t dudley_viewer_js_size;
extern const char dudley_viewer_css_data[];
extern const uint64_t dudley_viewer_css_size;
}

namespace dudley::view {

std::string_view asset_html() {
  return {dudley_viewer_html_data, dudley_viewer_html_size};
}
std::string_view asset_js() {
  return {dudley_viewer_js_data, dudley_viewer_js_size};
}
std::string_view asset_css() {
  return {dudley_viewer_css_data, dudley_viewer_css_size};
}

}  // namespace dudley::view
