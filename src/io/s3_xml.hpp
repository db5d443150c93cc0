// The XML documents S3 answers with that a reader and a writer need: a page of a listing
// (ListObjectsV2), a multipart upload's start, and an error. Parsed with expat; a document that is
// not one of them, or is not XML, is an Error naming where it came from.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dudley::io {

/// One page of ListObjectsV2.
struct S3ListPage {
  std::vector<std::string> keys;      ///< Contents/Key, whole keys
  std::vector<std::string> prefixes;  ///< CommonPrefixes/Prefix (with a delimiter)
  bool truncated = false;             ///< IsTruncated: another page follows
  std::string next_token;             ///< NextContinuationToken
};

/// Parses a ListBucketResult document. Throws Error(kData) naming `where` when it is not one.
S3ListPage parse_s3_list(std::string_view xml, const std::string& where);

/// The UploadId of an InitiateMultipartUploadResult document. Throws Error(kData) naming
/// `where` when it is not one.
std::string parse_s3_upload_id(std::string_view xml, const std::string& where);

/// An S3 error document's Code and Message; both empty when `xml` is not one (a HEAD's
/// empty body, a proxy's HTML).
struct S3ErrorText {
  std::string code;
  std::string message;
};
S3ErrorText parse_s3_error(std::string_view xml);

}  // namespace dudley::io
