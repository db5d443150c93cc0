// Key-value stores: where a store's keys live, a directory on disk, a web server or memory,
// behind one interface. Keys are '/'-separated ("c/0/1", "group/array/zarr.json"); a reader
// asks for whole values or byte ranges (a shard's index, one inner chunk), one at a time or
// many at once (read_many). Drivers: a directory, a web server (read only), S3 and
// S3-compatible object stores, memory; open_store picks one from a path or URL.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "dudley/core/bytes.hpp"
#include "dudley/core/error.hpp"
#include "dudley/io/byte_source.hpp"

namespace dudley::io {

/// One read of a batch (Store::read_many): `length` bytes at `offset` of `key`, or, with
/// `whole`, all of its value (at most `length` bytes; more is Error(kLimit)).
struct RangeRequest {
  std::string key;
  uint64_t offset = 0;
  uint64_t length = 0;
  bool whole = false;
  Bytes* out = nullptr;  ///< resized to what was read
  bool found = true;     ///< set false for a whole value whose key is absent
};

/// One value written by Store::write_many: all the bytes of `value` (a file, bytes in
/// memory) as the value of `key`.
struct WriteRequest {
  std::string key;
  std::shared_ptr<const ByteSource> value;
  /// When set, called with a count of bytes each time that many more of the value are
  /// stored (an S3 upload's parts as they go; the whole value at once elsewhere), from the
  /// store's threads but never two calls at once: a progress bar's feed.
  const std::function<void(uint64_t)>* on_stored = nullptr;
};

/// What Store::size throws for a key that names something other than a value (a directory
/// store's folder or device where a file would be): a reader looking for a document tells
/// it from a document it cannot read.
class NotAValue : public dudley::Error {
 public:
  using dudley::Error::Error;
};

class Store {
 public:
  virtual ~Store() = default;
  /// The store's path or URL, for messages.
  virtual const std::string& name() const = 0;
  /// The size of `key`'s value; nullopt when the key is absent. Error(kIo) when it cannot
  /// be asked (permissions, a network failure).
  virtual std::optional<uint64_t> size(const std::string& key) const = 0;
  /// Reads `length` bytes at `offset` of `key`'s value into `out`. Error(kData) naming the
  /// key when the value is shorter, Error(kIo) when it cannot be read.
  virtual void read(const std::string& key, uint64_t offset, uint64_t length,
                    std::byte* out) const = 0;
  /// The names directly under `prefix` ("" for the root, else "a/b") that hold keys of
  /// their own (a directory's subdirectories; the prefixes ending at the next '/'), sorted.
  /// Empty for a store that cannot list.
  virtual std::vector<std::string> subdirectories(const std::string& prefix) const = 0;
  /// Whether subdirectories() can list (a directory can; a web server cannot, and a Zarr
  /// store's groups are then listed from their consolidated metadata, when it has it).
  virtual bool can_list() const { return true; }
  /// Calls `visit` with the key of every value under `prefix` ("a/b"; "" for the root),
  /// relative to it ("c/0/1"), in no particular order, and returns true; false, calling
  /// nothing, for a store that cannot list (a web server). Error(kIo) naming the store when
  /// the listing fails.
  virtual bool for_each_key(const std::string& prefix,
                            const std::function<void(std::string_view)>& visit) const {
    (void)prefix;
    (void)visit;
    return false;
  }

  /// Whether reads go out to a server, so that a reader should batch them (read_many) rather
  /// than read each chunk on the thread that decodes it.
  virtual bool remote() const { return false; }
  /// Reads every request, several at once where the store can (a web server: many
  /// transfers in flight; the default reads one after another). Errors as read(); the first
  /// one is thrown after the others have stopped.
  virtual void read_many(std::span<RangeRequest> requests) const;

  /// Reads the last `length` bytes of `key`'s value (all of it when shorter) into `out`
  /// and returns the value's size, or nullopt when the key is absent: a shard's index at its
  /// end, read in one request where the store can (a web server: a suffix Range, no HEAD).
  virtual std::optional<uint64_t> read_tail(const std::string& key, uint64_t length,
                                            std::byte* out) const;

  /// Whether the store takes writes (a directory, S3, memory; a web server is read only).
  virtual bool writable() const { return false; }
  /// Stores each request's bytes as the value of its key, replacing any value it had. A
  /// reader sees a key's old value or its new one, never a part: a directory's file is
  /// renamed into place; an object store writes several values at once, and a large one in
  /// parts that become visible only when the last is in. Error(kUsage) naming the store when
  /// it is read only; Error(kIo) naming the key of the first value that could not be
  /// written (others may have been).
  virtual void write_many(std::span<const WriteRequest> values);
  /// Removes the values of `keys` (a key without one is no error), several at once where
  /// the store can. Errors as write_many.
  virtual void erase_many(std::span<const std::string> keys);
  /// write_many of one value held in memory.
  void write(const std::string& key, std::span<const std::byte> bytes);

  /// The whole value of `key`, or nullopt when absent (one request on a remote store).
  /// Error(kLimit) naming the key for a value of more than `max_bytes`.
  std::optional<Bytes> get(const std::string& key, uint64_t max_bytes = UINT64_MAX) const;
  /// "STORE/KEY", for messages.
  std::string where(const std::string& key) const;
};

/// The store in directory `path`. Error(kIo) naming it when it is not a directory. Its
/// values are read only from files inside it, judged where they really lead (a key with
/// "..", a symbolic link at any depth), or inside one of the folders `allow_outside` (the
/// rule for reading, dudley/io/read_rule.hpp): a key that leads elsewhere is Error(kData)
/// naming it and where it leads, for size() and read() alike.
std::shared_ptr<Store> open_directory_store(const std::string& path,
                                            const std::vector<std::string>& allow_outside = {});

/// Whether `path` is a URL a store is read from: http://, https:// or s3://.
bool is_url(const std::string& path);

/// Whether `path` is an s3:// URL.
bool is_s3_url(const std::string& path);

/// How long requests to a web server may take, and how often one is tried again. A server
/// that stops answering, or drips its answer, fails the read within these bounds.
struct HttpLimits {
  /// The most one request may take, from connecting to the last byte (--http-timeout;
  /// DUDLEY_HTTP_TIMEOUT). Seconds.
  double request_seconds = 300;
  /// The most all requests of the store may take together, counted from when it is opened
  /// (--http-deadline; DUDLEY_HTTP_DEADLINE); 0: no such bound. Seconds. The command-line
  /// tool bounds each command by an hour unless told otherwise.
  double total_seconds = 0;
  /// A transfer slower than this many bytes a second for `slow_seconds` fails: a server
  /// dripping its answer a byte at a time is a stalled one.
  long slow_bytes_per_second = 1024;
  long slow_seconds = 20;
  /// Tries of a request that failed in a way that may pass (HTTP 429, 500, 502, 503, 504;
  /// a connection refused, reset or closed without an answer), with backoff between them
  /// (0.25 s, doubling), each within the deadline.
  int tries = 3;

  /// These limits with `n` tries.
  HttpLimits with_tries(int n) const {
    HttpLimits out = *this;
    out.tries = n;
    return out;
  }

  /// The defaults, with DUDLEY_HTTP_TIMEOUT and DUDLEY_HTTP_DEADLINE (seconds) applied.
  /// Error(kUsage) naming the variable when one is not a number of seconds.
  static HttpLimits from_environment();
};

/// The read-only store at `url` on a web server (libcurl): sizes by HEAD, values and byte
/// ranges by GET with Range (a 404 is a missing key; other statuses, short or long bodies
/// and transfers that stall fail naming the URL). A key goes after the URL's path, each
/// segment escaped, before its query (which goes with every request); a key with a "." or
/// ".." segment is Error(kData), never requested. Redirects are followed only to the same
/// scheme, host and port (at most 5); any other is Error(kIo) naming its target. The store
/// is named in messages without the URL's query and `user:password@` (redacted_url). A web
/// server lists nothing: subdirectories() is empty. Requests keep to `limits`: past them,
/// Error(kIo) naming the URL and the bound.
std::shared_ptr<Store> open_http_store(const std::string& url,
                                       const HttpLimits& limits = HttpLimits::from_environment());

/// Where an S3 store is and who reads it. Unset fields come from where the AWS tools keep
/// them: the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN,
/// AWS_PROFILE, AWS_REGION or AWS_DEFAULT_REGION, AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL,
/// AWS_NO_SIGN_REQUEST), then the profile's entries in ~/.aws/credentials and ~/.aws/config
/// (AWS_SHARED_CREDENTIALS_FILE, AWS_CONFIG_FILE); with no credentials anywhere, requests
/// go unsigned (public buckets).
struct S3Options {
  std::optional<std::string> key;     ///< access key id
  std::optional<std::string> secret;  ///< secret access key
  std::optional<std::string> token;   ///< session token (temporary credentials)
  std::optional<std::string> profile;
  std::optional<std::string> region;  ///< default us-east-1; [a-z0-9-] ("us-gov-west-1")
  /// Default https://s3.REGION.amazonaws.com; scheme, host and port only.
  std::optional<std::string> endpoint_url;
  /// Send requests unsigned (--no-sign-request): public buckets.
  bool anonymous = false;
  /// "path" (ENDPOINT/BUCKET/KEY), "virtual" (BUCKET.ENDPOINT/KEY), or "auto": virtual for
  /// AWS's own endpoints when the bucket name allows, path for any other endpoint.
  std::string addressing = "auto";
  /// Request time bounds and tries, as for web servers, with 5 tries (as the AWS SDKs'
  /// legacy retry mode): S3 answers a burst of requests with 503 SlowDown, asking for them
  /// again later.
  HttpLimits limits = HttpLimits::from_environment().with_tries(5);
};

/// The store at `url` = s3://BUCKET/PREFIX in an S3 or S3-compatible object store, through
/// libcurl with AWS Signature V4: values and byte ranges by GET, sizes by HEAD, listings by
/// ListObjectsV2 (every page). Requests keep to `options.limits` (failures that may pass,
/// S3's 500/503 SlowDown and 429, are tried again with backoff). Errors say what S3 said
/// ("NoSuchBucket: The specified bucket does not exist", "AccessDenied ... check the
/// credentials of profile X"). Keys are sent as they are ("s3://b/../x" is key "../x" of
/// bucket b). No redirect is followed but AWS's region redirect, once, when the store is
/// opened (another is Error(kIo) naming its target); a listing whose continuation token
/// comes again, or that names a key outside its prefix, is Error(kData). Throws
/// Error(kUsage), before any request, for a URL that is no s3://BUCKET[/PREFIX] or a bucket
/// name, region or endpoint S3 would not take (docs/stores.md), and Error(kIo) naming the
/// bucket when it does not exist.
std::shared_ptr<Store> open_s3_store(const std::string& url, const S3Options& options = {});

/// How open_store reaches stores that are not directories.
struct StoreOptions {
  HttpLimits http = HttpLimits::from_environment();
  S3Options s3;
};

/// The store at `path_or_url`: s3:// (open_s3_store), http:// or https://
/// (open_http_store), file:// or a plain path (open_directory_store).
std::shared_ptr<Store> open_store(const std::string& path_or_url, const StoreOptions& options = {});

/// The file at `path_or_url` as random-access bytes: a local file (open_file), or one value
/// of a store on a web server or in S3 (its URL names the object), read by byte ranges with
/// small reads served from a cache of 256 KiB blocks.
std::shared_ptr<ByteSource> open_source(const std::string& path_or_url,
                                        const StoreOptions& options = {});

/// The whole text of `path_or_url`: read_text_file for a file here, else the object at the
/// URL (one request), at most kMaxTextFileBytes (Error(kLimit) naming it beyond). Error(kIo)
/// naming it when it is absent.
std::string read_text(const std::string& path_or_url, const StoreOptions& options = {});

/// A store held in memory, keys to values (tests and fuzz targets). `name` is its name in
/// messages.
std::shared_ptr<Store> memory_store(std::map<std::string, Bytes> values,
                                    std::string name = "<memory>");

}  // namespace dudley::io
