#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <filesystem>

#include "dudley/core/error.hpp"
#include "dudley/core/file_io.hpp"
#include "dudley/format.hpp"
#include "dudley/io/redact.hpp"

namespace dudley {

namespace {

std::string names_of(const std::vector<const Format*>& formats, bool writers) {
  std::vector<std::string> names;
  for (const Format* f : formats) {
    if (!writers || f->can_save()) names.push_back(f->name());
  }
  return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

std::string lowercase_extension(std::string path) {
  // A web URL's extension is its path's: a presigned ".../x.npy?X-Amz-Signature=..." is
  // .npy (redacted_url leaves the path: no query, fragment or user information).
  std::string scheme = path.substr(0, std::min<size_t>(path.size(), 8));
  std::transform(scheme.begin(), scheme.end(), scheme.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (scheme.rfind("http://", 0) == 0 || scheme.rfind("https://", 0) == 0)
    path = io::redacted_url(path);
  // "out.zarr/" names the directory out.zarr: its extension is the name's.
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

SaveReport Format::save(const model::Tree&, const std::string& path, const SaveOptions&) const {
  throw Error(ErrorCategory::kUsage, fmt::format("cannot write format '{}'", name()),
              Location::file(path));
}

SaveReport Format::save_into_store(const model::Tree&, io::Store&, const std::string&,
                                   const std::string& url, const SaveOptions&) const {
  throw Error(ErrorCategory::kUsage,
              fmt::format("format '{}' does not write into stores: stage it", name()),
              Location::file(url));
}

void Format::apply_open_options(const GivenOptions&, OpenOptions&) const {}
void Format::apply_save_options(const GivenOptions&, SaveOptions&) const {}
std::vector<std::string> Format::inputs_besides(const std::string&, const OpenOptions&) const {
  return {};
}
std::vector<WrittenFile> Format::outputs_besides(const std::string&, const SaveOptions&) const {
  return {};
}
void Format::check_destination(const std::string&, const SaveOptions&) const {}

bool given_flag(const GivenOptions& given, const std::string& name) {
  return given.count(name) > 0;
}

std::string given_value(const GivenOptions& given, const std::string& name,
                        const std::string& fallback) {
  auto it = given.find(name);
  return it == given.end() || it->second.empty() ? fallback : it->second.back();
}

uint64_t given_unsigned(const GivenOptions& given, const std::string& name, uint64_t fallback) {
  auto it = given.find(name);
  if (it == given.end() || it->second.empty()) return fallback;
  const std::string& text = it->second.back();
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("{} {}: expected a non-negative integer", name, text));
  }
  return value;
}

std::vector<std::string> given_values(const GivenOptions& given, const std::string& name) {
  auto it = given.find(name);
  return it == given.end() ? std::vector<std::string>() : it->second;
}

void FormatRegistry::add(std::unique_ptr<Format> format) {
  if (find(format->name())) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("format '{}' is registered twice", format->name()));
  }
  formats_.push_back(std::move(format));
}

void FormatRegistry::set_fallback(const std::string& name) {
  fallback_ = find(name);
  if (!fallback_) {
    throw Error(ErrorCategory::kUsage, fmt::format("no format '{}' to fall back to", name));
  }
}

const Format* FormatRegistry::find(const std::string& name) const {
  for (const auto& f : formats_) {
    if (f->name() == name) return f.get();
  }
  return nullptr;
}

std::vector<const Format*> FormatRegistry::formats() const {
  std::vector<const Format*> out;
  for (const auto& f : formats_) out.push_back(f.get());
  return out;
}

const Format& FormatRegistry::for_reading(const std::string& path, const std::string& name) const {
  if (!name.empty()) {
    if (const Format* f = find(name)) return *f;
    throw Error(ErrorCategory::kUsage, fmt::format("unknown format '{}' (this build reads: {})",
                                                   name, names_of(formats(), false)));
  }
  // Signatures first: the first bytes say more than a name.
  // Only a regular file is read here: opening a FIFO or a device could block or consume it
  // (the format that opens it then refuses it with a clear error).
  const std::vector<std::byte> head = read_head(path);
  // A URL: a file format by its extension (s3://b/x.npy); else a store (Zarr's sniff).
  if (io::is_url(path)) {
    const std::string ext = lowercase_extension(path);
    for (const auto& f : formats_) {
      const auto exts = f->extensions();
      if (!ext.empty() && std::find(exts.begin(), exts.end(), ext) != exts.end()) return *f;
    }
  }
  // Signatures first, then companion files: the first bytes say more than a file beside
  // them (an x.dud left by an earlier conversion does not make x.asdf Dudley data).
  for (Recognition kind : {Recognition::kSignature, Recognition::kCompanion}) {
    for (const auto& f : formats_) {
      if (f->recognition() == kind && f->sniff(path, head)) return *f;
    }
  }
  const std::string ext = lowercase_extension(path);
  for (const auto& f : formats_) {
    const auto exts = f->extensions();
    if (!ext.empty() && std::find(exts.begin(), exts.end(), ext) != exts.end()) return *f;
  }
  // A name without an extension: the fallback format reads it, and its errors say what is
  // missing (for Dudley data: the layout beside it).
  if (ext.empty() && fallback_) return *fallback_;
  throw Error(ErrorCategory::kUsage,
              fmt::format("no format recognises this file{} (this build reads: {}; give --format "
                          "to read it as one of them)",
                          ext.empty() ? "" : fmt::format(" or its extension '{}'", ext),
                          names_of(formats(), false)),
              Location::file(path));
}

const Format& FormatRegistry::for_writing(const std::string& path, const std::string& name) const {
  if (!name.empty()) {
    const Format* f = find(name);
    if (!f || !f->can_save()) {
      throw Error(ErrorCategory::kUsage,
                  fmt::format("cannot write format '{}' (this build writes: {})", name,
                              names_of(formats(), true)));
    }
    return *f;
  }
  const std::string ext = lowercase_extension(path);
  for (const auto& f : formats_) {
    const auto exts = f->writing_extensions();
    if (f->can_save() && !ext.empty() && std::find(exts.begin(), exts.end(), ext) != exts.end()) {
      return *f;
    }
  }
  if (ext.empty() && fallback_ && fallback_->can_save()) return *fallback_;
  // Writing Dudley data under a name another tool expects (out.h5, out.zarr) would fool
  // every reader that goes by the name: refuse until a format owns it.
  throw Error(ErrorCategory::kUsage,
              fmt::format("no format writes '{}' files (this build writes: {}; name the output "
                          "with one of their extensions, or give --to)",
                          ext, names_of(formats(), true)),
              Location::file(path));
}

}  // namespace dudley
