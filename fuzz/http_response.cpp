// Reading a Zarr store from a web server that answers every request with the fuzz input:
// a raw HTTP response (status line, headers, body), recorded ones as seeds and their
// mutations (lying Content-Length, bad statuses, chunked bodies, redirects, bodies longer
// or shorter than asked for). The store either reads the array or fails with an Error;
// never a crash, a hang past its time bounds, or memory past what it asked for.
//
// The server runs in this process on 127.0.0.1. A mutated Location header could name any
// address, so the target runs only where the network is loopback alone: fuzz/run.sh starts
// it in a network namespace of its own (unshare -n); elsewhere it refuses to start.
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "dudley/core/error.hpp"
#include "dudley/formats/zarr.hpp"
#include "dudley/io/store.hpp"

namespace {

std::mutex current_mutex;
std::string current;  // the response every request gets
int port = 0;

// Whether any interface other than loopback is up: then the target must not run.
bool network_beyond_loopback() {
  ifaddrs* all = nullptr;
  if (getifaddrs(&all) != 0) return true;
  bool beyond = false;
  for (ifaddrs* a = all; a; a = a->ifa_next) {
    if ((a->ifa_flags & IFF_UP) && !(a->ifa_flags & IFF_LOOPBACK)) beyond = true;
  }
  freeifaddrs(all);
  return beyond;
}

void serve(int listener) {
  for (;;) {
    const int c = ::accept(listener, nullptr, nullptr);
    if (c < 0) continue;
    // The request, up to its blank line (at most 64 KiB), then the response, then close.
    std::string request;
    char buffer[4096];
    while (request.find("\r\n\r\n") == std::string::npos && request.size() < 65536) {
      const ssize_t n = ::recv(c, buffer, sizeof buffer, 0);
      if (n <= 0) break;
      request.append(buffer, static_cast<size_t>(n));
    }
    std::string response;
    {
      std::lock_guard lock(current_mutex);
      response = current;
    }
    size_t sent = 0;
    while (sent < response.size()) {
      const ssize_t n = ::send(c, response.data() + sent, response.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += static_cast<size_t>(n);
    }
    ::shutdown(c, SHUT_RDWR);
    ::close(c);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (network_beyond_loopback()) {
    std::fprintf(stderr,
                 "http_response: the network reaches beyond loopback here; run it in a "
                 "namespace of its own: unshare -n (fuzz/run.sh does)\n");
    std::exit(1);
  }
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (listener < 0 || ::bind(listener, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
      ::listen(listener, 64) != 0 ||
      ::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    std::perror("http_response: cannot listen on 127.0.0.1");
    std::exit(1);
  }
  port = ntohs(address.sin_port);
  std::thread(serve, listener).detach();
  return 0;
}

// The response with its folded header lines (a line of the head starting with a space or a
// tab) left out. libcurl 7.88 (Debian 12's) reads freed memory when it unfolds such a line
// after earlier responses on the same handle: this target found it (heap-use-after-free
// in its headers.c; upstream reworked unfolding since). That is libcurl's to fix, and
// left in, it would stop every run within seconds, before reaching our code.
static std::string without_folded_lines(std::string_view response) {
  if (response.empty()) return {};
  // The head ends at a blank line, or, without one, with the response.
  const size_t head_end =
      std::min({response.find("\n\r\n"), response.find("\n\n"), response.size() - 1});
  std::string out;
  size_t at = 0;
  while (at <= head_end) {
    const size_t end = std::min(response.find('\n', at), response.size() - 1) + 1;
    const std::string_view line = response.substr(at, end - at);
    if (at == 0 || (line[0] != ' ' && line[0] != '\t')) out.append(line);
    at = end;
  }
  out.append(response.substr(at));
  return out;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  {
    std::lock_guard lock(current_mutex);
    current = without_folded_lines({reinterpret_cast<const char*>(data), size});
  }
  dudley::io::HttpLimits limits;
  limits.request_seconds = 2;  // the server answers at once or closes: a bound, never met
  limits.total_seconds = 5;
  limits.tries = 1;  // retries wait a quarter second: tests/interop/http_hostile_test.py has them
  try {
    const dudley::model::Tree tree = dudley::zarr::open_zarr(dudley::io::open_http_store(
        "http://127.0.0.1:" + std::to_string(port) + "/s.zarr", limits));
    if (tree.root->data) (void)tree.root->data->read();
  } catch (const dudley::Error&) {
  }
  return 0;
}
