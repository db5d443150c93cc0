#include "dudley/model/value.hpp"

namespace dudley::model {

const Value* Value::find(std::string_view key) const {
  if (!is<ValueMap>()) return nullptr;
  for (const auto& [k, v] : as<ValueMap>()) {
    if (k == key) return &v;
  }
  return nullptr;
}

bool operator==(const Value& a, const Value& b) {
  return a.tag_ == b.tag_ && a.v_ == b.v_;
}

void Attributes::set(std::string name, AttributeValue value) {
  for (auto& [k, v] : items_) {
    if (k == name) {
      v = std::move(value);
      return;
    }
  }
  items_.emplace_back(std::move(name), std::move(value));
}

const AttributeValue* Attributes::find(std::string_view name) const {
  for (const auto& [k, v] : items_) {
    if (k == name) return &v;
  }
  return nullptr;
}

}  // namespace dudley::model
