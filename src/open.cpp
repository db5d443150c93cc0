#include "dudley/open.hpp"

namespace dudley {

model::Tree open(const std::string& path, const OpenOptions& options) {
  return FormatRegistry::builtin().for_reading(path, options.format).open(path, options);
}

SaveReport save(const model::Tree& tree, const std::string& path, const SaveOptions& options) {
  return FormatRegistry::builtin().for_writing(path, options.format).save(tree, path, options);
}

}  // namespace dudley
