// A read-only store on a web server, through libcurl: sizes by HEAD, values and byte ranges
// by GET with a Range header. Each thread keeps its own handle, so connections are reused
// and chunks decoded on several cores are fetched several at once.
#include <curl/curl.h>
#include <fmt/format.h>

#include <cstring>
#include <mutex>

#include "dudley/core/error.hpp"
#include "dudley/formats/zarr/store.hpp"

namespace dudley::zarr {
namespace {

constexpr long kMaxRedirects = 5;

struct HandleFree {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};

// This thread's handle, reset to defaults (its connections stay open for the next request).
CURL* handle() {
  static std::once_flag init;
  std::call_once(init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  thread_local std::unique_ptr<CURL, HandleFree> h(curl_easy_init());
  if (!h) throw Error(ErrorCategory::kIo, "cannot start libcurl");
  curl_easy_reset(h.get());
  return h.get();
}

// Where the body of a response goes: at most `room` bytes into `out`.
struct Sink {
  std::byte* out = nullptr;
  uint64_t room = 0;
  uint64_t got = 0;
  bool overflow = false;
};

size_t take(char* data, size_t size, size_t count, void* user) {
  auto* sink = static_cast<Sink*>(user);
  const uint64_t n = static_cast<uint64_t>(size) * count;
  if (n > sink->room - sink->got) {
    sink->overflow = true;
    return 0;  // stops the transfer: more than was asked for
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
    curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    const long status = perform(c, key);
    if (status == 404 || status == 410) return std::nullopt;
    expect(status == 200, key, status);
    curl_off_t length = -1;
    curl_easy_getinfo(c, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
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
    curl_easy_setopt(c, CURLOPT_RANGE, range.c_str());
    Sink sink{out, length, 0, false};
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, take);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
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

  // A web server lists nothing: a store read over HTTP shows the node its URL names (groups
  // show no members unless they are named).
  std::vector<std::string> children(const std::string&) const override { return {}; }
  bool can_list() const override { return false; }

 private:
  CURL* prepare(const std::string& key) const {
    CURL* c = handle();
    const std::string url = where(key);
    curl_easy_setopt(c, CURLOPT_URL, url.c_str());
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(c, CURLOPT_MAXREDIRS, kMaxRedirects);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 30L);
    // A server that stops sending fails the read instead of hanging it.
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 60L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "dudley");
    return c;
  }

  long perform(CURL* c, const std::string& key, const Sink* sink = nullptr) const {
    char message[CURL_ERROR_SIZE] = {0};
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, message);
    const CURLcode rc = curl_easy_perform(c);
    if (rc != CURLE_OK) {
      if (sink && sink->overflow) {
        throw Error(ErrorCategory::kData,
                    fmt::format("the server sent more than the {} bytes asked for", sink->room),
                    Location::file(where(key)));
      }
      throw Error(ErrorCategory::kIo,
                  fmt::format("cannot fetch: {}", message[0] ? message : curl_easy_strerror(rc)),
                  Location::file(where(key)));
    }
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
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
