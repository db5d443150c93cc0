#include "dudley/model/value.hpp"

#include <algorithm>

#include "dudley/core/error.hpp"
#include "dudley/core/text.hpp"

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

bool value_is_utf8(const Value& value) {
  if (!is_utf8(value.tag())) return false;
  // Values nest at most kMaxValueDepth deep (readers refuse deeper ones): bounded recursion.
  if (value.is<std::string>()) return is_utf8(value.as<std::string>());
  if (value.is<ValueList>()) {
    const ValueList& list = value.as<ValueList>();
    return std::all_of(list.begin(), list.end(), [](const Value& v) { return value_is_utf8(v); });
  }
  if (value.is<ValueMap>()) {
    const ValueMap& map = value.as<ValueMap>();
    return std::all_of(map.begin(), map.end(), [](const auto& entry) {
      return is_utf8(entry.first) && value_is_utf8(entry.second);
    });
  }
  return true;
}

void Attributes::set(std::string name, AttributeValue value) {
  if (!text_types_.empty()) {
    std::erase_if(text_types_, [&](const auto& entry) { return entry.first == name; });
  }
  if (!index_.empty()) {
    auto [it, fresh] = index_.emplace(name, items_.size());
    if (!fresh) {
      items_[it->second].second = std::move(value);
      return;
    }
    items_.emplace_back(std::move(name), std::move(value));
    return;
  }
  for (auto& [k, v] : items_) {
    if (k == name) {
      v = std::move(value);
      return;
    }
  }
  items_.emplace_back(std::move(name), std::move(value));
  if (items_.size() >= kIndexFrom) {
    index_.reserve(items_.size() * 2);
    for (size_t i = 0; i < items_.size(); ++i) index_.emplace(items_[i].first, i);
  }
}

void Attributes::set_text(std::string name, std::string text, DType stored) {
  set(name, Value(std::move(text)));
  text_types_.emplace_back(std::move(name), std::move(stored));
}

const DType* Attributes::stored_text_type(std::string_view name) const {
  for (const auto& [k, type] : text_types_) {
    if (k == name) return &type;
  }
  return nullptr;
}

void Attributes::erase(std::string_view name) {
  std::erase_if(text_types_, [&](const auto& entry) { return entry.first == name; });
  const auto it = std::find_if(items_.begin(), items_.end(),
                               [&](const auto& item) { return item.first == name; });
  if (it == items_.end()) return;
  items_.erase(it);
  if (index_.empty()) return;
  index_.clear();  // positions after it moved: indexed again
  for (size_t i = 0; i < items_.size(); ++i) index_.emplace(items_[i].first, i);
}

const AttributeValue* Attributes::find(std::string_view name) const {
  if (!index_.empty()) {
    auto it = index_.find(std::string(name));
    return it == index_.end() ? nullptr : &items_[it->second].second;
  }
  for (const auto& [k, v] : items_) {
    if (k == name) return &v;
  }
  return nullptr;
}

bool well_known::is_bookkeeping(const std::string& format, const std::string& name) {
  if (format == "asdf") return name == "asdf_library" || name == "history";
  if (format == "avro") return name == "avro.schema" || name == "avro.codec";
  if (format == "hdf5") return name == "_NCProperties";
  return false;
}

bool well_known::is_model_attribute(const std::string& name) {
  return name == kDimensionNames || name == kDimensionCoordinates || name == kFillValue;
}

namespace {
constexpr std::string_view kEmptyTag = "dudley:empty:";
}  // namespace

Value well_known::empty_value(const DType& type) {
  std::string typestr;
  try {
    typestr = type.typestr();
  } catch (const Error&) {
    typestr = type.to_string();  // no numpy spelling: kept for reading, not parsed back
  }
  return Value(nullptr).with_tag(std::string(kEmptyTag) + typestr);
}

std::optional<DType> well_known::empty_type(const Value& value) {
  if (!value.is_null() || !value.tag().starts_with(kEmptyTag)) return std::nullopt;
  try {
    return DType::from_typestr(std::string_view(value.tag()).substr(kEmptyTag.size()));
  } catch (const Error&) {
    return std::nullopt;
  }
}

}  // namespace dudley::model
