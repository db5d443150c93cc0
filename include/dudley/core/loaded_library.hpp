// A system shared library opened the first time one of its functions is needed.
//
// libcurl (HTTP stores) and libcrypto (MD5 checksums) serve few commands but cost every
// start of the command-line tool their mapping and relocation, libcurl's with some 25
// libraries of its own (TLS, Kerberos, LDAP); opened on demand, a command that reads no URL
// and checks no MD5 never maps them. The library is the one a program would link (its
// soname), so the behaviour is the library's own.
#pragma once

#include <string>

namespace dudley {

class LoadedLibrary {
 public:
  /// Opens `soname` (e.g. "libcurl.so.4"); `purpose` names what it is for in errors.
  /// Throws Error (kIo) when it cannot be opened. Never closed: its functions may be
  /// called until the program ends.
  LoadedLibrary(std::string soname, std::string purpose);

  /// The address of function `name`. Throws Error (kIo) naming the library when missing.
  void* symbol(const char* name) const;

  /// symbol(name) as a pointer of the function's type: `function<decltype(&f)>("f")`.
  template <class F>
  F function(const char* name) const {
    return reinterpret_cast<F>(symbol(name));
  }

 private:
  std::string soname_;
  std::string purpose_;
  void* handle_ = nullptr;
};

}  // namespace dudley
