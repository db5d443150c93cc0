// The YAML of an ASDF tree, read with libyaml's event parser (YAML 1.1, as ASDF requires)
// into a small node tree that keeps each node's tag and position, and turned into model
// values by YAML 1.1's rules for plain scalars (the rules PyYAML, the reference library's
// loader, follows).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "dudley/core/error.hpp"
#include "dudley/model/value.hpp"

namespace dudley::yaml {

struct YamlNode;
/// A node of a parsed document. Nodes are shared: an alias is the node its anchor names, not
/// a copy, so a document's memory follows its text however often it repeats an anchor.
/// Valid while the YamlDocument that made it lives.
using YamlRef = const YamlNode*;

/// One node. Its tag, text and items live in the document's arena: a tree of 10^5 nodes is
/// a few large allocations, not 10^5 small ones (which, with their page faults, were most of
/// the time spent listing a file of 10,000 arrays).
struct YamlNode {
  enum class Kind : uint8_t { kScalar, kSequence, kMapping };
  Kind kind = Kind::kScalar;
  /// A plain (unquoted) scalar without a tag: its type comes from its text (YAML 1.1).
  bool plain = false;
  /// How many collections deep the node's own content goes, what its aliases hold included
  /// (a scalar 0, `[1]` 1): bounded by model::kMaxValueDepth, so every recursive walk over a
  /// document is bounded whatever its anchors refer to.
  uint16_t height = 0;
  uint32_t line = 0;    ///< 1-based
  uint32_t column = 0;  ///< 1-based
  /// The full tag after %TAG expansion ("tag:stsci.edu:asdf/core/ndarray-1.0.0"); "" none.
  std::string_view tag;
  /// A scalar's text.
  std::string_view text;
  /// A sequence's items; a mapping's keys and values, alternating.
  std::span<const YamlRef> items;

  bool is_scalar() const { return kind == Kind::kScalar; }
  bool is_sequence() const { return kind == Kind::kSequence; }
  bool is_mapping() const { return kind == Kind::kMapping; }
  /// Entries of a mapping.
  size_t map_size() const { return items.size() / 2; }
  /// The value under the scalar key `key` of a mapping (the last, if repeated), or nullptr.
  const YamlNode* find(std::string_view key) const;
};

/// A parsed document: it owns every node, text and tag its root reaches. Move-only.
class YamlDocument {
 public:
  YamlDocument();
  ~YamlDocument();
  YamlDocument(YamlDocument&&) noexcept;
  YamlDocument& operator=(YamlDocument&&) noexcept;

  YamlRef root = nullptr;  ///< nullptr for an empty document
  /// Distinct nodes built (aliases not counted): the measure of the document's size that
  /// bounds how far its aliases may be expanded.
  uint64_t node_count = 0;

  /// The storage behind the nodes (defined with the parser).
  struct Arena;
  std::unique_ptr<Arena> arena;
};

/// Parses one YAML document (a stream holding at most one). `path` names the text in
/// errors; `text` may start with `#` comment lines (an ASDF header). Throws Error(kSyntax)
/// at path:line:col for bad YAML, an alias to an unknown (or enclosing) anchor, non-scalar
/// mapping keys, a key repeated in one mapping, or nesting deeper than model::kMaxValueDepth
/// (counted through aliases: an alias nests what its anchor holds where it stands).
YamlDocument parse_yaml(std::string_view text, const std::string& path);

/// What ExpansionBudget throws (an Error(kLimit)): the document as a whole is refused, not
/// just the array whose walk ran out of budget.
class ExpansionLimitError : public Error {
 public:
  using Error::Error;
};

/// Counts the nodes a walk over a document visits, aliases expanded, and stops the walk
/// when that exceeds what the document's size allows: a "billion laughs" document of a few
/// hundred bytes whose aliases expand to 10^9 nodes is an error, not an hour of work.
/// Without aliases a walk visits each node a few times, far within the factor; the floor
/// lets small documents share anchors freely while bounding what a few hundred bytes can
/// make (200,000 values or 25,000 arrays: tens of MiB, not the 640 MB that a 10^6 floor let
/// 1.2 KB of aliased arrays take).
class ExpansionBudget {
 public:
  /// What one array node made from the tree costs, in nodes: a model array (its type, shape,
  /// storage and data source) takes about eight times the memory of a value.
  static constexpr uint64_t kArrayNodeCost = 8;

  /// Room for `factor` times the document's own nodes, and at least `floor`.
  explicit ExpansionBudget(const YamlDocument& doc, const std::string& path, uint64_t factor = 16,
                           uint64_t floor = 200'000);
  /// Takes one node; ExpansionLimitError at the node's place when the budget is spent.
  void take(const YamlNode& node);
  /// Takes `n` nodes at once (what a walk is about to visit); ExpansionLimitError at `node` when
  /// the budget cannot cover them.
  void take(uint64_t n, const YamlNode& node);

 private:
  uint64_t left_;
  uint64_t total_;
  std::string path_;
};

/// YAML 1.1 tag names.
namespace yaml_tags {
inline constexpr std::string_view kStr = "tag:yaml.org,2002:str";
inline constexpr std::string_view kInt = "tag:yaml.org,2002:int";
inline constexpr std::string_view kFloat = "tag:yaml.org,2002:float";
inline constexpr std::string_view kBool = "tag:yaml.org,2002:bool";
inline constexpr std::string_view kNull = "tag:yaml.org,2002:null";
inline constexpr std::string_view kBinary = "tag:yaml.org,2002:binary";
inline constexpr std::string_view kMap = "tag:yaml.org,2002:map";
inline constexpr std::string_view kSeq = "tag:yaml.org,2002:seq";
}  // namespace yaml_tags

/// A scalar's value: plain scalars by YAML 1.1's rules (null `~`/`null`/empty; bool
/// `yes/no/on/off/true/false` in three cases; int decimal, `0b`, `0x`, leading-0 octal and
/// base 60 `1:20`, with `_`; float with a `.` (`1.0e+10`), `.inf`, `.nan`, base 60), standard
/// tags (`!!str`, `!!int`, `!!float`, `!!bool`, `!!null`, `!!binary`) by theirs; other tags
/// keep the text and the tag. Integers beyond 64 bits stay text tagged `!!int`. Throws
/// Error(kSyntax) at the node for text its explicit standard tag does not allow.
model::Value scalar_value(const YamlNode& node, const std::string& path);

/// A whole node as a value (maps keep their order and tags), aliases expanded within
/// `budget`.
model::Value to_value(const YamlNode& node, const std::string& path, ExpansionBudget& budget);

/// The place of a node, for errors.
Location location_of(const YamlNode& node, const std::string& path);

}  // namespace dudley::yaml
