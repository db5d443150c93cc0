// Recursive-descent parser for Dudley layouts, written without recursion: groups are a
// "current group" pointer, and lists / anonymous groups an explicit frame stack, so hostile
// nesting can neither overflow the C stack nor go unbounded (kMaxNestingDepth).
#include "dudley/layout/syntax/parser.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <fmt/format.h>

#include "dudley/core/error.hpp"
#include "dudley/core/file_io.hpp"
#include "dudley/core/suggest.hpp"
#include "dudley/layout/syntax/diagnostic_format.hpp"
#include "flat_map.hpp"
#include "lexer.hpp"

namespace dudley::layout {

const char* diag_code_name(DiagCode code) {
  switch (code) {
    case DiagCode::kSyntax:
      return "syntax";
    case DiagCode::kUnexpectedEnd:
      return "unexpected-end";
    case DiagCode::kBadCharacter:
      return "bad-character";
    case DiagCode::kInvalidUtf8:
      return "invalid-utf8";
    case DiagCode::kBadAttribute:
      return "bad-attribute";
    case DiagCode::kDuplicateAttribute:
      return "duplicate-attribute";
    case DiagCode::kIntegerOverflow:
      return "integer-overflow";
    case DiagCode::kNestingTooDeep:
      return "nesting-too-deep";
    case DiagCode::kUndefinedParameter:
      return "undefined-parameter";
    case DiagCode::kParameterOutOfScope:
      return "parameter-out-of-scope";
    case DiagCode::kUndefinedType:
      return "undefined-type";
    case DiagCode::kUnknownPrimitive:
      return "unknown-primitive";
    case DiagCode::kDuplicateVariable:
      return "duplicate-variable";
    case DiagCode::kTypeRedefined:
      return "type-redefined";
    case DiagCode::kNameReused:
      return "name-reused";
    case DiagCode::kParameterNotInteger:
      return "parameter-not-integer";
    case DiagCode::kParameterWithShape:
      return "parameter-with-shape";
    case DiagCode::kTextWithoutDimension:
      return "text-without-dimension";
    case DiagCode::kReservedPointeeKey:
      return "reserved-pointee-key";
    case DiagCode::kDuplicatePointeeKey:
      return "duplicate-pointee-key";
    case DiagCode::kPointeeShapeNotLiteral:
      return "pointee-shape-not-literal";
    case DiagCode::kShapeOnDataType:
      return "shape-on-data-type";
    case DiagCode::kNotAParameterBlock:
      return "not-a-parameter-block";
    case DiagCode::kParameterBlockAsData:
      return "parameter-block-as-data";
    case DiagCode::kAnonymousMember:
      return "anonymous-member";
    case DiagCode::kSignature:
      return "signature";
    case DiagCode::kTemplate:
      return "template";
    case DiagCode::kTooManyDimensions:
      return "too-many-dimensions";
    case DiagCode::kSizeOverflow:
      return "size-overflow";
    case DiagCode::kTooManyErrors:
      return "too-many-errors";
  }
  return "unknown";
}

namespace {

struct Abort {};  // thrown after a syntax error or too many errors; caught in parse()

uint64_t key(uint32_t scope, uint32_t name) {
  return (uint64_t{scope} << 32) | name;
}

TextPos pos_of(const Token& t) {
  return {t.line, t.column, t.offset};
}

// Lines in `text`, 16 bytes a step (std::count goes byte by byte here). Each byte lane
// counts its newlines (a match is -1, subtracted) for up to 255 steps, then the lanes are
// summed: a population count per step would be a call into libgcc without -mpopcnt.
size_t line_count(std::string_view text) {
  size_t lines = 1, i = 0;
#if defined(__SSE2__)
  const __m128i newline = _mm_set1_epi8('\n');
  const __m128i zero = _mm_setzero_si128();
  while (i + 16 <= text.size()) {
    __m128i counts = zero;
    for (int step = 0; step < 255 && i + 16 <= text.size(); ++step, i += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i));
      counts = _mm_sub_epi8(counts, _mm_cmpeq_epi8(v, newline));
    }
    const __m128i sums = _mm_sad_epu8(counts, zero);  // two 64-bit lane sums
    lines += static_cast<size_t>(_mm_cvtsi128_si64(sums)) +
             static_cast<size_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums)));
  }
#endif
  for (; i < text.size(); ++i) lines += text[i] == '\n';
  return lines;
}

// How many `#@` the text holds: at most its attributes, and, as most stand on lines of
// their own, about the lines that declare nothing. Counted as lines are, in blocks.
size_t attribute_markers(std::string_view text) {
  size_t markers = 0, i = 1;
#if defined(__SSE2__)
  const __m128i hash = _mm_set1_epi8('#'), at = _mm_set1_epi8('@');
  const __m128i zero = _mm_setzero_si128();
  while (i + 16 <= text.size()) {
    __m128i counts = zero;  // per byte lane, at most 255 blocks at a time
    for (int step = 0; step < 255 && i + 16 <= text.size(); ++step, i += 16) {
      const __m128i before = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i - 1));
      const __m128i here = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i));
      counts = _mm_sub_epi8(counts,
                            _mm_and_si128(_mm_cmpeq_epi8(before, hash), _mm_cmpeq_epi8(here, at)));
    }
    const __m128i sums = _mm_sad_epu8(counts, zero);
    markers += static_cast<size_t>(_mm_cvtsi128_si64(sums)) +
               static_cast<size_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums)));
  }
#endif
  for (; i < text.size(); ++i) markers += text[i - 1] == '#' && text[i] == '@';
  return markers;
}

// The lines that may declare something: all but (about) the attribute lines.
size_t declaration_lines(std::string_view text, size_t markers) {
  const size_t lines = line_count(text);
  return std::max<size_t>(lines - std::min(markers, lines), 1);
}

class Parser {
 public:
  Parser(std::string_view text, const ParseOptions& options)
      : lex_(text),
        options_(options),
        markers_(attribute_markers(text)),
        lines_(declaration_lines(text, markers_)),
        members_(64),
        scope_params_(64) {
    if (options.keep_comments) lex_.keep_comments();
    if (options.check_attributes) lex_.check_attributes();
    // Nearly every declaration takes a line (but for attribute lines), so the line count
    // bounds the tables well:
    // reserving by it avoids the regrowth copies (each touches every page again), and
    // trim_storage() gives back what comment and closing lines did not need.
    layout_.nodes.reserve(lines_ + 1);
    layout_.names.reserve(lines_);
    first_member_.reserve(lines_);
    layout_.statements.reserve(lines_);
    layout_.dims.reserve(lines_ * 2);
    // Attributes: reserved only when the text has some, by a count of their markers.
    if (markers_) {
      layout_.attributes.reserve(markers_);
      attribute_owners_.reserve(markers_);
      // Address space only: the pages its text does not fill are never touched.
      layout_.attribute_text.reserve(text.size());
    }
  }

  ParseResult parse() {
    try {
      advance();
      frames_.push_back({Frame::kRoot, Layout::kRoot, Layout::kRoot, {}});
      while (!done_) {
        if (frames_.back().kind == Frame::kList) {
          list_item();
        } else {
          group_statement();
        }
      }
      attach_docs();
      // Sizes are only worth checking in a layout without other errors: an overflowing
      // literal or an unknown type would only cascade into size errors here.
      if (result_.diagnostics.empty()) check_static_extents(layout_, result_.diagnostics);
      if (layout_.template_directive || options_.force_template_check) {
        check_template_rules(layout_, result_.diagnostics);
      }
    } catch (const Abort&) {
      try {
        attach_docs();
      } catch (const Abort&) {
        // Attaching found one error too many (a duplicate attribute): already said so.
        regroup_attributes();
      }
    }
    std::stable_sort(result_.diagnostics.begin(), result_.diagnostics.end(),
                     [](const Diagnostic& a, const Diagnostic& b) {
                       if (a.code == DiagCode::kTooManyErrors) return false;
                       if (b.code == DiagCode::kTooManyErrors) return true;
                       return a.offset < b.offset;
                     });
    trim_storage();
    if (options_.keep_comments) {
      for (const SourceComment& c : lex_.comments()) {
        result_.source.comments.push_back({c.line, c.own_line, std::string(c.text)});
      }
    }
    result_.layout = std::move(layout_);
    return std::move(result_);
  }

 private:
  struct Frame {
    enum Kind { kRoot, kList, kAnonGroup } kind;
    NodeId node;         // the list or anonymous group
    NodeId saved_group;  // lists: the group to return to after ']'
    TextPos opened;
  };
  struct DocTarget {
    enum Kind { kNode, kParam, kType, kPointee } kind;
    uint32_t index;
  };
  // Name resolution inside a struct body (or a heterogeneous body).
  struct StructScope {
    TypeId self = kNone;
    TypeId block = kNone;  // heterogeneous body: its parameter block
    std::unordered_map<NameId, ParamId> params;
    std::vector<NameId>* free_names = nullptr;
  };

  // ---------- diagnostics ----------

  void report(DiagCode code, TextPos at, std::string message) {
    if (result_.diagnostics.size() >= options_.max_errors) {
      result_.diagnostics.push_back(
          {DiagCode::kTooManyErrors,
           fmt::format("too many errors ({}); stopping here", options_.max_errors), at.line,
           at.column, at.offset});
      throw Abort{};
    }
    result_.diagnostics.push_back({code, std::move(message), at.line, at.column, at.offset});
  }
  [[noreturn]] void fatal(DiagCode code, TextPos at, std::string message) {
    report(code, at, std::move(message));
    throw Abort{};
  }
  [[noreturn]] void unexpected(const std::string& expected) {
    if (tok_.kind == Tok::kEnd) {
      fatal(DiagCode::kUnexpectedEnd, pos_of(tok_),
            fmt::format("unexpected end of file: expected {}", expected));
    }
    fatal(DiagCode::kSyntax, pos_of(tok_),
          fmt::format("expected {}, found {}", expected, token_text(tok_)));
  }
  static std::string token_text(const Token& t) {
    if (t.kind == Tok::kSymbol || t.kind == Tok::kInteger || t.kind == Tok::kPrefixedType) {
      return fmt::format("'{}'", t.text.substr(0, 40));
    }
    return describe(t.kind);
  }

  // ---------- tokens ----------

  void advance() {
    lex_.next_into(tok_);
    if (tok_.kind == Tok::kError) {
      std::string_view code = lex_.error_code();
      DiagCode dc = code == "bad-character"   ? DiagCode::kBadCharacter
                    : code == "invalid-utf8"  ? DiagCode::kInvalidUtf8
                    : code == "bad-attribute" ? DiagCode::kBadAttribute
                                              : DiagCode::kSyntax;
      fatal(dc, pos_of(tok_), lex_.error());
    }
  }
  void expect(Tok kind, const char* what) {
    if (tok_.kind != kind) unexpected(what);
    advance();
  }
  uint64_t integer_value(const Token& t) {
    if (t.overflow) {
      report(DiagCode::kIntegerOverflow, pos_of(t),
             fmt::format("integer '{}' does not fit in 64 bits", t.text.substr(0, 40)));
    }
    return t.value;
  }
  // [+-]? INTEGER as a signed 64-bit value.
  // Reads the token's fields one by one rather than copying tokens: a whole-token copy just
  // after the lexer wrote it field by field stalls store forwarding (this runs per dimension).
  int64_t signed_integer() {
    bool negative = false;
    const TextPos at = pos_of(tok_);  // the sign, or the number when there is none
    if (tok_.kind == Tok::kMinus || tok_.kind == Tok::kPlus) {
      negative = tok_.kind == Tok::kMinus;
      advance();
    }
    if (tok_.kind != Tok::kInteger) unexpected("an integer");
    if (tok_.overflow) (void)integer_value(tok_);  // reports it
    const uint64_t magnitude = tok_.value;
    const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
    if (!tok_.overflow && magnitude > limit) {
      report(DiagCode::kIntegerOverflow, at,
             fmt::format("integer {}{} is outside the signed 64-bit range", negative ? "-" : "",
                         tok_.text.substr(0, 40)));
    }
    advance();
    return negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  }
  // Optional "@ address" (or "@ offset" inside a struct).
  bool optional_address(uint64_t& address) {
    if (tok_.kind != Tok::kAt) return false;
    advance();
    if (tok_.kind != Tok::kInteger) unexpected("an address (a non-negative integer) after '@'");
    address = integer_value(tok_);
    advance();
    return true;
  }

  // ---------- model building ----------

  NodeId add_node(NodeKind kind, NameId name, NodeId parent, TextPos at) {
    Node node;
    node.kind = kind;
    node.name = name;
    node.parent = parent;
    node.pos = at;
    if (parent != kNone) {
      node.depth = layout_.nodes[parent].depth + 1;
      if (node.depth > kMaxNestingDepth) {
        fatal(DiagCode::kNestingTooDeep, at,
              fmt::format("nesting is deeper than {} levels", kMaxNestingDepth));
      }
    }
    return layout_.add_node(node);
  }
  void add_statement(Statement::Kind kind, NodeId container, uint32_t index) {
    layout_.statements.push_back({kind, container, index});
    if (options_.keep_comments) result_.source.statement_lines.push_back(statement_line_);
  }
  // Items are registered in text order, so a `#!` belongs to the last item registered
  // before it [C24]: attach each doc once the next item (or the end) shows where it stops.
  void doc_target(DocTarget::Kind kind, uint32_t index, uint64_t offset) {
    flush_docs(offset);
    flush_attributes(offset);
    last_target_ = DocTarget{kind, index};
  }
  NodeId container_now() const {
    return frames_.back().kind == Frame::kList ? frames_.back().node : group_;
  }
  NodeId enclosing_group(NodeId node) const {
    NodeId p = layout_.nodes[node].parent;
    while (p != kNone && layout_.nodes[p].kind == NodeKind::kList) p = layout_.nodes[p].parent;
    return p;
  }
  std::string describe_node(NodeId id) const {
    const Node& n = layout_.nodes[id];
    const char* what = n.kind == NodeKind::kGroup  ? "group"
                       : n.kind == NodeKind::kList ? "list"
                                                   : "data variable";
    return fmt::format("{} declared at {}:{}", what, n.pos.line, n.pos.column);
  }

  // ---------- types, shapes, parameters ----------

  std::string_view text_of(TypeRef ref) const {
    if (ref.kind == TypeRef::Kind::kUser) return layout_.name(layout_.types[ref.user].name);
    return primitive_name(ref.primitive);
  }

  // Parses a type use (a name or a prefixed primitive) at tok_.
  TypeRef type_use() {
    TypeRef ref;
    const Token t = tok_;
    if (t.kind == Tok::kPrefixedType) {
      advance();
      auto prim = primitive_from_name(t.text.substr(1));
      if (!prim) {
        report(DiagCode::kUnknownPrimitive, pos_of(t),
               fmt::format("'{}' is not a primitive type: after '{}' comes one of i1 i2 i4 i8 "
                           "u1 u2 u4 u8 f2 f4 f8 c4 c8 c16 S1 U1 U2 U4 p4 p8 b1",
                           t.text.substr(0, 40), t.text[0]));
        return ref;
      }
      ref.kind = TypeRef::Kind::kPrimitive;
      ref.primitive = *prim;
      ref.order = t.text[0] == '<'   ? ByteOrder::kLittle
                  : t.text[0] == '>' ? ByteOrder::kBig
                                     : ByteOrder::kUnspecified;
      return ref;
    }
    if (t.kind != Tok::kSymbol) unexpected("a type");
    advance();
    const auto prim = primitive_from_name(t.text);
    // A bare primitive name only needs the type table when a user type shadows it [C4].
    NameId id = prim && !shadowed_[static_cast<size_t>(*prim)] ? kNone : layout_.names.find(t.text);
    if (id != kNone) {
      TypeId user = user_types_.find(id);
      if (user != FlatMap64::kMissing) {
        ref.kind = TypeRef::Kind::kUser;
        ref.user = user;
        return ref;
      }
    }
    if (prim) {
      auto& first = implicit_use_[static_cast<size_t>(*prim)];
      if (!first) first = pos_of(t);  // [C4]: the first bare use defines it as |name
      ref.kind = TypeRef::Kind::kPrimitive;
      ref.primitive = *prim;
      return ref;
    }
    report(DiagCode::kUndefinedType, pos_of(t),
           fmt::format("undefined type '{}'{}", t.text.substr(0, 80), nearest_type(t.text)));
    return ref;
  }

  // " (did you mean 'f8'?)" for a mistyped type: the primitives and the types so far.
  std::string nearest_type(std::string_view wanted) const {
    // The most recent types only: a bounded cost per diagnostic whatever the layout's size.
    const size_t n = layout_.types.size(), from = n > kSuggestFrom ? n - kSuggestFrom : 0;
    std::vector<std::string> names;
    names.reserve(kPrimitiveCount + (n - from));
    for (int p = 0; p < kPrimitiveCount; ++p) {
      names.emplace_back(primitive_name(static_cast<Primitive>(p)));
    }
    for (size_t i = from; i < n; ++i) {
      if (layout_.types[i].name != kNone) names.emplace_back(layout_.name(layout_.types[i].name));
    }
    return did_you_mean(wanted, names);
  }

  // The same for a parameter: the parameters declared so far (the most recent ones).
  std::string nearest_param(std::string_view wanted) const {
    std::vector<std::string> names;
    const size_t n = layout_.params.size(), from = n > kSuggestFrom ? n - kSuggestFrom : 0;
    for (size_t i = from; i < n; ++i) {
      if (layout_.params[i].name != kNone) names.emplace_back(layout_.name(layout_.params[i].name));
    }
    return did_you_mean(wanted, names);
  }
  static constexpr size_t kSuggestFrom = 4096;

  ParamId lookup_group_param(NameId name) const {
    if (name == kNone) return kNone;
    for (NodeId g = group_; g != kNone; g = enclosing_group(g)) {
      ParamId p = scope_params_.find(key(g, name));
      if (p != FlatMap64::kMissing) return p;
    }
    return kNone;
  }
  void report_missing_param(const Token& t, std::string_view needed_by = {}) {
    NameId name = layout_.names.find(t.text);
    ParamId declared = name == kNone ? FlatMap64::kMissing : any_param_.find(name);
    std::string suffix =
        needed_by.empty() ? std::string() : fmt::format(" (needed by type '{}')", needed_by);
    if (declared != FlatMap64::kMissing) {
      const Param& p = layout_.params[declared];
      std::string where =
          p.group != kNone ? layout_.path(p.group)
                           : fmt::format("type '{}'", layout_.name(layout_.types.size() > p.owner
                                                                       ? layout_.types[p.owner].name
                                                                       : kNone));
      report(DiagCode::kParameterOutOfScope, pos_of(t),
             fmt::format("parameter '{}' is not in scope here{}: it is declared in {} at {}:{}",
                         t.text, suffix, where, p.pos.line, p.pos.column));
    } else {
      report(DiagCode::kUndefinedParameter, pos_of(t),
             fmt::format("undefined parameter '{}'{}{}", t.text.substr(0, 80), suffix,
                         nearest_param(t.text)));
    }
  }

  enum class DimContext { kGroup, kStruct, kLiteralOnly };

  // Parses "[d1, d2, ...]" at tok_ ('[' already current) into layout_.dims.
  Span shape(DimContext context, StructScope* scope = nullptr) {
    Span span{static_cast<uint32_t>(layout_.dims.size()), 0};
    expect(Tok::kLBracket, "'['");
    for (;;) {
      Dim dim;
      if (tok_.kind == Tok::kInteger || tok_.kind == Tok::kMinus || tok_.kind == Tok::kPlus) {
        dim.literal = signed_integer();
      } else if (tok_.kind == Tok::kSymbol) {
        const Token name_tok = tok_;
        advance();
        int64_t adjust = 0;
        while (tok_.kind == Tok::kPlus || tok_.kind == Tok::kMinus) {
          adjust += tok_.kind == Tok::kPlus ? 1 : -1;
          if (adjust > 1000000 || adjust < -1000000) {
            fatal(DiagCode::kIntegerOverflow, pos_of(tok_), "too many '+'/'-' suffixes");
          }
          advance();
        }
        if (tok_.kind == Tok::kInteger) {
          fatal(DiagCode::kSyntax, pos_of(tok_),
                "dimensions take no arithmetic: use a '+' or '-' suffix (N+, N-) or another "
                "parameter");
        }
        dim.adjust = static_cast<int32_t>(adjust);
        resolve_dim(dim, name_tok, context, scope);
      } else {
        unexpected("a dimension (an integer or a parameter name)");
      }
      if (span.count == kMaxDimensions) {
        fatal(DiagCode::kTooManyDimensions, pos_of(tok_),
              fmt::format("a shape has more than {} dimensions", kMaxDimensions));
      }
      layout_.dims.push_back(dim);
      ++span.count;
      if (tok_.kind == Tok::kComma) {
        advance();
        continue;
      }
      if (tok_.kind == Tok::kRBracket) {
        advance();
        return span;
      }
      unexpected("',' or ']' in a shape");
    }
  }

  void resolve_dim(Dim& dim, const Token& name_tok, DimContext context, StructScope* scope) {
    if (context == DimContext::kLiteralOnly) {
      report(DiagCode::kPointeeShapeNotLiteral, pos_of(name_tok),
             fmt::format("a pointee's shape uses integers only, not parameter '{}'",
                         name_tok.text.substr(0, 80)));
      return;
    }
    NameId name = layout_.names.intern(name_tok.text);
    dim.name = name;
    if (context == DimContext::kStruct) {
      auto own = scope->params.find(name);
      if (own != scope->params.end()) {
        dim.kind = Dim::Kind::kParam;
        dim.param = own->second;
        return;
      }
      if (scope->block != kNone) {
        ParamId p = block_param(scope->block, name);
        if (p != kNone) {
          dim.kind = Dim::Kind::kParam;
          dim.param = p;
          return;
        }
      }
      // [C17]: resolved where the struct is instantiated.
      dim.kind = Dim::Kind::kFreeName;
      add_free_name(*scope, name);
      return;
    }
    ParamId p = lookup_group_param(name);
    if (p == kNone) {
      report_missing_param(name_tok);
      return;  // stays a literal 0: no cascade
    }
    dim.kind = Dim::Kind::kParam;
    dim.param = p;
  }

  static uint32_t add_free_name(StructScope& scope, NameId name) {
    auto& names = *scope.free_names;
    for (uint32_t i = 0; i < names.size(); ++i) {
      if (names[i] == name) return i;
    }
    names.push_back(name);
    return static_cast<uint32_t>(names.size() - 1);
  }

  ParamId block_param(TypeId block, NameId name) const {
    ParamId found = kNone;
    for (const auto& e : layout_.types[block].body) {
      if (e.kind == StructEntry::Kind::kParam && layout_.params[e.index].name == name) {
        found = e.index;
      }
    }
    return found;
  }

  // Binds the free names of a user type used at a declaration [C17]: in a group, each becomes
  // a parameter in scope; in a struct body, an own parameter or an outer free name.
  Span bind_free_names(const TypeRef& type, const Token& at, StructScope* scope) {
    Span span{static_cast<uint32_t>(layout_.bindings.size()), 0};
    if (type.kind != TypeRef::Kind::kUser) return span;
    const std::vector<NameId> free = layout_.types[type.user].free_names;
    for (NameId name : free) {
      ParamId bound = kNone;
      if (scope) {
        auto own = scope->params.find(name);
        if (own != scope->params.end()) {
          bound = own->second;
        } else if (scope->block != kNone && (bound = block_param(scope->block, name)) != kNone) {
        } else {
          bound = kOuterBinding | add_free_name(*scope, name);
        }
      } else {
        bound = lookup_group_param(name);
        if (bound == kNone) {
          Token named = at;
          named.text = layout_.name(name);
          report_missing_param(named, text_of(type));
        }
      }
      layout_.bindings.push_back(bound);
      ++span.count;
    }
    return span;
  }

  // A dynamic parameter's type must be a scalar integer, possibly through typedefs [C5].
  bool is_integer_type(const TypeRef& ref, int depth = 0) const {
    if (ref.kind == TypeRef::Kind::kPrimitive) return primitive_is_integer(ref.primitive);
    if (ref.kind != TypeRef::Kind::kUser || depth > 64) return false;
    const TypeDef& t = layout_.types[ref.user];
    if (!t.is_typedef(layout_.nodes)) return false;
    for (const auto& e : t.body) {
      if (e.kind == StructEntry::Kind::kMember) {
        const Node& m = layout_.nodes[e.index];
        return m.dims.count == 0 && is_integer_type(m.type, depth + 1);
      }
    }
    return false;
  }

  void check_text_dimension(const TypeRef& type, Span dims, const Token& at) {
    if (type.kind == TypeRef::Kind::kPrimitive && primitive_is_text(type.primitive) &&
        dims.count == 0) {
      report(DiagCode::kTextWithoutDimension, pos_of(at),
             fmt::format("text type {} needs a last dimension counting its characters, as in "
                         "{}[16]",
                         primitive_name(type.primitive), primitive_name(type.primitive)));
    }
  }

  // "N := ..." after ':=' for a dynamic or fixed parameter. `scope` set inside structs.
  ParamId parameter(const Token& name_tok, StructScope* scope) {
    Param p;
    p.name = layout_.names.intern(name_tok.text);
    p.pos = pos_of(name_tok);
    if (tok_.kind == Tok::kInteger || tok_.kind == Tok::kMinus || tok_.kind == Tok::kPlus) {
      p.kind = ParamKind::kFixed;
      p.value = signed_integer();
    } else {
      p.kind = ParamKind::kDynamic;
      p.type = type_use();
      if (p.type.kind != TypeRef::Kind::kInvalid && !is_integer_type(p.type)) {
        report(DiagCode::kParameterNotInteger, p.pos,
               fmt::format("parameter '{}' has type {}, but a parameter must be a scalar integer",
                           name_tok.text, text_of(p.type)));
      }
      if (tok_.kind == Tok::kLBracket) {
        Token bracket = tok_;
        shape(scope ? DimContext::kStruct : DimContext::kGroup, scope);
        report(DiagCode::kParameterWithShape, pos_of(bracket),
               fmt::format("parameter '{}' cannot have a shape: a parameter is one integer",
                           name_tok.text));
      }
      p.has_address = optional_address(p.address);
    }
    auto id = static_cast<ParamId>(layout_.params.size());
    if (scope) {
      p.owner = scope->self;
      scope->params[p.name] = id;
    } else {
      p.group = group_;
      Node& g = layout_.nodes[group_];
      if (g.last_param == kNone) {
        g.first_param = id;
      } else {
        layout_.params[g.last_param].next_in_group = id;
      }
      g.last_param = id;
      scope_params_.set(key(group_, p.name), id);
      add_statement(Statement::Kind::kParam, group_, id);
    }
    any_param_.insert(p.name, id);
    layout_.params.push_back(p);
    doc_target(DocTarget::kParam, id, name_tok.offset);
    return id;
  }

  // ---------- struct bodies [C16-C18, C21] ----------

  // Parses "{ ... }" (tok_ at '{') into a new TypeDef; returns its id (not yet named).
  TypeId struct_body(TypeKind kind, TypeId block, const Token& opened) {
    auto self = static_cast<TypeId>(layout_.types.size());
    layout_.types.emplace_back();  // placeholder so member ids can name their owner
    {
      TypeDef& t = layout_.types.back();
      t.kind = kind;
      t.name = kNone;  // named after the body, so the body cannot refer to itself
      t.block = block;
      t.scope = group_;
      t.pos = pos_of(opened);
    }
    // A heterogeneous body is documented through its variable, not on its own.
    if (kind == TypeKind::kStruct) doc_target(DocTarget::kType, self, opened.offset);
    std::vector<NameId> free_names;
    StructScope scope{self, block, {}, &free_names};
    std::vector<StructEntry> body;
    std::unordered_map<NameId, NodeId> member_names;
    size_t members = 0;
    std::optional<TextPos> anonymous_at;
    expect(Tok::kLBrace, "'{'");
    for (;;) {
      if (tok_.kind == Tok::kRBrace) {
        advance();
        break;
      }
      if (tok_.kind == Tok::kBangAt) {
        advance();
        if (tok_.kind != Tok::kInteger) unexpected("an offset after '!@'");
        body.push_back({StructEntry::Kind::kCursor, 0, integer_value(tok_)});
        advance();
        continue;
      }
      if (tok_.kind == Tok::kEnd) {
        fatal(DiagCode::kUnexpectedEnd, pos_of(tok_),
              fmt::format("unexpected end of file: the struct opened at {}:{} is not closed "
                          "with '}}'",
                          opened.line, opened.column));
      }
      Token name_tok = tok_;
      NameId member_name = kNone;
      if (tok_.kind == Tok::kSymbol) {
        advance();
        if (tok_.kind == Tok::kColonEq) {
          advance();
          if (tok_.kind == Tok::kLBrace) {
            fatal(DiagCode::kSyntax, pos_of(tok_), "types cannot be defined inside a struct");
          }
          ParamId p = parameter(name_tok, &scope);
          if (layout_.params[p].kind == ParamKind::kDynamic) {
            layout_.types[self].has_dynamic_params = true;
          }
          body.push_back({StructEntry::Kind::kParam, p, 0});
          continue;
        }
        if (tok_.kind != Tok::kEq) unexpected("':=' or '=' after a name in a struct");
        member_name = layout_.names.intern(name_tok.text);
      } else if (tok_.kind != Tok::kEq) {
        unexpected("a parameter ('n := ...'), a member ('x = type') or '}' in a struct");
      }
      advance();  // '='
      if (tok_.kind == Tok::kLBracket) {
        fatal(DiagCode::kSyntax, pos_of(tok_), "struct members are data only, not lists");
      }
      NodeId m = add_node(NodeKind::kMember, member_name, kNone, pos_of(name_tok));
      layout_.nodes[m].owner = self;
      doc_target(DocTarget::kNode, m, name_tok.offset);
      if (member_name == kNone) {
        if (!anonymous_at) anonymous_at = pos_of(name_tok);
      } else if (auto [it, fresh] = member_names.emplace(member_name, m); !fresh) {
        const Node& prev = layout_.nodes[it->second];
        report(DiagCode::kDuplicateVariable, pos_of(name_tok),
               fmt::format("member '{}' is already declared at {}:{}", name_tok.text, prev.pos.line,
                           prev.pos.column));
      }
      ++members;
      const Token type_tok = tok_;
      TypeRef type = type_use();
      if (type.kind == TypeRef::Kind::kUser &&
          layout_.types[type.user].kind == TypeKind::kParamBlock) {
        report(DiagCode::kParameterBlockAsData, pos_of(type_tok),
               fmt::format("'{}' is a parameter block; it cannot be a member type", type_tok.text));
      }
      Span dims;
      dims.begin = static_cast<uint32_t>(layout_.dims.size());
      if (tok_.kind == Tok::kLBracket) dims = shape(DimContext::kStruct, &scope);
      check_text_dimension(type, dims, type_tok);
      Span bindings = bind_free_names(type, type_tok, &scope);
      Node& node = layout_.nodes[m];
      node.type = type;
      node.dims = dims;
      node.bindings = bindings;
      node.has_address = optional_address(node.address);
      body.push_back({StructEntry::Kind::kMember, m, 0});
    }
    if (anonymous_at && members > 1) {
      report(DiagCode::kAnonymousMember, *anonymous_at,
             "only a struct with a single member may leave it unnamed (a typedef)");
    }
    TypeDef& t = layout_.types[self];
    t.body = std::move(body);
    t.free_names = std::move(free_names);
    if (members == 0 && kind == TypeKind::kStruct) t.kind = TypeKind::kParamBlock;
    return self;
  }

  // "T := { ... }[shape] @ address" after ':=' (tok_ at '{').
  void type_definition(const Token& name_tok) {
    NameId name = layout_.names.intern(name_tok.text);
    if (TypeId existing = user_types_.find(name); existing != FlatMap64::kMissing) {
      const TypeDef& prev = layout_.types[existing];
      report(DiagCode::kTypeRedefined, pos_of(name_tok),
             fmt::format("type '{}' is already defined at {}:{}", name_tok.text, prev.pos.line,
                         prev.pos.column));
    } else if (auto prim = primitive_from_name(name_tok.text)) {
      if (const auto& first = implicit_use_[static_cast<size_t>(*prim)]) {
        report(DiagCode::kTypeRedefined, pos_of(name_tok),
               fmt::format("primitive '{}' cannot be redefined after its first use at {}:{} "
                           "(a redefinition must come before any bare use)",
                           name_tok.text, first->line, first->column));
      }
    }
    TypeId id = struct_body(TypeKind::kStruct, kNone, name_tok);
    TypeDef& t = layout_.types[id];
    t.pos = pos_of(name_tok);
    const bool is_block = t.kind == TypeKind::kParamBlock;
    if (tok_.kind == Tok::kLBracket) {
      Token bracket = tok_;
      Span dims = shape(DimContext::kGroup);
      if (is_block) {
        layout_.types[id].dims = dims;
        layout_.types[id].has_shape = true;
      } else {
        report(DiagCode::kShapeOnDataType, pos_of(bracket),
               fmt::format("type '{}' has data members, so it cannot have a shape; only a "
                           "parameter block (parameters only) is stored with [shape] @ address",
                           name_tok.text));
      }
    }
    if (tok_.kind == Tok::kAt) {
      Token at = tok_;
      uint64_t address = 0;
      optional_address(address);
      if (is_block) {
        layout_.types[id].address = address;
        layout_.types[id].has_address = true;
      } else {
        report(
            DiagCode::kShapeOnDataType, pos_of(at),
            fmt::format("type '{}' has data members, so it cannot have an address", name_tok.text));
      }
    }
    layout_.types[id].name = name;
    user_types_.insert(name, id);  // first definition wins if redefined
    if (auto prim = primitive_from_name(name_tok.text))
      shadowed_[static_cast<size_t>(*prim)] = true;
    add_statement(Statement::Kind::kType, group_, id);
  }

  // ---------- group-level statements ----------

  void group_statement() {
    statement_line_ = tok_.line;
    switch (tok_.kind) {
      case Tok::kEnd:
        if (frames_.size() > 1) {
          const Frame& f = frames_.back();
          fatal(DiagCode::kUnexpectedEnd, pos_of(tok_),
                fmt::format("unexpected end of file: the list opened at {}:{} is not closed "
                            "with ']'",
                            f.opened.line, f.opened.column));
        }
        done_ = true;
        return;
      case Tok::kBangDudley:
        signature();
        return;
      case Tok::kBangTemplate:
        layout_.template_directive = true;
        advance();
        return;
      case Tok::kBangAt:
        cursor();
        return;
      case Tok::kDotDot: {
        advance();
        Frame& f = frames_.back();
        if (f.kind == Frame::kAnonGroup && group_ == f.node) {
          pop_anonymous_group();
        } else if (group_ != Layout::kRoot) {
          group_ = enclosing_group(group_);
        }
        return;
      }
      case Tok::kSlash:
        advance();
        if (frames_.back().kind == Frame::kAnonGroup) {
          pop_anonymous_group();
        } else {
          group_ = Layout::kRoot;
        }
        return;
      case Tok::kRBracket:
        if (frames_.back().kind != Frame::kAnonGroup) {
          fatal(DiagCode::kSyntax, pos_of(tok_), "unexpected ']': no list is open");
        }
        advance();
        pop_anonymous_group();
        close_list();
        return;
      case Tok::kInteger:
        pointee();
        return;
      case Tok::kSymbol:
        break;
      default:
        unexpected("a declaration");
    }
    const Token name_tok = tok_;
    // The name's slot in the name table is a cache miss in a large layout: start loading it
    // now, while the next tokens are read.
    layout_.names.prefetch(name_tok.text);
    advance();
    switch (tok_.kind) {
      case Tok::kColonEq:
        advance();
        if (tok_.kind == Tok::kLBrace) {
          type_definition(name_tok);
        } else {
          parameter(name_tok, nullptr);
        }
        return;
      case Tok::kEq:
        advance();
        variable(name_tok);
        return;
      case Tok::kSlash:
        advance();
        open_group(name_tok);
        return;
      default:
        unexpected(fmt::format("':=', '=' or '/' after '{}'", name_tok.text.substr(0, 40)));
    }
  }

  void pop_anonymous_group() {
    frames_.pop_back();  // back to the list frame
  }
  void close_list() {
    group_ = frames_.back().saved_group;
    frames_.pop_back();
  }

  // Finds a member of the current group; reports a clash with `wanted` kind.
  NodeId existing_member(NameId name) const {
    if (name < first_member_.size()) {
      const NodeId first = first_member_[name];
      if (first != kNone && layout_.nodes[first].parent == group_) return first;
    }
    return members_.find(key(group_, name));  // kMissing == kNone
  }
  NodeId new_member(NodeKind kind, NameId name, const Token& at) {
    NodeId id = add_node(kind, name, group_, pos_of(at));
    if (name >= first_member_.size()) first_member_.resize(size_t{name} + 1, kNone);
    if (first_member_[name] == kNone) {
      first_member_[name] = id;
    } else {
      members_.set(key(group_, name), id);
    }
    return id;
  }
  void report_reuse(const Token& at, NodeId existing, const char* as_what) {
    const Node& prev = layout_.nodes[existing];
    if (prev.kind == NodeKind::kData && std::string_view(as_what) == "a data variable") {
      report(DiagCode::kDuplicateVariable, pos_of(at),
             fmt::format("'{}' is already declared at {}:{}", at.text.substr(0, 80), prev.pos.line,
                         prev.pos.column));
      return;
    }
    report(DiagCode::kNameReused, pos_of(at),
           fmt::format("'{}' cannot be declared as {}: it is already a {}", at.text.substr(0, 80),
                       as_what, describe_node(existing)));
  }

  void open_group(const Token& name_tok) {
    bool fresh = false;
    NameId name = layout_.names.intern(name_tok.text, &fresh);
    NodeId existing = fresh ? kNone : existing_member(name);
    if (existing != kNone && layout_.nodes[existing].kind == NodeKind::kGroup) {
      group_ = existing;  // reopen
    } else {
      if (existing != kNone) report_reuse(name_tok, existing, "a group");
      NodeId g = existing != kNone ? add_node(NodeKind::kGroup, name, group_, pos_of(name_tok))
                                   : new_member(NodeKind::kGroup, name, name_tok);
      add_statement(Statement::Kind::kGroup, group_, g);
      group_ = g;
    }
    doc_target(DocTarget::kNode, group_, name_tok.offset);
  }

  void variable(const Token& name_tok) {
    bool fresh = false;  // a name never seen before names no member yet
    NameId name = layout_.names.intern(name_tok.text, &fresh);
    NodeId existing = fresh ? kNone : existing_member(name);
    if (tok_.kind == Tok::kLBracket) {
      const Token bracket = tok_;
      advance();
      NodeId list;
      if (existing != kNone && layout_.nodes[existing].kind == NodeKind::kList) {
        list = existing;  // reopen: append items
      } else {
        if (existing != kNone) report_reuse(name_tok, existing, "a list");
        list = existing != kNone ? add_node(NodeKind::kList, name, group_, pos_of(name_tok))
                                 : new_member(NodeKind::kList, name, name_tok);
        add_statement(Statement::Kind::kList, group_, list);
      }
      doc_target(DocTarget::kNode, list, name_tok.offset);
      frames_.push_back({Frame::kList, list, group_, pos_of(bracket)});
      return;
    }
    if (existing != kNone) report_reuse(name_tok, existing, "a data variable");
    NodeId node = existing != kNone ? add_node(NodeKind::kData, name, group_, pos_of(name_tok))
                                    : new_member(NodeKind::kData, name, name_tok);
    doc_target(DocTarget::kNode, node, name_tok.offset);
    data_declaration(node);
  }

  // After "name =" or a list item's "=": type [shape] @ address, or PB{ ... } @ address.
  void data_declaration(NodeId node) {
    const Token type_tok = tok_;
    if (tok_.kind != Tok::kSymbol && tok_.kind != Tok::kPrefixedType) {
      unexpected("a type, or '[' to declare a list");
    }
    TypeRef type = type_use();
    Span dims{static_cast<uint32_t>(layout_.dims.size()), 0};
    if (tok_.kind == Tok::kLBrace) {
      // Heterogeneous array of a parameter block [C21].
      TypeId block = kNone;
      if (type.kind == TypeRef::Kind::kUser &&
          layout_.types[type.user].kind == TypeKind::kParamBlock) {
        block = type.user;
      } else if (type.kind != TypeRef::Kind::kInvalid) {
        report(DiagCode::kNotAParameterBlock, pos_of(type_tok),
               fmt::format("'{}' is not a parameter block: only a parameter block type can be "
                           "followed by '{{' to declare a heterogeneous array",
                           type_tok.text.substr(0, 80)));
      }
      TypeId body = struct_body(TypeKind::kHeteroBody, block, type_tok);
      type = TypeRef{TypeRef::Kind::kUser, Primitive::u1, ByteOrder::kUnspecified, body};
    } else {
      if (type.kind == TypeRef::Kind::kUser &&
          layout_.types[type.user].kind == TypeKind::kParamBlock) {
        report(DiagCode::kParameterBlockAsData, pos_of(type_tok),
               fmt::format("'{}' is a parameter block: use it as '{}{{ members }}' to declare a "
                           "heterogeneous array",
                           type_tok.text, type_tok.text));
      }
      if (tok_.kind == Tok::kLBracket) dims = shape(DimContext::kGroup);
      check_text_dimension(type, dims, type_tok);
    }
    Span bindings = bind_free_names(type, type_tok, nullptr);
    Node& n = layout_.nodes[node];
    n.type = type;
    n.dims = dims;
    n.bindings = bindings;
    n.has_address = optional_address(n.address);
    add_statement(Statement::Kind::kData, n.parent, node);
  }

  // "KEY = type[shape] @ address" [C19].
  void pointee() {
    const Token key_tok = tok_;
    advance();
    if (tok_.kind != Tok::kEq) unexpected("'=' after a pointee key");
    advance();
    Pointee p;
    p.key = integer_value(key_tok);
    p.pos = pos_of(key_tok);
    if (p.key == 0 || p.key == 0xFFFFFFFFull || p.key == ~uint64_t{0}) {
      report(DiagCode::kReservedPointeeKey, p.pos,
             fmt::format("pointee key {} is reserved for NULL (0, 2^32-1 and 2^64-1 are)",
                         key_tok.text));
    } else if (uint32_t first =
                   pointee_keys_.insert(p.key, static_cast<uint32_t>(layout_.pointees.size()));
               first != layout_.pointees.size()) {
      const Pointee& prev = layout_.pointees[first];
      report(DiagCode::kDuplicatePointeeKey, p.pos,
             fmt::format("pointee key {} is already declared at {}:{}", key_tok.text, prev.pos.line,
                         prev.pos.column));
    }
    const Token type_tok = tok_;
    p.type = type_use();
    p.dims.begin = static_cast<uint32_t>(layout_.dims.size());
    if (tok_.kind == Tok::kLBracket) p.dims = shape(DimContext::kLiteralOnly);
    check_text_dimension(p.type, p.dims, type_tok);
    if (p.type.kind == TypeRef::Kind::kUser && !layout_.types[p.type.user].free_names.empty()) {
      report(
          DiagCode::kPointeeShapeNotLiteral, pos_of(type_tok),
          fmt::format("type '{}' needs parameters, which a pointee cannot supply", type_tok.text));
    }
    p.has_address = optional_address(p.address);
    auto index = static_cast<uint32_t>(layout_.pointees.size());
    layout_.pointees.push_back(p);
    doc_target(DocTarget::kPointee, index, key_tok.offset);
    add_statement(Statement::Kind::kPointee, container_now(), index);
  }

  // "!DUDLEY := S1[8] @ address" [C20].
  void signature() {
    const Token bang = tok_;
    advance();
    expect(Tok::kColonEq, "':=' after !DUDLEY");
    const Token type_tok = tok_;
    TypeRef type = type_use();
    Span dims{static_cast<uint32_t>(layout_.dims.size()), 0};
    if (tok_.kind == Tok::kLBracket) dims = shape(DimContext::kLiteralOnly);
    Signature sig;
    sig.pos = pos_of(bang);
    sig.has_address = optional_address(sig.address);
    const bool is_s1 = type.kind == TypeRef::Kind::kPrimitive && type.primitive == Primitive::S1;
    const bool is_8 = dims.count == 1 && layout_.dims[dims.begin].kind == Dim::Kind::kLiteral &&
                      layout_.dims[dims.begin].literal == 8;
    layout_.dims.resize(dims.begin);  // the signature's type is fixed; keep no dims for it
    if (!is_s1 || !is_8) {
      report(DiagCode::kSignature, pos_of(type_tok), "the signature must be declared S1[8]");
    }
    if (frames_.size() > 1 || group_ != Layout::kRoot) {
      report(DiagCode::kSignature, sig.pos, "!DUDLEY may appear only at the root");
    }
    if (layout_.signature) {
      report(DiagCode::kSignature, sig.pos,
             fmt::format("!DUDLEY is already declared at {}:{}", layout_.signature->pos.line,
                         layout_.signature->pos.column));
      return;
    }
    layout_.signature = sig;
    add_statement(Statement::Kind::kSignature, Layout::kRoot, 0);
  }
  void cursor() {
    advance();
    if (tok_.kind != Tok::kInteger) unexpected("an address after '!@'");
    layout_.cursors.push_back(integer_value(tok_));
    advance();
    add_statement(Statement::Kind::kCursor, container_now(),
                  static_cast<uint32_t>(layout_.cursors.size() - 1));
  }

  // ---------- list bodies [C11, C12] ----------

  void list_item() {
    const Frame frame = frames_.back();
    const Token at = tok_;
    statement_line_ = tok_.line;
    switch (tok_.kind) {
      case Tok::kRBracket:
        advance();
        close_list();
        return;
      case Tok::kBangAt:
        cursor();
        return;
      case Tok::kEq: {
        advance();
        if (tok_.kind == Tok::kLBracket) {
          const Token bracket = tok_;
          advance();
          NodeId list = add_node(NodeKind::kList, kNone, frame.node, pos_of(at));
          add_statement(Statement::Kind::kList, frame.node, list);
          doc_target(DocTarget::kNode, list, at.offset);
          frames_.push_back({Frame::kList, list, group_, pos_of(bracket)});
          return;
        }
        NodeId item = add_node(NodeKind::kData, kNone, frame.node, pos_of(at));
        doc_target(DocTarget::kNode, item, at.offset);
        data_declaration(item);
        return;
      }
      case Tok::kSlash: {
        advance();
        NodeId g = add_node(NodeKind::kGroup, kNone, frame.node, pos_of(at));
        add_statement(Statement::Kind::kGroup, frame.node, g);
        doc_target(DocTarget::kNode, g, at.offset);
        frames_.push_back({Frame::kAnonGroup, g, group_, pos_of(at)});
        group_ = g;
        return;
      }
      case Tok::kEnd:
        fatal(DiagCode::kUnexpectedEnd, pos_of(tok_),
              fmt::format("unexpected end of file: the list opened at {}:{} is not closed with "
                          "']'",
                          frame.opened.line, frame.opened.column));
      case Tok::kSymbol: {
        advance();
        if (tok_.kind == Tok::kColonEq) {
          fatal(DiagCode::kSyntax, pos_of(at),
                "a parameter cannot stand directly in a list; declare it in an anonymous group "
                "item ('/ N := ... ..') or in the enclosing group");
        }
        fatal(DiagCode::kSyntax, pos_of(at),
              "list items are anonymous: start each with '=' (data or sublist) or '/' (group)");
      }
      default:
        unexpected("'=', '/' or ']' in a list");
    }
  }

  // Gives back reserved capacity that the text did not need (reservations are estimates).
  void trim_storage() {
    auto trim = [](auto& v) {
      if (v.capacity() > v.size() + v.size() / 8 + 64) v.shrink_to_fit();
    };
    trim(layout_.nodes);
    trim(layout_.statements);
    trim(layout_.dims);
    trim(layout_.params);
    trim(layout_.docs);
    trim(layout_.attributes);
    // Its reservation was address space (the text's size), mostly touched when attributes
    // are most of the text: given back only when it is far beyond their size.
    if (layout_.attribute_text.capacity() > layout_.attribute_text.size() * 2 + (1 << 20)) {
      layout_.attribute_text.shrink_to_fit();
    }
    trim(layout_.bindings);
    if (layout_.doc_text.capacity() > layout_.doc_text.size() * 9 / 8 + 64) {
      layout_.doc_text.shrink_to_fit();
    }
  }

  // ---------- document comments [C24] ----------

  // The member `field` picks (its doc, its attributes) of the item `target` names.
  template <typename Field>
  auto target_field(const DocTarget& target, const Field& field) {
    switch (target.kind) {
      case DocTarget::kParam:
        return field(layout_.params[target.index]);
      case DocTarget::kType:
        return field(layout_.types[target.index]);
      case DocTarget::kPointee:
        return field(layout_.pointees[target.index]);
      case DocTarget::kNode:
        break;
    }
    return field(layout_.nodes[target.index]);
  }

  void flush_docs(uint64_t before) {
    const auto& docs = lex_.docs();
    for (; next_doc_ < docs.size() && docs[next_doc_].offset < before; ++next_doc_) {
      if (!last_target_) continue;  // nothing declared yet: ignored
      DocId* slot = target_field(*last_target_, [](auto& item) { return &item.doc; });
      layout_.append_doc(slot, docs[next_doc_].text);
    }
  }
  void attach_docs() {
    flush_docs(~uint64_t{0});
    flush_attributes(~uint64_t{0});
    regroup_attributes();
  }

  // ---------- attributes (docs/design/layout-attributes.md) ----------

  // `#@` attaches as `#!` does, except that attributes before the first declaration belong
  // to the root: they are the file's. Attributes are appended in text order; an item whose
  // attributes are not all together (a group reopened) is sorted out once, at the end
  // (regroup_attributes), so no layout costs more than a sort.
  void flush_attributes(uint64_t before) {
    const auto& found = lex_.attributes();
    for (; next_attribute_ < found.size() && found[next_attribute_].offset < before;
         ++next_attribute_) {
      const AttributeComment& c = found[next_attribute_];
      const uint64_t owner =
          last_target_ ? (uint64_t{last_target_->kind} + 1) << 32 | last_target_->index : 0;
      if (options_.check_attributes) {
        const std::string& name = lex_.attribute_names()[next_attribute_];
        if (!attribute_names_.insert(std::to_string(owner) + '\0' + name).second) {
          report(DiagCode::kDuplicateAttribute, {c.line, c.column, c.offset},
                 fmt::format("attribute '{}' is given twice to one item", name));
          continue;
        }
      }
      Span* slot = owner_slot(owner);
      if (slot->count == 0) {
        slot->begin = static_cast<uint32_t>(layout_.attributes.size());
      } else if (slot->begin + slot->count != layout_.attributes.size()) {
        scattered_ = true;  // this item's attributes are regrouped at the end
      }
      // The layout keeps where the text begins: a mistake found when it is read is counted
      // from there.
      layout_.append_attribute(c.text, {c.line, c.text_column, c.offset});
      attribute_owners_.push_back(owner);
      ++slot->count;
    }
    // All attached: the lexer's list starts again (its names too).
    if (next_attribute_ == found.size() && !found.empty()) {
      lex_.forget_attributes();
      next_attribute_ = 0;
    }
  }
  Span* owner_slot(uint64_t owner) {
    if (owner == 0) return &layout_.nodes[Layout::kRoot].attributes;
    const DocTarget target{static_cast<DocTarget::Kind>((owner >> 32) - 1),
                           static_cast<uint32_t>(owner)};
    return target_field(target, [](auto& item) { return &item.attributes; });
  }
  // Puts each item's attributes together (in text order among themselves) when a reopened
  // group scattered some: a stable sort by item, then each item's span.
  void regroup_attributes() {
    if (!scattered_) return;
    std::vector<uint32_t> order(layout_.attributes.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return attribute_owners_[a] < attribute_owners_[b];
    });
    std::vector<AttributeSource> sorted;
    sorted.reserve(order.size());
    for (const uint32_t i : order) sorted.push_back(layout_.attributes[i]);
    layout_.attributes = std::move(sorted);
    for (size_t i = 0; i < order.size();) {
      const uint64_t owner = attribute_owners_[order[i]];
      size_t j = i;
      while (j < order.size() && attribute_owners_[order[j]] == owner) ++j;
      *owner_slot(owner) = Span{static_cast<uint32_t>(i), static_cast<uint32_t>(j - i)};
      i = j;
    }
    scattered_ = false;
  }

  Lexer lex_;
  uint32_t statement_line_ = 1;  ///< first line of the statement being parsed
  const ParseOptions& options_;
  size_t markers_;  ///< `#@` in the text
  size_t lines_;    ///< lines in the text but attribute lines: the size the tables are reserved for
  ParseResult result_;
  Layout layout_;
  Token tok_;
  bool done_ = false;
  NodeId group_ = Layout::kRoot;
  std::vector<Frame> frames_;
  std::optional<DocTarget> last_target_;
  size_t next_doc_ = 0;                              // first lexer doc not yet attached
  size_t next_attribute_ = 0;                        // first lexer attribute not yet attached
  std::vector<uint64_t> attribute_owners_;           // the item of each of layout_.attributes
  bool scattered_ = false;                           // some item's attributes are not together
  std::unordered_set<std::string> attribute_names_;  // "OWNER\0NAME", when checked
  // Members by (group, name). A name's first member is kept in first_member_ (by NameId,
  // written in order), the others in members_: a layout whose names are mostly distinct
  // then never touches the hash table, whose every access is a cache miss at 10^5 names.
  std::vector<NodeId> first_member_;
  FlatMap64 members_;       // (group, name) -> member, for names used more than once
  FlatMap64 scope_params_;  // (group, name) -> latest param
  FlatMap64 any_param_;     // name -> first param anywhere
  FlatMap64 user_types_;    // name -> type
  FlatMap64 pointee_keys_;  // key -> index of its pointee
  std::array<std::optional<TextPos>, kPrimitiveCount> implicit_use_{};
  std::array<bool, kPrimitiveCount> shadowed_{};  // a user type has this primitive's name
};

}  // namespace

ParseResult parse_layout(std::string_view text, const ParseOptions& options) {
  Parser parser(text, options);
  return parser.parse();
}

Layout load_layout(const std::string& path, const ParseOptions& options) {
  return layout_from_text(read_text_file(path), path, options);
}

Layout layout_from_text(std::string_view text, const std::string& path,
                        const ParseOptions& options) {
  ParseResult result = parse_layout(text, options);
  if (!result.ok()) {
    const Diagnostic& d = result.diagnostics.front();
    const bool syntax = d.code == DiagCode::kSyntax || d.code == DiagCode::kUnexpectedEnd ||
                        d.code == DiagCode::kBadCharacter || d.code == DiagCode::kInvalidUtf8;
    throw LayoutError(syntax ? ErrorCategory::kSyntax : ErrorCategory::kSemantic,
                      std::move(result.diagnostics), std::string(text), path);
  }
  result.layout.source_name = path;
  return std::move(result.layout);
}

LayoutError::LayoutError(ErrorCategory category, std::vector<Diagnostic> diagnostics,
                         std::string text, const std::string& name)
    : Error(category, diagnostics.front().message,
            Location::text(name, diagnostics.front().line, diagnostics.front().column)),
      diagnostics_(std::make_shared<const std::vector<Diagnostic>>(std::move(diagnostics))),
      text_(std::make_shared<const std::string>(std::move(text))) {}

std::vector<ErrorDetail> LayoutError::details() const {
  std::vector<ErrorDetail> out;
  for (const Diagnostic& d : *diagnostics_) {
    out.push_back({d.line, d.column, diag_code_name(d.code), d.message});
  }
  return out;
}

std::string LayoutError::report() const {
  std::string out;
  for (const Diagnostic& d : *diagnostics_) out += format_diagnostic(d, location().path, *text_);
  return out;
}

}  // namespace dudley::layout
