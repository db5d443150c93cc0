#include "io/s3_xml.hpp"

#include <expat.h>

#include <functional>
#include <memory>

#include "dudley/core/error.hpp"

namespace dudley::io {
namespace {

// The most elements deep an S3 answer goes (ListBucketResult/CommonPrefixes/Prefix is 3);
// deeper is not an answer of S3's, and the parse stops.
constexpr int kMaxDepth = 16;

// Collects the text of elements by their path ("ListBucketResult/Contents/Key").
struct Collector {
  std::vector<std::string> path;
  std::string text;
  bool too_deep = false;
  // Called with each element's path and text as it closes.
  std::function<void(const std::string& path, std::string text)> closed;
};

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : "/") + p;
  return out;
}

// The element's name without its namespace URI (expat with a separator gives "URI|Name").
std::string local_name(const XML_Char* name) {
  const std::string full(name);
  const size_t bar = full.rfind('|');
  return bar == std::string::npos ? full : full.substr(bar + 1);
}

void XMLCALL start(void* user, const XML_Char* name, const XML_Char**) {
  auto* c = static_cast<Collector*>(user);
  if (c->path.size() >= kMaxDepth) {
    c->too_deep = true;
    return;
  }
  c->path.push_back(local_name(name));
  c->text.clear();
}

void XMLCALL end(void* user, const XML_Char*) {
  auto* c = static_cast<Collector*>(user);
  if (c->too_deep || c->path.empty()) return;
  c->closed(joined(c->path), std::move(c->text));
  c->text.clear();
  c->path.pop_back();
}

void XMLCALL characters(void* user, const XML_Char* s, int len) {
  static_cast<Collector*>(user)->text.append(s, static_cast<size_t>(len));
}

struct ParserFree {
  void operator()(XML_Parser p) const { XML_ParserFree(p); }
};

// Parses `xml`, calling `collector.closed` for each element; false when it is not XML (or
// nests too deep). Entities are never expanded from outside (expat reads no external DTD).
bool parse(std::string_view xml, Collector& collector) {
  std::unique_ptr<XML_ParserStruct, ParserFree> parser(XML_ParserCreateNS(nullptr, '|'));
  if (!parser) throw Error(ErrorCategory::kIo, "cannot start the XML parser");
  XML_SetUserData(parser.get(), &collector);
  XML_SetElementHandler(parser.get(), start, end);
  XML_SetCharacterDataHandler(parser.get(), characters);
  const bool ok =
      XML_Parse(parser.get(), xml.data(), static_cast<int>(xml.size()), 1) == XML_STATUS_OK;
  return ok && !collector.too_deep;
}

}  // namespace

S3ListPage parse_s3_list(std::string_view xml, const std::string& where) {
  if (xml.size() > (uint64_t{1} << 30)) {
    throw Error(ErrorCategory::kLimit, "a listing page of more than 1 GiB", Location::file(where));
  }
  S3ListPage page;
  bool root_seen = false;
  Collector c;
  c.closed = [&](const std::string& path, std::string text) {
    if (path == "ListBucketResult") {
      root_seen = true;
    } else if (path == "ListBucketResult/Contents/Key") {
      page.keys.push_back(std::move(text));
    } else if (path == "ListBucketResult/CommonPrefixes/Prefix") {
      page.prefixes.push_back(std::move(text));
    } else if (path == "ListBucketResult/IsTruncated") {
      page.truncated = text == "true";
    } else if (path == "ListBucketResult/NextContinuationToken") {
      page.next_token = std::move(text);
    }
  };
  if (!parse(xml, c) || !root_seen) {
    throw Error(ErrorCategory::kData, "the server's listing is not an S3 ListBucketResult",
                Location::file(where));
  }
  if (page.truncated && page.next_token.empty()) {
    throw Error(ErrorCategory::kData,
                "the server's listing says more follows but gives no continuation token",
                Location::file(where));
  }
  return page;
}

std::string parse_s3_upload_id(std::string_view xml, const std::string& where) {
  std::string id;
  Collector c;
  c.closed = [&](const std::string& path, std::string text) {
    if (path == "InitiateMultipartUploadResult/UploadId") id = std::move(text);
  };
  if (xml.size() > (uint64_t{1} << 20) || !parse(xml, c) || id.empty()) {
    throw Error(ErrorCategory::kData,
                "the server's answer to starting a multipart upload gives no UploadId",
                Location::file(where));
  }
  return id;
}

S3ErrorText parse_s3_error(std::string_view xml) {
  S3ErrorText out;
  Collector c;
  c.closed = [&](const std::string& path, std::string text) {
    if (path == "Error/Code") {
      out.code = std::move(text);
    } else if (path == "Error/Message") {
      out.message = std::move(text);
    }
  };
  if (xml.empty() || xml.size() > (uint64_t{1} << 20) || !parse(xml, c)) return {};
  return out;
}

}  // namespace dudley::io
