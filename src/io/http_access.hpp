// What a store read over HTTP adds to each request besides the transfer itself: where a
// key lives, what authenticates the request, where a redirect may lead, and what a failed
// answer says. A plain web server needs little (the key after the store's URL, anonymous,
// redirects followed on the same origin); S3 signs every request (AWS Signature V4), follows
// no redirect and explains its errors in XML (s3_store.cpp).
#pragma once

#include <curl/curl.h>

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "dudley/io/store.hpp"

namespace dudley::io {

/// The headers of an answer that its callers need.
struct AnswerHeaders {
  std::string content_range;  ///< a ranged answer's place in the whole value
  std::string etag;           ///< an uploaded part's name in a multipart upload
  std::string location;       ///< where a redirect points: absolute, as libcurl resolved it
  std::string bucket_region;  ///< S3's x-amz-bucket-region: the region a bucket is in
};

class HttpAccess {
 public:
  virtual ~HttpAccess() = default;
  /// The URL `key` is fetched from.
  virtual std::string url_of(const std::string& key) const = 0;
  /// Sets on `handle` what authenticates a request whose body is `body` (empty for a GET or
  /// HEAD), and adds the headers that go with it to `headers` (set on the handle by the
  /// caller). Nothing: anonymous. Called for every request, on any thread.
  virtual void authorize(CURL* handle, std::span<const std::byte> body,
                         std::vector<std::string>& headers) const {
    (void)handle;
    (void)body;
    (void)headers;
  }
  /// Throws Error(kData) naming `key` when it may not be requested: a key read from a
  /// store's own metadata must stay below the store's URL (a web server resolves ".."; S3
  /// keeps it as part of the key). Called before every request.
  virtual void check_key(const std::string& key) const { (void)key; }
  /// Whether a request to `from` may follow a redirect to `to`. A plain web server: only to
  /// the same scheme, host and port, the server the user named (its credentials stay there).
  virtual bool may_follow(const std::string& from, const std::string& to) const;
  /// The rule may_follow keeps, for the message of a redirect it refused.
  virtual std::string redirect_rule() const {
    return "a redirect is followed only to the same scheme, host and port";
  }
  /// Whether an answer of `status` with `body` means the key is absent (a missing value
  /// reads as absent, not as a failure).
  virtual bool absent(long status, std::string_view body) const {
    (void)body;
    return status == 404 || status == 410;
  }
  /// What a failed answer says, in a sentence ("" when the status says it all).
  virtual std::string failure(long status, std::string_view body,
                              const AnswerHeaders& headers) const {
    (void)status;
    (void)body;
    (void)headers;
    return {};
  }
};

/// A request other than a read (S3's writes, listings and multipart uploads).
struct HttpRequest {
  std::string method = "GET";  ///< "PUT", "POST", "DELETE"
  std::string key;             ///< the URL is HttpAccess::url_of(key)
  std::string query;           ///< appended after '?' when not empty ("uploadId=X&partNumber=1")
  /// The request's body (signed with it), sent as given; empty: none.
  std::span<const std::byte> body;
  /// The most of a successful answer's body kept; more fails the request.
  uint64_t max_answer = uint64_t{1} << 20;
};

/// What a request got: the status, the body, and the headers callers need (an uploaded
/// part's ETag; a redirect's target, which is never followed for S3).
struct HttpAnswer {
  long status = 0;
  Bytes body;
  AnswerHeaders headers;
};

/// A store reached over HTTP, which also sends requests other than reads.
class HttpStore : public Store {
 public:
  /// Sends `request` within the store's limits (tried again, with backoff, while it fails in
  /// a way that may pass) and returns the last answer, whatever its status. Error(kIo)
  /// naming the key when no answer came.
  virtual HttpAnswer send(const HttpRequest& request) const = 0;
  /// Throws Error(kIo) naming `key` and saying what the answer said (a redirect: where it
  /// pointed, redacted), unless `ok`.
  virtual void expect(bool ok, const std::string& key, long status, int tried = 1,
                      std::string_view body = {}, const AnswerHeaders& headers = {}) const = 0;
};

/// A store read over HTTP with `access` (named `name` in messages, redacted: no query, no
/// `user:password@`): sizes by HEAD, values and byte ranges by GET, batches with many
/// transfers in flight, within `limits`. A redirect is followed only where
/// `access.may_follow` allows (at most 5 in a row); any other is an Error(kIo) naming where
/// it pointed. Paths go as they are (CURLOPT_PATH_AS_IS): libcurl never resolves a key's
/// ".." into another place.
std::shared_ptr<HttpStore> open_http_store(std::string name,
                                           std::shared_ptr<const HttpAccess> access,
                                           const HttpLimits& limits);

}  // namespace dudley::io
