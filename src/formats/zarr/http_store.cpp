// A read-only store on a web server, through libcurl: sizes by HEAD, values and byte ranges
// by GET with a Range header. Each thread keeps its own handle, so connections are reused;
// a batch of chunks (read_many) is fetched with many transfers in flight on one multi handle.
#include <curl/curl.h>
#include <fmt/format.h>

#include <cstring>
#include <mutex>
#include <optional>

#include "curl_library.hpp"
#include "dudley/core/error.hpp"
#include "dudley/formats/zarr/store.hpp"

namespace dudley::zarr {
namespace {

constexpr long kMaxRedirects = 5;
// Transfers in flight at once in read_many (one connection each, reused between batches).
constexpr size_t kInFlight = 16;

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

// Where the body of a response goes: at most `room` bytes into `out`, or, with `grow`, into
// that buffer as it comes.
struct Sink {
  std::byte* out = nullptr;
  uint64_t room = 0;
  uint64_t got = 0;
  bool overflow = false;
  codec::Bytes* grow = nullptr;
};

size_t take(char* data, size_t size, size_t count, void* user) {
  auto* sink = static_cast<Sink*>(user);
  const uint64_t n = static_cast<uint64_t>(size) * count;
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

class HttpStore final : public Store {
 public:
  explicit HttpStore(std::string url) : url_(std::move(url)) {
    while (url_.size() > 1 && url_.back() == '/') url_.pop_back();
  }
  const std::string& name() const override { return url_; }

  std::optional<uint64_t> size(const std::string& key) const override {
    CURL* c = prepare(key);
    curl().easy_setopt(c, CURLOPT_NOBODY, 1L);
    const long status = perform(c, key);
    if (status == 404 || status == 410) return std::nullopt;
    expect(status == 200, key, status);
    curl_off_t length = -1;
    curl().easy_getinfo(c, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
    if (length < 0) {
      throw Error(ErrorCategory::kIo, "the server gives no Content-Length",
                  Location::file(where(key)));
    }
    return static_cast<uint64_t>(length);
  }

  void read(const std::string& key, uint64_t offset, uint64_t length,
            std::byte* out) const override {
    if (length == 0) return;
    CURL* c = prepare(key);
    const std::string range = fmt::format("{}-{}", offset, offset + length - 1);
    curl().easy_setopt(c, CURLOPT_RANGE, range.c_str());
    Sink sink{out, length, 0, false};
    curl().easy_setopt(c, CURLOPT_WRITEFUNCTION, take);
    curl().easy_setopt(c, CURLOPT_WRITEDATA, &sink);
    const long status = perform(c, key, &sink);
    // 206: the range; 200: the whole value, acceptable when that is what was asked for.
    expect(status == 206 || (status == 200 && offset == 0), key, status);
    if (sink.got != length) {
      throw Error(ErrorCategory::kData,
                  fmt::format("{} bytes at offset {} were asked for; the server sent {}", length,
                              offset, sink.got),
                  Location::binary(where(key), offset));
    }
  }

  bool remote() const override { return true; }

  void read_many(std::span<RangeRequest> requests) const override {
    // Handles kept by the thread between batches: their connections stay open.
    thread_local std::unique_ptr<CURLM, MultiFree> multi(curl().multi_init());
    thread_local std::vector<std::unique_ptr<CURL, HandleFree>> easies;
    if (!multi) throw Error(ErrorCategory::kIo, "cannot start libcurl");
    handle();  // libcurl initialised
    while (easies.size() < std::min(kInFlight, requests.size())) {
      easies.emplace_back(curl().easy_init());
      if (!easies.back()) throw Error(ErrorCategory::kIo, "cannot start libcurl");
    }
    struct Transfer {
      size_t slot = 0;  // its handle in `easies`
      size_t request = 0;
      Sink sink;
      std::string range;
      char message[CURL_ERROR_SIZE] = {0};
    };
    std::vector<Transfer> transfers(easies.size());
    for (size_t t = 0; t < transfers.size(); ++t) transfers[t].slot = t;
    std::vector<size_t> idle;  // transfers free to start
    for (size_t i = easies.size(); i-- > 0;) idle.push_back(i);
    size_t next = 0, running = 0;
    std::optional<Error> failure;
    auto start = [&](size_t t) {
      RangeRequest& r = requests[next];
      Transfer& x = transfers[t];
      x.request = next++;
      x.message[0] = 0;
      CURL* c = easies[t].get();
      curl().easy_reset(c);
      configure(c, r.key);
      x.sink = Sink{};
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
      curl().multi_add_handle(multi.get(), c);
      ++running;
    };
    auto finish = [&](size_t t, CURLcode rc) {
      Transfer& x = transfers[t];
      RangeRequest& r = requests[x.request];
      CURL* c = easies[t].get();
      long status = 0;
      curl().easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
      try {
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
          throw Error(
              ErrorCategory::kIo,
              fmt::format("cannot fetch: {}", x.message[0] ? x.message : curl().easy_strerror(rc)),
              Location::file(where(r.key)));
        }
        if (r.whole) {
          if (status == 404 || status == 410) {
            r.found = false;
          } else {
            expect(status == 200, r.key, status);
            r.found = true;
            r.out->resize(x.sink.got);
          }
        } else {
          expect(status == 206 || (status == 200 && r.offset == 0), r.key, status);
          if (x.sink.got != r.length) {
            throw Error(ErrorCategory::kData,
                        fmt::format("{} bytes at offset {} were asked for; the server sent {}",
                                    r.length, r.offset, x.sink.got),
                        Location::binary(where(r.key), r.offset));
          }
        }
      } catch (const Error& e) {
        if (!failure) failure = e;
      }
    };
    // The multi handle itself failed: every transfer stops.
    auto fail_all = [&](CURLMcode mc) {
      for (auto& e : easies) curl().multi_remove_handle(multi.get(), e.get());
      throw Error(ErrorCategory::kIo, fmt::format("cannot fetch: {}", curl().multi_strerror(mc)),
                  Location::file(url_));
    };
    while ((next < requests.size() && !failure) || running > 0) {
      while (next < requests.size() && !failure && !idle.empty()) {
        start(idle.back());
        idle.pop_back();
      }
      int still = 0;
      CURLMcode mc = curl().multi_perform(multi.get(), &still);
      if (mc != CURLM_OK) fail_all(mc);
      int left = 0;
      while (CURLMsg* m = curl().multi_info_read(multi.get(), &left)) {
        if (m->msg != CURLMSG_DONE) continue;
        Transfer* done = nullptr;
        curl().easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, &done);
        const size_t t = done->slot;
        const CURLcode rc = m->data.result;
        curl().multi_remove_handle(multi.get(), m->easy_handle);
        finish(t, rc);
        idle.push_back(t);
        --running;
      }
      // Wait for the sockets only while transfers run and none has room to start.
      if (running > 0 && (idle.empty() || next == requests.size() || failure)) {
        mc = curl().multi_poll(multi.get(), nullptr, 0, 1000, nullptr);
        if (mc != CURLM_OK) fail_all(mc);
      }
    }
    if (failure) throw *failure;
  }

  // A web server lists nothing: a store read over HTTP shows the node its URL names (groups
  // show no members unless they are named).
  std::vector<std::string> children(const std::string&) const override { return {}; }
  bool can_list() const override { return false; }

 private:
  CURL* prepare(const std::string& key) const {
    CURL* c = handle();
    configure(c, key);
    return c;
  }

  // The options of every request for `key`.
  void configure(CURL* c, const std::string& key) const {
    const std::string url = where(key);
    curl().easy_setopt(c, CURLOPT_URL, url.c_str());
    curl().easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
    curl().easy_setopt(c, CURLOPT_MAXREDIRS, kMaxRedirects);
    curl().easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl().easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl().easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 30L);
    // A server that stops sending fails the read instead of hanging it.
    curl().easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl().easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 60L);
    curl().easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl().easy_setopt(c, CURLOPT_USERAGENT, "dudley");
  }

  long perform(CURL* c, const std::string& key, const Sink* sink = nullptr) const {
    char message[CURL_ERROR_SIZE] = {0};
    curl().easy_setopt(c, CURLOPT_ERRORBUFFER, message);
    const CURLcode rc = curl().easy_perform(c);
    if (rc != CURLE_OK) {
      if (sink && sink->overflow) {
        throw Error(ErrorCategory::kData,
                    fmt::format("the server sent more than the {} bytes asked for", sink->room),
                    Location::file(where(key)));
      }
      throw Error(ErrorCategory::kIo,
                  fmt::format("cannot fetch: {}", message[0] ? message : curl().easy_strerror(rc)),
                  Location::file(where(key)));
    }
    long status = 0;
    curl().easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    return status;
  }

  void expect(bool ok, const std::string& key, long status) const {
    if (!ok) {
      throw Error(ErrorCategory::kIo, fmt::format("the server answered HTTP {}", status),
                  Location::file(where(key)));
    }
  }

  std::string url_;
};

}  // namespace

bool is_url(const std::string& path) {
  return path.rfind("http://", 0) == 0 || path.rfind("https://", 0) == 0;
}

std::shared_ptr<Store> open_http_store(const std::string& url) {
  return std::make_shared<HttpStore>(url);
}

}  // namespace dudley::zarr
