#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "dudley/model/tree.hpp"
#include "dudley/model/value_json.hpp"

namespace dudley::model {

struct ReferenceTable::State {
  mutable std::mutex mutex;
  std::vector<Value> targets;                      // key - 1 -> target
  std::unordered_map<std::string, uint64_t> keys;  // target as CBOR bytes -> key
};

ReferenceTable::ReferenceTable() : state_(std::make_unique<State>()) {}
ReferenceTable::~ReferenceTable() = default;

uint64_t ReferenceTable::add(Value target) {
  if (target.is_null()) return 0;
  // Keyed by the target's CBOR bytes, not its JSON text: a path in a file may hold bytes
  // that are not UTF-8, which JSON text cannot carry (dump() throws) and CBOR can.
  const std::vector<uint8_t> cbor = nlohmann::ordered_json::to_cbor(to_json(target));
  std::string text(cbor.begin(), cbor.end());
  std::lock_guard lock(state_->mutex);
  auto [it, fresh] = state_->keys.try_emplace(std::move(text), state_->targets.size() + 1);
  if (fresh) state_->targets.push_back(std::move(target));
  return it->second;
}

Value ReferenceTable::find(uint64_t key) const {
  std::lock_guard lock(state_->mutex);
  if (key == 0 || key > state_->targets.size()) return {};
  return state_->targets[key - 1];
}

size_t ReferenceTable::size() const {
  std::lock_guard lock(state_->mutex);
  return state_->targets.size();
}

}  // namespace dudley::model
