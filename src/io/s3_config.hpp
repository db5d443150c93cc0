// Where an S3 store is and how its requests are signed, resolved as the AWS tools resolve
// them: options given, the environment, then the profile in ~/.aws/credentials and
// ~/.aws/config. The bucket, region and endpoint are checked here, before any request
// (s3_names.hpp).
#pragma once

#include <optional>
#include <string>

#include "dudley/io/store.hpp"

namespace dudley::io {

struct S3Config {
  std::string bucket;
  std::string prefix;    ///< the keys' common start, without its trailing '/': "" or "a/b"
  std::string region;    ///< signed into every request
  std::string endpoint;  ///< scheme and host (and port): "https://s3.us-east-1.amazonaws.com"
  /// The endpoint is AWS's own (a host under amazonaws.com): its region redirects are
  /// followed, once, to the bucket's region, when the endpoint came from the region too.
  bool aws = false;
  /// The endpoint was not given: AWS's in the region (so another region moves it).
  bool endpoint_from_region = false;
  bool path_style = true;
  std::optional<std::string> key, secret, token;  ///< no key: requests go unsigned
  /// Where the credentials came from, for messages ("profile dev in ~/.aws/credentials",
  /// "AWS_ACCESS_KEY_ID", "none: requests are unsigned").
  std::string credentials_from;
};

/// Resolves `url` (s3://BUCKET[/PREFIX]) with `options`. Throws Error(kUsage), before any
/// request, for a URL without a bucket, a bucket name, region or endpoint S3 would not take
/// (s3_names.hpp), a profile named but found nowhere, a key without its secret, or a
/// credential holding a control character (never printed).
S3Config resolve_s3(const std::string& url, const S3Options& options);

/// The URL of the bucket of `c`: "ENDPOINT/BUCKET" path-style, "https://BUCKET.HOST"
/// virtual-hosted.
std::string s3_bucket_url(const S3Config& c);

/// The URL of `object_key` (a whole key, "" for none) in the bucket of `c`: each segment
/// escaped as Signature V4 wants it (every byte but A-Z a-z 0-9 - . _ ~), "." and ".."
/// kept, so that the path sent, the path signed and the key S3 stores are one.
std::string s3_object_url(const S3Config& c, const std::string& object_key);

/// `c` moved to AWS's endpoint in `region` (an AWS region redirect): signed for it, its
/// endpoint that region's.
S3Config in_region(S3Config c, const std::string& region);

}  // namespace dudley::io
