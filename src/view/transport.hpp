// The viewer's HTTP transport: a server that hands every GET request to the program and
// sends back its reply. It lives in the module dudley-view.so (transport_module.cpp, linking
// cpp-httplib and through it OpenSSL), loaded by `dudley view` alone; everything the viewer
// answers is made by the program (api.cpp).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "dudley/core/module_loader.hpp"

namespace dudley::view {

/// A GET request as the program sees it.
struct HttpRequest {
  std::string path;                          ///< "/api/tree", decoded
  std::map<std::string, std::string> query;  ///< decoded; a repeated key keeps its first value
  std::string host;                          ///< the Host header ("" when absent)
};

/// The program's reply.
struct HttpReply {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  ///< besides the content type
};

using Handler = std::function<HttpReply(const HttpRequest&)>;

/// How the server listens.
struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = 0;              ///< 0: a free port the system picks
  int threads = 16;          ///< requests answered at once
  int timeout_seconds = 30;  ///< a client that sends nothing for this long is dropped
  /// A connection that takes longer than this to send a whole request (half-sent, or a
  /// byte every few seconds) is dropped: such clients cannot hold the server's threads.
  std::chrono::milliseconds request_time{5000};
};

/// The transport's one function, from the module.
struct Transport {
  ModuleHeader header;  ///< first, as load_module reads it
  /// Binds `options.host`:`options.port`, calls `listening(port)` with the port bound, then
  /// answers requests with `handler` until `stop` (filled in before `listening` is called)
  /// is called from another thread. `stop` may be called any number of times, also after
  /// serve() has returned (it then does nothing); one called before the server listens may
  /// be lost, so a caller asks again until serve() returns. Requests other than GET and HEAD are
  /// refused with 405, bodies over 64 KiB with 413. Throws Error(kIo) when it cannot bind.
  void (*serve)(const ServeOptions& options, const Handler& handler,
                const std::function<void(int port)>& listening, std::function<void()>& stop);
};

/// The C name the module exports its entry point under (`const void* ()`: a Transport).
inline constexpr const char* kTransportEntry = "dudley_view_transport";

/// The transport, loaded from dudley-view.so on first use. Throws Error(kIo) when the
/// module is missing or from another build.
const Transport& transport();

}  // namespace dudley::view
