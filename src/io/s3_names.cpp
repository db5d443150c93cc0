#include "io/s3_names.hpp"

#include <fmt/format.h>

#include "dudley/core/error.hpp"
#include "dudley/io/redact.hpp"
#include "io/url_parts.hpp"

namespace dudley::io {
namespace {

bool lower_or_digit(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
bool alnum(char c) {
  return lower_or_digit(c) || (c >= 'A' && c <= 'Z');
}

// Whether `name` is four dot-separated numbers of 1 to 3 digits ("192.168.5.4"): AWS takes
// no bucket name formatted as an IP address.
bool ipv4_form(std::string_view name) {
  int parts = 0;
  size_t at = 0;
  while (at <= name.size()) {
    const size_t dot = std::min(name.find('.', at), name.size());
    const std::string_view part = name.substr(at, dot - at);
    if (part.empty() || part.size() > 3) return false;
    for (char c : part) {
      if (c < '0' || c > '9') return false;
    }
    ++parts;
    at = dot + 1;
  }
  return parts == 4;
}

bool ends_with(std::string_view text, std::string_view end) {
  return text.size() >= end.size() && text.substr(text.size() - end.size()) == end;
}

}  // namespace

std::string bucket_name_problem(std::string_view bucket, bool legacy) {
  const size_t most = legacy ? 255 : 63;
  if (bucket.size() < 3 || bucket.size() > most) {
    return fmt::format("the bucket name {:?} has {} characters: a bucket name has 3 to {}", bucket,
                       bucket.size(), most);
  }
  for (char c : bucket) {
    const bool ok = lower_or_digit(c) || c == '.' || c == '-' ||
                    (legacy && ((c >= 'A' && c <= 'Z') || c == '_'));
    if (!ok) {
      return fmt::format(
          "the bucket name {:?} holds {:?}: a bucket name holds lowercase letters, digits, '.' "
          "and '-'{}",
          bucket, c, legacy ? " (and, on this endpoint, uppercase letters and '_')" : "");
    }
  }
  if (!alnum(bucket.front()) || !alnum(bucket.back())) {
    return fmt::format("the bucket name {:?} does not start and end with a letter or digit",
                       bucket);
  }
  if (bucket.find("..") != std::string_view::npos) {
    return fmt::format("the bucket name {:?} holds \"..\"", bucket);
  }
  if (ipv4_form(bucket)) {
    return fmt::format("the bucket name {:?} is an IP address", bucket);
  }
  return {};
}

std::string region_problem(std::string_view region, std::string_view from) {
  bool ok = !region.empty() && region.size() <= 64 && lower_or_digit(region.front()) &&
            lower_or_digit(region.back());
  for (char c : region) ok = ok && (lower_or_digit(c) || c == '-');
  if (ok) return {};
  return fmt::format(
      "the region {:?} ({}) is no region name: lowercase letters, digits and '-' "
      "(us-gov-west-1)",
      region, from);
}

bool is_aws_host(std::string_view host) {
  for (std::string_view domain : {"amazonaws.com", "amazonaws.com.cn"}) {
    if (host == domain || ends_with(host, "." + std::string(domain))) return true;
  }
  return false;
}

std::string aws_endpoint(std::string_view region) {
  const bool china = region.substr(0, 3) == "cn-";
  return fmt::format("https://s3.{}.amazonaws.com{}", region, china ? ".cn" : "");
}

std::string checked_endpoint(const std::string& url, std::string_view from) {
  const auto refuse = [&](std::string_view why) {
    return Error(ErrorCategory::kUsage,
                 fmt::format("the S3 endpoint {} (from {}) {}: give scheme, host and port only "
                             "(https://minio.example.org:9000)",
                             redacted_url(url), from, why));
  };
  const std::optional<UrlParts> p = parse_url(url, /*path_as_is=*/true);
  if (!p) throw refuse("is no http:// or https:// URL with a host");
  if (p->has_user) throw refuse("carries a user name or password (credentials never go in it)");
  if (p->has_query || p->has_fragment) throw refuse("has a query or fragment");
  if (p->path != "/") throw refuse(fmt::format("has a path ({:?})", p->path));
  const bool default_port =
      (p->scheme == "http" && p->port == "80") || (p->scheme == "https" && p->port == "443");
  return p->scheme + "://" + p->host + (default_port ? "" : ":" + p->port);
}

std::optional<std::string> aws_region_redirect(long status, std::string_view bucket_region,
                                               bool aws, std::string_view region) {
  if (!aws || (status != 301 && status != 307 && status != 400)) return std::nullopt;
  if (bucket_region == region || !region_problem(bucket_region, "").empty()) return std::nullopt;
  return std::string(bucket_region);
}

}  // namespace dudley::io
