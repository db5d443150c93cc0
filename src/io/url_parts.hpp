// URLs taken apart by libcurl's own parser (curl_url), so that what a check decides about a
// URL (its host, its port, whether it has a query) is what libcurl then connects to: a
// redirect's target compared with where the request went, an S3 endpoint checked before any
// request, a web store's URL with its dot segments removed once.
#pragma once

#include <optional>
#include <string>

namespace dudley::io {

/// The parts of an absolute URL, as libcurl reads them. `port` is the port a request goes
/// to (the scheme's default when the URL names none); `user`, `query` and `fragment` are
/// empty when absent (`has_user`, `has_query` and `has_fragment` tell an empty one from an
/// absent one); `path` keeps its dot segments as written when parsed with `path_as_is`.
struct UrlParts {
  std::string scheme;  ///< lowercase: "http", "https"
  std::string host;    ///< lowercase; an IPv6 address in brackets
  std::string port;
  std::string path;  ///< "/" at least
  std::string query;
  bool has_user = false;
  bool has_query = false;
  bool has_fragment = false;
};

/// `url` taken apart by libcurl (http and https only), or nullopt when libcurl refuses it (no
/// scheme, another scheme, a bad host or port). With `path_as_is` the path keeps its "." and
/// ".." segments; without, they are resolved as a request would resolve them.
std::optional<UrlParts> parse_url(const std::string& url, bool path_as_is = false);

/// Whether `a` and `b` are URLs of the same origin (scheme, host and port): a redirect from
/// `a` to `b` reaches the server the user named. False when either cannot be parsed.
bool same_origin(const std::string& a, const std::string& b);

/// `url` as libcurl would request it without CURLOPT_PATH_AS_IS: its dot segments resolved
/// ("http://h/a/../b" gives "http://h/b"), its fragment dropped. `url` itself when libcurl
/// cannot parse it (the request then fails naming it).
std::string resolved_url(const std::string& url);

}  // namespace dudley::io
