#include "dudley/open.hpp"

#include "dudley/layout/to_model.hpp"

namespace dudley {

model::Tree open(const std::string& path, const OpenOptions& options) {
  // The other formats' modules will be tried here, by signature or extension, before
  // falling back to Dudley (which has no signature of its own to look for in general).
  return layout::open_dudley(path, options.layout, options.bind);
}

}  // namespace dudley
