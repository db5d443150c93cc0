#include "save_to_store.hpp"

#include <fmt/format.h>
#include <stdlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <vector>

#include "dudley/core/error.hpp"
#include "dudley/io/byte_source.hpp"
#include "dudley/io/store.hpp"
#include "save_destination.hpp"

namespace dudley {
namespace {

namespace fs = std::filesystem;

// A directory under $TMPDIR, removed with everything in it when it goes.
class StagingDirectory {
 public:
  StagingDirectory() {
    // mkdtemp's template: it replaces the last six characters with random ones.
    std::error_code ec;
    const fs::path temporary = fs::temp_directory_path(ec);  // $TMPDIR, else /tmp
    if (ec) {
      const char* tmpdir = std::getenv("TMPDIR");
      throw Error(ErrorCategory::kIo,
                  fmt::format("no directory to stage the upload in: {} (set TMPDIR to a "
                              "writable directory with room for the output)",
                              ec.message()),
                  Location::file(tmpdir ? tmpdir : "/tmp"));
    }
    std::string name = (temporary / "dudley-upload-").string();
    name.append(6, 'X');
    if (::mkdtemp(name.data()) == nullptr) {
      throw Error(ErrorCategory::kIo,
                  fmt::format("cannot create a directory to stage the upload in: {} (set TMPDIR "
                              "to a writable directory with room for the output)",
                              std::strerror(errno)),
                  Location::file(name));
    }
    path_ = name;
  }
  ~StagingDirectory() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  StagingDirectory(const StagingDirectory&) = delete;
  StagingDirectory& operator=(const StagingDirectory&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The files under `dir`, as keys relative to it.
std::vector<std::string> files_under(const std::string& dir) {
  std::vector<std::string> keys;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) keys.push_back(fs::relative(entry.path(), dir).string());
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

// Files open at once while uploading (each batch's): well below the usual limit of 1,024
// open files, and many more than the requests in flight.
constexpr size_t kFilesPerBatch = 256;

// Uploads the files `keys` of `staging` to the same keys of `store`, in batches; each
// value's stored bytes go to `on_stored` when it is set.
void upload(io::Store& store, const std::string& staging, const std::vector<std::string>& keys,
            const std::function<void(uint64_t)>* on_stored) {
  std::vector<io::WriteRequest> batch;
  batch.reserve(std::min(keys.size(), kFilesPerBatch));
  for (size_t at = 0; at < keys.size(); at += kFilesPerBatch) {
    batch.clear();
    for (size_t i = at; i < std::min(keys.size(), at + kFilesPerBatch); ++i) {
      std::string path = staging;
      path.append("/").append(keys[i]);
      batch.push_back({keys[i], io::open_file(path), on_stored});
    }
    store.write_many(batch);
  }
}

}  // namespace

SaveReport save_to_store(const Format& format, const model::Tree& tree, const std::string& url,
                         const SaveOptions& options) {
  std::string target = url;
  while (target.size() > 1 && target.back() == '/') target.pop_back();
  const size_t bucket_end = target.find('/', 5);  // after "s3://"
  if (bucket_end == std::string::npos || bucket_end + 1 >= target.size()) {
    throw Error(ErrorCategory::kUsage, "name the object to write: s3://BUCKET/NAME",
                Location::file(url));
  }
  const size_t slash = target.rfind('/');
  const std::string parent = target.substr(0, slash);  // s3://BUCKET[/DIR]
  const std::string name = target.substr(slash + 1);
  std::shared_ptr<io::Store> store = io::open_store(parent, options.store);
  if (format.saves_into_stores())
    return format.save_into_store(tree, *store, name, target, options);
  check_replaceable_in_store(format, *store, name, target, options);

  StagingDirectory staging;
  const std::string local = staging.path() + "/" + name;
  SaveReport report = format.save(tree, local, options);

  if (fs::is_directory(local)) {
    // A store of many values keeps its readers from half-written data only by the order of
    // its writes, which its format knows (Format::save_into_store).
    throw Error(
        ErrorCategory::kUsage,
        fmt::format("format '{}' writes a directory: it cannot be uploaded whole", format.name()),
        Location::file(url));
  }
  std::vector<std::string> uploaded;
  try {
    // The main output first, then what is written beside it (a layout naming it).
    std::vector<std::string> rest;
    uint64_t total = 0, stored = 0;
    for (const std::string& key : files_under(staging.path())) {
      if (key != name) rest.push_back(key);
      total += fs::file_size(staging.path() + "/" + key);
    }
    const std::function<void(uint64_t)> on_stored = [&](uint64_t bytes) {
      stored += bytes;
      options.upload_progress(stored, total);
    };
    const std::function<void(uint64_t)>* progress = options.upload_progress ? &on_stored : nullptr;
    uploaded = {name};
    upload(*store, staging.path(), {name}, progress);
    uploaded.insert(uploaded.end(), rest.begin(), rest.end());
    upload(*store, staging.path(), rest, progress);
  } catch (...) {
    try {
      store->erase_many(uploaded);
    } catch (...) {  // the upload's own error is the one reported
    }
    throw;
  }
  // The report names what the user asked for, not the staging directory.
  auto renamed = [&](std::string& path) {
    if (path.rfind(staging.path() + "/", 0) == 0)
      path = parent + "/" + path.substr(staging.path().size() + 1);
  };
  for (WrittenFile& f : report.files) renamed(f.path);
  renamed(report.layout);
  for (std::string& note : report.notes) {
    for (size_t at; (at = note.find(staging.path() + "/")) != std::string::npos;) {
      note.replace(at, staging.path().size(), parent);
    }
  }
  return report;
}

}  // namespace dudley
