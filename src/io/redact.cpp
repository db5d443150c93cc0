#include "dudley/io/redact.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace dudley::io {
namespace {

// Whether `text` starts with `prefix`, ignoring ASCII case (URL schemes are case-insensitive).
bool starts_with_nocase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i]) return false;
  }
  return true;
}

constexpr std::array<std::string_view, 3> kSchemes = {"https://", "http://", "s3://"};

// The length of the scheme `text` starts with ("https://": 8), or 0.
size_t scheme_length(std::string_view text) {
  for (std::string_view s : kSchemes) {
    if (starts_with_nocase(text, s)) return s.size();
  }
  return 0;
}

// Characters that end a URL quoted in a message.
bool ends_url(char c) {
  return std::isspace(static_cast<unsigned char>(c)) || c == '\'' || c == '"' || c == '`' ||
         c == '<' || c == '>';
}

}  // namespace

std::string redacted_url(std::string_view url) {
  const size_t scheme = scheme_length(url);
  if (scheme == 0) return std::string(url);
  const bool s3 = starts_with_nocase(url, "s3://");
  // The authority: to the first '/' (and, for http, '?' or '#': they end it too).
  const std::string_view after = url.substr(scheme);
  const size_t authority_end = std::min(after.find_first_of(s3 ? "/" : "/?#"), after.size());
  const std::string_view authority = after.substr(0, authority_end);
  const size_t at = authority.rfind('@');
  std::string out(url.substr(0, scheme));
  out += at == std::string_view::npos ? authority : authority.substr(at + 1);
  std::string_view rest = after.substr(authority_end);
  if (!s3) rest = rest.substr(0, std::min(rest.find_first_of("?#"), rest.size()));
  out += rest;
  return out;
}

std::string redacted_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    if (scheme_length(text.substr(i)) == 0) {
      out += text[i++];
      continue;
    }
    size_t end = i;
    while (end < text.size() && !ends_url(text[end])) ++end;
    // Punctuation closing the URL belongs to the sentence ("URL: error: ...", "(URL)").
    while (end > i && std::string_view(":,;.)").find(text[end - 1]) != std::string_view::npos) {
      --end;
    }
    out += redacted_url(text.substr(i, end - i));
    i = end;
  }
  return out;
}

}  // namespace dudley::io
