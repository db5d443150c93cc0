// Half-sent requests cannot hold the viewer. cpp-httplib gives each connection a thread of
// its pool from accept to close, and its read timeout bounds each wait for a byte, not the
// whole request: a client sending a byte every few seconds (or eight clients that send half
// a request) would hold every thread for hours and the page would get no answer. The watch
// bounds the time a connection may take to send a whole request: one that has been reading
// a request for longer than that is shut down, which ends its thread's read at once.
//
// cpp-httplib 0.11 (Debian's) hands the program no connection's socket, so the watch finds
// them itself: the process's sockets whose local address is the server's (curl's sockets to
// stores, also the process's, have other local addresses), each known by its peer, and the
// handler says, by the request's peer, when a connection has sent its request and is answered.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

namespace dudley::view {

class RequestWatch {
 public:
  /// Watches the connections to local port `port`, shutting down those that read a request
  /// for longer than `limit` (looked at every `limit` / 10, at least every second); one
  /// whose bytes nobody has read yet (waiting for a thread) is left to wait.
  RequestWatch(int port, std::chrono::milliseconds limit);
  /// Stops the watch (its thread ends).
  ~RequestWatch();
  RequestWatch(const RequestWatch&) = delete;
  RequestWatch& operator=(const RequestWatch&) = delete;

  /// The connection from `address`:`port` has sent its request whole and is answered: not
  /// watched any more. A connection serves one request (the server keeps none open after
  /// its answer), so its answer, however long it takes to send (an export to a slow
  /// client), is never cut; the server's write timeout bounds a client that stops reading.
  void answering(const std::string& address, int port);

 private:
  using Clock = std::chrono::steady_clock;
  using Peer = std::pair<std::string, int>;
  struct Connection {
    Clock::time_point since;  ///< when it began reading its request
    bool answering = false;   ///< its request came whole: answered until it closes
    int quiet_looks = 0;      ///< looks in a row that found it neither answering nor unread
  };

  void run();
  void look();

  int port_;
  std::chrono::milliseconds limit_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::map<Peer, Connection> connections_;
  std::thread thread_;
};

}  // namespace dudley::view
