#include "cli/output_file.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "dudley/core/error.hpp"
#include "dudley/core/file_io.hpp"
#include "dudley/format.hpp"
#include "dudley/layout/syntax/parser.hpp"

namespace dudley::cli {
void check_output_file(const std::string& path, const OutputKind& what,
                       const std::vector<std::string>& inputs, bool overwrite) {
  for (const std::string& in : inputs) {
    if (same_file(path, in)) {
      throw Error(ErrorCategory::kUsage,
                  fmt::format("is an input of this command ({}): choose another name", in),
                  Location::file(path));
    }
  }
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (overwrite || ec || !std::filesystem::exists(status)) return;
  // A directory or a device the writers refuse themselves, naming it.
  if (!std::filesystem::is_regular_file(status)) return;
  const std::vector<std::byte> head = read_head(path);
  if (what.is_kind(path, {reinterpret_cast<const char*>(head.data()), head.size()})) return;
  throw Error(ErrorCategory::kUsage,
              fmt::format("exists and is not {}; this command would replace it (give "
                          "--overwrite to replace it, or choose another name)",
                          what.kind),
              Location::file(path));
}

std::vector<std::string> input_files(const DataOptions& options, const model::Tree* tree,
                                     const OpenOptions* open) {
  std::vector<std::string> inputs{options.data};
  OpenOptions plain;
  plain.format = options.format;
  const OpenOptions& open_options = open ? *open : plain;
  try {
    const Format& format = FormatRegistry::builtin().for_reading(options.data, open_options.format);
    for (std::string& f : format.inputs_besides(options.data, open_options))
      inputs.push_back(std::move(f));
  } catch (const Error&) {
    // Opened already: a format that cannot be found again names nothing more.
  }
  if (tree) inputs.insert(inputs.end(), tree->companions.begin(), tree->companions.end());
  return inputs;
}

OutputKind png_output() {
  return {"a PNG picture", [](const std::string&, std::string_view head) {
            return head.substr(0, 8) == std::string_view("\x89PNG\r\n\x1a\n", 8);
          }};
}

OutputKind ndl_output() {
  return {"an NDL description", [](const std::string& path, std::string_view head) {
            const Format* ndl = FormatRegistry::builtin().find("ndl");
            return ndl && ndl->is_own_file(path, std::as_bytes(std::span(head)));
          }};
}

OutputKind layout_output() {
  return {"a Dudley layout", [](const std::string& path, std::string_view head) {
            if (head.find('\0') != std::string_view::npos) return false;
            try {
              (void)layout::load_layout(path);
              return true;
            } catch (const std::exception&) {
              return false;
            }
          }};
}

}  // namespace dudley::cli
