// S3's XML answers and the resolution of where a bucket is and who reads it, as the AWS
// tools resolve them (environment, profile files).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <span>

#include "dudley/core/error.hpp"
#include "io/s3_config.hpp"
#include "io/s3_upload.hpp"
#include "io/s3_xml.hpp"

namespace dudley::io {
namespace {

TEST(S3Xml, ListPagesAndErrorsParse) {
  const S3ListPage page = parse_s3_list(
      R"(<?xml version="1.0"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">)"
      R"(<IsTruncated>true</IsTruncated><NextContinuationToken>t&amp;1</NextContinuationToken>)"
      R"(<Contents><Key>a/x</Key></Contents><Contents><Key>a/y z</Key></Contents>)"
      R"(<CommonPrefixes><Prefix>a/g/</Prefix></CommonPrefixes></ListBucketResult>)",
      "s3://b/a");
  EXPECT_EQ(page.keys, (std::vector<std::string>{"a/x", "a/y z"}));
  EXPECT_EQ(page.prefixes, (std::vector<std::string>{"a/g/"}));
  EXPECT_TRUE(page.truncated);
  EXPECT_EQ(page.next_token, "t&1");
  // Not a listing, not XML, or "more follows" without a token: errors naming the place.
  for (const char* bad : {"<Error><Code>X</Code></Error>", "not xml", "<ListBucketResult>",
                          "<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>"}) {
    EXPECT_THROW(parse_s3_list(bad, "s3://b/a"), Error) << bad;
  }
  const S3ErrorText e = parse_s3_error(
      "<Error><Code>AccessDenied</Code><Message><![CDATA[Access Denied]]></Message></Error>");
  EXPECT_EQ(e.code, "AccessDenied");
  EXPECT_EQ(e.message, "Access Denied");
  EXPECT_TRUE(parse_s3_error("<html>proxy</html>").code.empty());
  EXPECT_TRUE(parse_s3_error("").code.empty());
}

TEST(S3Xml, AMultipartUploadsStartGivesItsId) {
  EXPECT_EQ(
      parse_s3_upload_id(
          R"(<?xml version="1.0"?><InitiateMultipartUploadResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">)"
          R"(<Bucket>b</Bucket><Key>k</Key><UploadId>abc.D-e_f</UploadId></InitiateMultipartUploadResult>)",
          "s3://b/k"),
      "abc.D-e_f");
  for (const char* bad :
       {"<InitiateMultipartUploadResult><Key>k</Key></InitiateMultipartUploadResult>",
        "<Error><Code>AccessDenied</Code></Error>", "", "<UploadId>x</UploadId>"}) {
    EXPECT_THROW(parse_s3_upload_id(bad, "s3://b/k"), Error) << bad;
  }
}

TEST(S3Upload, PartsAreEightMiBUntilTenThousandWouldNotHoldTheObject) {
  constexpr uint64_t kMiB = uint64_t{1} << 20;
  EXPECT_EQ(s3_part_size(100 * kMiB), 8 * kMiB);
  EXPECT_EQ(s3_part_size(80000 * kMiB), 8 * kMiB);
  // 100 GiB: 10,000 parts of 8 MiB hold 78 GiB; parts grow, in whole MiB.
  const uint64_t big = uint64_t{100} << 30;
  const uint64_t part = s3_part_size(big);
  EXPECT_EQ(part % kMiB, 0u);
  EXPECT_LE((big + part - 1) / part, 10000u);
  EXPECT_GT((big + (part - kMiB) - 1) / (part - kMiB), 10000u);  // the smallest that does
  // The threshold: 64 MiB, or DUDLEY_S3_MULTIPART_FROM (at least a part's 8 MiB).
  ::unsetenv("DUDLEY_S3_MULTIPART_FROM");
  EXPECT_EQ(s3_multipart_threshold(), 64 * kMiB);
  ::setenv("DUDLEY_S3_MULTIPART_FROM", "16777216", 1);
  EXPECT_EQ(s3_multipart_threshold(), 16 * kMiB);
  for (const char* bad : {"1000", "lots", "16777216x"}) {
    ::setenv("DUDLEY_S3_MULTIPART_FROM", bad, 1);
    EXPECT_THROW(s3_multipart_threshold(), Error) << bad;
  }
  ::unsetenv("DUDLEY_S3_MULTIPART_FROM");
}

TEST(StoreWrites, DirectoryAndMemoryStoresWriteReplaceAndErase) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("dudley-sw-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (const std::shared_ptr<Store>& store :
       {open_directory_store(dir.string()), memory_store({})}) {
    ASSERT_TRUE(store->writable());
    const std::string a = "first", b = "second value";
    store->write("g/c/0", std::as_bytes(std::span(a)));
    EXPECT_EQ(store->size("g/c/0"), a.size());
    store->write("g/c/0", std::as_bytes(std::span(b)));  // replaced whole
    const std::optional<Bytes> got = store->get("g/c/0");
    ASSERT_TRUE(got);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(got->data()), got->size()), b);
    const std::string keys[] = {"g/c/0", "never/written"};
    store->erase_many(keys);  // an absent key is no error
    EXPECT_FALSE(store->size("g/c/0"));
  }
  std::filesystem::remove_all(dir);
  // A web server is read only: said, naming the key.
  const std::shared_ptr<Store> web = open_http_store("http://127.0.0.1:9/x");
  EXPECT_FALSE(web->writable());
  try {
    web->write("k", {});
    FAIL() << "a web server took a write";
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::kUsage);
    EXPECT_NE(e.message().find("read only"), std::string::npos);
  }
}

// Sets AWS_* variables for one test and clears the others, restoring them after.
class S3Environment : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("dudley-s3-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    for (const char* name :
         {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE",
          "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3",
          "AWS_NO_SIGN_REQUEST", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE"}) {
      if (const char* v = std::getenv(name)) saved_.emplace_back(name, v);
      ::unsetenv(name);
    }
    ::setenv("AWS_SHARED_CREDENTIALS_FILE", (dir_ / "credentials").c_str(), 1);
    ::setenv("AWS_CONFIG_FILE", (dir_ / "config").c_str(), 1);
  }
  void TearDown() override {
    std::filesystem::remove_all(dir_);
    for (const auto& [name, value] : saved_) ::setenv(name.c_str(), value.c_str(), 1);
  }
  void write(const char* name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  std::filesystem::path dir_;
  std::vector<std::pair<std::string, std::string>> saved_;
};

TEST_F(S3Environment, AwsDefaultsVirtualHostedAndUnsigned) {
  const S3Config c = resolve_s3("s3://bucket/a/b.zarr/", {});
  EXPECT_EQ(c.bucket, "bucket");
  EXPECT_EQ(c.prefix, "a/b.zarr");
  EXPECT_EQ(c.region, "us-east-1");
  EXPECT_EQ(c.endpoint, "https://s3.us-east-1.amazonaws.com");
  EXPECT_FALSE(c.path_style);
  EXPECT_FALSE(c.key.has_value());
  EXPECT_NE(c.credentials_from.find("unsigned"), std::string::npos);
  // A bucket name with dots cannot be a virtual host under TLS: path-style.
  EXPECT_TRUE(resolve_s3("s3://my.bucket/k", {}).path_style);
  EXPECT_THROW(resolve_s3("s3:///k", {}), Error);
}

TEST_F(S3Environment, TheEnvironmentThenTheProfileFiles) {
  write("credentials",
        "[default]\naws_access_key_id = D\naws_secret_access_key = DS\n"
        "[dev]\naws_access_key_id = K\naws_secret_access_key = S\n"
        "aws_session_token = T\n");
  write("config",
        "[profile dev]\nregion = eu-west-3\nendpoint_url = http://127.0.0.1:9000/\n"
        "s3 =\n  addressing_style = virtual\n");
  S3Config c = resolve_s3("s3://bkt/k", {});
  EXPECT_EQ(c.key, "D");
  EXPECT_EQ(c.secret, "DS");
  ::setenv("AWS_PROFILE", "dev", 1);
  c = resolve_s3("s3://bkt/k", {});
  EXPECT_EQ(c.key, "K");
  EXPECT_EQ(c.token, "T");
  EXPECT_EQ(c.region, "eu-west-3");
  EXPECT_EQ(c.endpoint, "http://127.0.0.1:9000");
  EXPECT_FALSE(c.path_style);  // the profile's s3.addressing_style
  EXPECT_NE(c.credentials_from.find("profile dev"), std::string::npos);
  // The environment wins over the files; options given win over the environment.
  ::setenv("AWS_ACCESS_KEY_ID", "EK", 1);
  ::setenv("AWS_SECRET_ACCESS_KEY", "ES", 1);
  ::setenv("AWS_REGION", "ap-south-1", 1);
  c = resolve_s3("s3://bkt/k", {});
  EXPECT_EQ(c.key, "EK");
  EXPECT_EQ(c.region, "ap-south-1");
  S3Options given;
  given.region = "sa-east-1";
  given.anonymous = true;
  c = resolve_s3("s3://bkt/k", given);
  EXPECT_EQ(c.region, "sa-east-1");
  EXPECT_FALSE(c.key.has_value());
  // A profile named but found nowhere, and a key without its secret, are refused.
  given = {};
  given.profile = "nosuch";
  EXPECT_THROW(resolve_s3("s3://bkt/k", given), Error);
  ::unsetenv("AWS_SECRET_ACCESS_KEY");
  EXPECT_THROW(resolve_s3("s3://bkt/k", {}), Error);
}

// Every part that says where a request goes is checked before any request: a usage error
// naming the part and where it came from, never a credential's value.
TEST_F(S3Environment, NamesRegionsAndEndpointsAreCheckedFirst) {
  const auto refused = [](const std::string& url, const S3Options& o, const std::string& says) {
    try {
      resolve_s3(url, o);
      ADD_FAILURE() << "taken: " << url;
    } catch (const Error& e) {
      EXPECT_EQ(e.category(), ErrorCategory::kUsage) << e.what();
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find("SECRET"), std::string::npos) << e.what();
    }
  };
  S3Options o;
  refused("s3://2130706433:8080#/x.npy", o, "':'");
  refused("s3://user:SECRET@bucket/x", o, "no user name or password");
  refused("s3://Legacy_Bucket/x", o, "before 2018");  // AWS: lowercase names only
  o.region = "x@127.0.0.1:8080#";
  refused("s3://bucket/x", o, "--region");
  o = {};
  ::setenv("AWS_REGION", "US-EAST-1", 1);
  refused("s3://bucket/x", o, "AWS_REGION");
  ::unsetenv("AWS_REGION");
  write("config", "[default]\nendpoint_url = http://127.0.0.1:9000/prefix\n");
  refused("s3://bucket/x", o, "profile default");
  write("config", "[default]\nregion = a:b\n");
  refused("s3://bucket/x", o, "profile default");
  write("config", "");
  o.endpoint_url = "http://u:SECRET@127.0.0.1:9000";
  refused("s3://bucket/x", o, "--endpoint-url");
  // A token with a line break would start another header: refused, never printed.
  o = {};
  o.key = "K";
  o.secret = "S";
  o.token = "SECRET\r\nx-evil: 1";
  refused("s3://bucket/x", o, "session token");
  // S3-compatible endpoints take legacy names, path-style.
  o = {};
  o.endpoint_url = "http://127.0.0.1:9000";
  const S3Config c = resolve_s3("s3://Legacy_Bucket/../other/x", o);
  EXPECT_TRUE(c.path_style);
  EXPECT_FALSE(c.aws);
  EXPECT_EQ(c.prefix, "../other/x");  // a key, as it is
  EXPECT_EQ(s3_object_url(c, c.prefix), "http://127.0.0.1:9000/Legacy_Bucket/../other/x");
  o.addressing = "virtual";
  refused("s3://Legacy_Bucket/x", o, "path-style");
  // AWS's endpoints, given or not, are AWS's (their region redirects are followed).
  EXPECT_TRUE(resolve_s3("s3://bucket/x", {}).aws);
  o = {};
  o.endpoint_url = "https://s3.eu-west-1.amazonaws.com";
  EXPECT_TRUE(resolve_s3("s3://bucket/x", o).aws);
  const S3Config moved = in_region(resolve_s3("s3://bucket/x", {}), "eu-west-1");
  EXPECT_EQ(moved.endpoint, "https://s3.eu-west-1.amazonaws.com");
  EXPECT_EQ(moved.region, "eu-west-1");
}

}  // namespace
}  // namespace dudley::io
