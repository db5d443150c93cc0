#include "io/url_parts.hpp"

#include <cctype>
#include <memory>

#include "io/curl_library.hpp"

namespace dudley::io {
namespace {

struct UrlFree {
  void operator()(CURLU* u) const { curl().url_cleanup(u); }
};
using UrlHandle = std::unique_ptr<CURLU, UrlFree>;

// `url` in a handle of libcurl's URL parser, or null when it refuses it.
UrlHandle parsed(const std::string& url, unsigned int flags) {
  UrlHandle u(curl().url());
  if (!u || curl().url_set(u.get(), CURLUPART_URL, url.c_str(), flags) != CURLUE_OK) return {};
  return u;
}

// One part of a parsed URL; nullopt when the URL has none.
std::optional<std::string> part(CURLU* u, CURLUPart which, unsigned int flags = 0) {
  char* text = nullptr;
  if (curl().url_get(u, which, &text, flags) != CURLUE_OK || text == nullptr) return std::nullopt;
  std::string out(text);
  curl().free(text);
  return out;
}

std::string lowercase(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace

std::optional<UrlParts> parse_url(const std::string& url, bool path_as_is) {
  const UrlHandle u = parsed(url, path_as_is ? CURLU_PATH_AS_IS : 0);
  if (!u) return std::nullopt;
  UrlParts p;
  p.scheme = lowercase(part(u.get(), CURLUPART_SCHEME).value_or(""));
  if (p.scheme != "http" && p.scheme != "https") return std::nullopt;
  const std::optional<std::string> host = part(u.get(), CURLUPART_HOST);
  const std::optional<std::string> port = part(u.get(), CURLUPART_PORT, CURLU_DEFAULT_PORT);
  if (!host || host->empty() || !port) return std::nullopt;
  p.host = lowercase(*host);
  p.port = *port;
  p.path = part(u.get(), CURLUPART_PATH).value_or("/");
  const std::optional<std::string> query = part(u.get(), CURLUPART_QUERY);
  p.has_query = query.has_value();
  p.query = query.value_or("");
  p.has_user = part(u.get(), CURLUPART_USER).has_value() ||
               part(u.get(), CURLUPART_PASSWORD).has_value() ||
               part(u.get(), CURLUPART_OPTIONS).has_value();
  p.has_fragment = part(u.get(), CURLUPART_FRAGMENT).has_value();
  return p;
}

bool same_origin(const std::string& a, const std::string& b) {
  const std::optional<UrlParts> x = parse_url(a, true), y = parse_url(b, true);
  return x && y && x->scheme == y->scheme && x->host == y->host && x->port == y->port;
}

std::string resolved_url(const std::string& url) {
  const UrlHandle u = parsed(url, 0);
  if (!u) return url;
  // The fragment never goes to the server; without it, a key appended after the path stays
  // in the path.
  curl().url_set(u.get(), CURLUPART_FRAGMENT, nullptr, 0);
  return part(u.get(), CURLUPART_URL).value_or(url);
}

}  // namespace dudley::io
