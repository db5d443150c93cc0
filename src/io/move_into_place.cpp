#include "io/move_into_place.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fcntl.h>

#include <fmt/format.h>

#include "dudley/core/error.hpp"

namespace dudley::io {

void move_into_place(const std::string& from, const std::string& to, bool replace) {
  if (!replace) {
    if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return;
    if (errno == EEXIST || errno == ENOTEMPTY) {
      throw Error(ErrorCategory::kIo,
                  "appeared while this was written; not replaced (the output was not written)",
                  Location::file(to));
    }
    // Only a file system without the flag goes on to a plain rename.
    if (errno != EINVAL && errno != ENOSYS) {
      throw Error(ErrorCategory::kIo,
                  fmt::format("cannot move into place: {}", std::strerror(errno)),
                  Location::file(to));
    }
  }
  if (::rename(from.c_str(), to.c_str()) != 0) {
    throw Error(ErrorCategory::kIo, fmt::format("cannot move into place: {}", std::strerror(errno)),
                Location::file(to));
  }
}

}  // namespace dudley::io
