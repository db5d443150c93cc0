#include "dudley/formats/zarr.hpp"

#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "dudley/core/error.hpp"
#include "dudley/io/store.hpp"
#include "reader.hpp"
#include "writer.hpp"

namespace dudley::zarr {
namespace {

class ZarrFormat final : public BasicFormat {
 public:
  ZarrFormat()
      : BasicFormat("zarr",
                    "Zarr v3 and v2: a directory store of metadata (zarr.json, .zarray) and chunks",
                    {".zarr"}) {}

  // A directory holding zarr.json, or v2's .zgroup or .zarray (a file is never a store).
  bool sniff(const std::string& path, std::span<const std::byte>) const override {
    if (io::is_url(path)) return true;  // the only format read from web servers
    std::error_code ec;
    if (!std::filesystem::is_directory(path, ec)) return false;
    for (const char* name : {"zarr.json", ".zgroup", ".zarray"}) {
      if (std::filesystem::is_regular_file(std::filesystem::path(path) / name, ec)) return true;
    }
    return false;
  }

  model::Tree open(const std::string& path, const OpenOptions& options) const override {
    return open_zarr(path, options.formats.get<ZarrOpenOptions>(), options);
  }

  std::vector<FormatOption> cli_options() const override {
    using Kind = FormatOption::Kind;
    return {
        FormatOption::reading(Kind::kValue, "--http-timeout",
                              "A store on a web server: seconds one request may take (default "
                              "300; 0: no bound)"),
        FormatOption::reading(Kind::kValue, "--http-deadline",
                              "A store on a web server: seconds all of this command's requests "
                              "may take (default 3600; 0: no bound)"),
        FormatOption::writing(Kind::kValue, "--compressor",
                              "Compress every chunk with this (default zstd; lz4 is numcodecs' "
                              "LZ4: v2 readers and zarr-python 3 have it, zarrita not)")
            .allowing({"zstd", "gzip", "blosc", "lz4", "none"}),
        FormatOption::writing(
            Kind::kUnsigned, "--level",
            "The compressor's level (default: zstd 3, gzip 5, blosc 5; lz4: its acceleration, 1)"),
        FormatOption::writing(Kind::kValue, "--chunks",
                              "Chunk shape of the arrays of its rank, as '256,256' (others, and "
                              "by default all: about --chunk-bytes, cutting the slowest "
                              "dimensions)"),
        FormatOption::writing(Kind::kValue, "--shards",
                              "Shard shape of the arrays of its rank, as '4096,4096' (v3 "
                              "sharding_indexed: one key per shard, read by inner chunk; "
                              "--chunks then gives the inner chunks)"),
        FormatOption::writing(Kind::kUnsigned, "--chunk-bytes",
                              "Size chunks are chosen near (default 1048576)"),
        FormatOption::writing(Kind::kFlag, "--shuffle",
                              "Byte-shuffle every chunk before compressing it (numcodecs' "
                              "Shuffle: a v2 filter, numcodecs.shuffle in v3; zarrita has it "
                              "not); floats then compress better with zstd, gzip or lz4"),
        FormatOption::writing(Kind::kFlag, "--crc32c",
                              "Append a CRC-32C to every chunk (checked when read; v3 only)"),
        FormatOption::writing(Kind::kFlag, "--no-consolidated",
                              "Do not write consolidated metadata (by default every node's "
                              "metadata is also kept in the root zarr.json, or .zmetadata for "
                              "v2, so that stores on web servers list whole)"),
        FormatOption::writing(Kind::kValue, "--zarr-format",
                              "Write a v3 store (default) or a v2 one (.zarray, for zarr-python 2)")
            .allowing({"2", "3"}),
    };
  }

  void apply_open_options(const GivenOptions& given, OpenOptions& options) const override {
    ZarrOpenOptions own = options.formats.get<ZarrOpenOptions>();
    for (const auto& [name, slot] : {std::pair{"--http-timeout", &own.http_timeout},
                                     {"--http-deadline", &own.http_deadline}}) {
      const std::string text = given_value(given, name);
      if (text.empty()) continue;
      char* end = nullptr;
      const double v = std::strtod(text.c_str(), &end);
      if (end == text.c_str() || *end != '\0' || !(v >= 0) || v > 1e9) {
        throw Error(ErrorCategory::kUsage,
                    fmt::format("{} {}: give a number of seconds (0 for no bound)", name, text));
      }
      *slot = v;
    }
    options.formats.set(std::move(own));
  }

  void apply_save_options(const GivenOptions& given, SaveOptions& options) const override {
    ZarrSaveOptions own = options.formats.get<ZarrSaveOptions>();
    own.compressor = given_value(given, "--compressor", own.compressor);
    if (given.count("--level")) own.level = static_cast<int>(given_unsigned(given, "--level", 0));
    own.chunk_bytes = given_unsigned(given, "--chunk-bytes", own.chunk_bytes);
    if (own.chunk_bytes == 0)
      throw Error(ErrorCategory::kUsage, "--chunk-bytes must be at least 1");
    if (given_flag(given, "--crc32c")) own.checksums = true;
    if (given_flag(given, "--shuffle")) own.shuffle = true;
    if (given_flag(given, "--no-consolidated")) own.consolidated = false;
    own.zarr_format = given_value(given, "--zarr-format", "3") == "2" ? 2 : 3;
    if (own.zarr_format == 2 && own.checksums) {
      throw Error(ErrorCategory::kUsage, "--crc32c is a v3 codec: not with --zarr-format 2");
    }
    const std::string chunks = given_value(given, "--chunks");
    if (!chunks.empty()) own.chunk_shape = parse_shape(chunks, "--chunks");
    const std::string shards = given_value(given, "--shards");
    if (!shards.empty()) own.shard_shape = parse_shape(shards, "--shards");
    if (own.zarr_format == 2 && !own.shard_shape.empty()) {
      throw Error(ErrorCategory::kUsage, "--shards is a v3 codec: not with --zarr-format 2");
    }
    for (const char* o : {"--chunks", "--chunk-bytes", "--shards"}) {
      if (given.count(o)) own.keep_source_chunks = false;
    }
    for (const char* o : {"--compressor", "--level", "--shuffle", "--crc32c"}) {
      if (given.count(o)) own.keep_source_codecs = false;
    }
    options.formats.set(std::move(own));
  }

  bool can_save() const override { return true; }
  SaveReport save(const model::Tree& tree, const std::string& path,
                  const SaveOptions& options) const override {
    return write_zarr(tree, path, options.formats.get<ZarrSaveOptions>(), options);
  }
  bool saves_into_stores() const override { return true; }
  SaveReport save_into_store(const model::Tree& tree, io::Store& store, const std::string& name,
                             const std::string& url, const SaveOptions& options) const override {
    return write_zarr_to_store(tree, store, name, url, options.formats.get<ZarrSaveOptions>(),
                               options);
  }

 private:
  static std::vector<int64_t> parse_shape(const std::string& text, const char* option) {
    std::vector<int64_t> out;
    size_t at = 0;
    while (at <= text.size()) {
      const size_t comma = std::min(text.find(',', at), text.size());
      const std::string part = text.substr(at, comma - at);
      size_t used = 0;
      long long v = 0;
      try {
        v = std::stoll(part, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (part.empty() || used != part.size() || v < 1) {
        throw Error(ErrorCategory::kUsage,
                    fmt::format("{} '{}': '{}' is not a positive integer", option, text, part));
      }
      out.push_back(v);
      at = comma + 1;
    }
    return out;
  }
};

}  // namespace

void register_zarr_format(FormatRegistry& registry) {
  registry.add(std::make_unique<ZarrFormat>());
}

}  // namespace dudley::zarr
