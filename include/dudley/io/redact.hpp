// URLs as messages show them: without what authenticates a request. A presigned URL carries
// its signature and session token in its query (X-Amz-Signature, X-Amz-Security-Token), a
// URL may carry `user:password@`; a message, a log or a JSON document a script keeps must
// hold neither. Every error, note and output line that names a URL passes it, or the whole
// text, through these.
#pragma once

#include <string>
#include <string_view>

namespace dudley::io {

/// `url` as messages show it. An http:// or https:// URL loses its `user:password@`, its
/// query and its fragment ("https://u:p@host/x.npy?X-Amz-Signature=S" gives
/// "https://host/x.npy"); an s3:// URL loses only `user:password@` (its '?' and '#' belong
/// to the key, and credentials never travel in its query). Anything else (a path here) is
/// returned as it is. The URL is split as RFC 3986 splits it (the authority ends at the
/// first '/', '?' or '#'; the user information ends at its last '@'), without libcurl, so
/// that a message is redacted even when libcurl cannot be loaded.
std::string redacted_url(std::string_view url);

/// `text` with every URL in it (from "http://", "https://" or "s3://", in any case, to the
/// next white space, quote or angle bracket, without the punctuation that ends it: ':', ',',
/// ';', '.', ')') redacted as redacted_url does: a message that quotes a URL given on the
/// command line ("URL: error: ..."), or libcurl's own error text.
std::string redacted_text(std::string_view text);

}  // namespace dudley::io
