// Where requests go and what messages show of them: URLs redacted, S3 bucket names, regions
// and endpoints checked as AWS checks them, redirects compared by origin, AWS's region
// redirect recognised, and keys kept in the path as S3 keys ("..": a key, not a step up).
#include <gtest/gtest.h>

#include <string>

#include "dudley/core/error.hpp"
#include "dudley/io/redact.hpp"
#include "dudley/io/store.hpp"
#include "io/s3_config.hpp"
#include "io/s3_names.hpp"
#include "io/url_parts.hpp"

namespace dudley::io {
namespace {

TEST(Redact, UrlsLoseTheirQueryFragmentAndUserInformation) {
  EXPECT_EQ(redacted_url("https://u:p@host:8/x.npy?X-Amz-Signature=S&X-Amz-Security-Token=T#f"),
            "https://host:8/x.npy");
  EXPECT_EQ(redacted_url("HTTP://host/a?b"), "HTTP://host/a");
  EXPECT_EQ(redacted_url("http://host?sig=S"), "http://host");
  EXPECT_EQ(redacted_url("http://host#frag"), "http://host");
  EXPECT_EQ(redacted_url("http://a@b@host/x"), "http://host/x");  // to the last '@'
  EXPECT_EQ(redacted_url("http://host/pkg@1.0/x"), "http://host/pkg@1.0/x");
  // An S3 key keeps its '?' and '#'; the user information goes.
  EXPECT_EQ(redacted_url("s3://bucket/a?b#c"), "s3://bucket/a?b#c");
  EXPECT_EQ(redacted_url("s3://key:secret@bucket/x"), "s3://bucket/x");
  // Not a URL: as it is.
  EXPECT_EQ(redacted_url("/data/x?.npy"), "/data/x?.npy");
  EXPECT_EQ(redacted_url(""), "");
}

TEST(Redact, EveryUrlInATextIsRedacted) {
  EXPECT_EQ(redacted_text("http://u:PW@h/x.npy?sig=S/zarr.json: error: cannot fetch (--family "
                          "'https://h/y?t=T') and s3://k:SK@b/z"),
            "http://h/x.npy: error: cannot fetch (--family 'https://h/y') and s3://b/z");
  EXPECT_EQ(redacted_text("no URL here: a?b"), "no URL here: a?b");
  EXPECT_EQ(redacted_text("\"http://h/x?q\"\nhttp://h/y?q"), "\"http://h/x\"\nhttp://h/y");
}

TEST(S3Names, BucketNamesAsAwsTakesThem) {
  for (const char* ok : {"bucket", "my.bucket-1", "abc", "0ab", "2130706433",
                         "a23456789012345678901234567890123456789012345678901234567890123"}) {
    EXPECT_EQ(bucket_name_problem(ok, false), "") << ok;
  }
  for (const char* bad : {"ab", "a234567890123456789012345678901234567890123456789012345678901234",
                          "Bucket", "a_b", "a..b", "-ab", "ab-", ".ab", "192.168.5.4",
                          "2130706433:8080#", "b@x", "b/x", "b x", "b?x", ""}) {
    EXPECT_NE(bucket_name_problem(bad, false), "") << bad;
  }
  // Legacy names: uppercase and '_' (path-style on an S3-compatible endpoint only).
  EXPECT_EQ(bucket_name_problem("Legacy_Bucket", true), "");
  EXPECT_EQ(bucket_name_problem(std::string(255, 'a'), true), "");
  for (const char* bad : {"a:b", "a..b", "_ab", "1.2.3.4", "a#b", "ab"}) {
    EXPECT_NE(bucket_name_problem(bad, true), "") << bad;
  }
  // The message names the problem, with the name escaped.
  EXPECT_NE(bucket_name_problem("x\n:y", false).find("\\n"), std::string::npos);
  EXPECT_NE(bucket_name_problem("ab", false).find("3 to 63"), std::string::npos);
}

TEST(S3Names, RegionsAreRegionNames) {
  for (const char* ok : {"us-east-1", "us-gov-west-1", "cn-north-1", "eu-central-2", "garage"}) {
    EXPECT_EQ(region_problem(ok, "--region"), "") << ok;
  }
  for (const char* bad :
       {"", "US-EAST-1", "x@127.0.0.1:8080#", "us east", "-us", "us-", "a:b", "a.b", "us/east"}) {
    const std::string why = region_problem(bad, "AWS_REGION");
    EXPECT_NE(why, "") << bad;
    EXPECT_NE(why.find("AWS_REGION"), std::string::npos) << why;
  }
}

TEST(S3Names, EndpointsAreSchemeHostAndPortOnly) {
  EXPECT_EQ(checked_endpoint("http://127.0.0.1:9000/", "--endpoint-url"), "http://127.0.0.1:9000");
  EXPECT_EQ(checked_endpoint("https://S3.Example.org:443", "x"), "https://s3.example.org");
  EXPECT_EQ(checked_endpoint("http://[::1]:9000", "x"), "http://[::1]:9000");
  EXPECT_EQ(checked_endpoint("https://minio.example.org:9000", "x"),
            "https://minio.example.org:9000");
  for (const char* bad :
       {"ftp://h", "h:9000", "http://u:PW@h", "http://h/x", "http://h/?q=1", "http://h/#f",
        "http://h/./", "http://h/..", "http://h:99999", "http://", "s3://h"}) {
    try {
      checked_endpoint(bad, "AWS_ENDPOINT_URL");
      ADD_FAILURE() << "taken: " << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.category(), ErrorCategory::kUsage);
      EXPECT_NE(e.message().find("AWS_ENDPOINT_URL"), std::string::npos) << e.message();
      EXPECT_EQ(e.message().find("PW"), std::string::npos) << e.message();
    }
  }
}

TEST(S3Names, OnlyAwsRegionRedirectsAreFollowed) {
  EXPECT_TRUE(is_aws_host("s3.us-east-1.amazonaws.com"));
  EXPECT_TRUE(is_aws_host("b.s3.cn-north-1.amazonaws.com.cn"));
  EXPECT_FALSE(is_aws_host("amazonaws.com.evil.org"));
  EXPECT_FALSE(is_aws_host("evilamazonaws.com"));
  EXPECT_EQ(aws_endpoint("eu-west-1"), "https://s3.eu-west-1.amazonaws.com");
  EXPECT_EQ(aws_endpoint("cn-north-1"), "https://s3.cn-north-1.amazonaws.com.cn");
  for (long status : {301L, 307L, 400L}) {
    EXPECT_EQ(aws_region_redirect(status, "eu-west-1", true, "us-east-1"), "eu-west-1");
  }
  EXPECT_FALSE(aws_region_redirect(302, "eu-west-1", true, "us-east-1"));
  EXPECT_FALSE(aws_region_redirect(200, "eu-west-1", true, "us-east-1"));
  EXPECT_FALSE(aws_region_redirect(301, "eu-west-1", false, "us-east-1"));  // not AWS's endpoint
  EXPECT_FALSE(aws_region_redirect(301, "us-east-1", true, "us-east-1"));   // no move
  EXPECT_FALSE(aws_region_redirect(301, "x@127.0.0.1:1#", true, "us-east-1"));
  EXPECT_FALSE(aws_region_redirect(301, "", true, "us-east-1"));
}

TEST(UrlParts, RedirectsAreComparedByOrigin) {
  EXPECT_TRUE(same_origin("http://h:80/a", "http://H/b?x"));
  EXPECT_TRUE(same_origin("https://h/a", "https://h:443/b"));
  EXPECT_FALSE(same_origin("http://h:8080/a", "http://h:8081/a"));
  EXPECT_FALSE(same_origin("http://h/a", "https://h/a"));
  EXPECT_FALSE(same_origin("http://h/a", "http://g/a"));
  EXPECT_FALSE(same_origin("http://h/a", "http://h@g/a"));  // g, with a user name
  EXPECT_FALSE(same_origin("http://h/a", "ftp://h/a"));
  EXPECT_FALSE(same_origin("http://h/a", "not a url"));
  const std::optional<UrlParts> p = parse_url("http://u:p@H:81/a/../b?q#f", true);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->host, "h");
  EXPECT_EQ(p->port, "81");
  EXPECT_EQ(p->path, "/a/../b");
  EXPECT_TRUE(p->has_user && p->has_query && p->has_fragment);
  EXPECT_EQ(resolved_url("http://h/a/../b/./c?x=1#f"), "http://h/b/c?x=1");
}

TEST(S3Urls, KeysAreEscapedSegmentBySegmentAndDotsStay) {
  S3Config c;
  c.bucket = "bucket";
  c.endpoint = "http://127.0.0.1:9000";
  c.path_style = true;
  EXPECT_EQ(s3_object_url(c, "../other/x"), "http://127.0.0.1:9000/bucket/../other/x");
  EXPECT_EQ(s3_object_url(c, "./a//b"), "http://127.0.0.1:9000/bucket/./a//b");
  EXPECT_EQ(s3_object_url(c, "a b/c?d#e~f+g%"),
            "http://127.0.0.1:9000/bucket/a%20b/c%3Fd%23e~f%2Bg%25");
  c.endpoint = "https://s3.us-east-1.amazonaws.com";
  c.path_style = false;
  EXPECT_EQ(s3_object_url(c, "k/.."), "https://bucket.s3.us-east-1.amazonaws.com/k/..");
  // What libcurl sends with CURLOPT_PATH_AS_IS is that path, and it is what is signed.
  const std::optional<UrlParts> p = parse_url(s3_object_url(c, "../other/x"), true);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->host, "bucket.s3.us-east-1.amazonaws.com");
  EXPECT_EQ(p->path, "/../other/x");
}

TEST(HttpStores, NamedWithoutSecretsAndKeysStayBelowTheirUrl) {
  const std::shared_ptr<Store> web =
      open_http_store("http://user:PW@127.0.0.1:9/a/store.zarr?sig=SECRET#f");
  EXPECT_EQ(web->name(), "http://127.0.0.1:9/a/store.zarr");
  // A key with a "." or ".." segment is refused before any request (port 9 would refuse
  // the connection: an I/O error, not this one).
  for (const char* key : {"../x", "a/../../x", "./x", "a/.", ".."}) {
    std::byte b{};
    try {
      web->read(key, 0, 1, &b);
      ADD_FAILURE() << "requested: " << key;
    } catch (const Error& e) {
      EXPECT_EQ(e.category(), ErrorCategory::kData) << e.message();
      EXPECT_EQ(std::string(e.what()).find("SECRET"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace dudley::io
