// What a store read over HTTP adds to each request besides the transfer itself: where a
// key lives, what authenticates the request, and what a failed answer says. A plain web
// server needs nothing (the key after the store's URL, anonymous); S3 signs every request
// (AWS Signature V4) and explains its errors in XML (s3_store.cpp).
#pragma once

#include <curl/curl.h>

#include <memory>
#include <string>
#include <string_view>

#include "dudley/io/store.hpp"

namespace dudley::io {

class HttpAccess {
 public:
  virtual ~HttpAccess() = default;
  /// The URL `key` is fetched from.
  virtual std::string url_of(const std::string& key) const = 0;
  /// Sets on `handle` what authenticates a request (nothing: anonymous). Called for every
  /// request, on any thread.
  virtual void authorize(CURL* handle) const { (void)handle; }
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

/// A store read over HTTP with `access` (named `name` in messages): sizes by HEAD, values
/// and byte ranges by GET, batches with many transfers in flight, within `limits`.
std::shared_ptr<Store> open_http_store(std::string name, std::shared_ptr<const HttpAccess> access,
                                       const HttpLimits& limits);

}  // namespace dudley::io
