// The layout model: what a parsed Dudley layout says, with every item's source position.
//
// Storage is table-based for speed and compactness (a 100,000-declaration layout is parsed
// in milliseconds): nodes, parameters, types and pointees live in vectors and refer to each
// other by 32-bit ids; shapes stay symbolic (Dim refers to a parameter declaration) until
// the binder evaluates them against data. `statements` keeps every declaration in file
// order, which is what the address cursor follows; the group tree keeps member order.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "dudley/core/dtype.hpp"
#include "dudley/layout/syntax/attribute_text.hpp"
#include "dudley/layout/syntax/names.hpp"

namespace dudley::layout {

using NodeId = uint32_t;
using ParamId = uint32_t;
using TypeId = uint32_t;
using DocId = uint32_t;  ///< 0 means "no document comment".

/// In Layout::bindings of a struct member: the entry does not name a parameter but the
/// enclosing struct's free name number (entry & ~kOuterBinding), resolved where that struct
/// is instantiated [C17].
inline constexpr ParamId kOuterBinding = 0x80000000u;

/// A position in the layout text. Model equality ignores positions: two layouts that say
/// the same thing are equal wherever their text put it.
struct TextPos {
  uint32_t line = 0;    ///< 1-based.
  uint32_t column = 0;  ///< 1-based, in bytes.
  uint64_t offset = 0;  ///< Byte offset of the item's first character.
  friend bool operator==(const TextPos&, const TextPos&) { return true; }
};

/// The predefined primitive types [C2], plus the b1 extension.
enum class Primitive : uint8_t {
  i1,
  i2,
  i4,
  i8,
  u1,
  u2,
  u4,
  u8,
  f2,
  f4,
  f8,
  c4,
  c8,
  c16,
  S1,
  U1,
  U2,
  U4,
  p4,
  p8,
  b1
};
inline constexpr int kPrimitiveCount = 21;

/// "i4", "c16", ...
std::string_view primitive_name(Primitive p);
/// The primitive spelled `name`, if any.
std::optional<Primitive> primitive_from_name(std::string_view name);
/// True for a name a declaration may use: a letter or '_', then letters, digits and '_'.
/// The language has no reserved words, so `i4 = <u2` declares data named i4 [C1].
bool is_dudley_name(std::string_view name);
/// True for a name a new type may take: a Dudley name that is not a primitive's (defining
/// `i4 := {...}` would change what every later bare `i4` means).
bool is_type_name(std::string_view name);
/// The primitive whose values are elements of `type` (one code unit for text); nullopt
/// when Dudley has none (compounds, enums, 16-byte integers...).
std::optional<Primitive> primitive_for(const DType& type);
/// Bytes in one value of the primitive.
unsigned primitive_size(Primitive p);
/// True for S1, U1, U2, U4 (which need a last dimension counting code units).
bool primitive_is_text(Primitive p);
/// True for i*, u* (the only types a dynamic parameter may have).
bool primitive_is_integer(Primitive p);
/// The core DType of a primitive in the given order (kUnspecified for '|' on multi-byte).
DType primitive_dtype(Primitive p, ByteOrder order);

/// A use of a type: a primitive with an order prefix, or a user-defined type.
struct TypeRef {
  enum class Kind : uint8_t { kInvalid, kPrimitive, kUser };
  Kind kind = Kind::kInvalid;
  Primitive primitive = Primitive::u1;
  /// kLittle '<', kBig '>', kUnspecified for '|' or no prefix (the file's default order).
  ByteOrder order = ByteOrder::kUnspecified;
  TypeId user = kNone;
  friend bool operator==(const TypeRef&, const TypeRef&) = default;
};

/// One dimension of a declared shape [C14].
struct Dim {
  enum class Kind : uint8_t {
    kLiteral,   ///< an integer; a negative one removes the dimension
    kParam,     ///< a parameter declaration in scope where the shape was written
    kFreeName,  ///< a name in a struct member shape resolved where the struct is used [C17]
  };
  Kind kind = Kind::kLiteral;
  int32_t adjust = 0;     ///< net of the '+' / '-' suffixes
  int64_t literal = 0;    ///< kLiteral
  ParamId param = kNone;  ///< kParam
  NameId name = kNone;    ///< kFreeName (and, for kParam, the name as written)
  friend bool operator==(const Dim&, const Dim&) = default;
};

/// A span into one of the layout's shared pools.
struct Span {
  uint32_t begin = 0;
  uint32_t count = 0;
  friend bool operator==(const Span&, const Span&) = default;
};

enum class NodeKind : uint8_t {
  kGroup,   ///< named or anonymous group (a dict)
  kList,    ///< named list or anonymous sublist
  kData,    ///< data variable or anonymous data list item
  kMember,  ///< data member of a struct type (its offset is in `address`)
};

/// A group, list, data variable or struct member.
struct Node {
  NodeKind kind = NodeKind::kData;
  bool has_address = false;  ///< an explicit '@' (data) or '@' offset (member)
  NameId name = kNone;       ///< kNone for anonymous items and typedef members
  NodeId parent = kNone;     ///< containing group or list; kNone for the root and members
  TypeId owner = kNone;      ///< struct type of a member
  uint32_t depth = 0;        ///< nesting depth below the root
  uint32_t index = 0;        ///< position among its parent's children (list items' paths)
  uint32_t child_count = 0;  ///< children linked so far
  NodeId first_child = kNone, last_child = kNone, next_sibling = kNone;
  ParamId first_param = kNone, last_param = kNone;  ///< groups: parameters in order
  TypeRef type;                                     ///< data and members
  Span dims;                                        ///< into Layout::dims
  Span bindings;  ///< into Layout::bindings: parameters for the type's free names, in order
  uint64_t address = 0;
  DocId doc = 0;
  Span attributes;  ///< into Layout::attributes: its `#@` attributes, in text order
  TextPos pos;
  friend bool operator==(const Node&, const Node&) = default;
};

enum class ParamKind : uint8_t {
  kFixed,    ///< `N := 5`: a value in the layout, no file space
  kDynamic,  ///< `N := i4 @ a`: read from the file
};

/// A parameter of a group, struct or parameter block.
struct Param {
  ParamKind kind = ParamKind::kFixed;
  bool has_address = false;
  NameId name = kNone;
  NodeId group = kNone;  ///< declaring group; kNone inside a type
  TypeId owner = kNone;  ///< declaring struct or parameter block
  ParamId next_in_group = kNone;
  TypeRef type;          ///< kDynamic
  int64_t value = 0;     ///< kFixed
  uint64_t address = 0;  ///< kDynamic with has_address: address, or offset inside a type
  DocId doc = 0;
  Span attributes;  ///< into Layout::attributes: its `#@` attributes, in text order
  TextPos pos;
  friend bool operator==(const Param&, const Param&) = default;
};

enum class TypeKind : uint8_t {
  kStruct,      ///< `T := { ... }` with data members (one anonymous member: a typedef)
  kParamBlock,  ///< `PB := { params }[shape] @ address` [C21]
  kHeteroBody,  ///< the member list of `var = PB{ ... }`; anonymous
};

/// One entry of a struct body, in declaration order.
struct StructEntry {
  enum class Kind : uint8_t { kParam, kMember, kCursor };
  Kind kind = Kind::kMember;
  uint32_t index = 0;   ///< ParamId or NodeId
  uint64_t offset = 0;  ///< kCursor: the `!@` offset
  friend bool operator==(const StructEntry&, const StructEntry&) = default;
};

/// A user-defined type.
struct TypeDef {
  TypeKind kind = TypeKind::kStruct;
  bool has_shape = false;    ///< parameter blocks: an explicit [shape]
  bool has_address = false;  ///< parameter blocks: an explicit @ address
  bool has_dynamic_params = false;
  NameId name = kNone;
  TypeId block = kNone;  ///< kHeteroBody: its parameter block
  NodeId scope = kNone;  ///< group the definition stands in (its shape's scope)
  std::vector<StructEntry> body;
  std::vector<NameId> free_names;  ///< shape names not declared in the type itself [C17]
  Span dims;                       ///< parameter block shape
  uint64_t address = 0;            ///< parameter block address
  DocId doc = 0;
  Span attributes;  ///< into Layout::attributes: its `#@` attributes, in text order
  TextPos pos;

  /// True when the struct is a typedef: a single anonymous member [C18].
  bool is_typedef(const Table<Node>& nodes) const;
  friend bool operator==(const TypeDef&, const TypeDef&) = default;
};

/// `KEY = type[shape] @ address`: the target of pointers holding KEY [C19].
struct Pointee {
  bool has_address = false;
  uint64_t key = 0;
  TypeRef type;
  Span dims;
  uint64_t address = 0;
  DocId doc = 0;
  Span attributes;  ///< into Layout::attributes: its `#@` attributes, in text order
  TextPos pos;
  friend bool operator==(const Pointee&, const Pointee&) = default;
};

/// `!DUDLEY := S1[8] @ address` [C20].
struct Signature {
  bool has_address = false;
  uint64_t address = 0;
  TextPos pos;
  friend bool operator==(const Signature&, const Signature&) = default;
};

/// A `#@` attribute as the text gives it (docs/layout-language.md, "Attributes"): its
/// value is read when asked (Layout::read_attribute), so that a layout's readers pay for
/// the attributes they use, not for every one on each parse.
struct AttributeSource {
  uint32_t begin = 0;  ///< into Layout::attribute_text: the text after `#@`, trimmed
  uint32_t size = 0;
  TextPos pos;  ///< line and column where the text begins; offset of its `#@`
};

/// One declaration in file order.
struct Statement {
  enum class Kind : uint8_t {
    kSignature,  ///< index unused
    kCursor,     ///< `!@`: index into Layout::cursors
    kParam,      ///< index: ParamId (group parameters only)
    kType,       ///< index: TypeId (named types; parameter blocks occupy file space here)
    kGroup,      ///< a group is created: index NodeId (named or anonymous list item)
    kList,       ///< a list is created: index NodeId (named, or sublist item)
    kData,       ///< index NodeId (data variable or data list item)
    kPointee,    ///< index into Layout::pointees
  };
  Kind kind = Kind::kData;
  NodeId container = 0;  ///< the group or list that was current
  uint32_t index = 0;
  friend bool operator==(const Statement&, const Statement&) = default;
};

/// A parsed layout. Cheap to move; copyable.
class Layout {
 public:
  Layout();

  // --- tables (read freely; the parser writes them, and writers extend them by add_node) ---
  NameTable names;
  Table<Node> nodes;  ///< nodes[0] is the root group
  std::vector<Param> params;
  std::vector<TypeDef> types;
  std::vector<Pointee> pointees;
  Table<Dim> dims;
  std::vector<ParamId> bindings;
  std::string doc_text;    ///< every document comment, back to back
  std::vector<Span> docs;  ///< DocId -> its text in doc_text; docs[0] is "no doc"
  /// Every `#@` attribute; items refer to theirs by a Span (nodes[0]'s are the file's).
  std::vector<AttributeSource> attributes;
  std::string attribute_text;  ///< every attribute's text, back to back
  /// The file the text was read from ("" when given directly): what a mistake found later
  /// (an attribute's value read when it is bound) names.
  std::string source_name;
  std::vector<uint64_t> cursors;
  Table<Statement> statements;
  std::optional<Signature> signature;
  bool template_directive = false;  ///< `!TEMPLATE` appeared

  static constexpr NodeId kRoot = 0;

  /// Text of an interned name ("" for kNone).
  std::string_view name(NameId id) const;
  /// Document comment text ("" when none); lines are joined with '\n'.
  std::string_view doc(DocId id) const {
    return std::string_view(doc_text).substr(docs[id].begin, docs[id].count);
  }
  /// Adds `line` to the doc of `*slot` (creating it when *slot is 0) [C24].
  void append_doc(DocId* slot, std::string_view line);
  /// Appends the attribute of text `text` (after the `#@`) at `pos` to the table (the
  /// parser then gives each item its Span of it).
  void append_attribute(std::string_view text, TextPos pos);
  /// The attributes a Span of an item holds.
  std::span<const AttributeSource> attributes_of(Span span) const {
    return {attributes.data() + span.begin, span.count};
  }
  /// An attribute's text (after the `#@`).
  std::string_view attribute_source(const AttributeSource& a) const {
    return std::string_view(attribute_text).substr(a.begin, a.size);
  }
  /// Reads an attribute's name and value (parse_attribute); false, with `error` (its offset
  /// counted in the attribute's text), when the text is no attribute.
  bool read_attribute(const AttributeSource& a, ParsedAttribute& out,
                      AttributeTextError& error) const;
  std::span<const Dim> dims_of(Span span) const { return {dims.data() + span.begin, span.count}; }
  std::span<const ParamId> bindings_of(Span s) const {
    return {bindings.data() + s.begin, s.count};
  }

  /// Appends `node` and links it as the last child of node.parent (when it has one);
  /// returns its id. For the parser, and for writers extending a layout (list appends).
  NodeId add_node(const Node& node);
  /// Members of a group or items of a list, in declaration order.
  std::vector<NodeId> children(NodeId container) const;
  /// Parameters of a group in declaration order.
  std::vector<ParamId> group_params(NodeId group) const;
  /// Full path: "/" for the root, "/g/x", list items by index "/L/2".
  std::string path(NodeId node) const;
  /// The node at a path ("/g/sub/x", "/L/0/name"); kNone when there is none.
  NodeId find(std::string_view path) const;
  /// The user type named `name`; kNone when undefined.
  TypeId find_type(std::string_view name) const;
  /// Printable type use: "<i4", "f8", "|i4" (when a user type shadows the primitive), "Vec".
  std::string type_text(const TypeRef& ref) const;

  /// Approximate bytes of memory the model holds (for the performance budget).
  size_t memory_bytes() const;

  /// Same meaning: equal tables, names and docs; source positions are ignored.
  friend bool operator==(const Layout& a, const Layout& b);
};

}  // namespace dudley::layout
