#include "dudley/open.hpp"

#include "dudley/core/error.hpp"
#include "dudley/formats/dudley/write/from_model.hpp"
#include "dudley/formats/dudley/bind/to_model.hpp"

namespace dudley {

model::Tree open(const std::string& path, const OpenOptions& options) {
  // The other formats' modules will be tried here, by signature or extension, before
  // falling back to Dudley (which has no signature of its own to look for in general).
  return layout::open_dudley(path, options.layout, options.bind);
}

uint64_t save(const model::Tree& tree, const std::string& path, const SaveOptions& options) {
  if (options.format != "dudley") {
    throw Error(ErrorCategory::kUsage,
                "cannot write format '" + options.format + "' (this build writes: dudley)");
  }
  return layout::write_tree(tree, path, options.write);
}

}  // namespace dudley
