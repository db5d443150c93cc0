// MD5 and SHA-256 through OpenSSL's EVP interface (the one OpenSSL 3 keeps supported), from
// libcrypto opened on first use (core/loaded_library.hpp says why it is not linked).
#include "dudley/core/digest.hpp"

#include <openssl/evp.h>

#include "dudley/core/error.hpp"
#include "dudley/core/loaded_library.hpp"

namespace dudley {
namespace {

struct Evp {
  decltype(&EVP_MD_CTX_new) ctx_new;
  decltype(&EVP_MD_CTX_free) ctx_free;
  decltype(&EVP_md5) md5;
  decltype(&EVP_sha256) sha256;
  decltype(&EVP_Digest) digest;
  decltype(&EVP_DigestInit_ex) init;
  decltype(&EVP_DigestUpdate) update;
  decltype(&EVP_DigestFinal_ex) final;
};

const Evp& evp() {
  static const Evp functions = [] {
    const LoadedLibrary lib("libcrypto.so.3", "MD5 and SHA-256 digests");
    return Evp{lib.function<decltype(&EVP_MD_CTX_new)>("EVP_MD_CTX_new"),
               lib.function<decltype(&EVP_MD_CTX_free)>("EVP_MD_CTX_free"),
               lib.function<decltype(&EVP_md5)>("EVP_md5"),
               lib.function<decltype(&EVP_sha256)>("EVP_sha256"),
               lib.function<decltype(&EVP_Digest)>("EVP_Digest"),
               lib.function<decltype(&EVP_DigestInit_ex)>("EVP_DigestInit_ex"),
               lib.function<decltype(&EVP_DigestUpdate)>("EVP_DigestUpdate"),
               lib.function<decltype(&EVP_DigestFinal_ex)>("EVP_DigestFinal_ex")};
  }();
  return functions;
}

}  // namespace

Md5::Md5() : ctx_(evp().ctx_new()) {
  if (!ctx_ || !evp().init(static_cast<EVP_MD_CTX*>(ctx_), evp().md5(), nullptr)) {
    evp().ctx_free(static_cast<EVP_MD_CTX*>(ctx_));
    throw Error(ErrorCategory::kLimit, "md5: OpenSSL could not start a digest");
  }
}

Md5::~Md5() {
  evp().ctx_free(static_cast<EVP_MD_CTX*>(ctx_));
}

void Md5::update(std::span<const std::byte> data) {
  if (!data.empty()) evp().update(static_cast<EVP_MD_CTX*>(ctx_), data.data(), data.size());
}

Md5Digest Md5::digest() {
  Md5Digest out{};
  unsigned int n = 0;
  evp().final(static_cast<EVP_MD_CTX*>(ctx_), out.data(), &n);
  return out;
}

Md5Digest md5(std::span<const std::byte> data) {
  Md5 m;
  m.update(data);
  return m.digest();
}

Sha256Digest sha256(std::span<const std::byte> data) {
  Sha256Digest out{};
  unsigned int n = 0;
  // An empty span's data() may be null; EVP_Digest reads none of it either way.
  static const std::byte kNone{};
  const void* bytes = data.empty() ? &kNone : static_cast<const void*>(data.data());
  if (!evp().digest(bytes, data.size(), out.data(), &n, evp().sha256(), nullptr) ||
      n != out.size()) {
    throw Error(ErrorCategory::kLimit, "sha256: OpenSSL could not make the digest");
  }
  return out;
}

}  // namespace dudley
