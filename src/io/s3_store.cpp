// S3 and S3-compatible object stores, read over HTTP (http_store.cpp) with every request
// signed by libcurl's AWS Signature V4, keys addressed path-style or virtual-hosted, and
// listings by ListObjectsV2, page after page.
#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <set>

#include "dudley/core/error.hpp"
#include "dudley/io/store.hpp"
#include "io/curl_library.hpp"
#include "io/http_access.hpp"
#include "io/s3_config.hpp"
#include "io/s3_upload.hpp"
#include "io/s3_xml.hpp"

namespace dudley::io {
namespace {

// The largest listing page read (S3 sends at most 1,000 keys a page, some 300 KB).
constexpr uint64_t kMaxListPage = uint64_t{64} << 20;

// A bucket's requests: their URLs, their signature, what S3's errors say.
class S3Access final : public HttpAccess {
 public:
  explicit S3Access(S3Config config) : c_(std::move(config)) {
    const size_t scheme = c_.endpoint.find("://") + 3;
    bucket_url_ = c_.path_style ? c_.endpoint + "/" + url_escaped(c_.bucket, false)
                                : c_.endpoint.substr(0, scheme) + c_.bucket + "." +
                                      c_.endpoint.substr(scheme);
    if (c_.key) {
      signature_ = "aws:amz:" + c_.region + ":s3";
      userpwd_ = *c_.key + ":" + *c_.secret;
    }
  }

  const S3Config& config() const { return c_; }

  /// The object key of `key` (below the store's prefix).
  std::string object_key(const std::string& key) const {
    if (c_.prefix.empty()) return key;
    return key.empty() ? c_.prefix : c_.prefix + "/" + key;
  }

  // A key starting with '?' is a request of the bucket itself (a listing's query).
  std::string url_of(const std::string& key) const override {
    if (!key.empty() && key.front() == '?') return bucket_url_ + "/" + key;
    return bucket_url_ + "/" + url_escaped(object_key(key), true);
  }

  void authorize(CURL* handle, std::vector<std::string>& headers) const override {
    if (!c_.key) return;
    curl().easy_setopt(handle, CURLOPT_AWS_SIGV4, signature_.c_str());
    curl().easy_setopt(handle, CURLOPT_USERPWD, userpwd_.c_str());
    if (c_.token) headers.push_back("x-amz-security-token: " + *c_.token);
  }

  // A missing key, not a missing bucket (a HEAD's 404 has no body to tell: a missing key).
  bool absent(long status, std::string_view body) const override {
    if (status != 404) return false;
    const S3ErrorText e = parse_s3_error(body);
    return e.code.empty() || e.code == "NoSuchKey";
  }

  std::string failure(long status, std::string_view body) const override {
    const S3ErrorText e = parse_s3_error(body);
    std::string why = e.code.empty() ? fmt::format("S3 answered HTTP {}", status)
                                     : fmt::format("{}: {}", e.code, e.message);
    const bool credentials = status == 403 || e.code == "InvalidAccessKeyId" ||
                             e.code == "SignatureDoesNotMatch" || e.code == "ExpiredToken";
    if (credentials) {
      why += fmt::format(" (check the credentials: {}; region {})", c_.credentials_from, c_.region);
    }
    return why;
  }

 private:
  S3Config c_;
  std::string bucket_url_;
  std::string signature_, userpwd_;
};

class S3Store final : public Store {
 public:
  S3Store(std::shared_ptr<const S3Access> access, const HttpLimits& limits)
      : access_(std::move(access)) {
    const S3Config& c = access_->config();
    name_ = "s3://" + c.bucket + (c.prefix.empty() ? "" : "/" + c.prefix);
    http_ = open_http_store(name_, access_, limits);
  }

  const std::string& name() const override { return name_; }
  std::optional<uint64_t> size(const std::string& key) const override { return http_->size(key); }
  void read(const std::string& key, uint64_t offset, uint64_t length,
            std::byte* out) const override {
    http_->read(key, offset, length, out);
  }
  std::optional<uint64_t> read_tail(const std::string& key, uint64_t length,
                                    std::byte* out) const override {
    return http_->read_tail(key, length, out);
  }
  bool remote() const override { return true; }
  void read_many(std::span<RangeRequest> requests) const override { http_->read_many(requests); }

  bool writable() const override { return true; }
  void write_many(std::span<const WriteRequest> values) override { s3_write_many(*http_, values); }
  void erase_many(std::span<const std::string> keys) override { s3_erase_many(*http_, keys); }

  std::vector<std::string> subdirectories(const std::string& prefix) const override {
    const std::string start = listing_start(prefix);
    std::set<std::string> names;
    list(start, true, [&](const std::string& key, bool is_prefix) {
      if (!is_prefix || key.size() <= start.size()) return;
      std::string name = key.substr(start.size());
      while (!name.empty() && name.back() == '/') name.pop_back();
      if (!name.empty() && name.front() != '.') names.insert(std::move(name));
    });
    return {names.begin(), names.end()};
  }

  bool for_each_key(const std::string& prefix,
                    const std::function<void(std::string_view)>& visit) const override {
    const std::string start = listing_start(prefix);
    list(start, false, [&](const std::string& key, bool is_prefix) {
      if (!is_prefix && key.size() > start.size())
        visit(std::string_view(key).substr(start.size()));
    });
    return true;
  }

  /// Throws Error naming the bucket when it does not exist (any other refusal, such as a
  /// listing the credentials may not make, is left for the reads to meet).
  void check_bucket() const {
    const std::string query =
        "?list-type=2&max-keys=1&prefix=" + url_escaped(access_->object_key(""), false);
    try {
      (void)http_->get(query, kMaxListPage);
    } catch (const Error& e) {
      if (e.message().find("NoSuchBucket") != std::string::npos) {
        throw Error(e.category(), e.message(), Location::file("s3://" + access_->config().bucket));
      }
    }
  }

 private:
  // The object keys' start for the store's `prefix` ("" or "a/b"), with its trailing '/'.
  std::string listing_start(const std::string& prefix) const {
    const std::string k = access_->object_key(prefix);
    return k.empty() ? k : k + "/";
  }

  // Calls `visit` with every key (and, with `delimited`, every common prefix) starting with
  // `start`, page after page.
  void list(const std::string& start, bool delimited,
            const std::function<void(const std::string&, bool)>& visit) const {
    std::string token;
    for (;;) {
      // The parameters in the order a signature's canonical query puts them (libcurl 7.88
      // signs the query as it is given).
      std::string query = "?";
      if (!token.empty()) query += "continuation-token=" + url_escaped(token, false) + "&";
      if (delimited) query += "delimiter=%2F&";
      query += "list-type=2&prefix=" + url_escaped(start, false);
      const std::string where = "s3://" + access_->config().bucket + "/" + start;
      std::optional<Bytes> body;
      try {
        body = http_->get(query, kMaxListPage);
      } catch (const Error& e) {  // named by the prefix listed, not by the query
        throw Error(e.category(), "listing: " + e.message(), Location::file(where));
      }
      if (!body) {
        throw Error(ErrorCategory::kIo, "the listing was not found", Location::file(where));
      }
      const S3ListPage page =
          parse_s3_list({reinterpret_cast<const char*>(body->data()), body->size()}, where);
      for (const std::string& k : page.keys) visit(k, false);
      for (const std::string& p : page.prefixes) visit(p, true);
      if (!page.truncated) return;
      if (page.next_token == token) {
        throw Error(ErrorCategory::kData, "the listing repeats its continuation token",
                    Location::file(where));
      }
      token = page.next_token;
    }
  }

  std::string name_;
  std::shared_ptr<const S3Access> access_;
  std::shared_ptr<HttpStore> http_;
};

}  // namespace

bool is_s3_url(const std::string& path) {
  return path.rfind("s3://", 0) == 0;
}

std::shared_ptr<Store> open_s3_store(const std::string& url, const S3Options& options) {
  auto access = std::make_shared<const S3Access>(resolve_s3(url, options));
  auto store = std::make_shared<S3Store>(access, options.limits);
  // A bucket found once is not asked for again by this process: a family of 1,000 members
  // would otherwise cost 1,000 listings besides its reads.
  static std::mutex mutex;
  static std::set<std::string> found;
  const S3Config& c = access->config();
  const std::string bucket = c.endpoint + "/" + c.bucket + " " + c.credentials_from;
  {
    const std::lock_guard<std::mutex> hold(mutex);
    if (found.count(bucket)) return store;
  }
  store->check_bucket();
  const std::lock_guard<std::mutex> hold(mutex);
  found.insert(bucket);
  return store;
}

std::shared_ptr<Store> open_store(const std::string& path_or_url, const StoreOptions& options) {
  if (is_s3_url(path_or_url)) return open_s3_store(path_or_url, options.s3);
  if (path_or_url.rfind("http://", 0) == 0 || path_or_url.rfind("https://", 0) == 0)
    return open_http_store(path_or_url, options.http);
  if (path_or_url.rfind("file://", 0) == 0) return open_directory_store(path_or_url.substr(7));
  return open_directory_store(path_or_url);
}

}  // namespace dudley::io
