// The format registry: every file format is a Format registered by name, and dudley::open /
// dudley::save (and the CLI) find formats through it only. Options are format-neutral, plus
// one options struct per format, kept by the format's name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "dudley/model/tree.hpp"

namespace dudley {

/// Base of each format's own options (layout::DudleyOpenOptions, ...).
class FormatOptions {
 public:
  virtual ~FormatOptions() = default;
};

/// Options of the formats, by format name: `set(DudleyOpenOptions{...})`, `get<...>()`.
class PerFormatOptions {
 public:
  /// Stores `options` under its format's name (`T::kFormat`).
  template <typename T>
  PerFormatOptions& set(T options) {
    by_format_[T::kFormat] = std::make_shared<T>(std::move(options));
    return *this;
  }
  /// The options stored for `T`'s format, or its defaults.
  template <typename T>
  const T& get() const {
    static const T defaults{};
    auto it = by_format_.find(T::kFormat);
    if (it == by_format_.end()) return defaults;
    return dynamic_cast<const T&>(*it->second);
  }

 private:
  std::map<std::string, std::shared_ptr<const FormatOptions>> by_format_;
};

struct OpenOptions {
  /// The format to read; empty: found from the file (by signature, then extension).
  std::string format;
  /// Each format's own options.
  PerFormatOptions formats;
};

struct SaveOptions {
  /// The format to write; empty: found from the destination's extension.
  std::string format;
  /// Make the output durable (fsync) before it appears under its name.
  bool fsync = false;
  /// Called with (bytes done, bytes in all) as array data is written.
  std::function<void(uint64_t, uint64_t)> progress;
  /// Each format's own options.
  PerFormatOptions formats;
};

/// One file format.
class Format {
 public:
  virtual ~Format() = default;
  /// Short lowercase name ("dudley", "asdf", "zarr").
  virtual std::string name() const = 0;
  /// One line for --help and error messages.
  virtual std::string description() const = 0;
  /// File name extensions, with the dot (".asdf"); may be empty.
  virtual std::vector<std::string> extensions() const = 0;
  /// Whether the file at `path`, whose first bytes are `head` (up to 4 KiB), is surely of
  /// this format: a signature, or (for formats without one) a companion file the format
  /// needs. Must not throw for any input.
  virtual bool sniff(const std::string& path, std::span<const std::byte> head) const = 0;
  /// Reads `path` as a model tree.
  virtual model::Tree open(const std::string& path, const OpenOptions& options) const = 0;
  /// Whether save() is implemented.
  virtual bool can_save() const { return false; }
  /// Writes `tree` to `path`; returns the size of the file written.
  virtual uint64_t save(const model::Tree& tree, const std::string& path,
                        const SaveOptions& options) const;
};

/// The formats this build knows, each registered explicitly.
class FormatRegistry {
 public:
  /// Adds a format; Error(kUsage) when one of the same name is there.
  void add(std::unique_ptr<Format> format);
  /// The format named `name`, or nullptr.
  const Format* find(const std::string& name) const;
  /// Every format, in registration order.
  std::vector<const Format*> formats() const;
  /// The format of an existing file: the one named when `name` is given, else the first
  /// whose sniff() accepts it, else the one owning its extension. Error(kUsage) naming the
  /// file and the formats tried when none does (Error(kIo) when it cannot be read).
  const Format& for_reading(const std::string& path, const std::string& name = {}) const;
  /// The format to write `path` in: `name` when given, else by extension; Error(kUsage) for
  /// an unknown name or a format that cannot write.
  const Format& for_writing(const std::string& path, const std::string& name = {}) const;

  /// The registry of every format compiled into this build (made on first use).
  static const FormatRegistry& builtin();

 private:
  std::vector<std::unique_ptr<Format>> formats_;
};

/// Registers the formats compiled into this build (called by FormatRegistry::builtin()).
void register_builtin_formats(FormatRegistry& registry);

}  // namespace dudley
