// The viewer's transport, loaded from dudley-view.so the first time `dudley view` serves.
#include <mutex>

#include "view/transport.hpp"

namespace dudley::view {

const Transport& transport() {
  static std::mutex mutex;
  static const Transport* loaded = nullptr;
  const std::lock_guard lock(mutex);
  if (loaded == nullptr) {
    loaded = static_cast<const Transport*>(
        load_module("dudley-view.so", kTransportEntry, DUDLEY_BUILD_TAG, "viewer"));
  }
  return *loaded;
}

}  // namespace dudley::view
