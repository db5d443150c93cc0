#include "io/s3_upload.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <optional>
#include <vector>

#include "dudley/core/error.hpp"
#include "dudley/core/thread_pool.hpp"
#include "io/curl_library.hpp"
#include "io/s3_xml.hpp"

namespace dudley::io {
namespace {

// Requests in flight at once (one thread and connection each).
constexpr size_t kThreads = 8;
constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kMinPart = 8 * kMiB;
constexpr uint64_t kMaxParts = 10000;
constexpr uint64_t kDefaultMultipartFrom = 64 * kMiB;

// Runs `task(i)` for every i below `count`, kThreads requests at once.
void run_all(size_t count, const std::function<void(size_t)>& task) {
  run_on_own_threads(count, kThreads, task);
}

// `length` bytes at `offset` of `value`: where they are when in memory (a chunk just
// encoded), else read into `buffer`.
std::span<const std::byte> read_part(const ByteSource& value, uint64_t offset, uint64_t length,
                                     Bytes& buffer) {
  if (!value.file_span() && length > 0) {
    if (const unsigned char* at = value.view(offset, length)) {
      return {reinterpret_cast<const std::byte*>(at), length};
    }
  }
  buffer.resize(length);
  if (length > 0) value.read(offset, length, buffer.data());
  return {buffer.data(), buffer.size()};
}

// Sends `request` and throws what S3 said unless the answer is a success (2xx) without an
// error document (CompleteMultipartUpload may answer 200 and then an error).
HttpAnswer send_expecting_success(const HttpStore& http, const HttpRequest& request) {
  HttpAnswer answer = http.send(request);
  const std::string_view body(reinterpret_cast<const char*>(answer.body.data()),
                              answer.body.size());
  const bool success = answer.status >= 200 && answer.status < 300;
  if (!success || !parse_s3_error(body).code.empty()) {
    http.expect(false, request.key, success ? 500 : answer.status, 1, body, answer.headers);
  }
  return answer;
}

// A multipart upload under way: its value, UploadId, part size and the parts' ETags.
struct Upload {
  const WriteRequest* value = nullptr;
  std::string id;
  uint64_t part = 0;
  std::vector<std::string> etags;
  uint64_t parts() const { return (value->value->size() + part - 1) / part; }
};

std::string upload_query(const Upload& u) {
  return "uploadId=" + url_escaped(u.id, false);
}

void start_upload(const HttpStore& http, Upload& u) {
  HttpRequest r;
  r.method = "POST";
  r.key = u.value->key;
  r.query = "uploads=";
  const HttpAnswer a = send_expecting_success(http, r);
  u.id = parse_s3_upload_id(
      std::string_view(reinterpret_cast<const char*>(a.body.data()), a.body.size()),
      http.where(u.value->key));
  u.part = s3_part_size(u.value->value->size());
  u.etags.assign(u.parts(), {});
}

// Tells `value`'s progress hook that `bytes` more are stored; calls never overlap.
void report_stored(const WriteRequest& value, uint64_t bytes) {
  if (!value.on_stored) return;
  static std::mutex one_at_a_time;
  const std::lock_guard<std::mutex> hold(one_at_a_time);
  (*value.on_stored)(bytes);
}

void send_part(const HttpStore& http, Upload& u, uint64_t index, Bytes& buffer) {
  const uint64_t size = u.value->value->size();
  const uint64_t at = index * u.part;
  HttpRequest r;
  r.method = "PUT";
  r.key = u.value->key;
  // Parameters in a signature's canonical order: partNumber before uploadId.
  r.query = fmt::format("partNumber={}&{}", index + 1, upload_query(u));
  r.body = read_part(*u.value->value, at, std::min(u.part, size - at), buffer);
  const HttpAnswer a = send_expecting_success(http, r);
  if (a.headers.etag.empty()) {
    throw Error(
        ErrorCategory::kIo,
        fmt::format("the server named no ETag for part {} of a multipart upload", index + 1),
        Location::file(http.where(u.value->key)));
  }
  u.etags[index] = a.headers.etag;
  report_stored(*u.value, r.body.size());
}

void complete_upload(const HttpStore& http, const Upload& u) {
  std::string xml = "<CompleteMultipartUpload>";
  for (size_t i = 0; i < u.etags.size(); ++i) {
    xml +=
        fmt::format("<Part><PartNumber>{}</PartNumber><ETag>{}</ETag></Part>", i + 1, u.etags[i]);
  }
  xml += "</CompleteMultipartUpload>";
  HttpRequest r;
  r.method = "POST";
  r.key = u.value->key;
  r.query = upload_query(u);
  r.body = std::as_bytes(std::span<const char>(xml.data(), xml.size()));
  send_expecting_success(http, r);
}

// Best effort: the parts of a failed upload are dropped (an upload never completed is
// never visible; aborting frees what its parts hold).
void abort_upload(const HttpStore& http, const Upload& u) noexcept {
  try {
    HttpRequest r;
    r.method = "DELETE";
    r.key = u.value->key;
    r.query = upload_query(u);
    (void)http.send(r);
  } catch (...) {  // the upload's own error is the one reported
  }
}

}  // namespace

uint64_t s3_multipart_threshold() {
  const char* text = std::getenv("DUDLEY_S3_MULTIPART_FROM");
  if (text == nullptr || *text == '\0') return kDefaultMultipartFrom;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (end == text || *end != '\0' || v < kMinPart) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("DUDLEY_S3_MULTIPART_FROM={}: give a number of bytes, at least {}",
                            text, kMinPart));
  }
  return v;
}

uint64_t s3_part_size(uint64_t total) {
  const uint64_t needed = (total + kMaxParts - 1) / kMaxParts;
  return std::max(kMinPart, (needed + kMiB - 1) / kMiB * kMiB);
}

void s3_write_many(const HttpStore& http, std::span<const WriteRequest> values) {
  const uint64_t threshold = s3_multipart_threshold();
  std::vector<const WriteRequest*> small;
  std::vector<Upload> uploads;
  for (const WriteRequest& v : values) {
    if (v.value->size() >= threshold) {
      uploads.emplace_back().value = &v;
    } else {
      small.push_back(&v);
    }
  }
  // Tasks: every small value, then every part of every large one.
  struct Task {
    Upload* upload = nullptr;
    uint64_t index = 0;  ///< into `small`, or the part
  };
  std::vector<Task> tasks;
  for (uint64_t i = 0; i < small.size(); ++i) tasks.push_back({nullptr, i});
  size_t started = 0;
  try {
    for (Upload& u : uploads) {
      start_upload(http, u);
      ++started;
      for (uint64_t p = 0; p < u.parts(); ++p) tasks.push_back({&u, p});
    }
    run_all(tasks.size(), [&](size_t t) {
      thread_local Bytes buffer;
      const Task& task = tasks[t];
      if (task.upload) {
        send_part(http, *task.upload, task.index, buffer);
        return;
      }
      const WriteRequest& v = *small[task.index];
      HttpRequest r;
      r.method = "PUT";
      r.key = v.key;
      r.body = read_part(*v.value, 0, v.value->size(), buffer);
      send_expecting_success(http, r);
      report_stored(v, r.body.size());
    });
    for (const Upload& u : uploads) complete_upload(http, u);
  } catch (...) {
    for (size_t i = 0; i < started; ++i) abort_upload(http, uploads[i]);
    throw;
  }
}

void s3_erase_many(const HttpStore& http, std::span<const std::string> keys) {
  run_all(keys.size(), [&](size_t i) {
    HttpRequest r;
    r.method = "DELETE";
    r.key = keys[i];
    const HttpAnswer a = http.send(r);
    if (a.status == 404 || (a.status >= 200 && a.status < 300)) return;  // 404: gone already
    http.expect(false, r.key, a.status, 1,
                std::string_view(reinterpret_cast<const char*>(a.body.data()), a.body.size()),
                a.headers);
  });
}

}  // namespace dudley::io
