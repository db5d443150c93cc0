#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "dudley/core/error.hpp"
#include "dudley/format.hpp"

namespace dudley {

namespace {
// The format that reads and writes what no other format claims: the project's own.
constexpr const char* kDefaultFormat = "dudley";

std::string names_of(const std::vector<const Format*>& formats, bool writers) {
  std::vector<std::string> names;
  for (const Format* f : formats) {
    if (!writers || f->can_save()) names.push_back(f->name());
  }
  return fmt::format("{}", fmt::join(names, ", "));
}

std::string lowercase_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}
}  // namespace

uint64_t Format::save(const model::Tree&, const std::string& path, const SaveOptions&) const {
  throw Error(ErrorCategory::kUsage, fmt::format("cannot write format '{}'", name()),
              Location::file(path));
}

void FormatRegistry::add(std::unique_ptr<Format> format) {
  if (find(format->name())) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("format '{}' is registered twice", format->name()));
  }
  formats_.push_back(std::move(format));
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
  std::vector<std::byte> head;
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec)) {
    head.resize(4096);
    std::ifstream in(path, std::ios::binary);
    in.read(reinterpret_cast<char*>(head.data()), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<size_t>(std::max<std::streamsize>(0, in.gcount())));
  }
  for (const auto& f : formats_) {
    if (f->sniff(path, head)) return *f;
  }
  const std::string ext = lowercase_extension(path);
  for (const auto& f : formats_) {
    const auto exts = f->extensions();
    if (!ext.empty() && std::find(exts.begin(), exts.end(), ext) != exts.end()) return *f;
  }
  // Nothing claims it: the default format reads it, and its errors say what is missing
  // (for Dudley data: the layout beside it).
  if (const Format* f = find(kDefaultFormat)) return *f;
  throw Error(ErrorCategory::kUsage,
              fmt::format("no format recognises this file (this build reads: {})",
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
    const auto exts = f->extensions();
    if (f->can_save() && !ext.empty() && std::find(exts.begin(), exts.end(), ext) != exts.end()) {
      return *f;
    }
  }
  if (const Format* f = find(kDefaultFormat)) return *f;
  throw Error(ErrorCategory::kUsage,
              fmt::format("no format writes '{}' files (this build writes: {})", ext,
                          names_of(formats(), true)));
}

}  // namespace dudley
