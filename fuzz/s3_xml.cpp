// S3's XML answers (a ListObjectsV2 page, a multipart upload's start, an error): any bytes
// either parse into a page (an upload id) or fail with an Error, and an error document's
// code and message are read or left empty.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "dudley/core/error.hpp"
#include "io/s3_xml.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view xml(reinterpret_cast<const char*>(data), size);
  try {
    (void)dudley::io::parse_s3_list(xml, "s3://fuzz/");
  } catch (const dudley::Error&) {
  }
  try {
    (void)dudley::io::parse_s3_upload_id(xml, "s3://fuzz/k");
  } catch (const dudley::Error&) {
  }
  (void)dudley::io::parse_s3_error(xml);
  return 0;
}
