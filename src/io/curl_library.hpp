// libcurl's functions as the HTTP store calls them, from libcurl opened the first time a URL
// is read (core/loaded_library.hpp says why it is not linked).
#pragma once

#include <curl/curl.h>

#include <string>

namespace dudley::io {

/// libcurl's functions this module uses, named without their `curl_` prefix.
struct Curl {
  decltype(&curl_easy_cleanup) easy_cleanup;
  decltype(&curl_easy_escape) easy_escape;
  decltype(&curl_easy_getinfo) easy_getinfo;
  decltype(&curl_easy_init) easy_init;
  decltype(&curl_easy_perform) easy_perform;
  decltype(&curl_easy_reset) easy_reset;
  decltype(&curl_easy_setopt) easy_setopt;
  decltype(&curl_easy_strerror) easy_strerror;
  decltype(&curl_global_init) global_init;
  decltype(&curl_multi_add_handle) multi_add_handle;
  decltype(&curl_multi_cleanup) multi_cleanup;
  decltype(&curl_multi_info_read) multi_info_read;
  decltype(&curl_multi_init) multi_init;
  decltype(&curl_multi_perform) multi_perform;
  decltype(&curl_multi_poll) multi_poll;
  decltype(&curl_multi_remove_handle) multi_remove_handle;
  decltype(&curl_multi_strerror) multi_strerror;
  decltype(&curl_slist_append) slist_append;
  decltype(&curl_slist_free_all) slist_free_all;
  decltype(&curl_free) free;
  decltype(&curl_url) url;
  decltype(&curl_url_cleanup) url_cleanup;
  decltype(&curl_url_get) url_get;
  decltype(&curl_url_set) url_set;
};

/// The functions, libcurl opened on first use. Throws Error (kIo) when it cannot be.
const Curl& curl();

/// `text` escaped for a URL: every byte but the unreserved ones (and '/' when `keep_slash`).
std::string url_escaped(const std::string& text, bool keep_slash);

}  // namespace dudley::io
