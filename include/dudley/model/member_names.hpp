// Member names as an output writes them. A name read from a file is data: written into a
// directory store it would otherwise become a path ("../../x", "/abs"), and two members of
// one name would leave one of them unreachable or make a document that no reader takes
// (duplicate keys). Every writer checks its members' names here before they become keys,
// paths, link names or document keys, and leaves out (a named loss) what it cannot write.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>

namespace dudley::model {

/// Where an output puts a member's name, which sets what the name may hold.
enum class NameUse {
  /// A key of a store, and so a path component of a directory (Zarr, S3): not empty, not
  /// made of dots only ("." and ".." climb), without '/', NUL or other control characters.
  kKey,
  /// An HDF5 link name: not empty, not ".", without '/' (which would make it a path).
  kLinkName,
  /// A key of a text document's mapping (ASDF's YAML, NDL): any text but NUL, which YAML
  /// cannot hold.
  kDocumentKey,
};

/// Why `name` cannot be a member's name where `use` puts it, as a phrase ("'..' climbs out
/// of its group", "holds a '/'"); nullopt when it can.
std::optional<std::string> name_problem(std::string_view name, NameUse use);

/// The members of one group as an output names them: each name is checked by name_problem,
/// then by the format's own rule (`extra`: Zarr v3's reserved "__" names, say), then against
/// the names taken before it in the group, compared as `spelled` makes them (identity when
/// unset: a format that respells names finds its duplicates after respelling).
class MemberNames {
 public:
  using Rule = std::function<std::optional<std::string>(std::string_view)>;
  using Spelling = std::function<std::string(std::string_view)>;

  explicit MemberNames(NameUse use, Rule extra = {}, Spelling spelled = {});

  /// nullopt when a member named `name` may be written (its name is then taken); else why
  /// not, a phrase for a loss line ("member 'x': a second member of that name").
  std::optional<std::string> refuse(std::string_view name);

 private:
  NameUse use_;
  Rule extra_;
  Spelling spelled_;
  std::unordered_set<std::string> taken_;
};

/// `name` in single quotes for a message, each control character, quote, backslash and byte
/// that is not UTF-8 escaped ("\n", "\x1b"): a name from a file never moves a terminal's
/// cursor nor ends a line of a report.
std::string quoted_name(std::string_view name);

}  // namespace dudley::model
