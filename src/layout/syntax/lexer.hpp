// Tokenizer for Dudley layout text [C1]. Works on the whole text in memory; tokens are views
// into it, so lexing allocates nothing but the lists of document comments and attributes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dudley/layout/syntax/attribute_text.hpp"

namespace dudley::layout {

enum class Tok : uint8_t {
  kEnd,
  kSymbol,        ///< [A-Za-z_][A-Za-z0-9_]*
  kInteger,       ///< decimal or 0x hex, unsigned (a sign is a separate token)
  kPrefixedType,  ///< '<', '>' or '|' immediately followed by a symbol: "<i4"
  kColonEq,       ///< :=
  kEq,            ///< =
  kAt,            ///< @
  kBangAt,        ///< !@
  kBangDudley,    ///< !DUDLEY
  kBangTemplate,  ///< !TEMPLATE
  kLBracket,
  kRBracket,
  kLBrace,
  kRBrace,
  kComma,
  kSlash,
  kDotDot,  ///< ..
  kPlus,
  kMinus,
  kError,  ///< lexical error; Lexer::error() says what
};

/// Printable description of a token kind for messages ("'='", "a name", ...).
const char* describe(Tok kind);

struct Token {
  Tok kind = Tok::kEnd;
  bool overflow = false;  ///< kInteger: the literal does not fit in 64 bits
  uint32_t line = 1;
  uint32_t column = 1;
  uint64_t offset = 0;
  std::string_view text;
  uint64_t value = 0;  ///< kInteger
};

/// An ordinary `#` comment: its text from the '#' (trailing blanks removed), its line, and
/// whether it stands alone on its line (or follows a declaration).
struct SourceComment {
  uint32_t line = 0;
  bool own_line = false;
  std::string_view text;
};

/// A `#@` comment: its text after the marker (trimmed) and where the comment stands.
struct AttributeComment {
  uint64_t offset = 0;  ///< of the `#@`
  uint32_t line = 0;
  uint32_t column = 0;       ///< of the `#@`
  uint32_t text_column = 0;  ///< where `text` begins on its line
  std::string_view text;
};

/// A `#!` comment: its stripped text and where it stands.
struct DocComment {
  uint64_t offset = 0;
  uint32_t line = 0;
  uint32_t column = 0;
  std::string_view text;
};

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  /// The next token; after kEnd or kError it keeps returning that token.
  Token next();
  /// As next(), into `out` (the parser's hot path: no temporary token).
  void next_into(Token& out);

  /// After a kError token: what was wrong and the diagnostic kind ("bad-character", ...).
  const std::string& error() const { return error_; }
  const char* error_code() const { return error_code_; }

  /// Every `#!` comment seen so far, in text order.
  const std::vector<DocComment>& docs() const { return docs_; }
  /// The `#@` attribute comments seen since forget_attributes(), in text order.
  const std::vector<AttributeComment>& attributes() const { return attributes_; }
  /// With check_attributes(): the name each of attributes() gives.
  const std::vector<std::string>& attribute_names() const { return attribute_names_; }
  /// Drops the attribute comments seen so far (the parser has attached them).
  void forget_attributes() {
    attributes_.clear();
    attribute_names_.clear();
  }
  /// Read every `#@` comment as an attribute, stopping at the first that is none
  /// ("bad-attribute"); off by default (the binder reads them when it uses them).
  void check_attributes() { check_attributes_ = true; }

  /// Also collect ordinary `#` comments (for `fmt`, which keeps them); off by default.
  void keep_comments() { keep_comments_ = true; }

  /// Every ordinary comment seen so far, in text order (when keep_comments() was called).
  const std::vector<SourceComment>& comments() const { return comments_; }

 private:
  void scan(Token& out);
  void scan_integer(Token& out, size_t start);
  void scan_directive(Token& out, size_t start);
  void fail_bad_character(Token& out, size_t start);
  void emit(Token& t, Tok kind, size_t start, size_t end);
  void fail_into(Token& t, const char* code, std::string message, size_t at);
  Token make(Tok kind, size_t start, size_t end);
  Token fail(const char* code, std::string message, size_t at);
  void skip_space_and_comments();
  void newline(size_t next_line_start);
  bool comment(size_t hash);
  bool attribute(size_t hash, size_t end);

  std::string_view text_;
  size_t pos_ = 0;
  uint32_t line_ = 1;
  size_t line_start_ = 0;
  bool done_ = false;
  Token last_;
  std::string error_;
  const char* error_code_ = "";
  std::vector<DocComment> docs_;
  std::vector<AttributeComment> attributes_;
  std::vector<std::string> attribute_names_;
  std::string attribute_error_;
  bool keep_comments_ = false;
  bool check_attributes_ = false;
  std::vector<SourceComment> comments_;
};

}  // namespace dudley::layout
