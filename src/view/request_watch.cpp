#include "view/request_watch.hpp"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <vector>

namespace dudley::view {
namespace {

// The address text cpp-httplib gives a request's peer (inet_ntop's), and its port.
bool peer_of(const sockaddr_storage& a, std::string& address, int& port) {
  char text[INET6_ADDRSTRLEN] = {};
  if (a.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&a);
    if (!::inet_ntop(AF_INET, &in->sin_addr, text, sizeof text)) return false;
    port = ntohs(in->sin_port);
  } else if (a.ss_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&a);
    if (!::inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof text)) return false;
    port = ntohs(in6->sin6_port);
  } else {
    return false;
  }
  address = text;
  return true;
}

// The local port of socket `fd`, and its peer; false for any other descriptor (a file, a
// socket not connected: the listening one).
bool connection(int fd, int& local_port, std::string& address, int& port) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) return false;
  sockaddr_storage local{}, remote{};
  socklen_t n = sizeof local, m = sizeof remote;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &n) != 0) return false;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&remote), &m) != 0) return false;
  std::string ignored;
  return peer_of(local, ignored, local_port) && peer_of(remote, address, port);
}

}  // namespace

RequestWatch::RequestWatch(int port, std::chrono::milliseconds limit)
    : port_(port), limit_(limit), thread_([this] { run(); }) {}

RequestWatch::~RequestWatch() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void RequestWatch::answering(const std::string& address, int port) {
  const std::lock_guard lock(mutex_);
  Connection& c = connections_[{address, port}];
  c.answering = true;
}

void RequestWatch::run() {
  const auto every = std::clamp<std::chrono::milliseconds>(
      limit_ / 10, std::chrono::milliseconds(50), std::chrono::milliseconds(1000));
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, every, [this] { return stopping_; })) {
    lock.unlock();
    look();
    lock.lock();
  }
}

void RequestWatch::look() {
  // The server's connections now, by descriptor (read outside the lock: it lists the
  // process's descriptors).
  std::vector<std::pair<int, Peer>> open;
  if (DIR* dir = ::opendir("/proc/self/fd")) {
    while (const dirent* e = ::readdir(dir)) {
      char* end = nullptr;
      const long fd = std::strtol(e->d_name, &end, 10);
      if (end == e->d_name || *end != '\0' || fd == ::dirfd(dir)) continue;
      int local = 0, port = 0;
      std::string address;
      if (connection(static_cast<int>(fd), local, address, port) && local == port_) {
        open.push_back({static_cast<int>(fd), {address, port}});
      }
    }
    ::closedir(dir);
  }
  const Clock::time_point now = Clock::now();
  std::set<Peer> seen;
  const std::lock_guard lock(mutex_);
  for (const auto& [fd, peer] : open) {
    seen.insert(peer);
    auto [it, added] = connections_.try_emplace(peer, Connection{now, false, 0});
    Connection& c = it->second;
    if (added || c.answering) continue;
    // Bytes not read yet: a connection waiting for a thread (all of them busy), its request
    // in the socket's queue, not one being read slowly: left to wait. Once a thread has read
    // what it sent, it must be answering by the next look (a whole request is answered
    // within microseconds of being read), or be dropped if its time is up.
    int unread = 0;
    if (::ioctl(fd, FIONREAD, &unread) == 0 && unread > 0) {
      c.quiet_looks = 0;
      continue;
    }
    if (++c.quiet_looks < 2 || now - c.since <= limit_) continue;
    // Still the same connection (a descriptor closed since the listing may have been given
    // to another): then its read ends now, and its thread with it.
    int local = 0, port = 0;
    std::string address;
    if (connection(fd, local, address, port) && local == port_ && Peer{address, port} == peer) {
      ::shutdown(fd, SHUT_RDWR);
    }
  }
  std::erase_if(connections_, [&](const auto& c) { return !seen.count(c.first); });
}

}  // namespace dudley::view
