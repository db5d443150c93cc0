// The module dudley-view.so: the viewer's HTTP server, cpp-httplib (Debian's) behind the one
// entry point of transport.hpp.
#include <httplib.h>

#include <memory>
#include <mutex>

#include <fmt/format.h>

#include "dudley/core/error.hpp"
#include "view/request_watch.hpp"
#include "view/transport.hpp"

namespace {

using dudley::view::HttpReply;
using dudley::view::HttpRequest;

void answer(const dudley::view::Handler& handler, dudley::view::RequestWatch& watch,
            const httplib::Request& req, httplib::Response& res) {
  // Sent whole: the connection's time to send a request stops (its answer, written after
  // this returns, is never cut: the connection serves this one request).
  watch.answering(req.remote_addr, req.remote_port);
  HttpRequest request;
  request.path = req.path;
  for (const auto& [key, value] : req.params) request.query.emplace(key, value);
  request.host = req.get_header_value("Host");
  HttpReply reply = handler(request);
  res.status = reply.status;
  for (const auto& [key, value] : reply.headers) res.set_header(key, value);
  // Moved, not copied (set_content copies): an export may be 256 MiB.
  res.body = std::move(reply.body);
  res.set_header("Content-Type", reply.content_type);
}

void serve(const dudley::view::ServeOptions& options, const dudley::view::Handler& handler,
           const std::function<void(int)>& listening, std::function<void()>& stop) {
  httplib::Server server;
  server.new_task_queue = [n = options.threads] {
    return new httplib::ThreadPool(static_cast<size_t>(n));
  };
  server.set_read_timeout(options.timeout_seconds, 0);
  server.set_write_timeout(options.timeout_seconds, 0);
  // One request a connection: a connection kept open between requests holds one of the
  // pool's threads while it waits (40 idle ones delayed /api/info by 48 s). The page asks
  // 127.0.0.1, where a new connection costs a fraction of a millisecond.
  server.set_keep_alive_max_count(1);
  server.set_keep_alive_timeout(1);
  server.set_payload_max_length(size_t{64} * 1024);
  // SO_REUSEADDR alone: cpp-httplib's default adds SO_REUSEPORT, with which a second viewer
  // (or any program) could listen on the same port and take half of the requests.
  server.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  // Made once the port is known; the routes are only called after that.
  std::unique_ptr<dudley::view::RequestWatch> watch;
  server.Get(".*", [&handler, &watch](const httplib::Request& req, httplib::Response& res) {
    answer(handler, *watch, req, res);
  });
  auto refuse = [](const httplib::Request&, httplib::Response& res) {
    res.status = 405;
    res.set_header("Allow", "GET, HEAD");
    res.set_content(R"({"error": "the viewer is read-only: only GET and HEAD are answered"})",
                    "application/json");
  };
  server.Post(".*", refuse);
  server.Put(".*", refuse);
  server.Delete(".*", refuse);
  server.Patch(".*", refuse);
  const int port = options.port == 0
                       ? server.bind_to_any_port(options.host)
                       : (server.bind_to_port(options.host, options.port) ? options.port : -1);
  if (port < 0) {
    throw dudley::Error(dudley::ErrorCategory::kIo,
                        fmt::format("cannot listen on {}:{} (in use, or not an address of this "
                                    "machine)",
                                    options.host, options.port));
  }
  // `stop` may be called from any thread at any time, also after the server is gone (then
  // it does nothing): the state it holds outlives this function. (A stop before the server
  // listens is lost by cpp-httplib; the caller asks until serve() returns.)
  struct Stopping {
    std::mutex mutex;
    httplib::Server* server = nullptr;
  };
  auto state = std::make_shared<Stopping>();
  state->server = &server;
  stop = [state] {
    const std::lock_guard<std::mutex> lock(state->mutex);
    if (state->server != nullptr) state->server->stop();
  };
  // However serve() ends, the server is forgotten before it goes (this is destroyed first).
  struct Forget {
    std::shared_ptr<Stopping> state;
    ~Forget() {
      const std::lock_guard<std::mutex> lock(state->mutex);
      state->server = nullptr;
    }
  } forget{state};
  watch = std::make_unique<dudley::view::RequestWatch>(port, options.request_time);
  listening(port);
  server.listen_after_bind();
}

const dudley::view::Transport kTransport{{DUDLEY_BUILD_TAG}, &serve};

}  // namespace

/// The module's Transport.
extern "C" __attribute__((visibility("default"))) const void* dudley_view_transport() {
  return &kTransport;
}
