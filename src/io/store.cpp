#include "dudley/io/store.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "dudley/core/error.hpp"
#include "dudley/core/path.hpp"
#include "dudley/core/text.hpp"
#include "dudley/io/atomic_file.hpp"
#include "dudley/io/read_rule.hpp"

namespace dudley::io {
namespace {

namespace fs = std::filesystem;

// A file descriptor closed when it goes.
struct Fd {
  int fd = -1;
  Fd() = default;
  explicit Fd(int f) : fd(f) {}
  Fd(Fd&& o) noexcept : fd(o.fd) { o.fd = -1; }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd& operator=(Fd&& o) noexcept {
    std::swap(fd, o.fd);
    return *this;
  }
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

class DirectoryStore final : public Store {
 public:
  DirectoryStore(std::string path, const std::vector<std::string>& allow_outside)
      : path_(std::move(path)), rule_(ReadRule::for_directory(path_, allow_outside)) {
    while (path_.size() > 1 && path_.back() == '/') path_.pop_back();
    root_ = Fd(::open(path_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  }
  const std::string& name() const override { return path_; }

  std::optional<uint64_t> size(const std::string& key) const override {
    // Opened as a path only (no read, no FIFO waiting): where the key leads is judged first.
    const Fd f = open_key(key, O_PATH);
    if (f.fd < 0) {
      if (errno == ENOENT || errno == ENOTDIR) return std::nullopt;
      fail(key, errno);
    }
    struct stat st {};
    if (::fstat(f.fd, &st) != 0) fail(key, errno);
    if (!S_ISREG(st.st_mode)) {
      throw NotAValue(ErrorCategory::kData, "is not a regular file", Location::file(where(key)));
    }
    return static_cast<uint64_t>(st.st_size);
  }

  void read(const std::string& key, uint64_t offset, uint64_t length,
            std::byte* out) const override {
    const Fd f = open_key(key, O_RDONLY | O_NONBLOCK);
    if (f.fd < 0) fail(key, errno);
    uint64_t done = 0;
    while (done < length) {
      const ssize_t n = ::pread(f.fd, out + done, length - done, static_cast<off_t>(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) fail(key, errno);
      if (n == 0) {
        throw Error(ErrorCategory::kData,
                    fmt::format("{} bytes at offset {} were asked for; the value ends at {}",
                                length, offset, offset + done),
                    Location::binary(where(key), offset + done));
      }
      done += static_cast<uint64_t>(n);
    }
  }

  bool for_each_key(const std::string& prefix,
                    const std::function<void(std::string_view)>& visit) const override {
    const fs::path dir = prefix.empty() ? fs::path(path_) : fs::path(path_) / prefix;
    const size_t lead = dir.string().size() + 1;
    std::error_code ec;
    fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
    for (fs::recursive_directory_iterator end; !ec && it != end; it.increment(ec)) {
      // An array's keys nest as deep as its rank (64 at most), plus the "c" level.
      if (it.depth() > 66) it.disable_recursion_pending();
      std::error_code e2;
      if (it->is_regular_file(e2)) visit(std::string_view(it->path().native()).substr(lead));
    }
    if (ec && ec != std::errc::no_such_file_or_directory) {
      throw Error(ErrorCategory::kIo, fmt::format("cannot list: {}", ec.message()),
                  Location::file(dir.string()));
    }
    return true;
  }

  std::vector<std::string> subdirectories(const std::string& prefix) const override {
    std::vector<std::string> names;
    std::error_code ec;
    const fs::path dir = prefix.empty() ? fs::path(path_) : fs::path(path_) / prefix;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      std::string name = it->path().filename().string();
      std::error_code e2;
      // Dot names too (".inf" is a Zarr node's name like any): the reader looks for a node's
      // document in each.
      if (it->is_directory(e2)) names.push_back(std::move(name));
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  bool writable() const override { return true; }

  void write_many(std::span<const WriteRequest> values) override {
    for (const WriteRequest& v : values) {
      (void)file(v.key);  // a plain key, or refused
      // The folder is made where missing, never through a link, and the file is written
      // into that very folder (its descriptor's /proc name): a folder swapped for a link
      // after the walk does not lead the write elsewhere. A link at the key's own name is
      // replaced, not followed.
      const Fd folder = folder_beneath(v.key, true);
      const size_t slash = v.key.rfind('/');
      const std::string name = slash == std::string::npos ? v.key : v.key.substr(slash + 1);
      try {
        AtomicFile out(fmt::format("/proc/self/fd/{}/{}", folder.fd, name), false);
        out.copy_from(*v.value, 0, 0, v.value->size());
        out.commit();
      } catch (const Error& e) {
        throw Error(e.category(), e.message(), Location::file(where(v.key)));
      }
      if (v.on_stored) (*v.on_stored)(v.value->size());
    }
  }

  void erase_many(std::span<const std::string> keys) override {
    for (const std::string& key : keys) {
      (void)file(key);  // a plain key, or refused
      const Fd folder = folder_beneath(key, false);
      if (folder.fd < 0) continue;  // its folder is not there: nor is the key
      const size_t slash = key.rfind('/');
      const std::string name = slash == std::string::npos ? key : key.substr(slash + 1);
      if (::unlinkat(folder.fd, name.c_str(), 0) != 0) {
        if (errno == ENOENT) continue;
        throw Error(ErrorCategory::kIo, fmt::format("cannot remove: {}", std::strerror(errno)),
                    Location::file(where(key)));
      }
      // The key's folders exist for its keys: those it leaves empty go too (a folder that
      // holds anything else stays, and stops the walk), each removed from its parent's
      // descriptor, never through a link.
      for (size_t up = key.rfind('/'); up != std::string::npos && up > 0;
           up = key.rfind('/', up - 1)) {
        const std::string folder_key = key.substr(0, up);
        const Fd parent = folder_beneath(folder_key, false);
        const size_t cut = folder_key.rfind('/');
        const std::string folder_name =
            cut == std::string::npos ? folder_key : folder_key.substr(cut + 1);
        if (parent.fd < 0 || ::unlinkat(parent.fd, folder_name.c_str(), AT_REMOVEDIR) != 0) break;
      }
    }
  }

 private:
  // A key's file. Keys are data (a store's listing, a file's names): one that would climb
  // out of the directory ("..", "a/../../b", "/abs") or name no file (NUL, "a//b") is
  // refused here, whoever asks, before the file system sees it.
  std::string file(const std::string& key) const {
    if (!is_plain_key(key)) {
      throw Error(ErrorCategory::kData,
                  fmt::format("key '{}' is not a plain key of a directory store (empty, '.' "
                              "or '..' parts, a leading '/', a NUL): not read or written",
                              escape_controls(key)),
                  Location::file(path_));
    }
    return path_ + "/" + key;
  }

  // The file of `key` opened with `flags` when it lies inside the store (after every
  // symbolic link and ".."), or in a folder the rule allows; -1 with errno for one that
  // cannot be opened (ENOENT: absent). A key leading elsewhere is Error(kData) naming it.
  // Inside the store, openat2's RESOLVE_BENEATH resolves the key in the kernel, so the file
  // opened is the one judged; elsewhere, and where openat2 is missing (Linux before 5.6, a
  // seccomp filter), the path is resolved first and the resolved path opened.
  Fd open_key(const std::string& key, int flags) const {
    const std::string rel = key.empty() ? "." : key;
    if (root_.fd >= 0) {
      struct open_how how {};
      how.flags = static_cast<uint64_t>(flags | O_CLOEXEC);
      how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
      Fd f(static_cast<int>(::syscall(SYS_openat2, root_.fd, rel.c_str(), &how, sizeof how)));
      if (f.fd >= 0 || (errno != EXDEV && errno != ENOSYS && errno != EPERM && errno != E2BIG &&
                        errno != EAGAIN))
        return f;
    }
    const ReadRule::Verdict verdict = rule_.check(file(rel));
    if (verdict.outside) {
      throw Error(
          ErrorCategory::kData,
          fmt::format("not read: it leads to {}, outside {}", verdict.resolved, rule_.describe()),
          Location::file(where(key)));
    }
    if (verdict.missing) {
      errno = ENOENT;
      return Fd();
    }
    if (!verdict.ok) {
      errno = EACCES;
      return Fd();
    }
    return Fd(::open(verdict.resolved.c_str(), flags | O_CLOEXEC));
  }

  [[noreturn]] void fail(const std::string& key, int error) const {
    throw Error(ErrorCategory::kIo, fmt::format("cannot read: {}", std::strerror(error)),
                Location::file(where(key)));
  }

  std::string path_;
  // Writes and removals stay inside the store: the folder of `key`, walked from the store's
  // own directory a part at a time without following a symbolic link (openat O_NOFOLLOW;
  // with `create`, a missing part is made), and the key's own name no link either. A link
  // on the way, which would lead the write or the removal elsewhere, is Error(kUsage)
  // naming the key. The folder, open; fd -1 when a part is missing and not made.
  Fd folder_beneath(const std::string& key, bool create) const {
    auto refuse = [&](const std::string& why) {
      throw Error(ErrorCategory::kUsage, fmt::format("{}: not written or removed through it", why),
                  Location::file(where(key)));
    };
    if (root_.fd < 0) {
      throw Error(ErrorCategory::kIo, "cannot open the store's directory", Location::file(path_));
    }
    Fd folder(::fcntl(root_.fd, F_DUPFD_CLOEXEC, 0));
    if (folder.fd < 0) {
      throw Error(ErrorCategory::kIo,
                  fmt::format("cannot open the store's directory: {}", std::strerror(errno)),
                  Location::file(where(key)));
    }
    size_t at = 0;
    for (size_t slash; (slash = key.find('/', at)) != std::string::npos; at = slash + 1) {
      const std::string part = key.substr(at, slash - at);
      int next = ::openat(folder.fd, part.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (next < 0 && errno == ENOENT && create) {
        if (::mkdirat(folder.fd, part.c_str(), 0777) != 0 && errno != EEXIST) {
          throw Error(ErrorCategory::kIo,
                      fmt::format("cannot make its folder {}: {}", key.substr(0, slash),
                                  std::strerror(errno)),
                      Location::file(where(key)));
        }
        next = ::openat(folder.fd, part.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      }
      if (next < 0) {
        if (errno == ENOENT && !create) return Fd();
        if (errno == ELOOP || errno == ENOTDIR) {
          refuse(fmt::format("{} is a symbolic link or a file, not a folder of the store",
                             key.substr(0, slash)));
        }
        throw Error(ErrorCategory::kIo,
                    fmt::format("cannot open its folder {}: {}", key.substr(0, slash),
                                std::strerror(errno)),
                    Location::file(where(key)));
      }
      folder = Fd(next);
    }
    struct stat st {};
    if (::fstatat(folder.fd, key.substr(at).c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISLNK(st.st_mode)) {
      refuse("it is a symbolic link");
    }
    return folder;
  }

  ReadRule rule_;  ///< the store itself, and the folders allowed besides
  Fd root_;        ///< the store's directory, keys resolved beneath it
};

class MemoryStore final : public Store {
 public:
  MemoryStore(std::map<std::string, Bytes> values, std::string name)
      : values_(std::move(values)), name_(std::move(name)) {}
  const std::string& name() const override { return name_; }
  std::optional<uint64_t> size(const std::string& key) const override {
    auto it = values_.find(key);
    if (it == values_.end()) return std::nullopt;
    return it->second.size();
  }
  void read(const std::string& key, uint64_t offset, uint64_t length,
            std::byte* out) const override {
    auto it = values_.find(key);
    const uint64_t size = it == values_.end() ? 0 : it->second.size();
    if (offset > size || length > size - offset) {
      throw Error(ErrorCategory::kData,
                  fmt::format("{} bytes at offset {} were asked for; the value has {}", length,
                              offset, size),
                  Location::binary(where(key), offset));
    }
    if (length > 0) std::memcpy(out, it->second.data() + offset, length);
  }
  bool for_each_key(const std::string& prefix,
                    const std::function<void(std::string_view)>& visit) const override {
    const std::string lead = prefix.empty() ? "" : prefix + "/";
    for (auto it = values_.lower_bound(lead); it != values_.end(); ++it) {
      if (it->first.compare(0, lead.size(), lead) != 0) break;
      visit(std::string_view(it->first).substr(lead.size()));
    }
    return true;
  }

  std::vector<std::string> subdirectories(const std::string& prefix) const override {
    std::vector<std::string> names;
    const std::string lead = prefix.empty() ? "" : prefix + "/";
    for (auto it = values_.lower_bound(lead); it != values_.end(); ++it) {
      if (it->first.compare(0, lead.size(), lead) != 0) break;
      const std::string_view rest = std::string_view(it->first).substr(lead.size());
      const size_t slash = rest.find('/');
      if (slash == std::string_view::npos || slash == 0 || rest.front() == '.') continue;
      const std::string_view name = rest.substr(0, slash);
      if (names.empty() || names.back() != name) names.emplace_back(name);
    }
    return names;  // sorted: the map's order
  }

  // Not while another thread reads: a memory store serves tests.
  bool writable() const override { return true; }
  void write_many(std::span<const WriteRequest> values) override {
    for (const WriteRequest& v : values) {
      Bytes bytes(v.value->size());
      v.value->read(0, bytes.size(), bytes.data());
      values_[v.key] = std::move(bytes);
      if (v.on_stored) (*v.on_stored)(v.value->size());
    }
  }
  void erase_many(std::span<const std::string> keys) override {
    for (const std::string& key : keys) values_.erase(key);
  }

 private:
  std::map<std::string, Bytes> values_;
  std::string name_;
};

}  // namespace

std::shared_ptr<Store> memory_store(std::map<std::string, Bytes> values, std::string name) {
  return std::make_shared<MemoryStore>(std::move(values), std::move(name));
}

std::optional<Bytes> Store::get(const std::string& key, uint64_t max_bytes) const {
  if (remote()) {
    // One GET, its 404 the absence: no HEAD first.
    Bytes out;
    RangeRequest r;
    r.key = key;
    r.whole = true;
    r.length = max_bytes;
    r.out = &out;
    read_many({&r, 1});
    if (!r.found) return std::nullopt;
    return out;
  }
  const auto n = size(key);
  if (!n) return std::nullopt;
  if (*n > max_bytes) {
    throw Error(ErrorCategory::kLimit,
                fmt::format("a value of {} bytes; at most {} are read here", *n, max_bytes),
                Location::file(where(key)));
  }
  Bytes out(*n);
  read(key, 0, *n, out.data());
  return out;
}

std::optional<uint64_t> Store::read_tail(const std::string& key, uint64_t length,
                                         std::byte* out) const {
  const auto n = size(key);
  if (!n) return std::nullopt;
  const uint64_t take = std::min(length, *n);
  read(key, *n - take, take, out);
  return n;
}

void Store::read_many(std::span<RangeRequest> requests) const {
  for (RangeRequest& r : requests) {
    uint64_t length = r.length;
    if (r.whole) {
      const auto n = size(r.key);
      r.found = n.has_value();
      if (!n) continue;
      if (*n > r.length) {
        throw Error(ErrorCategory::kLimit,
                    fmt::format("a value of {} bytes; at most {} are read here", *n, r.length),
                    Location::file(where(r.key)));
      }
      length = *n;
    }
    r.out->resize(length);
    read(r.key, r.offset, length, r.out->data());
  }
}

void Store::write_many(std::span<const WriteRequest> values) {
  if (values.empty()) return;
  throw Error(ErrorCategory::kUsage, "this store is read only (a web server's)",
              Location::file(where(values.front().key)));
}

void Store::erase_many(std::span<const std::string> keys) {
  if (keys.empty()) return;
  throw Error(ErrorCategory::kUsage, "this store is read only (a web server's)",
              Location::file(where(keys.front())));
}

void Store::write(const std::string& key, std::span<const std::byte> bytes) {
  const WriteRequest one{key, memory_source(bytes.data(), bytes.size(), where(key))};
  write_many({&one, 1});
}

std::string Store::where(const std::string& key) const {
  return name() + "/" + key;
}

std::shared_ptr<Store> open_directory_store(const std::string& path,
                                            const std::vector<std::string>& allow_outside) {
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    throw Error(ErrorCategory::kIo, "cannot open: No such file or directory", Location::file(path));
  }
  if (!fs::is_directory(path, ec)) {
    throw Error(ErrorCategory::kIo, "is not a directory (a Zarr store is one)",
                Location::file(path));
  }
  return std::make_shared<DirectoryStore>(path, allow_outside);
}

}  // namespace dudley::io
