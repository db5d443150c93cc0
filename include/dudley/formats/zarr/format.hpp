// The Zarr format's registration with the format registry.
#pragma once

#include <optional>

#include "dudley/format.hpp"

namespace dudley::zarr {

/// How Zarr stores are read.
struct ZarrOpenOptions : FormatOptions {
  static constexpr const char* kFormat = "zarr";
  /// A store on a web server: the most one request may take (--http-timeout), and all of a
  /// store's requests together (--http-deadline, 0: none), in seconds; unset: the
  /// environment's (DUDLEY_HTTP_TIMEOUT, DUDLEY_HTTP_DEADLINE), else io::HttpLimits' defaults.
  std::optional<double> http_timeout;
  std::optional<double> http_deadline;
};

/// Adds the "zarr" format: a directory store (extension .zarr) recognised by its zarr.json.
void register_zarr_format(FormatRegistry& registry);

}  // namespace dudley::zarr
