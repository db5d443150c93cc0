// What a store read over HTTP adds to each request besides the transfer itself: where a
// key lives, what authenticates the request, and what a failed answer says. A plain web
// server needs nothing (the key after the store's URL, anonymous); S3 signs every request
// (AWS Signature V4) and explains its errors in XML (s3_store.cpp).
#pragma once

#include <curl/curl.h>

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "dudley/io/store.hpp"

namespace dudley::io {

class HttpAccess {
 public:
  virtual ~HttpAccess() = default;
  /// The URL `key` is fetched from.
  virtual std::string url_of(const std::string& key) const = 0;
  /// Sets on `handle` what authenticates a request (nothing: anonymous), and adds the
  /// headers that go with it to `headers` (set on the handle by the caller). Called for
  /// every request, on any thread.
  virtual void authorize(CURL* handle, std::vector<std::string>& headers) const {
    (void)handle;
    (void)headers;
  }
  /// Whether an answer of `status` with `body` means the key is absent (a missing value
  /// reads as absent, not as a failure).
  virtual bool absent(long status, std::string_view body) const {
    (void)body;
    return status == 404 || status == 410;
  }
  /// What a failed answer says, in a sentence ("" when the status says it all).
  virtual std::string failure(long status, std::string_view body) const {
    (void)status;
    (void)body;
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

/// What a request got: the status, the body, and the ETag header (an uploaded part's name).
struct HttpAnswer {
  long status = 0;
  Bytes body;
  std::string etag;
};

/// A store reached over HTTP, which also sends requests other than reads.
class HttpStore : public Store {
 public:
  /// Sends `request` within the store's limits (tried again, with backoff, while it fails in
  /// a way that may pass) and returns the last answer, whatever its status. Error(kIo)
  /// naming the key when no answer came.
  virtual HttpAnswer send(const HttpRequest& request) const = 0;
  /// Throws Error(kIo) naming `key` and saying what the answer said, unless `ok`.
  virtual void expect(bool ok, const std::string& key, long status, int tried = 1,
                      std::string_view body = {}) const = 0;
};

/// A store read over HTTP with `access` (named `name` in messages): sizes by HEAD, values
/// and byte ranges by GET, batches with many transfers in flight, within `limits`.
std::shared_ptr<HttpStore> open_http_store(std::string name,
                                           std::shared_ptr<const HttpAccess> access,
                                           const HttpLimits& limits);

}  // namespace dudley::io
