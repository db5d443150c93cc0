#include "dudley/formats/avro.hpp"

#include <cstring>

#include "container.hpp"
#include "reader.hpp"

namespace dudley::avro {
namespace {

class AvroFormat final : public BasicFormat {
 public:
  AvroFormat()
      : BasicFormat("avro",
                    "Avro Object Container Files of records (YEP-113 ndarray records are arrays)",
                    {".avro"}) {}

  bool sniff(const std::string&, std::span<const std::byte> head) const override {
    return head.size() >= 4 && std::memcmp(head.data(), kMagic, 4) == 0;
  }

  model::Tree open(const std::string& path, const OpenOptions& options) const override {
    return open_avro(path, options.formats.get<AvroOpenOptions>(), options);
  }

  std::vector<FormatOption> cli_options() const override {
    using Kind = FormatOption::Kind;
    return {
        // Shared with ASDF (the CLI shows it once; each format reads the value given).
        FormatOption::reading(Kind::kUnsigned, "--max-block-size",
                              "Largest block to decompress, in bytes (Avro: default 268435456)"),
        FormatOption::writing(Kind::kValue, "--avro-codec",
                              "Compress each block of records with this (default null)")
            .allowing(container_codecs()),
        FormatOption::writing(Kind::kValue, "--avro-schema",
                              "Write records of this schema (a JSON file): a list's items, or "
                              "the whole tree as one record (default: the source's own schema, "
                              "else one ndarray record per array)")
            .naming_a_file(),
        FormatOption::writing(Kind::kUnsigned, "--block-bytes",
                              "Bytes of records per block (default 1048576)"),
    };
  }

  void apply_open_options(const GivenOptions& given, OpenOptions& options) const override {
    AvroOpenOptions own = options.formats.get<AvroOpenOptions>();
    own.max_block_bytes = given_unsigned(given, "--max-block-size", own.max_block_bytes);
    if (own.max_block_bytes == 0)
      throw Error(ErrorCategory::kUsage, "--max-block-size must be at least 1");
    options.formats.set(std::move(own));
  }

  void apply_save_options(const GivenOptions& given, SaveOptions& options) const override {
    AvroSaveOptions own = options.formats.get<AvroSaveOptions>();
    own.codec = given_value(given, "--avro-codec", own.codec);
    own.schema_path = given_value(given, "--avro-schema", own.schema_path);
    own.block_bytes = given_unsigned(given, "--block-bytes", own.block_bytes);
    if (own.block_bytes == 0)
      throw Error(ErrorCategory::kUsage, "--block-bytes must be at least 1");
    options.formats.set(std::move(own));
  }

  bool can_save() const override { return true; }
  SaveReport save(const model::Tree& tree, const std::string& path,
                  const SaveOptions& options) const override {
    return write_avro(tree, path, options.formats.get<AvroSaveOptions>(), options);
  }
};

}  // namespace

void register_avro_format(FormatRegistry& registry) {
  registry.add(std::make_unique<AvroFormat>());
}

}  // namespace dudley::avro
