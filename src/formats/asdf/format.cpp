// The ASDF format's registration: its signature, its command-line options, and open/save
// through the module's reader and writer.
#include "dudley/formats/asdf.hpp"

#include "reader.hpp"

namespace dudley::asdf {
namespace {

using Kind = FormatOption::Kind;

class AsdfFormat final : public BasicFormat {
 public:
  AsdfFormat()
      : BasicFormat("asdf", "ASDF: a YAML tree with binary blocks (core/ndarray 1.0.0 and 1.1.0)",
                    {".asdf"}) {}

  bool sniff(const std::string&, std::span<const std::byte> head) const override {
    return has_asdf_signature(head);
  }
  model::Tree open(const std::string& path, const OpenOptions& options) const override {
    return open_asdf(path, options.formats.get<AsdfOpenOptions>(), options);
  }

  std::vector<FormatOption> cli_options() const override {
    return {
        FormatOption::reading(Kind::kFlag, "--no-checksums",
                              "Do not verify the blocks' MD5 checksums"),
        FormatOption::reading(Kind::kFlag, "--allow-external-outside",
                              "Let array sources name files outside the ASDF file's directory"),
        FormatOption::reading(
            Kind::kUnsigned, "--max-block-size",
            "Largest block to decompress, in bytes (ASDF: default physical memory; Avro: "
            "default 268435456)"),
        FormatOption::writing(Kind::kValue, "--compression", "Compress every block")
            .allowing({"zlib", "bzp2", "lz4"}),
        FormatOption::writing(
            Kind::kUnsigned, "--inline-max",
            "Write arrays of at most this many elements inline in the tree (default 0: none)"),
        FormatOption::writing(
            Kind::kFlag, "--without-checksums",
            "Store no MD5 per block (faster; readers then cannot check the data)"),
    };
  }

  void apply_open_options(const GivenOptions& given, OpenOptions& options) const override {
    AsdfOpenOptions own = options.formats.get<AsdfOpenOptions>();
    if (given_flag(given, "--no-checksums")) own.verify_checksums = false;
    if (given_flag(given, "--allow-external-outside")) own.allow_external_outside = true;
    own.max_block_bytes = given_unsigned(given, "--max-block-size", own.max_block_bytes);
    options.formats.set(std::move(own));
  }

  void apply_save_options(const GivenOptions& given, SaveOptions& options) const override {
    AsdfSaveOptions own = options.formats.get<AsdfSaveOptions>();
    own.compression = given_value(given, "--compression", own.compression);
    own.inline_threshold = given_unsigned(given, "--inline-max", own.inline_threshold);
    if (given_flag(given, "--without-checksums")) own.checksums = false;
    options.formats.set(std::move(own));
  }

  bool can_save() const override { return true; }
  SaveReport save(const model::Tree& tree, const std::string& path,
                  const SaveOptions& options) const override {
    return write_asdf(tree, path, options.formats.get<AsdfSaveOptions>(), options);
  }
};

}  // namespace

void register_asdf_format(FormatRegistry& registry) {
  registry.add(std::make_unique<AsdfFormat>());
}

}  // namespace dudley::asdf
