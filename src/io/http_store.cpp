// A read-only store on a web server, through libcurl: sizes by HEAD, values and byte ranges
// by GET with a Range header. Each thread keeps its own handle, so connections are reused;
// a batch of chunks (read_many) is fetched with many transfers in flight on one multi handle.
// Every request keeps to the store's HttpLimits: a time bound of its own, the store's
// deadline, a floor on its speed, and a bounded number of tries for failures that may pass.
// libcurl follows no redirect itself: an answer that points elsewhere is followed here only
// where the store's access allows (a web server: the same scheme, host and port), so that
// no request, and no credential, goes where the user did not point.
#include <curl/curl.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "dudley/core/deadline.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/path.hpp"
#include "dudley/io/redact.hpp"
#include "dudley/io/store.hpp"
#include "io/curl_library.hpp"
#include "io/http_access.hpp"
#include "io/url_parts.hpp"

namespace dudley::io {
namespace {

// Redirects followed in a row for one request (each to the same origin).
constexpr int kMaxRedirects = 5;
// Transfers in flight at once in read_many (one connection each, reused between batches).
constexpr size_t kInFlight = 16;
// The wait before the second try of a request; doubled for each further one.
constexpr std::chrono::milliseconds kFirstBackoff{250};

using Clock = std::chrono::steady_clock;

// Whether a failed request may succeed if tried again: the server said so (429 Too Many
// Requests, 5xx of a busy or restarting server), or the connection failed before an answer.
// A timeout is not: it spent the time the request had.
bool may_pass(CURLcode rc, long status) {
  if (rc == CURLE_OK) {
    return status == 429 || status == 500 || status == 502 || status == 503 || status == 504;
  }
  // A connection that closed in the middle of an answer (CURLE_PARTIAL_FILE) is tried
  // again whole: what came of it is dropped.
  return rc == CURLE_COULDNT_CONNECT || rc == CURLE_RECV_ERROR || rc == CURLE_SEND_ERROR ||
         rc == CURLE_GOT_NOTHING || rc == CURLE_PARTIAL_FILE;
}

// Whether `status` is a redirect that names a target (Location).
bool is_redirect(long status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

// The absolute URL a redirect answer on `handle` points to ("" when it names none), as
// libcurl resolves its Location header against the URL requested.
std::string redirect_target(CURL* handle) {
  char* target = nullptr;
  curl().easy_getinfo(handle, CURLINFO_REDIRECT_URL, &target);
  return target ? std::string(target) : std::string();
}

// A number of seconds from the environment variable `name`, or `fallback` when it is unset.
double seconds_from_environment(const char* name, double fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (end == text || *end != '\0' || !(v >= 0) || v > 1e9) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("{}={}: give a number of seconds (0 for no bound)", name, text));
  }
  return v;
}

struct HandleFree {
  void operator()(CURL* c) const { curl().easy_cleanup(c); }
};

// This thread's handle, reset to defaults (its connections stay open for the next request).
CURL* handle() {
  static std::once_flag init;
  std::call_once(init, [] { curl().global_init(CURL_GLOBAL_DEFAULT); });
  thread_local std::unique_ptr<CURL, HandleFree> h(curl().easy_init());
  if (!h) throw Error(ErrorCategory::kIo, "cannot start libcurl");
  curl().easy_reset(h.get());
  return h.get();
}

struct MultiFree {
  void operator()(CURLM* m) const { curl().multi_cleanup(m); }
};

// The most of a failed answer's body kept to say what went wrong (S3's XML error).
constexpr size_t kMaxErrorBody = size_t{16} * 1024;

// Where the body of a response goes: at most `room` bytes into `out`, or, with `grow`, into
// that buffer as it comes; the body of a failed answer or a redirect into `error` instead.
struct Sink {
  std::byte* out = nullptr;
  uint64_t room = 0;
  uint64_t got = 0;
  bool overflow = false;
  Bytes* grow = nullptr;
  CURL* handle = nullptr;  ///< asked for the status when the body starts
  std::string error;
};

size_t take(char* data, size_t size, size_t count, void* user) {
  auto* sink = static_cast<Sink*>(user);
  const uint64_t n = static_cast<uint64_t>(size) * count;
  long status = 0;
  if (sink->handle) curl().easy_getinfo(sink->handle, CURLINFO_RESPONSE_CODE, &status);
  if (status >= 300) {
    sink->error.append(
        data, std::min<size_t>(n, kMaxErrorBody - std::min(kMaxErrorBody, sink->error.size())));
    return n;
  }
  if (n > sink->room - sink->got) {
    sink->overflow = true;
    return 0;  // stops the transfer: more than was asked for
  }
  if (sink->grow) {
    sink->grow->resize(sink->got + n);
    sink->out = sink->grow->data();
  }
  std::memcpy(sink->out + sink->got, data, n);
  sink->got += n;
  return n;
}

// Keeps the headers of an answer its callers need (AnswerHeaders), by their names in any
// case. Set on every request; what an earlier try or redirect heard is cleared first.
size_t answer_header(char* data, size_t size, size_t count, void* user) {
  const size_t n = size * count;
  const std::string_view line(data, n);
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return n;
  std::string name(line.substr(0, colon));
  for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  std::string_view value = line.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' '))
    value.remove_suffix(1);
  auto* heard = static_cast<AnswerHeaders*>(user);
  if (name == "content-range") heard->content_range = value;
  if (name == "etag") heard->etag = value;
  if (name == "x-amz-bucket-region") heard->bucket_region = value;
  return n;
}

// A request's header lines, as libcurl takes them (freed when it goes; set on the handle,
// they must last until its transfer ends).
struct HeaderList {
  curl_slist* list = nullptr;
  HeaderList() = default;
  HeaderList(const HeaderList&) = delete;
  HeaderList& operator=(const HeaderList&) = delete;
  ~HeaderList() { clear(); }
  void clear() {
    if (list) curl().slist_free_all(list);
    list = nullptr;
  }
  void set(const std::vector<std::string>& lines) {
    clear();
    for (const std::string& line : lines) {
      curl_slist* grown = curl().slist_append(list, line.c_str());
      if (grown == nullptr) throw Error(ErrorCategory::kIo, "cannot build a request's headers");
      list = grown;
    }
  }
};

// One transfer of a batch: its handle, the request it serves, where the body goes.
struct Transfer {
  size_t slot = 0;  // its handle in the batch's handles
  size_t request = 0;
  Sink sink;
  std::string range;
  HeaderList headers;
  AnswerHeaders heard;
  char message[CURL_ERROR_SIZE] = {0};
};

// A plain web server: the key after the store's URL (before its query, which goes with every
// request: a token that grants the whole store), escaped, anonymous.
class PlainHttp final : public HttpAccess {
 public:
  explicit PlainHttp(const std::string& url) {
    // Dot segments resolved once, as libcurl would have; keys are then sent as they are.
    std::string resolved = resolved_url(url);
    const size_t query = resolved.find('?');
    if (query != std::string::npos) {
      query_ = resolved.substr(query);
      resolved.resize(query);
    }
    while (resolved.size() > 1 && resolved.back() == '/') resolved.pop_back();
    base_ = std::move(resolved);
  }
  std::string url_of(const std::string& key) const override {
    return key.empty() ? base_ + query_ : base_ + "/" + url_escaped(key, true) + query_;
  }
  // A web server resolves "." and ".." (escaped or not): such a key would leave the store.
  void check_key(const std::string& key) const override {
    if (const std::optional<std::string_view> segment = climbing_segment(key)) {
      throw Error(ErrorCategory::kData,
                  fmt::format("the key {:?} has a '{}' segment: it is not requested from a web "
                              "server, where it would leave the store",
                              key, *segment),
                  Location::file(redacted_url(base_)));
    }
  }

 private:
  std::string base_;   // scheme, host and path, without a trailing '/'
  std::string query_;  // "?..." or ""
};

class CurlStore final : public HttpStore {
 public:
  CurlStore(const std::string& name, std::shared_ptr<const HttpAccess> access,
            const HttpLimits& limits)
      : name_(redacted_url(name)), access_(std::move(access)), limits_(limits) {
    if (limits_.total_seconds > 0) {
      deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(limits_.total_seconds));
    }
  }
  const std::string& name() const override { return name_; }

  std::optional<uint64_t> size(const std::string& key) const override {
    return within_caller_deadline([&]() -> std::optional<uint64_t> {
      access_->check_key(key);
      CURL* c = nullptr;
      HeaderList headers;
      AnswerHeaders heard;
      const long status =
          perform_tried(key, access_->url_of(key), heard, [&](const std::string& url) {
            c = handle();
            configure(c, url, headers, heard);
            curl().easy_setopt(c, CURLOPT_NOBODY, 1L);
            return c;
          });
      if (access_->absent(status, {})) return std::nullopt;
      expect(status == 200, key, status, 1, {}, heard);
      curl_off_t length = -1;
      curl().easy_getinfo(c, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
      if (length < 0) {
        throw Error(ErrorCategory::kIo, "the server gives no Content-Length",
                    Location::file(where(key)));
      }
      return static_cast<uint64_t>(length);
    });
  }

  void read(const std::string& key, uint64_t offset, uint64_t length,
            std::byte* out) const override {
    within_caller_deadline([&] {
      if (length == 0) return;
      Sink sink;
      AnswerHeaders heard;
      const long status = get_range(key, fmt::format("{}-{}", offset, offset + length - 1), out,
                                    length, sink, heard);
      // 206: the range; 200: the whole value, acceptable when that is what was asked for.
      expect(status == 206 || (status == 200 && offset == 0), key, status, 1, sink.error, heard);
      if (sink.got != length) {
        throw Error(ErrorCategory::kData,
                    fmt::format("{} bytes at offset {} were asked for; the server sent {}", length,
                                offset, sink.got),
                    Location::binary(where(key), offset));
      }
    });
  }

  std::optional<uint64_t> read_tail(const std::string& key, uint64_t length,
                                    std::byte* out) const override {
    return within_caller_deadline([&]() -> std::optional<uint64_t> {
      if (length == 0) return size(key);
      Sink sink;
      AnswerHeaders heard;
      const long status = get_range(key, fmt::format("-{}", length), out, length, sink, heard);
      if (access_->absent(status, sink.error)) return std::nullopt;
      if (status == 416) return 0;  // an empty value has no last bytes
      expect(status == 206 || status == 200, key, status, 1, sink.error, heard);
      if (status == 200) return sink.got;  // the whole value, no longer than asked
      // "bytes FIRST-LAST/TOTAL": the value's size, and the bytes sent its last ones.
      uint64_t first = 0, last = 0, total = 0;
      if (std::sscanf(heard.content_range.c_str(), "bytes %" SCNu64 "-%" SCNu64 "/%" SCNu64, &first,
                      &last, &total) != 3 ||
          last + 1 != total || last - first + 1 != sink.got || sink.got > length) {
        throw Error(ErrorCategory::kData,
                    fmt::format("the server's answer to a request for the last {} bytes is not "
                                "them (Content-Range {:?}, {} bytes)",
                                length, heard.content_range, sink.got),
                    Location::file(where(key)));
      }
      return total;
    });
  }

  bool remote() const override { return true; }

  void read_many(std::span<RangeRequest> requests) const override {
    within_caller_deadline([&] {
      // Every key checked before the first transfer starts: none is left in flight by a throw.
      for (const RangeRequest& r : requests) access_->check_key(r.key);
      // Handles kept by the thread between batches: their connections stay open.
      thread_local std::unique_ptr<CURLM, MultiFree> multi(curl().multi_init());
      thread_local std::vector<std::unique_ptr<CURL, HandleFree>> easies;
      if (!multi) throw Error(ErrorCategory::kIo, "cannot start libcurl");
      handle();  // libcurl initialised
      while (easies.size() < std::min(kInFlight, requests.size())) {
        easies.emplace_back(curl().easy_init());
        if (!easies.back()) throw Error(ErrorCategory::kIo, "cannot start libcurl");
      }
      Batch batch{requests, multi.get(), easies};
      // However the batch ends (a throw from a transfer's start, a deadline, bad_alloc), no
      // transfer stays in the thread's multi handle pointing at this batch's buffers, which
      // go with it: the thread's next batch would write into freed memory.
      struct Detach {
        CURLM* multi;
        std::vector<std::unique_ptr<CURL, HandleFree>>& easies;
        ~Detach() {
          for (auto& e : easies) curl().multi_remove_handle(multi, e.get());  // none: a no-op
        }
      } detach{multi.get(), easies};
      batch.transfers = std::vector<Transfer>(easies.size());
      for (size_t t = 0; t < batch.transfers.size(); ++t) batch.transfers[t].slot = t;
      for (size_t i = easies.size(); i-- > 0;) batch.idle.push_back(i);
      for (size_t i = 0; i < requests.size(); ++i) batch.queue.push_back(i);
      batch.tries.assign(requests.size(), 0);
      batch.urls.assign(requests.size(), {});
      batch.redirects.assign(requests.size(), 0);
      while (batch.waiting() || batch.running > 0) {
        // Retries whose backoff has passed go first.
        const Clock::time_point now = Clock::now();
        for (auto it = batch.later.begin(); it != batch.later.end();) {
          if (it->first <= now) {
            batch.queue.push_front(it->second);
            it = batch.later.erase(it);
          } else {
            ++it;
          }
        }
        while (!batch.failure && !batch.queue.empty() && !batch.idle.empty()) {
          if (deadline_passed()) {
            batch.failure = deadline_error();
            break;
          }
          start_transfer(batch, batch.idle.back(), batch.queue.front());
          batch.queue.pop_front();
          batch.idle.pop_back();
        }
        int still = 0;
        const CURLMcode mc = curl().multi_perform(batch.multi, &still);
        if (mc != CURLM_OK) fail_all(batch, mc);
        collect_done(batch);
        wait_for_sockets(batch);
      }
      if (batch.failure) throw *batch.failure;
    });
  }

  HttpAnswer send(const HttpRequest& request) const override {
    return within_caller_deadline([&] {
      access_->check_key(request.key);
      HttpAnswer answer;
      HeaderList headers;
      Sink sink;
      const std::string url =
          access_->url_of(request.key) + (request.query.empty() ? "" : "?" + request.query);
      const bool has_body = request.method == "PUT" || request.method == "POST";
      // A body goes as the request's fields, so that the signature covers its hash, with a
      // Content-Type of its own: not libcurl's form type, which S3 would keep as the
      // object's. No header is removed with "Name:": libcurl 7.88 signs such a header as
      // empty though it sends none, and a strict server (moto with its checks on, and AWS)
      // refuses the signature.
      std::vector<std::string> extra;
      if (has_body) {
        extra = {request.method == "POST" ? "Content-Type: application/xml"
                                          : "Content-Type: application/octet-stream"};
      }
      answer.status = perform_tried(
          request.key, url, answer.headers,
          [&](const std::string& at) {
            CURL* c = handle();
            configure(c, at, headers, answer.headers, extra, request.body);
            curl().easy_setopt(c, CURLOPT_CUSTOMREQUEST, request.method.c_str());
            if (has_body) {
              // libcurl asks a large body's "Expect: 100-continue": the body follows at once
              // instead of after a wait for the answer to it.
              curl().easy_setopt(c, CURLOPT_EXPECT_100_TIMEOUT_MS, 0L);
              curl().easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
                                 static_cast<curl_off_t>(request.body.size()));
              curl().easy_setopt(c, CURLOPT_POSTFIELDS,
                                 request.body.empty()
                                     ? static_cast<const void*>("")
                                     : static_cast<const void*>(request.body.data()));
            }
            answer.body.clear();
            sink = Sink{};
            sink.grow = &answer.body;
            sink.room = request.max_answer;
            sink.handle = c;
            curl().easy_setopt(c, CURLOPT_WRITEFUNCTION, take);
            curl().easy_setopt(c, CURLOPT_WRITEDATA, &sink);
            return c;
          },
          &sink);
      if (answer.status >= 300) {
        answer.body.resize(sink.error.size());
        // A redirect or a HEAD's failure has no body (memcpy of none from null is undefined).
        if (!sink.error.empty())
          std::memcpy(answer.body.data(), sink.error.data(), sink.error.size());
      }
      return answer;
    });
  }

  // A web server lists nothing: a store read over HTTP shows the node its URL names (groups
  // show no members unless they are named).
  std::vector<std::string> subdirectories(const std::string&) const override { return {}; }
  bool can_list() const override { return false; }

 private:
  // One read_many call: its requests, the transfers in flight, the requests waiting to
  // start. A request that failed in a way that may pass waits in `later` until its backoff
  // has passed, then goes to the front of `queue`; one redirected where the access allows
  // goes there at once, to its new URL.
  struct Batch {
    std::span<RangeRequest> requests;
    CURLM* multi = nullptr;
    std::vector<std::unique_ptr<CURL, HandleFree>>& easies;
    std::vector<Transfer> transfers = {};
    std::vector<size_t> idle = {};  ///< transfers free to start
    std::deque<size_t> queue = {};  ///< requests to start, in order
    std::vector<std::pair<Clock::time_point, size_t>> later = {};
    std::vector<int> tries = {};
    std::vector<std::string> urls = {};  ///< a redirected request's URL ("": its key's)
    std::vector<int> redirects = {};     ///< redirects each request has followed
    size_t running = 0;
    std::optional<Error> failure = {};
    bool waiting() const { return !failure && (!queue.empty() || !later.empty()); }
    std::string url(const HttpAccess& access, size_t index) const {
      return urls[index].empty() ? access.url_of(requests[index].key) : urls[index];
    }
  };

  // Starts request `index` on transfer `t`.
  void start_transfer(Batch& batch, size_t t, size_t index) const {
    RangeRequest& r = batch.requests[index];
    Transfer& x = batch.transfers[t];
    x.request = index;
    x.message[0] = 0;
    ++batch.tries[index];
    CURL* c = batch.easies[t].get();
    curl().easy_reset(c);
    configure(c, batch.url(*access_, index), x.headers, x.heard);
    x.sink = Sink{};
    x.sink.handle = c;
    if (r.whole) {
      r.out->clear();
      x.sink.grow = r.out;
      x.sink.room = r.length;
    } else {
      r.out->resize(r.length);
      x.sink.out = r.out->data();
      x.sink.room = r.length;
      x.range = fmt::format("{}-{}", r.offset, r.offset + r.length - 1);
      curl().easy_setopt(c, CURLOPT_RANGE, x.range.c_str());
    }
    curl().easy_setopt(c, CURLOPT_WRITEFUNCTION, take);
    curl().easy_setopt(c, CURLOPT_WRITEDATA, &x.sink);
    curl().easy_setopt(c, CURLOPT_ERRORBUFFER, x.message);
    curl().easy_setopt(c, CURLOPT_PRIVATE, &x);
    curl().multi_add_handle(batch.multi, c);
    ++batch.running;
  }

  // Transfer `t` ended with `rc`: redirected, retried later, or its request done (the
  // batch's first failure kept).
  void finish_transfer(Batch& batch, size_t t, CURLcode rc) const {
    Transfer& x = batch.transfers[t];
    RangeRequest& r = batch.requests[x.request];
    CURL* c = batch.easies[t].get();
    long status = 0;
    curl().easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    const int tries = batch.tries[x.request];
    if (rc == CURLE_OK && is_redirect(status)) {
      x.heard.location = redirect_target(c);
      if (follows(batch.url(*access_, x.request), x.heard.location, batch.redirects[x.request])) {
        batch.urls[x.request] = x.heard.location;
        ++batch.redirects[x.request];
        --batch.tries[x.request];  // a redirect is no failed try
        batch.queue.push_front(x.request);
        return;
      }
    }
    if (may_pass(rc, status) && !x.sink.overflow && tries < limits_.tries) {
      batch.later.emplace_back(Clock::now() + backoff(tries), x.request);
      return;
    }
    try {
      check_response(x, r, rc, status, tries);
    } catch (const Error& e) {
      if (!batch.failure) batch.failure = e;
    }
  }

  // Throws Error naming the key when a finished transfer did not give what was asked.
  void check_response(const Transfer& x, RangeRequest& r, CURLcode rc, long status,
                      int tries) const {
    if (rc != CURLE_OK) {
      if (x.sink.overflow && r.whole) {
        throw Error(
            ErrorCategory::kLimit,
            fmt::format("a value of more than {} bytes; at most that is read here", r.length),
            Location::file(where(r.key)));
      }
      if (x.sink.overflow) {
        throw Error(ErrorCategory::kData,
                    fmt::format("the server sent more than the {} bytes asked for", r.length),
                    Location::file(where(r.key)));
      }
      throw transfer_error(rc, x.message, r.key, tries);
    }
    if (r.whole) {
      r.found = !access_->absent(status, x.sink.error);
      if (!r.found) return;
      expect(status == 200, r.key, status, tries, x.sink.error, x.heard);
      r.out->resize(x.sink.got);
      return;
    }
    expect(status == 206 || (status == 200 && r.offset == 0), r.key, status, tries, x.sink.error,
           x.heard);
    if (x.sink.got != r.length) {
      throw Error(ErrorCategory::kData,
                  fmt::format("{} bytes at offset {} were asked for; the server sent {}", r.length,
                              r.offset, x.sink.got),
                  Location::binary(where(r.key), r.offset));
    }
  }

  // The transfers libcurl reports done, finished and made idle.
  void collect_done(Batch& batch) const {
    int left = 0;
    while (CURLMsg* m = curl().multi_info_read(batch.multi, &left)) {
      if (m->msg != CURLMSG_DONE) continue;
      Transfer* done = nullptr;
      curl().easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, &done);
      const size_t t = done->slot;
      const CURLcode rc = m->data.result;
      curl().multi_remove_handle(batch.multi, m->easy_handle);
      finish_transfer(batch, t, rc);
      batch.idle.push_back(t);
      --batch.running;
    }
  }

  // Waits for the sockets (or the next retry) while nothing can start now.
  void wait_for_sockets(Batch& batch) const {
    const bool can_start = !batch.failure && !batch.queue.empty() && !batch.idle.empty();
    if (can_start || (batch.running == 0 && !batch.waiting())) return;
    int wait_ms = 1000;
    for (const auto& [when, index] : batch.later) {
      const auto ms =
          std::chrono::duration_cast<std::chrono::milliseconds>(when - Clock::now()).count();
      wait_ms = static_cast<int>(std::clamp<int64_t>(ms, 0, wait_ms));
    }
    if (batch.running > 0) {
      const CURLMcode mc = curl().multi_poll(batch.multi, nullptr, 0, wait_ms, nullptr);
      if (mc != CURLM_OK) fail_all(batch, mc);
    } else if (wait_ms > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
    }
  }

  // The multi handle itself failed: every transfer stops.
  [[noreturn]] void fail_all(Batch& batch, CURLMcode mc) const {
    for (auto& e : batch.easies) curl().multi_remove_handle(batch.multi, e.get());
    throw Error(ErrorCategory::kIo, fmt::format("cannot fetch: {}", curl().multi_strerror(mc)),
                Location::file(name_));
  }

  // Whether a request to `from` that was redirected to `to` (after `redirects` others)
  // follows it.
  bool follows(const std::string& from, const std::string& to, int redirects) const {
    return !to.empty() && redirects < kMaxRedirects && access_->may_follow(from, to);
  }

  // The earlier of the store's deadline and the calling thread's (a viewer request's time
  // limit): every request ends by it.
  std::optional<Clock::time_point> effective_deadline() const {
    const std::optional<Clock::time_point> caller = thread_deadline();
    if (!caller) return deadline_;
    if (!deadline_) return caller;
    return std::min(*caller, *deadline_);
  }

  bool deadline_passed() const {
    const std::optional<Clock::time_point> d = effective_deadline();
    return d && Clock::now() >= *d;
  }

  // Runs `f`; a failure once the calling thread's deadline has passed is that deadline's
  // (DeadlinePassed, which the viewer answers with 503), whatever the transfer said.
  template <typename F>
  auto within_caller_deadline(F&& f) const -> decltype(f()) {
    try {
      return f();
    } catch (const DeadlinePassed&) {
      throw;
    } catch (const Error&) {
      // With the grace transfer_error gives libcurl's timer, which may fire a little early.
      if (const std::optional<Clock::time_point> d = thread_deadline();
          d && Clock::now() + std::chrono::milliseconds(100) >= *d)
        throw ::dudley::deadline_passed();
      throw;
    }
  }

  Error deadline_error() const {
    return Error(ErrorCategory::kIo,
                 fmt::format("the deadline for this store's requests, {} s after it was opened, "
                             "has passed (--http-deadline SECONDS, 0 for none)",
                             limits_.total_seconds),
                 Location::file(name_));
  }

  // The wait before try number `tried` + 1.
  static Clock::duration backoff(int tried) {
    return kFirstBackoff * (1 << std::min(tried - 1, 6));
  }

  // The options of every request to `url`: its time bound (its own, or what is left of the
  // store's deadline, whichever ends first), speed floor and authentication (of `body`, the
  // request's, empty for none), with the header lines `extra` besides (kept in `headers` for
  // the transfer); the answer's headers go to `heard` (cleared here).
  void configure(CURL* c, const std::string& url, HeaderList& headers, AnswerHeaders& heard,
                 const std::vector<std::string>& extra = {},
                 std::span<const std::byte> body = {}) const {
    if (deadline_passed()) throw deadline_error();
    double seconds = limits_.request_seconds;
    if (const std::optional<Clock::time_point> d = effective_deadline()) {
      const double left = std::chrono::duration<double>(*d - Clock::now()).count();
      seconds = seconds > 0 ? std::min(seconds, left) : left;
    }
    const long ms = seconds > 0 ? std::max(1L, static_cast<long>(seconds * 1000)) : 0L;
    curl().easy_setopt(c, CURLOPT_URL, url.c_str());
    // Redirects are looked at here (CurlStore::follows), never followed by libcurl: it would
    // take the request, and headers such as x-amz-security-token, to any host.
    curl().easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    // The path as it is: a key's "." and ".." segments are part of an S3 key, and the
    // signature covers the path sent.
    curl().easy_setopt(c, CURLOPT_PATH_AS_IS, 1L);
    curl().easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl().easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, ms > 0 ? std::min(ms, 30000L) : 30000L);
    curl().easy_setopt(c, CURLOPT_TIMEOUT_MS, ms);
    // A server that stops sending, or drips, fails the read instead of holding it.
    curl().easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, limits_.slow_bytes_per_second);
    curl().easy_setopt(c, CURLOPT_LOW_SPEED_TIME, limits_.slow_seconds);
    curl().easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl().easy_setopt(c, CURLOPT_USERAGENT, "dudley");
    heard = AnswerHeaders{};
    curl().easy_setopt(c, CURLOPT_HEADERFUNCTION, answer_header);
    curl().easy_setopt(c, CURLOPT_HEADERDATA, &heard);
    std::vector<std::string> lines = extra;
    access_->authorize(c, body, lines);
    headers.set(lines);
    if (headers.list) curl().easy_setopt(c, CURLOPT_HTTPHEADER, headers.list);
  }

  // GETs `range` of `key` ("FIRST-LAST", or "-N": the last N bytes) into at most `room` bytes
  // at `out`, tried as perform_tried tries. Returns the HTTP status; `sink` says what came,
  // `heard` the answer's headers.
  long get_range(const std::string& key, const std::string& range, std::byte* out, uint64_t room,
                 Sink& sink, AnswerHeaders& heard) const {
    access_->check_key(key);
    HeaderList headers;
    return perform_tried(
        key, access_->url_of(key), heard,
        [&](const std::string& url) {
          CURL* c = handle();
          configure(c, url, headers, heard);
          curl().easy_setopt(c, CURLOPT_RANGE, range.c_str());
          sink = Sink{};
          sink.out = out;
          sink.room = room;
          sink.handle = c;
          curl().easy_setopt(c, CURLOPT_WRITEFUNCTION, take);
          curl().easy_setopt(c, CURLOPT_WRITEDATA, &sink);
          return c;
        },
        &sink);
  }

  // Runs the request `make` prepares for a URL, first `url` (again for each try, after a
  // backoff; at a redirect's target when the access follows it) until it succeeds, fails for
  // good, or has had its tries. Returns the last HTTP status (a redirect not followed is
  // returned as it is: the caller's expect names its target, in `heard`).
  long perform_tried(const std::string& key, std::string url, AnswerHeaders& heard,
                     const std::function<CURL*(const std::string&)>& make,
                     const Sink* sink = nullptr) const {
    int redirects = 0;
    for (int tried = 1;;) {
      CURL* c = make(url);
      char message[CURL_ERROR_SIZE] = {0};
      curl().easy_setopt(c, CURLOPT_ERRORBUFFER, message);
      const CURLcode rc = curl().easy_perform(c);
      long status = 0;
      if (rc == CURLE_OK) curl().easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
      if (rc == CURLE_OK && is_redirect(status)) {
        heard.location = redirect_target(c);
        if (!follows(url, heard.location, redirects)) return status;
        url = heard.location;
        ++redirects;
        continue;
      }
      const bool overflow = sink && sink->overflow;
      if (!overflow && may_pass(rc, status) && tried < limits_.tries) {
        const Clock::time_point resume = Clock::now() + backoff(tried);
        const std::optional<Clock::time_point> d = effective_deadline();
        if (!d || resume < *d) {
          std::this_thread::sleep_until(resume);
          ++tried;
          continue;
        }
      }
      if (rc == CURLE_OK) {
        if (may_pass(rc, status) && tried > 1)
          expect(false, key, status, tried, sink ? sink->error : std::string(), heard);
        return status;
      }
      if (overflow) {
        throw Error(ErrorCategory::kData,
                    fmt::format("the server sent more than the {} bytes asked for", sink->room),
                    Location::file(where(key)));
      }
      throw transfer_error(rc, message, key, tried);
    }
  }

  // A transfer that failed, said with the bound it met when it met one (libcurl's text
  // redacted: it may quote a URL).
  Error transfer_error(CURLcode rc, const char* message, const std::string& key, int tried) const {
    std::string why = redacted_text(message && message[0] ? message : curl().easy_strerror(rc));
    if (rc == CURLE_OPERATION_TIMEDOUT) {
      // A request cut short by the deadline (libcurl's timer may fire a little early).
      const std::optional<Clock::time_point> d = effective_deadline();
      if (d && Clock::now() + std::chrono::milliseconds(100) >= *d) return deadline_error();
      why += fmt::format(
          " (a request may take {} s, --http-timeout SECONDS; and must move at "
          "least {} bytes a second over {} s)",
          limits_.request_seconds, limits_.slow_bytes_per_second, limits_.slow_seconds);
    }
    if (tried > 1) why += fmt::format(", after {} tries", tried);
    return Error(ErrorCategory::kIo, fmt::format("cannot fetch: {}", why),
                 Location::file(where(key)));
  }

  void expect(bool ok, const std::string& key, long status, int tried = 1,
              std::string_view body = {}, const AnswerHeaders& headers = {}) const override {
    if (ok) return;
    std::string why;
    if (is_redirect(status) && !headers.location.empty()) {
      why = fmt::format("the server redirects (HTTP {}) to {}: not followed ({})", status,
                        redacted_url(headers.location), access_->redirect_rule());
    }
    const std::string more = access_->failure(status, body, headers);
    if (!more.empty()) why += (why.empty() ? "" : "; ") + more;
    if (why.empty()) why = fmt::format("the server answered HTTP {}", status);
    if (tried > 1) why += fmt::format(", after {} tries", tried);
    throw Error(ErrorCategory::kIo, why, Location::file(where(key)));
  }

  std::string name_;  // redacted: it names the store in messages
  std::shared_ptr<const HttpAccess> access_;
  HttpLimits limits_;
  std::optional<Clock::time_point> deadline_;
};

}  // namespace

bool HttpAccess::may_follow(const std::string& from, const std::string& to) const {
  return same_origin(from, to);
}

bool is_url(const std::string& path) {
  return path.rfind("http://", 0) == 0 || path.rfind("https://", 0) == 0 ||
         path.rfind("s3://", 0) == 0;
}

HttpLimits HttpLimits::from_environment() {
  HttpLimits limits;
  limits.request_seconds = seconds_from_environment("DUDLEY_HTTP_TIMEOUT", limits.request_seconds);
  limits.total_seconds = seconds_from_environment("DUDLEY_HTTP_DEADLINE", limits.total_seconds);
  return limits;
}

std::shared_ptr<Store> open_http_store(const std::string& url, const HttpLimits& limits) {
  std::string base = url;
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  return std::make_shared<CurlStore>(base, std::make_shared<PlainHttp>(url), limits);
}

std::shared_ptr<HttpStore> open_http_store(std::string name,
                                           std::shared_ptr<const HttpAccess> access,
                                           const HttpLimits& limits) {
  return std::make_shared<CurlStore>(std::move(name), std::move(access), limits);
}

}  // namespace dudley::io
