#include "save_to_store.hpp"

#include <fmt/format.h>
#include <stdlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>
#include <tuple>
#include <vector>

#include "dudley/core/error.hpp"
#include "dudley/io/byte_source.hpp"
#include "dudley/io/store.hpp"

namespace dudley {
namespace {

namespace fs = std::filesystem;

// A directory under $TMPDIR, removed with everything in it when it goes.
class StagingDirectory {
 public:
  StagingDirectory() {
    // mkdtemp's template: it replaces the last six characters with random ones.
    std::string name = (fs::temp_directory_path() / "dudley-upload-").string();
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

// Zarr's metadata documents: what makes a store's arrays and groups visible.
bool is_metadata(const std::string& key) {
  const std::string name = fs::path(key).filename().string();
  return name == "zarr.json" || name == ".zarray" || name == ".zgroup" || name == ".zattrs" ||
         name == ".zmetadata";
}

// Where a metadata document goes in the upload order: deeper ones first (an array before
// the group holding it); at one depth attributes before the document that makes the node
// appear, and the consolidated metadata last of all.
std::tuple<int, int> metadata_rank(const std::string& key) {
  const auto depth = static_cast<int>(std::count(key.begin(), key.end(), '/'));
  const std::string name = fs::path(key).filename().string();
  const int order = name == ".zattrs" ? 0 : name == ".zmetadata" ? 2 : 1;
  return {-depth, order};
}

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

// Uploads the files `keys` of `staging` to the same keys of `store`, in batches.
void upload(io::Store& store, const std::string& staging, const std::vector<std::string>& keys) {
  std::vector<io::WriteRequest> batch;
  batch.reserve(std::min(keys.size(), kFilesPerBatch));
  for (size_t at = 0; at < keys.size(); at += kFilesPerBatch) {
    batch.clear();
    for (size_t i = at; i < std::min(keys.size(), at + kFilesPerBatch); ++i) {
      std::string path = staging;
      path.append("/").append(keys[i]);
      batch.push_back({keys[i], io::open_file(path)});
    }
    store.write_many(batch);
  }
}

// Uploads a staged store (the directory `name` in `staging`): chunks, then metadata in
// rank order; the old store's metadata removed before and its other keys after the chunks.
void upload_store(io::Store& store, const std::string& staging, const std::string& name,
                  std::vector<std::string>& uploaded) {
  std::vector<std::string> data, metadata;
  for (const std::string& key : files_under(staging + "/" + name)) {
    std::string full = name;
    full.append("/").append(key);
    (is_metadata(key) ? metadata : data).push_back(std::move(full));
  }
  std::vector<std::string> old_metadata, stale;
  const std::set<std::string> now(data.begin(), data.end());
  store.for_each_key(name, [&](std::string_view rest) {
    const std::string key = name + "/" + std::string(rest);
    if (is_metadata(key)) {
      old_metadata.push_back(key);
    } else if (!now.count(key)) {
      stale.push_back(key);
    }
  });
  store.erase_many(old_metadata);
  uploaded = data;
  upload(store, staging, data);
  store.erase_many(stale);
  std::sort(metadata.begin(), metadata.end(), [](const std::string& a, const std::string& b) {
    return metadata_rank(a) < metadata_rank(b);
  });
  for (size_t at = 0; at < metadata.size();) {
    size_t end = at;
    while (end < metadata.size() && metadata_rank(metadata[end]) == metadata_rank(metadata[at]))
      ++end;
    const std::vector<std::string> batch(metadata.begin() + static_cast<std::ptrdiff_t>(at),
                                         metadata.begin() + static_cast<std::ptrdiff_t>(end));
    uploaded.insert(uploaded.end(), batch.begin(), batch.end());
    upload(store, staging, batch);
    at = end;
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

  StagingDirectory staging;
  const std::string local = staging.path() + "/" + name;
  SaveReport report = format.save(tree, local, options);

  std::vector<std::string> uploaded;
  try {
    if (fs::is_directory(local)) {
      upload_store(*store, staging.path(), name, uploaded);
    } else {
      // The main output first, then what is written beside it (a layout naming it).
      std::vector<std::string> rest;
      for (const std::string& key : files_under(staging.path())) {
        if (key != name) rest.push_back(key);
      }
      uploaded = {name};
      upload(*store, staging.path(), {name});
      uploaded.insert(uploaded.end(), rest.begin(), rest.end());
      upload(*store, staging.path(), rest);
    }
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
