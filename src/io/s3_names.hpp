// The names that say where an S3 request goes, checked before any request is made: a
// bucket name and a region are pasted into a host name (bucket.s3.REGION.amazonaws.com), so
// a name S3 would not take ("127.0.0.1:8080#", "x@evil") could send the request, signed,
// to another host. Checked as AWS checks them; the endpoint by libcurl's own URL parser.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace dudley::io {

/// Why `bucket` is not a bucket name of AWS's rules, in a sentence naming it; "" when it is
/// one: 3 to 63 characters of lowercase letters, digits, '.' and '-', starting and ending
/// with a letter or digit, no "..", not an IPv4 address. With `legacy`, also the names S3
/// took before 2018 and S3-compatible stores still take (uppercase letters and '_', up to
/// 255 characters): used only for path-style requests to an endpoint other than AWS's,
/// where the name is a path segment and never part of a host name.
std::string bucket_name_problem(std::string_view bucket, bool legacy);

/// Why `region` is not a region name (lowercase letters, digits and '-', starting and
/// ending with a letter or digit, at most 64 characters: "us-gov-west-1"), in a sentence
/// naming it and `from` (where it was given: "--region", "AWS_REGION"); "" when it is one.
std::string region_problem(std::string_view region, std::string_view from);

/// Whether `host` is one of AWS's (amazonaws.com, amazonaws.com.cn, or a name under them).
bool is_aws_host(std::string_view host);

/// AWS's S3 endpoint in `region`: "https://s3.REGION.amazonaws.com" (".com.cn" in China).
std::string aws_endpoint(std::string_view region);

/// The endpoint `url` as requests use it, "scheme://host[:port]" (an explicit port kept
/// unless it is the scheme's default). Throws Error(kUsage) naming the endpoint (redacted)
/// and `from` unless libcurl reads it as an http:// or https:// URL with a host and nothing
/// but "/" after it: no user name or password, path, query or fragment.
std::string checked_endpoint(const std::string& url, std::string_view from);

/// The region an answer sends a request to when it is AWS's region redirect: a 301, 307 or
/// 400 with x-amz-bucket-region `bucket_region` (a region name, another than `region`) from
/// AWS's own endpoint (`aws`). nullopt for any other answer, which is then no redirect to
/// follow.
std::optional<std::string> aws_region_redirect(long status, std::string_view bucket_region,
                                               bool aws, std::string_view region);

}  // namespace dudley::io
