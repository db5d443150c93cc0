#include "spelled_names.hpp"

#include <cctype>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "dudley/formats/dudley/syntax/layout.hpp"

namespace dudley::layout {

namespace {

std::string respelled(std::string_view name) {
  std::string out;
  out.reserve(name.size() + 1);
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) out += '_';
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    out += (std::isalnum(u) || c == '_') ? c : '_';
  }
  return out;
}

}  // namespace

std::vector<std::string> dudley_spellings(const std::vector<std::string_view>& names) {
  std::vector<std::string> out(names.size());
  std::unordered_set<std::string> taken;
  taken.reserve(names.size() * 2);
  for (size_t i = 0; i < names.size(); ++i) {
    if (is_dudley_name(names[i])) {
      out[i] = std::string(names[i]);
      taken.insert(out[i]);
    }
  }
  // The next suffix to try per respelled base: 100k names that all respell to 'a_' then
  // cost one probe each instead of one per earlier sibling.
  std::unordered_map<std::string, size_t> next_suffix;
  for (size_t i = 0; i < names.size(); ++i) {
    if (!out[i].empty()) continue;
    const std::string base = respelled(names[i]);
    std::string name = base;
    size_t& k = next_suffix.try_emplace(base, 2).first->second;
    while (!taken.insert(name).second) name = fmt::format("{}_{}", base, k++);
    out[i] = std::move(name);
  }
  return out;
}

DType with_dudley_field_names(const DType& type) {
  if (type.kind() != DTypeKind::kCompound) return type;
  std::vector<std::string_view> names;
  for (const DTypeField& f : type.fields()) names.push_back(f.name);
  const std::vector<std::string> spelled = dudley_spellings(names);
  std::vector<DTypeField> fields = type.fields();
  for (size_t i = 0; i < fields.size(); ++i) {
    fields[i].name = spelled[i];
    fields[i].type = std::make_shared<const DType>(with_dudley_field_names(*fields[i].type));
  }
  return DType::compound(std::move(fields), type.size(), type.name());
}

}  // namespace dudley::layout
