// Where an S3 store is and how its requests are signed, resolved as the AWS tools resolve
// them: options given, the environment, then the profile in ~/.aws/credentials and
// ~/.aws/config.
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
  bool path_style = true;
  std::optional<std::string> key, secret, token;  ///< no key: requests go unsigned
  /// Where the credentials came from, for messages ("profile dev in ~/.aws/credentials",
  /// "AWS_ACCESS_KEY_ID", "none: requests are unsigned").
  std::string credentials_from;
};

/// Resolves `url` (s3://BUCKET[/PREFIX]) with `options`. Throws Error(kUsage) for a URL
/// without a bucket, a profile named but found nowhere, or a key without its secret.
S3Config resolve_s3(const std::string& url, const S3Options& options);

}  // namespace dudley::io
