// The format registry: every file format is a Format registered by name, and dudley::open /
// dudley::save (and the CLI) find formats through it only. Options are format-neutral, plus
// one options struct per format, kept by the format's name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "dudley/io/store.hpp"
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
  /// A hint: the caller looks only at these paths (a member and whatever lies below it).
  /// A format may leave out of the tree the group members that lead to none of them and lie
  /// below none (related_paths), so that reading one array of a large file costs that
  /// array; empty: the whole tree.
  std::vector<std::string> wanted;
  /// Fill Storage::extent_offsets where the format can (HDF5 contiguous datasets): it costs
  /// a read per array, so only `dudley layout` asks for it.
  bool extent_offsets = false;
  /// Folders that what the data names may also be read from (--allow-outside DIR). The
  /// rule for reading (dudley/io/read_rule.hpp): a format reads the file or store named
  /// and, for what that data names itself (HDF5 external links, external storage and
  /// virtual sources, ASDF external sources, a Dudley family index's members, the files of
  /// a Zarr store), only files inside the named file's folder (a store: the store), every
  /// path resolved, symbolic links included; never the current directory or a folder an
  /// environment variable names. A file elsewhere is read only inside one of these folders
  /// ("/": anywhere). What the rule refuses becomes the item's error, naming what the data
  /// names and why.
  std::vector<std::string> allow_outside;
  /// How stores other than directories are reached (S3 credentials, endpoint; web
  /// servers' time bounds), for paths that are URLs.
  io::StoreOptions store;
  /// Each format's own options.
  PerFormatOptions formats;
};

struct SaveOptions {
  /// The format to write; empty: found from the destination's extension.
  std::string format;
  /// Write what the output can carry and list the rest in SaveReport::lost (--lossy),
  /// instead of refusing the whole save with a LossError.
  bool lossy = false;
  /// Make the output durable (fsync) before it appears under its name.
  bool fsync = false;
  /// Replace what exists at the destination although it is no output of this format
  /// (--overwrite). Without it, a save writes only where nothing is, into an empty
  /// directory, or over an output of its own format (a file its format recognises, a store
  /// holding nothing but its own keys), and refuses anything else (Error(kUsage) naming the
  /// destination and what is there). Even with it, a store is written among files that are
  /// not its own and removes only its own keys: a save deletes only what its format wrote.
  bool overwrite = false;
  /// Called with (bytes done, bytes in all) as array data is written.
  std::function<void(uint64_t, uint64_t)> progress;
  /// Called with (bytes stored, bytes in all) while an output written locally first (a file
  /// format saved to s3://) is uploaded.
  std::function<void(uint64_t, uint64_t)> upload_progress;
  /// How an s3:// destination is reached (credentials, endpoint).
  io::StoreOptions store;
  /// Each format's own options.
  PerFormatOptions formats;
};

/// A command-line option a format contributes. The CLI adds it to the commands that read
/// (`kReading`: ls, dump, convert's source) or write (`kWriting`: convert's output), grouped
/// under the format's name in --help, and hands the values given back to the format
/// (Format::apply_open_options / apply_save_options); the CLI itself knows no format.
struct FormatOption {
  enum class Use { kReading, kWriting };
  enum class Kind {
    kFlag,      ///< present or not
    kValue,     ///< one value
    kUnsigned,  ///< one non-negative integer
    kList,      ///< repeatable, one value each time
  };
  Use use = Use::kReading;
  Kind kind = Kind::kFlag;
  std::string name;                  ///< with its dashes: "--no-checksums"
  std::string help;                  ///< one line
  std::vector<std::string> choices;  ///< the values allowed; empty: any
  bool existing_file = false;        ///< the value names a file that must exist
  /// Giving it means this format reads the file, whatever it looks like (Dudley's --layout).
  bool selects_format = false;

  /// An option of reading, or of writing (builders, so a format's list reads as a table).
  static FormatOption reading(Kind kind, std::string name, std::string help) {
    return make(Use::kReading, kind, std::move(name), std::move(help));
  }
  static FormatOption writing(Kind kind, std::string name, std::string help) {
    return make(Use::kWriting, kind, std::move(name), std::move(help));
  }
  /// The same option, taking only these values.
  FormatOption allowing(std::vector<std::string> values) const {
    FormatOption o = *this;
    o.choices = std::move(values);
    return o;
  }
  /// The same option, whose value names a file that must exist.
  FormatOption naming_a_file() const {
    FormatOption o = *this;
    o.existing_file = true;
    return o;
  }
  /// The same option, choosing its format when given.
  FormatOption selecting_format() const {
    FormatOption o = *this;
    o.selects_format = true;
    return o;
  }

 private:
  static FormatOption make(Use use, Kind kind, std::string name, std::string help) {
    FormatOption o;
    o.use = use;
    o.kind = kind;
    o.name = std::move(name);
    o.help = std::move(help);
    return o;
  }
};

/// The values given for a format's options, by option name: a flag given is {"true"}, a
/// repeated option has one value per use. Options not given are absent.
using GivenOptions = std::map<std::string, std::vector<std::string>>;

/// One file a save wrote.
struct WrittenFile {
  std::string path;
  std::string role;  ///< "data", "layout", ... (what the file is to the reader)
  uint64_t bytes = 0;
};

/// What a save wrote, and what of the tree the format could not hold.
struct SaveReport {
  std::vector<WrittenFile> files;  ///< the main output first
  /// How the output keeps the tree differently (names respelled, a list written as a group,
  /// recompressed), each one line naming the item; nothing of the source is missing. The CLI
  /// prints them as notes.
  std::vector<std::string> notes;
  /// Items of the source the output does not carry, or carries only in part (an array left
  /// out, values not written, an attribute, a mask, a link), one line each naming the item
  /// and why. Only with SaveOptions::lossy: otherwise such a save throws LossError.
  std::vector<std::string> lost;
  /// Paths of the source's arrays that the output has no place for (writing into a given
  /// layout); also in `notes`.
  std::vector<std::string> unused;
  /// The file holding a Dudley layout of the output (beside it, or the output itself when
  /// embedded); empty for outputs that describe themselves.
  std::string layout;
  /// Bytes of the main output.
  uint64_t bytes() const { return files.empty() ? 0 : files.front().bytes; }
};

/// A save refused because its output cannot carry everything asked for: every item it would
/// lose, named with the reason (SaveOptions::lossy writes the rest instead). Nothing is
/// written. Category kLoss.
class LossError : public Error {
 public:
  /// `format`: the output's ("hdf5"); `path`: the output; `items`: "PATH: why" lines.
  LossError(const std::string& format, const std::string& path, std::vector<std::string> items);
  const std::vector<std::string>& items() const noexcept { return items_; }
  /// The summary line, then each item on a line of its own (at most 1000; then a count).
  std::string report() const override;

 private:
  std::vector<std::string> items_;
};

/// What a writer leaves out, held to the rule that nothing is lost silently: the writer
/// calls lose() for each item of the source it cannot carry, and check() before its output
/// appears, which refuses the save (LossError naming them all) unless the caller asked for
/// a lossy result. What the source's reader itself had no place for (Tree::skipped: links,
/// committed types) is lost by any output, and counted from the start.
class LossLog {
 public:
  /// `lossy`: SaveOptions::lossy; `format` and `path` name the output in the error.
  LossLog(const model::Tree& tree, bool lossy, std::string format, std::string path);
  /// Records one item left out ("PATH: why").
  void lose(std::string item) { items_.push_back(std::move(item)); }
  /// The line for an array at `path` its reader could not read: "PATH: cannot be read:
  /// PLACE: WHY; left out", the place (file:line:col, file:@offset) as the error gave it.
  static std::string unreadable(const std::string& path, const model::NodeError& error);
  /// Throws LossError when anything was lost and the save is not lossy.
  void check() const;
  /// The items lost (for SaveReport::lost).
  std::vector<std::string> take() { return std::move(items_); }

 private:
  std::vector<std::string> items_;
  bool lossy_;
  std::string format_, path_;
};

/// How a format recognises its files when none is named.
enum class Recognition {
  kSignature,  ///< bytes at the start of the file (ASDF's "#ASDF", HDF5's magic)
  /// No signature: a companion file says it (Dudley data: a layout beside it or embedded).
  /// Tried after every signature, so that x.asdf with an x.dud of an earlier conversion
  /// beside it is still ASDF.
  kCompanion,
};

/// The extension of `path`, lowercased with its dot (".h5"), "" when it has none; a
/// trailing '/' is ignored ("out.zarr/" is ".zarr").
std::string lowercase_extension(std::string path);

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
  /// The extensions of the files save() writes when no format is named: extensions() by
  /// default. (HDF5 writes netCDF-4 files, ".nc", which the netCDF classic reader names.)
  virtual std::vector<std::string> writing_extensions() const { return extensions(); }
  /// How sniff() recognises the format (the registry tries signatures first).
  virtual Recognition recognition() const { return Recognition::kSignature; }
  /// Whether the file at `path`, whose first bytes are `head` (up to 4 KiB), is surely of
  /// this format: a signature, or (for formats without one) a companion file the format
  /// needs. Must not throw for any input.
  virtual bool sniff(const std::string& path, std::span<const std::byte> head) const = 0;
  /// Whether the existing file at `path` (first bytes `head`) is one of this format's,
  /// so that a save may replace it without being told to (SaveOptions::overwrite):
  /// sniff() by default; a format without a signature (NDL) checks that the file reads.
  virtual bool is_own_file(const std::string& path, std::span<const std::byte> head) const {
    return sniff(path, head);
  }
  /// Reads `path` as a model tree.
  virtual model::Tree open(const std::string& path, const OpenOptions& options) const = 0;
  /// Whether save() is implemented.
  virtual bool can_save() const { return false; }
  /// Writes `tree` to `path`; says which files it wrote and what it could not keep.
  virtual SaveReport save(const model::Tree& tree, const std::string& path,
                          const SaveOptions& options) const;
  /// Whether save_into_store() writes straight into a key-value store. Formats that do not
  /// are written to a local staging directory and uploaded whole (save_to_store).
  virtual bool saves_into_stores() const { return false; }
  /// Writes `tree` under `name` in `store` (`url` names it for messages and the report).
  /// Error(kUsage) for a format whose saves_into_stores() is false.
  virtual SaveReport save_into_store(const model::Tree& tree, io::Store& store,
                                     const std::string& name, const std::string& url,
                                     const SaveOptions& options) const;

  /// The command-line options of this format (none by default).
  virtual std::vector<FormatOption> cli_options() const { return {}; }
  /// Sets this format's own options in `options` from `given` (only this format's reading
  /// options appear). Error(kUsage) naming the option for a value that makes no sense.
  virtual void apply_open_options(const GivenOptions& given, OpenOptions& options) const;
  /// The same for writing options.
  virtual void apply_save_options(const GivenOptions& given, SaveOptions& options) const;
  /// Files that reading `path` reads besides it (a layout beside it, a family's shared
  /// layout), existing or not, known without opening it: a conversion must not write over
  /// them. Files found only by reading the file (ASDF external sources) are in the opened
  /// tree's `companions`.
  virtual std::vector<std::string> inputs_besides(const std::string& path,
                                                  const OpenOptions& options) const;
  /// Files that save() writes besides `path`, with their role ("layout"); none by default.
  virtual std::vector<WrittenFile> outputs_besides(const std::string& path,
                                                   const SaveOptions& options) const;
  /// Refuses (Error(kUsage), nothing written) a save to `path` that would harm files other
  /// than its own outputs, e.g. a layout that a file family reads. Nothing by default.
  virtual void check_destination(const std::string& path, const SaveOptions& options) const;
};

/// A base for formats that answers name(), description() and extensions() from what its
/// constructor is given, so that a format states only what it does.
class BasicFormat : public Format {
 public:
  BasicFormat(std::string name, std::string description, std::vector<std::string> extensions)
      : name_(std::move(name)),
        description_(std::move(description)),
        extensions_(std::move(extensions)) {}
  std::string name() const override { return name_; }
  std::string description() const override { return description_; }
  std::vector<std::string> extensions() const override { return extensions_; }

 private:
  std::string name_, description_;
  std::vector<std::string> extensions_;
};

/// Whether the flag `name` was given.
bool given_flag(const GivenOptions& given, const std::string& name);
/// The value of `name`, or `fallback` when it was not given.
std::string given_value(const GivenOptions& given, const std::string& name,
                        const std::string& fallback = {});
/// The non-negative integer given for `name`, or `fallback`; Error(kUsage) naming the option
/// for text that is not one.
uint64_t given_unsigned(const GivenOptions& given, const std::string& name, uint64_t fallback);
/// Every value given for `name`, in order.
std::vector<std::string> given_values(const GivenOptions& given, const std::string& name);

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
  /// with a signature whose sniff() accepts it, else the first recognising it by a
  /// companion file, else the one owning its extension, else (a name without extension)
  /// the fallback format. Error(kUsage) naming the file and the formats when none does.
  const Format& for_reading(const std::string& path, const std::string& name = {}) const;
  /// The format to write `path` in: `name` when given, else the one owning its extension,
  /// else (no extension) the fallback format. Error(kUsage) for an unknown name, a format
  /// that cannot write, or an extension no format owns (naming the formats and --to).
  const Format& for_writing(const std::string& path, const std::string& name = {}) const;
  /// Names the format that reads and writes files no other claims by extension or
  /// signature (the project's own: "dudley"). Error(kUsage) when it is not registered.
  void set_fallback(const std::string& name);

  /// The registry of every format compiled into this build (made on first use).
  static const FormatRegistry& builtin();

 private:
  std::vector<std::unique_ptr<Format>> formats_;
  const Format* fallback_ = nullptr;
};

/// Registers the formats compiled into this build (called by FormatRegistry::builtin()).
void register_builtin_formats(FormatRegistry& registry);

}  // namespace dudley
