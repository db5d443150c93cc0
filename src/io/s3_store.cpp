// S3 and S3-compatible object stores, read over HTTP (http_store.cpp) with every request
// signed by libcurl's AWS Signature V4, keys addressed path-style or virtual-hosted, and
// listings by ListObjectsV2, page after page. Requests go only to the endpoint: no redirect
// is followed but AWS's region redirect, once, when the store is opened.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <set>

#include "dudley/core/digest.hpp"
#include "dudley/core/error.hpp"
#include "dudley/io/store.hpp"
#include "io/curl_library.hpp"
#include "io/http_access.hpp"
#include "io/s3_config.hpp"
#include "io/s3_names.hpp"
#include "io/s3_upload.hpp"
#include "io/s3_xml.hpp"

namespace dudley::io {
namespace {

// The largest listing page read (S3 sends at most 1,000 keys a page, some 300 KB).
constexpr uint64_t kMaxListPage = uint64_t{64} << 20;
// The longest continuation token taken (S3's are a few hundred bytes): every token of a
// listing is kept to find one that comes again.
constexpr size_t kMaxToken = size_t{16} << 10;
// The most keys one listing names (10^7: the chunks of a 10 TB array of 1 MB chunks).
constexpr uint64_t kMaxListed = 10000000;
// Empty pages in a row that say more follow, before the listing is taken for a runaway.
constexpr uint64_t kMaxEmptyPages = 100;

// A bucket's requests: their URLs, their signature, what S3's errors say.
// Whether S3's error `code` refuses the credentials themselves (every request would fail
// alike), not one request.
bool credentials_refused(const std::string& code) {
  return code == "SignatureDoesNotMatch" || code == "InvalidAccessKeyId" ||
         code == "ExpiredToken" || code == "InvalidToken" || code == "TokenRefreshRequired" ||
         code == "AuthorizationHeaderMalformed";
}

// The SHA-256 of no bytes, the body hash of every GET, HEAD and DELETE.
const std::string& empty_body_hash() {
  static const std::string hash = digest_hex(sha256({}));
  return hash;
}

class S3Access final : public HttpAccess {
 public:
  explicit S3Access(S3Config config) : c_(std::move(config)), bucket_url_(s3_bucket_url(c_)) {
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

  // A key starting with '?' is a request of the bucket itself (a listing's query). Each
  // segment of a key is escaped as Signature V4 wants (all but unreserved characters), and
  // sent as it is: "s3://bucket/../other/x" is key "../other/x" of bucket "bucket".
  std::string url_of(const std::string& key) const override {
    if (!key.empty() && key.front() == '?') return bucket_url_ + "/" + key;
    return s3_object_url(c_, object_key(key));
  }

  // A request of S3 goes to the endpoint and nowhere else: a redirect to another host would
  // take the signed request and the session token with it.
  bool may_follow(const std::string&, const std::string&) const override { return false; }
  std::string redirect_rule() const override {
    return "S3 requests go only to the endpoint; a bucket in another region needs --region";
  }

  // Signature V4 by libcurl, with the body's SHA-256 in x-amz-content-sha256: S3 requires
  // the header on every signed request (AWS, R2 and s3rver refuse one without it), and the
  // libcurl of Debian 12 (7.88) adds none of its own. libcurl signs the x-amz-* headers it
  // is given, and hashes the same body into the signature.
  void authorize(CURL* handle, std::span<const std::byte> body,
                 std::vector<std::string>& headers) const override {
    if (!c_.key) return;
    curl().easy_setopt(handle, CURLOPT_AWS_SIGV4, signature_.c_str());
    curl().easy_setopt(handle, CURLOPT_USERPWD, userpwd_.c_str());
    headers.push_back("x-amz-content-sha256: " +
                      (body.empty() ? empty_body_hash() : digest_hex(sha256(body))));
    if (c_.token) headers.push_back("x-amz-security-token: " + *c_.token);
  }

  // A missing key, not a missing bucket (a HEAD's 404 has no body to tell: a missing key).
  bool absent(long status, std::string_view body) const override {
    if (status != 404) return false;
    const S3ErrorText e = parse_s3_error(body);
    return e.code.empty() || e.code == "NoSuchKey";
  }

  std::string failure(long status, std::string_view body,
                      const AnswerHeaders& headers) const override {
    const S3ErrorText e = parse_s3_error(body);
    std::string why;
    if (!e.code.empty()) {
      why = fmt::format("{}: {}", e.code, e.message);
    } else if (status < 300 || status >= 400) {
      why = fmt::format("S3 answered HTTP {}", status);
    }
    const bool credentials = status == 403 || e.code == "InvalidAccessKeyId" ||
                             e.code == "SignatureDoesNotMatch" || e.code == "ExpiredToken";
    if (credentials) {
      why += fmt::format(" (check the credentials: {}; region {})", c_.credentials_from, c_.region);
    }
    // A region from the server is shown only when it is a region name.
    if (!headers.bucket_region.empty() && headers.bucket_region != c_.region &&
        region_problem(headers.bucket_region, "").empty()) {
      why += fmt::format("{}the bucket is in region {} (--region {})", why.empty() ? "" : "; ",
                         headers.bucket_region, headers.bucket_region);
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
      // Every name, "" (of "a//b"), "." and ".." too: the reader says why such a one is not
      // a node, rather than leaving what the bucket holds out silently.
      names.insert(std::move(name));
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

  /// Asks for one key of the store's prefix: throws Error naming the bucket when it does not
  /// exist, or naming where S3 points when it answers with a redirect; returns the region
  /// to move to when the answer is AWS's region redirect (aws_region_redirect), or naming
  /// S3's code when the credentials themselves are refused (a wrong secret fails every
  /// request, and only this answer has a body that says so: a HEAD's has none). Any other
  /// refusal, such as a listing the credentials may not make, is left for the reads to meet.
  std::optional<std::string> check_bucket() const {
    const S3Config& c = access_->config();
    HttpRequest request;
    request.key = "?list-type=2&max-keys=1&prefix=" + url_escaped(access_->object_key(""), false);
    request.max_answer = kMaxListPage;
    const HttpAnswer a = http_->send(request);
    const std::string_view body(reinterpret_cast<const char*>(a.body.data()), a.body.size());
    // Followed only where the endpoint came from the region: one the user gave (a FIPS,
    // dual-stack or VPC endpoint under amazonaws.com too) is never swapped for the public
    // one; S3's answer then names the region (--region R) in its error.
    if (auto region = aws_region_redirect(a.status, a.headers.bucket_region,
                                          c.aws && c.endpoint_from_region, c.region)) {
      return region;
    }
    // A redirect elsewhere (named, not followed) or no such bucket: the bucket named.
    const std::string code = a.status >= 400 ? parse_s3_error(body).code : std::string();
    if ((a.status >= 300 && a.status < 400) || (a.status == 404 && code == "NoSuchBucket") ||
        credentials_refused(code)) {
      try {
        http_->expect(false, "", a.status, 1, body, a.headers);
      } catch (const Error& e) {
        throw Error(e.category(), e.message(), Location::file("s3://" + c.bucket));
      }
    }
    return std::nullopt;
  }

 private:
  // The object keys' start for the store's `prefix` ("" or "a/b"), with its trailing '/'.
  std::string listing_start(const std::string& prefix) const {
    const std::string k = access_->object_key(prefix);
    return k.empty() ? k : k + "/";
  }

  // Calls `visit` with every key (and, with `delimited`, every common prefix) starting with
  // `start`, page after page. A server that names a continuation token a second time (a
  // listing going round) or a key outside `start` (an answer to another question) fails
  // the listing, naming it.
  void list(const std::string& start, bool delimited,
            const std::function<void(const std::string&, bool)>& visit) const {
    const std::string where = "s3://" + access_->config().bucket + "/" + start;
    std::string token;
    // Tokens seen, by hash (a token may be 16 KiB; a listing of 10^4 pages keeps 80 KB).
    std::set<size_t> tokens;
    uint64_t listed = 0;
    uint64_t empty_in_a_row = 0;
    for (;;) {
      // The parameters in the order a signature's canonical query puts them (libcurl 7.88
      // signs the query as it is given).
      std::string query = "?";
      if (!token.empty()) query += "continuation-token=" + url_escaped(token, false) + "&";
      if (delimited) query += "delimiter=%2F&";
      query += "list-type=2&prefix=" + url_escaped(start, false);
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
      for (const std::vector<std::string>* names : {&page.keys, &page.prefixes}) {
        for (const std::string& k : *names) {
          if (k.compare(0, start.size(), start) != 0) {
            throw Error(ErrorCategory::kData,
                        fmt::format("the server's listing names {:?}, which does not start with "
                                    "the prefix asked for",
                                    k),
                        Location::file(where));
          }
        }
      }
      for (const std::string& k : page.keys) visit(k, false);
      for (const std::string& p : page.prefixes) visit(p, true);
      if (!page.truncated) return;
      // A server that never ends a listing (fresh tokens forever) is met by a bound, not by
      // memory running out an hour later.
      // Each page counts as one key at least, and empty truncated pages in a row are few in
      // a real listing: a server sending them with new tokens forever meets a bound too.
      const bool empty = page.keys.empty() && page.prefixes.empty();
      empty_in_a_row = empty ? empty_in_a_row + 1 : 0;
      listed += std::max<uint64_t>(1, page.keys.size() + page.prefixes.size());
      if (listed > kMaxListed || empty_in_a_row > kMaxEmptyPages) {
        throw Error(ErrorCategory::kLimit,
                    empty_in_a_row > kMaxEmptyPages
                        ? fmt::format("the listing sends {} empty pages in a row that say more "
                                      "follow; this reader stops there",
                                      empty_in_a_row)
                        : fmt::format("the listing goes on past {} keys; this reader lists at "
                                      "most that many under one prefix",
                                      kMaxListed),
                    Location::file(where));
      }
      if (page.next_token.size() > kMaxToken) {
        throw Error(ErrorCategory::kData,
                    fmt::format("the listing's continuation token has {} bytes; at most {} are "
                                "taken",
                                page.next_token.size(), kMaxToken),
                    Location::file(where));
      }
      if (!tokens.insert(std::hash<std::string>{}(page.next_token)).second) {
        throw Error(ErrorCategory::kData,
                    fmt::format("the listing goes round: continuation token {:?} came before, "
                                "after {} pages",
                                page.next_token.substr(0, 64), tokens.size()),
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
  S3Config config = resolve_s3(url, options);
  // A bucket found once is not asked for again by this process: a family of 1,000 members
  // would otherwise cost 1,000 listings besides its reads. Its region, when AWS redirected
  // the first request to another, is kept with it.
  static std::mutex mutex;
  static std::map<std::string, std::string> found;  // bucket -> region
  const std::string bucket = config.endpoint + "/" + config.bucket + " " + config.credentials_from;
  {
    const std::lock_guard<std::mutex> hold(mutex);
    if (auto it = found.find(bucket); it != found.end()) {
      if (it->second != config.region) config = in_region(config, it->second);
      return std::make_shared<S3Store>(std::make_shared<const S3Access>(config), options.limits);
    }
  }
  auto store = std::make_shared<S3Store>(std::make_shared<const S3Access>(config), options.limits);
  if (std::optional<std::string> region = store->check_bucket()) {
    // AWS's region redirect: the request signed again for the bucket's region and sent to
    // that region's endpoint, once; a second redirect is refused.
    config = in_region(config, *region);
    store = std::make_shared<S3Store>(std::make_shared<const S3Access>(config), options.limits);
    if (std::optional<std::string> again = store->check_bucket()) {
      throw Error(ErrorCategory::kIo,
                  fmt::format("AWS redirects the bucket to region {}, then again to region {}: "
                              "not followed (--region)",
                              config.region, *again),
                  Location::file("s3://" + config.bucket));
    }
  }
  const std::lock_guard<std::mutex> hold(mutex);
  found.emplace(bucket, config.region);
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
