#include "io/temporary_mark.hpp"

#include <sys/xattr.h>

namespace dudley::io {
namespace {

constexpr const char* kName = "user.dudley.temporary";

}  // namespace

void mark_temporary(int fd) {
  if (fd >= 0) (void)::fsetxattr(fd, kName, "1", 1, 0);
}

void unmark_temporary(int fd) {
  if (fd >= 0) (void)::fremovexattr(fd, kName);
}

bool marked_temporary(const std::string& path) {
  char value[2] = {};
  return ::lgetxattr(path.c_str(), kName, value, sizeof value) == 1 && value[0] == '1';
}

}  // namespace dudley::io
