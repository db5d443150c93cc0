#include "io/curl_library.hpp"

#include <algorithm>

#include "dudley/core/error.hpp"
#include "dudley/core/loaded_library.hpp"

namespace dudley::io {

const Curl& curl() {
  // A failure to load throws out of the initialiser, so the next call tries again.
  static const Curl functions = [] {
    const LoadedLibrary lib("libcurl.so.4", "reading over HTTP");
    return Curl{lib.function<decltype(&curl_easy_cleanup)>("curl_easy_cleanup"),
                lib.function<decltype(&curl_easy_escape)>("curl_easy_escape"),
                lib.function<decltype(&curl_easy_getinfo)>("curl_easy_getinfo"),
                lib.function<decltype(&curl_easy_init)>("curl_easy_init"),
                lib.function<decltype(&curl_easy_perform)>("curl_easy_perform"),
                lib.function<decltype(&curl_easy_reset)>("curl_easy_reset"),
                lib.function<decltype(&curl_easy_setopt)>("curl_easy_setopt"),
                lib.function<decltype(&curl_easy_strerror)>("curl_easy_strerror"),
                lib.function<decltype(&curl_global_init)>("curl_global_init"),
                lib.function<decltype(&curl_multi_add_handle)>("curl_multi_add_handle"),
                lib.function<decltype(&curl_multi_cleanup)>("curl_multi_cleanup"),
                lib.function<decltype(&curl_multi_info_read)>("curl_multi_info_read"),
                lib.function<decltype(&curl_multi_init)>("curl_multi_init"),
                lib.function<decltype(&curl_multi_perform)>("curl_multi_perform"),
                lib.function<decltype(&curl_multi_poll)>("curl_multi_poll"),
                lib.function<decltype(&curl_multi_remove_handle)>("curl_multi_remove_handle"),
                lib.function<decltype(&curl_multi_strerror)>("curl_multi_strerror"),
                lib.function<decltype(&curl_slist_append)>("curl_slist_append"),
                lib.function<decltype(&curl_slist_free_all)>("curl_slist_free_all"),
                lib.function<decltype(&curl_free)>("curl_free"),
                lib.function<decltype(&curl_url)>("curl_url"),
                lib.function<decltype(&curl_url_cleanup)>("curl_url_cleanup"),
                lib.function<decltype(&curl_url_get)>("curl_url_get"),
                lib.function<decltype(&curl_url_set)>("curl_url_set")};
  }();
  return functions;
}

std::string url_escaped(const std::string& text, bool keep_slash) {
  std::string out;
  size_t at = 0;
  while (at <= text.size()) {
    const size_t slash = keep_slash ? std::min(text.find('/', at), text.size()) : text.size();
    const std::string part = text.substr(at, slash - at);
    char* e = curl().easy_escape(nullptr, part.c_str(), static_cast<int>(part.size()));
    if (e == nullptr) throw Error(ErrorCategory::kIo, "cannot escape a URL");
    out += e;
    curl().free(e);
    if (slash == text.size()) break;
    out += '/';
    at = slash + 1;
  }
  return out;
}

}  // namespace dudley::io
