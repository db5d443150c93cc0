// The viewer's page, built from web/ (esbuild bundles web/src/*.ts) and carried inside the
// program (assets.S), so that it works offline, with no Node.js, network or CDN at run time.
#pragma once

#include <string_view>

namespace dudley::view {

std::string_view asset_html();  ///< web/index.html
std::string_view asset_js();    ///< the bundle of web/src/main.ts
std::string_view asset_css();   ///< web/viewer.css

}  // namespace dudley::view
