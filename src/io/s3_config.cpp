#include "io/s3_config.hpp"

#include <ini.h>

#include <cstdlib>
#include <map>

#include <fmt/format.h>

#include "dudley/core/error.hpp"
#include "dudley/io/redact.hpp"
#include "io/curl_library.hpp"
#include "io/s3_names.hpp"

namespace dudley::io {
namespace {

using Section = std::map<std::string, std::string>;

// The variable `name` when set and not empty.
std::optional<std::string> env(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string(v);
}

std::string home_file(const char* variable, const char* name) {
  if (auto path = env(variable)) return *path;
  const auto home = env("HOME");
  return home ? *home + "/.aws/" + name : std::string();
}

// The sections of an INI file (the AWS tools' format), by name; empty when it is absent. A
// nested setting ("s3 =" then indented "addressing_style = path") is kept as
// "s3.addressing_style".
std::map<std::string, Section> read_ini(const std::string& path) {
  std::map<std::string, Section> out;
  if (path.empty()) return out;
  auto handler = [](void* user, const char* section, const char* name, const char* value) {
    auto& sections = *static_cast<std::map<std::string, Section>*>(user);
    Section& s = sections[section];
    std::string v = value ? value : "";
    const size_t eq = v.find('=');
    if (eq != std::string::npos && s.count(name) != 0 && s[name].empty()) {
      // A continuation line of a nested setting: "name = KEY = VALUE".
      auto trim = [](std::string t) {
        while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.pop_back();
        while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.erase(0, 1);
        return t;
      };
      s[std::string(name) + "." + trim(v.substr(0, eq))] = trim(v.substr(eq + 1));
      return 1;
    }
    s[name] = v;
    return 1;
  };
  const int rc = ini_parse(path.c_str(), handler, &out);
  if (rc > 0) {
    throw Error(ErrorCategory::kUsage, "this line is not INI (the AWS tools' format)",
                Location::text(path, static_cast<uint32_t>(rc), 1));
  }
  return out;  // rc -1: the file cannot be opened (absent): nothing from it
}

const std::string* find(const Section* s, const std::string& name) {
  if (s == nullptr) return nullptr;
  auto it = s->find(name);
  return it == s->end() || it->second.empty() ? nullptr : &it->second;
}

// Refuses a credential holding a control character (a line break would end its header and
// start another); says which one and where it came from, never its value.
void check_credential(const std::optional<std::string>& value, const char* what,
                      const std::string& from) {
  if (!value) return;
  for (char ch : *value) {
    const auto u = static_cast<unsigned char>(ch);
    if (u < 0x20 || u == 0x7f) {
      throw Error(ErrorCategory::kUsage,
                  fmt::format("the {} (from {}) holds a control character", what, from));
    }
  }
}

// Where virtual-hosted addressing cannot reach a bucket: a name with dots (TLS names one
// level under the endpoint) or with characters no host name has.
bool host_label(const std::string& bucket) {
  return bucket.find('.') == std::string::npos && bucket_name_problem(bucket, false).empty();
}

}  // namespace

S3Config resolve_s3(const std::string& url, const S3Options& options) {
  S3Config c;
  const std::string rest = url.substr(url.rfind("s3://", 0) == 0 ? 5 : 0);
  const size_t slash = rest.find('/');
  c.bucket = rest.substr(0, slash);
  if (slash != std::string::npos) c.prefix = rest.substr(slash + 1);
  while (!c.prefix.empty() && c.prefix.back() == '/') c.prefix.pop_back();
  const std::string shown = redacted_url(url);
  if (c.bucket.empty()) {
    throw Error(ErrorCategory::kUsage, "an S3 URL names its bucket: s3://BUCKET/KEY",
                Location::file(shown));
  }
  if (c.bucket.find('@') != std::string::npos) {
    throw Error(ErrorCategory::kUsage,
                "an s3:// URL carries no user name or password: s3://BUCKET/KEY (credentials "
                "come from the environment, a profile or the options)",
                Location::file(shown));
  }

  const std::string profile =
      options.profile ? *options.profile : env("AWS_PROFILE").value_or("default");
  const std::string credentials_path = home_file("AWS_SHARED_CREDENTIALS_FILE", "credentials");
  const std::string config_path = home_file("AWS_CONFIG_FILE", "config");
  const auto credentials = read_ini(credentials_path);
  const auto config = read_ini(config_path);
  const Section* from_credentials = nullptr;
  if (auto it = credentials.find(profile); it != credentials.end()) from_credentials = &it->second;
  const Section* from_config = nullptr;
  const std::string config_section = profile == "default" ? "default" : "profile " + profile;
  if (auto it = config.find(config_section); it != config.end()) from_config = &it->second;
  if ((options.profile || env("AWS_PROFILE")) && !from_credentials && !from_config) {
    throw Error(ErrorCategory::kUsage, fmt::format("profile {} is in neither {} nor {}", profile,
                                                   credentials_path, config_path));
  }

  // Credentials: given, the environment, then the profile (credentials file, then config).
  const bool unsigned_asked =
      options.anonymous || env("AWS_NO_SIGN_REQUEST").value_or("") == "true";
  if (!unsigned_asked) {
    if (options.key) {
      c.key = options.key;
      c.secret = options.secret;
      c.token = options.token;
      c.credentials_from = "the options given";
    } else if (auto id = env("AWS_ACCESS_KEY_ID")) {
      c.key = id;
      c.secret = env("AWS_SECRET_ACCESS_KEY");
      c.token = env("AWS_SESSION_TOKEN");
      c.credentials_from = "AWS_ACCESS_KEY_ID";
    } else {
      for (const auto& [section, path] :
           {std::pair{from_credentials, credentials_path}, std::pair{from_config, config_path}}) {
        if (const std::string* key_id = find(section, "aws_access_key_id")) {
          c.key = *key_id;
          if (const std::string* s = find(section, "aws_secret_access_key")) c.secret = *s;
          if (const std::string* t = find(section, "aws_session_token")) c.token = *t;
          c.credentials_from = fmt::format("profile {} in {}", profile, path);
          break;
        }
      }
    }
    if (c.key && !c.secret) {
      throw Error(ErrorCategory::kUsage,
                  fmt::format("an access key without its secret (from {})", c.credentials_from));
    }
    check_credential(c.key, "access key id", c.credentials_from);
    check_credential(c.secret, "secret access key", c.credentials_from);
    check_credential(c.token, "session token", c.credentials_from);
  }
  if (!c.key)
    c.credentials_from =
        unsigned_asked ? "none asked: requests are unsigned" : "none found: requests are unsigned";

  // Region and endpoint: the region goes into the signature and AWS's host name, the
  // endpoint is where every request goes; both checked before any request.
  std::string region_from;
  if (options.region) {
    c.region = *options.region;
    region_from = "--region";
  } else if (auto r = env("AWS_REGION")) {
    c.region = *r;
    region_from = "AWS_REGION";
  } else if (auto d = env("AWS_DEFAULT_REGION")) {
    c.region = *d;
    region_from = "AWS_DEFAULT_REGION";
  } else if (const std::string* p = find(from_config, "region")) {
    c.region = *p;
    region_from = fmt::format("profile {} in {}", profile, config_path);
  } else {
    c.region = "us-east-1";
    region_from = "the default";
  }
  if (std::string why = region_problem(c.region, region_from); !why.empty()) {
    throw Error(ErrorCategory::kUsage, why, Location::file(shown));
  }
  std::optional<std::string> endpoint = options.endpoint_url;
  std::string endpoint_from = "--endpoint-url";
  if (!endpoint && (endpoint = env("AWS_ENDPOINT_URL_S3"))) endpoint_from = "AWS_ENDPOINT_URL_S3";
  if (!endpoint && (endpoint = env("AWS_ENDPOINT_URL"))) endpoint_from = "AWS_ENDPOINT_URL";
  if (!endpoint) {
    if (const std::string* e = find(from_config, "endpoint_url")) {
      endpoint = *e;
      endpoint_from = fmt::format("profile {} in {}", profile, config_path);
    }
  }
  c.endpoint_from_region = !endpoint;
  c.endpoint = endpoint ? checked_endpoint(*endpoint, endpoint_from) : aws_endpoint(c.region);
  c.aws = is_aws_host(c.endpoint.substr(c.endpoint.find("://") + 3));
  std::string addressing = options.addressing;
  if (addressing == "auto") {
    if (const std::string* a = find(from_config, "s3.addressing_style")) addressing = *a;
  }
  if (addressing != "auto" && addressing != "path" && addressing != "virtual") {
    throw Error(ErrorCategory::kUsage,
                fmt::format("S3 addressing {:?}: give path, virtual or auto", addressing));
  }
  // Virtual-hosted names need a bucket that is a DNS label; path-style requests to AWS's
  // own endpoints are kept for names that are not (AWS answers them for old buckets).
  c.path_style =
      addressing == "path" || (addressing == "auto" && (!c.aws || !host_label(c.bucket)));
  // The name as AWS takes it; on another endpoint, path-style, also the names S3 took before
  // 2018 (uppercase letters, '_'), which S3-compatible stores (Ceph) still make: there the
  // name is a path segment, never part of a host name.
  const bool legacy = c.path_style && !c.aws;
  if (std::string why = bucket_name_problem(c.bucket, legacy); !why.empty()) {
    if (!legacy && bucket_name_problem(c.bucket, true).empty()) {
      why += c.aws ? " (names S3 took before 2018, with uppercase letters or '_', are read only "
                     "from an S3-compatible endpoint, path-style)"
                   : " (names with uppercase letters or '_' are read path-style only: "
                     "s3 addressing_style = path)";
    }
    throw Error(ErrorCategory::kUsage, why, Location::file(shown));
  }
  if (!c.path_style && !host_label(c.bucket)) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("the bucket name {:?} cannot be a host name (virtual-hosted "
                            "addressing): give s3 addressing_style = path",
                            c.bucket),
                Location::file(shown));
  }
  return c;
}

std::string s3_bucket_url(const S3Config& c) {
  if (c.path_style) return c.endpoint + "/" + url_escaped(c.bucket, false);
  const size_t host = c.endpoint.find("://") + 3;
  return c.endpoint.substr(0, host) + c.bucket + "." + c.endpoint.substr(host);
}

std::string s3_object_url(const S3Config& c, const std::string& object_key) {
  return s3_bucket_url(c) + "/" + url_escaped(object_key, true);
}

S3Config in_region(S3Config c, const std::string& region) {
  c.region = region;
  c.endpoint = aws_endpoint(region);
  c.aws = true;
  c.endpoint_from_region = true;
  return c;
}

}  // namespace dudley::io
