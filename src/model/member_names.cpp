#include "dudley/model/member_names.hpp"

#include <fmt/format.h>

#include <utility>

#include "dudley/core/text.hpp"

namespace dudley::model {

std::optional<std::string> name_problem(std::string_view name, NameUse use) {
  if (name.find('\0') != std::string_view::npos) return "holds a NUL character";
  if (use == NameUse::kDocumentKey) return std::nullopt;
  if (name.empty()) return "is empty";
  if (name.find('/') != std::string_view::npos) return "holds a '/', which would make it a path";
  if (use == NameUse::kLinkName) {
    if (name == ".") return "names the group itself";
    return std::nullopt;
  }
  if (name.find_first_not_of('.') == std::string_view::npos)
    return "is made of dots only, which a path reads as this folder or the one above";
  for (const char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7F) return "holds a control character";
  }
  return std::nullopt;
}

MemberNames::MemberNames(NameUse use, Rule extra, Spelling spelled)
    : use_(use), extra_(std::move(extra)), spelled_(std::move(spelled)) {}

std::optional<std::string> MemberNames::refuse(std::string_view name) {
  std::optional<std::string> problem = name_problem(name, use_);
  if (!problem && extra_) problem = extra_(name);
  if (problem) return fmt::format("member {}: its name {}", quoted_name(name), *problem);
  std::string key = spelled_ ? spelled_(name) : std::string(name);
  if (!taken_.insert(std::move(key)).second) {
    return fmt::format("member {}: a second member of that name{}", quoted_name(name),
                       spelled_ && spelled_(name) != name ? " (as this format spells it)" : "");
  }
  return std::nullopt;
}

std::string quoted_name(std::string_view name) {
  // A name of thousands of bytes says what it is by its start and its length.
  constexpr size_t kShown = 200;
  if (name.size() > kShown + 40) {
    size_t cut = kShown;
    while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;
    return quoted_name(name.substr(0, cut)) + fmt::format("... ({} bytes)", name.size());
  }
  return "'" + escape_text(name, '\'') + "'";
}

}  // namespace dudley::model
