#include "dudley/model/value_json.hpp"

#include <cmath>
#include <string>
#include <unordered_set>

#include "dudley/core/text.hpp"

namespace dudley::model {
namespace {

// nlohmann's ordered_json finds a member by linear search, so filling an object of n
// members with operator[] costs n^2/2 string comparisons (100,000 ASDF keys took 14 s).
// Members are appended instead; the names seen are remembered (hashed, once there are
// enough to matter) so that a repeated name still keeps one member with its last value.
template <typename Json>
class ObjectFiller {
 public:
  explicit ObjectFiller(Json& object) : object_(object) { object_ = Json::object(); }

  void set(const std::string& name, Json value) {
    if constexpr (std::is_same_v<Json, nlohmann::ordered_json>) {
      auto& members = object_.template get_ref<typename Json::object_t&>();
      if (members.size() >= kLinearSearchBelow) {
        if (seen_.empty()) {
          for (const auto& member : members) seen_.insert(member.first);
        }
        if (seen_.insert(name).second) {
          members.emplace_back(name, std::move(value));  // the vector's append: no search
          return;
        }
      }
    }
    object_[name] = std::move(value);  // a sorted map (nlohmann::json) finds it in log n
  }

 private:
  static constexpr size_t kLinearSearchBelow = 16;
  Json& object_;
  std::unordered_set<std::string> seen_;
};

template <typename Json>
Json value_to(const Value& value) {
  Json out = std::visit(
      [](const auto& v) -> Json {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return nullptr;
        } else if constexpr (std::is_same_v<T, double>) {
          if (std::isnan(v)) return "NaN";
          if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
          return v;
        } else if constexpr (std::is_same_v<T, ValueBytes>) {
          Json bytes = Json::object();
          bytes["base64"] = encode_base64(v);
          return bytes;
        } else if constexpr (std::is_same_v<T, ValueList>) {
          Json list = Json::array();
          for (const auto& item : v) list.push_back(value_to<Json>(item));
          return list;
        } else if constexpr (std::is_same_v<T, ValueMap>) {
          Json map;
          ObjectFiller<Json> fill(map);
          for (const auto& [k, item] : v) fill.set(k, value_to<Json>(item));
          return map;
        } else {
          return v;
        }
      },
      value.storage());
  if (value.tag().empty()) return out;
  Json tagged = Json::object();
  tagged["tag"] = value.tag();
  tagged["value"] = std::move(out);
  return tagged;
}

template <typename Json>
Value value_from(const Json& json) {
  switch (json.type()) {
    case nlohmann::json::value_t::null:
    case nlohmann::json::value_t::discarded:
      return {};
    case nlohmann::json::value_t::boolean:
      return json.template get<bool>();
    case nlohmann::json::value_t::number_integer:
      return json.template get<int64_t>();
    case nlohmann::json::value_t::number_unsigned: {
      const auto u = json.template get<uint64_t>();
      if (u <= static_cast<uint64_t>(INT64_MAX)) return static_cast<int64_t>(u);
      return u;
    }
    case nlohmann::json::value_t::number_float:
      return json.template get<double>();
    case nlohmann::json::value_t::string:
      return json.template get<std::string>();
    case nlohmann::json::value_t::binary: {
      const auto& b = json.get_binary();
      return ValueBytes(b.begin(), b.end());
    }
    case nlohmann::json::value_t::array: {
      ValueList list;
      list.reserve(json.size());
      for (const auto& item : json) list.push_back(value_from(item));
      return list;
    }
    case nlohmann::json::value_t::object: {
      ValueMap map;
      map.reserve(json.size());
      for (auto it = json.begin(); it != json.end(); ++it) {
        map.emplace_back(it.key(), value_from(it.value()));
      }
      return map;
    }
  }
  return {};
}

}  // namespace

nlohmann::ordered_json to_json(const Value& value) {
  return value_to<nlohmann::ordered_json>(value);
}

nlohmann::json to_plain_json(const Value& value) {
  return value_to<nlohmann::json>(value);
}

Value from_json(const nlohmann::ordered_json& json) {
  return value_from(json);
}

Value from_json(const nlohmann::json& json) {
  return value_from(json);
}

}  // namespace dudley::model
