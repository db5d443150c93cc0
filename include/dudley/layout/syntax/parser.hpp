// Parsing Dudley layout text into a checked layout model, with compiler-style diagnostics.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "dudley/core/error.hpp"
#include "dudley/layout/syntax/layout.hpp"

namespace dudley::layout {

/// Kinds of problems a layout can have. Each has a stable kebab-case name (diag_code_name)
/// that tests and `dudley check --json` use.
enum class DiagCode : uint8_t {
  kSyntax,                  ///< syntax
  kUnexpectedEnd,           ///< unexpected-end: the text stops inside a construct
  kBadCharacter,            ///< bad-character: NUL, control or non-ASCII outside comments
  kInvalidUtf8,             ///< invalid-utf8
  kIntegerOverflow,         ///< integer-overflow: a literal beyond 64 bits
  kNestingTooDeep,          ///< nesting-too-deep: beyond kMaxNestingDepth
  kUndefinedParameter,      ///< undefined-parameter
  kParameterOutOfScope,     ///< parameter-out-of-scope: declared, but not here
  kUndefinedType,           ///< undefined-type
  kUnknownPrimitive,        ///< unknown-primitive: "<x4"
  kDuplicateVariable,       ///< duplicate-variable
  kTypeRedefined,           ///< type-redefined (also a primitive after its first use)
  kNameReused,              ///< name-reused: as group / list / data
  kParameterNotInteger,     ///< parameter-not-integer
  kParameterWithShape,      ///< parameter-with-shape
  kTextWithoutDimension,    ///< text-without-dimension
  kReservedPointeeKey,      ///< reserved-pointee-key
  kDuplicatePointeeKey,     ///< duplicate-pointee-key
  kPointeeShapeNotLiteral,  ///< pointee-shape-not-literal
  kShapeOnDataType,         ///< shape-on-data-type: [shape]/@ on a struct with members
  kNotAParameterBlock,      ///< not-a-parameter-block: `x = T{...}` with T not a block
  kParameterBlockAsData,    ///< parameter-block-as-data: `x = PB`
  kAnonymousMember,         ///< anonymous-member: in a struct with other members
  kSignature,               ///< signature: !DUDLEY misuse
  kTemplate,                ///< template: a C22 rule broken
  kTooManyDimensions,       ///< too-many-dimensions: a shape beyond kMaxDimensions
  kSizeOverflow,            ///< size-overflow: a struct, member or item ends beyond 2^64
  kBadAttribute,            ///< bad-attribute: a `#@` comment that is no attribute
  kDuplicateAttribute,      ///< duplicate-attribute: a name given twice to one item
  kTooManyErrors,           ///< too-many-errors
};

/// "undefined-parameter", ...
const char* diag_code_name(DiagCode code);

/// One problem found in a layout.
struct Diagnostic {
  DiagCode code = DiagCode::kSyntax;
  std::string message;
  uint32_t line = 0;
  uint32_t column = 0;
  uint64_t offset = 0;  ///< byte offset in the text (for showing the source line)
};

/// Deepest nesting of groups, lists and anonymous groups the parser accepts. Real layouts
/// stay below 20; the cap keeps every lookup and walk bounded on hostile input.
inline constexpr uint32_t kMaxNestingDepth = 1000;

/// Most dimensions one shape may have (numpy's limit). Deeper shapes would only serve to make
/// every tool that nests by dimension (JSON, lists) recurse as deep as the input says.
inline constexpr uint32_t kMaxDimensions = 64;

struct ParseOptions {
  /// Run the !TEMPLATE checks [C22] even when the text has no !TEMPLATE directive.
  bool force_template_check = false;
  /// Stop after this many errors (a final too-many-errors diagnostic says so).
  size_t max_errors = 50;
  /// Keep ordinary `#` comments and the line of every statement (ParseResult::source), so a
  /// formatter can put the comments back; off by default (they cost memory).
  bool keep_comments = false;
  /// Read every `#@` attribute now, reporting one that is none (bad-attribute) or a name
  /// given twice to an item (duplicate-attribute), as `dudley check` does. Otherwise their
  /// text is kept and read when the binder uses it (a layout's readers pay for attributes
  /// only then).
  bool check_attributes = false;
};

/// An ordinary `#` comment of layout text, as ParseOptions::keep_comments keeps it.
struct LayoutComment {
  uint32_t line = 0;      ///< 1-based line it is on
  bool own_line = false;  ///< alone on its line (else it follows a declaration)
  std::string text;       ///< from the '#', trailing blanks removed
};

/// Where the text put things that the layout model does not keep.
struct LayoutSource {
  std::vector<LayoutComment> comments;    ///< in text order
  std::vector<uint32_t> statement_lines;  ///< line of each Layout::statements entry
};

struct ParseResult {
  Layout layout;  ///< Everything parsed up to the first syntax error (complete when ok()).
  std::vector<Diagnostic> diagnostics;
  LayoutSource source;  ///< filled when ParseOptions::keep_comments
  bool ok() const { return diagnostics.empty(); }
};

/// Parses and statically checks layout text. Never throws for bad text: problems come back as
/// diagnostics, in text order. A syntax error ends parsing (to avoid cascades); semantic errors
/// are all reported.
ParseResult parse_layout(std::string_view text, const ParseOptions& options = {});

/// The error load_layout and layout_from_text throw for invalid layout text: an Error for
/// its first diagnostic (kSyntax or kSemantic, with name:line:col) that carries all of them
/// and the text, so a tool can show each with its source line, as `dudley check` does.
class LayoutError : public Error {
 public:
  LayoutError(ErrorCategory category, std::vector<Diagnostic> diagnostics, std::string text,
              const std::string& name);
  const std::vector<Diagnostic>& diagnostics() const noexcept { return *diagnostics_; }
  const std::string& text() const noexcept { return *text_; }
  /// Each diagnostic with its code.
  std::vector<ErrorDetail> details() const override;
  /// Each diagnostic as `dudley check` shows it: name:line:col, the source line, a caret.
  std::string report() const override;

 private:
  // Shared: exceptions are copied, and a layout's text can be large.
  std::shared_ptr<const std::vector<Diagnostic>> diagnostics_;
  std::shared_ptr<const std::string> text_;
};

/// Reads and parses a layout file; throws LayoutError for invalid text, Error(kIo) when it
/// cannot be read.
Layout load_layout(const std::string& path, const ParseOptions& options = {});

/// Parses layout text that came from `name` (a file, or "run.bin#layout" for a layout
/// embedded in its data file); throws like load_layout, with name:line:col.
Layout layout_from_text(std::string_view text, const std::string& name,
                        const ParseOptions& options = {});

/// Checks that every struct, struct member and data item whose size the layout alone fixes
/// (literal shapes, explicit offsets and addresses) ends within 2^64 bytes; appends a
/// size-overflow diagnostic at each one that does not.
void check_static_extents(const Layout& layout, std::vector<Diagnostic>& out);

/// Applies the !TEMPLATE rules [C22] to a parsed layout; appends what breaks them.
void check_template_rules(const Layout& layout, std::vector<Diagnostic>& out);

}  // namespace dudley::layout
