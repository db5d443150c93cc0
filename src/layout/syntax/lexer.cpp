#include "lexer.hpp"

#include "dudley/layout/syntax/attribute_text.hpp"
#include "dudley/layout/syntax/parser.hpp"

#include <array>
#include <cctype>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <fmt/format.h>

namespace dudley::layout {

const char* describe(Tok kind) {
  switch (kind) {
    case Tok::kEnd:
      return "end of file";
    case Tok::kSymbol:
      return "a name";
    case Tok::kInteger:
      return "an integer";
    case Tok::kPrefixedType:
      return "a prefixed type";
    case Tok::kColonEq:
      return "':='";
    case Tok::kEq:
      return "'='";
    case Tok::kAt:
      return "'@'";
    case Tok::kBangAt:
      return "'!@'";
    case Tok::kBangDudley:
      return "'!DUDLEY'";
    case Tok::kBangTemplate:
      return "'!TEMPLATE'";
    case Tok::kLBracket:
      return "'['";
    case Tok::kRBracket:
      return "']'";
    case Tok::kLBrace:
      return "'{'";
    case Tok::kRBrace:
      return "'}'";
    case Tok::kComma:
      return "','";
    case Tok::kSlash:
      return "'/'";
    case Tok::kDotDot:
      return "'..'";
    case Tok::kPlus:
      return "'+'";
    case Tok::kMinus:
      return "'-'";
    case Tok::kError:
      return "an invalid token";
  }
  return "?";
}

namespace {

// Character classes by table: the lexer's inner loops test one byte at a time.
constexpr uint8_t kSymbolStart = 1, kSymbolChar = 2, kSpace = 4;
constexpr std::array<uint8_t, 256> kCharClass = [] {
  std::array<uint8_t, 256> t{};
  for (int c = 'A'; c <= 'Z'; ++c) t[c] = kSymbolStart | kSymbolChar;
  for (int c = 'a'; c <= 'z'; ++c) t[c] = kSymbolStart | kSymbolChar;
  t['_'] = kSymbolStart | kSymbolChar;
  for (int c = '0'; c <= '9'; ++c) t[c] = kSymbolChar;
  t[' '] = t['\t'] = t['\f'] = t['\v'] = kSpace;
  return t;
}();
inline bool is_symbol_start(unsigned char c) {
  return kCharClass[c] & kSymbolStart;
}
inline bool is_symbol_char(unsigned char c) {
  return kCharClass[c] & kSymbolChar;
}
inline bool is_space(unsigned char c) {
  return kCharClass[c] & kSpace;
}

// Length of the valid UTF-8 sequence at s, or 0 when it is not one.
size_t utf8_sequence_length(std::string_view s) {
  auto c = static_cast<unsigned char>(s[0]);
  if (c < 0x80) return 1;
  size_t n;
  uint32_t cp;
  if ((c & 0xE0) == 0xC0) {
    n = 2;
    cp = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3;
    cp = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (s.size() < n) return 0;
  for (size_t i = 1; i < n; ++i) {
    auto d = static_cast<unsigned char>(s[i]);
    if ((d & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (d & 0x3F);
  }
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

std::string_view strip(std::string_view s) {
  while (!s.empty() && (is_space(static_cast<unsigned char>(s.front())))) s.remove_prefix(1);
  while (!s.empty() && (is_space(static_cast<unsigned char>(s.back())))) s.remove_suffix(1);
  return s;
}

}  // namespace

Token Lexer::make(Tok kind, size_t start, size_t end) {
  Token t;
  t.kind = kind;
  t.line = line_;
  t.column = static_cast<uint32_t>(start - line_start_ + 1);
  t.offset = start;
  t.text = std::string_view(text_.data() + start, end - start);
  pos_ = end;
  return t;
}

void Lexer::emit(Token& t, Tok kind, size_t start, size_t end) {
  t.kind = kind;
  t.overflow = false;
  t.line = line_;
  t.column = static_cast<uint32_t>(start - line_start_ + 1);
  t.offset = start;
  t.text = std::string_view(text_.data() + start, end - start);
  t.value = 0;
  pos_ = end;
}

void Lexer::fail_into(Token& t, const char* code, std::string message, size_t at) {
  t = fail(code, std::move(message), at);
}

Token Lexer::fail(const char* code, std::string message, size_t at) {
  error_code_ = code;
  error_ = std::move(message);
  Token t = make(Tok::kError, at, at);
  done_ = true;
  last_ = t;
  return t;
}

void Lexer::newline(size_t next_line_start) {
  ++line_;
  line_start_ = next_line_start;
  pos_ = next_line_start;
}

// Byte classes for the comment scan: the loop stops only on bytes that need a decision.
namespace {
constexpr uint8_t kLineEnd = 1, kNul = 2, kHigh = 4;
constexpr std::array<uint8_t, 256> kCommentClass = [] {
  std::array<uint8_t, 256> t{};
  t['\n'] = t['\r'] = kLineEnd;
  t[0] = kNul;
  for (int c = 0x80; c < 256; ++c) t[c] = kHigh;
  return t;
}();
}  // namespace

// Handles a comment starting at text_[hash] == '#'. Returns false on a lexical error.
bool Lexer::comment(size_t hash) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(text_.data());
  const size_t size = text_.size();
  size_t end = hash;
  bool ascii = true;
  // Comments are most of a documented layout's bytes: skip plain ASCII in blocks and finish
  // byte by byte from the first byte that needs a decision.
#if defined(__SSE2__)
  const __m128i newline = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
  const __m128i zero = _mm_setzero_si128();
  while (end + 16 <= size) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + end));
    __m128i special = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, newline), _mm_cmpeq_epi8(v, cr)),
                                   _mm_cmpeq_epi8(v, zero));
    // movemask of v itself flags bytes >= 0x80 (non-ASCII).
    const int flagged = _mm_movemask_epi8(special) | _mm_movemask_epi8(v);
    if (flagged != 0) {
      // The bytes before the first flagged one are plain ASCII: start the byte loop there
      // (a short comment's line end is found without looking at its bytes one by one).
      end += static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(flagged)));
      break;
    }
    end += 16;
  }
#else
  constexpr uint64_t kOnes = 0x0101010101010101ull, kHighs = 0x8080808080808080ull;
  auto has_zero_byte = [](uint64_t v) { return (v - kOnes) & ~v & kHighs; };
  while (end + 8 <= size) {
    uint64_t w;
    std::memcpy(&w, bytes + end, 8);
    if ((w & kHighs) != 0 || has_zero_byte(w) || has_zero_byte(w ^ (kOnes * '\n')) ||
        has_zero_byte(w ^ (kOnes * '\r'))) {
      break;
    }
    end += 8;
  }
#endif
  while (end < size) {
    uint8_t cls = kCommentClass[bytes[end]];
    if (cls != 0) {
      if (cls == kLineEnd) break;
      if (cls == kNul) return false;
      ascii = false;
    }
    ++end;
  }
  const bool doc = hash + 1 < size && text_[hash + 1] == '!';
  if (doc) {
    std::string_view body = text_.substr(hash + 2, end - hash - 2);
    for (size_t i = 0; !ascii && i < body.size();) {
      size_t n = utf8_sequence_length(body.substr(i));
      if (n == 0) {
        pos_ = hash + 2 + i;
        error_code_ = "invalid-utf8";
        return false;
      }
      i += n;
    }
    docs_.push_back({hash, line_, static_cast<uint32_t>(hash - line_start_ + 1), strip(body)});
  }
  const bool attribute_comment = !doc && hash + 1 < size && text_[hash + 1] == '@';
  if (attribute_comment && !attribute(hash, end)) return false;
  // Docs and attributes belong to items, and `fmt` writes them from the layout with them.
  if (!doc && !attribute_comment && keep_comments_) {
    size_t last = end;
    while (last > hash && (text_[last - 1] == ' ' || text_[last - 1] == '\t')) --last;
    bool own_line = true;
    for (size_t i = line_start_; i < hash && own_line; ++i) {
      own_line = text_[i] == ' ' || text_[i] == '\t';
    }
    comments_.push_back({line_, own_line, text_.substr(hash, last - hash)});
  }
  pos_ = end;
  return true;
}

// A `#@` attribute comment (docs/layout-language.md): kept as text; with check_attributes()
// it must read as an attribute, or the lexer stops at the mistake ("bad-attribute").
bool Lexer::attribute(size_t hash, size_t end) {
  std::string_view body = text_.substr(hash + 2, end - hash - 2);
  size_t lead = 0;
  while (lead < body.size() && (body[lead] == ' ' || body[lead] == '\t')) ++lead;
  body.remove_prefix(lead);
  while (!body.empty() && (body.back() == ' ' || body.back() == '\t' || body.back() == '\r')) {
    body.remove_suffix(1);
  }
  if (check_attributes_) {
    AttributeTextError mistake;
    std::string name;
    // Values nest no deeper than every model value may (what walks them recurses).
    if (!check_attribute(body, name, mistake, model::kMaxValueDepth)) {
      pos_ = hash + 2 + lead + mistake.offset;
      error_code_ = "bad-attribute";
      attribute_error_ = "attribute: " + mistake.message;
      return false;
    }
    attribute_names_.push_back(std::move(name));
  }
  attributes_.push_back({hash, line_, static_cast<uint32_t>(hash - line_start_ + 1),
                         static_cast<uint32_t>(hash + 2 + lead - line_start_ + 1), body});
  return true;
}

void Lexer::skip_space_and_comments() {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (is_space(static_cast<unsigned char>(c))) {
      ++pos_;
    } else if (c == '\n') {
      newline(pos_ + 1);
    } else if (c == '\r') {
      newline(pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n' ? pos_ + 2 : pos_ + 1);
    } else if (c == '#') {
      size_t hash = pos_;
      if (!comment(hash)) {
        if (error_code_ != std::string_view("invalid-utf8") &&
            error_code_ != std::string_view("bad-attribute")) {
          // A NUL inside a comment: report it where it is.
          size_t nul = hash;
          while (text_[nul] != '\0') ++nul;
          pos_ = nul;
          error_code_ = "bad-character";
        }
        return;
      }
    } else {
      return;
    }
  }
}

// An integer, decimal or hexadecimal; one too large for 64 bits is flagged, not refused
// here (the parser says where it was used).
void Lexer::scan_integer(Token& out, size_t start) {
  const auto c = static_cast<unsigned char>(text_[start]);
  auto at = [&](size_t i) -> unsigned char {
    return start + i < text_.size() ? static_cast<unsigned char>(text_[start + i]) : 0;
  };
  size_t end = start;
  uint64_t value = 0;
  bool overflow = false;
  if (c == '0' && (at(1) == 'x' || at(1) == 'X')) {
    end = start + 2;
    size_t digits = 0;
    while (end < text_.size() && std::isxdigit(static_cast<unsigned char>(text_[end]))) {
      auto d = static_cast<unsigned char>(text_[end]);
      unsigned v = d <= '9' ? d - '0' : (d | 0x20) - 'a' + 10;
      if (value >> 60) overflow = true;
      value = (value << 4) | v;
      ++end;
      ++digits;
    }
    if (digits == 0)
      return fail_into(out, "syntax", "hexadecimal integer '0x' has no digits", start);
  } else {
    while (end < text_.size() && text_[end] >= '0' && text_[end] <= '9') {
      uint64_t d = static_cast<uint64_t>(text_[end] - '0');
      if (__builtin_mul_overflow(value, 10, &value) || __builtin_add_overflow(value, d, &value))
        overflow = true;
      ++end;
    }
  }
  if (end < text_.size() && is_symbol_char(static_cast<unsigned char>(text_[end]))) {
    return fail_into(out, "syntax",
                     fmt::format("malformed integer '{}'",
                                 text_.substr(start, std::min<size_t>(end + 1 - start, 40))),
                     start);
  }
  emit(out, Tok::kInteger, start, end);
  out.value = value;
  out.overflow = overflow;
}

// `!@`, `!DUDLEY` or `!TEMPLATE`.
void Lexer::scan_directive(Token& out, size_t start) {
  auto at = [&](size_t i) -> unsigned char {
    return start + i < text_.size() ? static_cast<unsigned char>(text_[start + i]) : 0;
  };
  if (at(1) == '@') return emit(out, Tok::kBangAt, start, start + 2);
  size_t end = start + 1;
  while (end < text_.size() && is_symbol_char(static_cast<unsigned char>(text_[end]))) ++end;
  std::string_view word = text_.substr(start, end - start);
  if (word == "!DUDLEY") return emit(out, Tok::kBangDudley, start, end);
  if (word == "!TEMPLATE") return emit(out, Tok::kBangTemplate, start, end);
  return fail_into(
      out, "syntax",
      fmt::format("unknown directive '{}' (expected !@, !DUDLEY or !TEMPLATE)", word.substr(0, 40)),
      start);
}

// A character no token starts with, named as the user would see it.
void Lexer::fail_bad_character(Token& out, size_t start) {
  const auto c = static_cast<unsigned char>(text_[start]);
  if (c >= 0x80) {
    size_t n = utf8_sequence_length(text_.substr(start));
    if (n == 0)
      return fail_into(out, "invalid-utf8", "invalid UTF-8 byte outside a comment", start);
    return fail_into(
        out, "bad-character",
        fmt::format("unexpected character '{}' (names are ASCII letters, digits and '_')",
                    text_.substr(start, n)),
        start);
  }
  if (c < 0x20 || c == 0x7F) {
    return fail_into(out, "bad-character", fmt::format("unexpected control character 0x{:02x}", c),
                     start);
  }
  return fail_into(out, "bad-character",
                   fmt::format("unexpected character '{}'", static_cast<char>(c)), start);
}

// Writes the token field by field into the caller's token: a Token built in a temporary
// and copied whole stalls store forwarding (narrow stores, wide loads) on every token.
void Lexer::scan(Token& out) {
  if (done_) {
    out = last_;
    return;
  }
  error_code_ = "";
  skip_space_and_comments();
  if (*error_code_) {
    const char* code = error_code_;
    return fail_into(out, code,
                     std::string_view(code) == "invalid-utf8"
                         ? "invalid UTF-8 in a document comment"
                     : std::string_view(code) == "bad-attribute"
                         ? attribute_error_
                         : "NUL byte in layout text (is this a binary file?)",
                     pos_);
  }
  if (pos_ >= text_.size()) {
    done_ = true;
    emit(out, Tok::kEnd, pos_, pos_);
    last_ = out;
    return;
  }
  const size_t start = pos_;
  const auto c = static_cast<unsigned char>(text_[start]);
  auto at = [&](size_t i) -> unsigned char {
    return start + i < text_.size() ? static_cast<unsigned char>(text_[start + i]) : 0;
  };

  if (is_symbol_start(c)) {
    size_t end = start + 1;
    while (end < text_.size() && is_symbol_char(static_cast<unsigned char>(text_[end]))) ++end;
    return emit(out, Tok::kSymbol, start, end);
  }
  if (c >= '0' && c <= '9') return scan_integer(out, start);
  switch (c) {
    case '<':
    case '>':
    case '|': {
      if (!is_symbol_start(at(1))) {
        return fail_into(out, "syntax",
                         fmt::format("'{}' must be followed directly by a primitive type name",
                                     static_cast<char>(c)),
                         start);
      }
      size_t end = start + 2;
      while (end < text_.size() && is_symbol_char(static_cast<unsigned char>(text_[end]))) ++end;
      return emit(out, Tok::kPrefixedType, start, end);
    }
    case ':':
      if (at(1) == '=') return emit(out, Tok::kColonEq, start, start + 2);
      return fail_into(out, "syntax",
                       "':' must be followed by '=' (':=' declares a parameter or type)", start);
    case '=':
      return emit(out, Tok::kEq, start, start + 1);
    case '@':
      return emit(out, Tok::kAt, start, start + 1);
    case '[':
      return emit(out, Tok::kLBracket, start, start + 1);
    case ']':
      return emit(out, Tok::kRBracket, start, start + 1);
    case '{':
      return emit(out, Tok::kLBrace, start, start + 1);
    case '}':
      return emit(out, Tok::kRBrace, start, start + 1);
    case ',':
      return emit(out, Tok::kComma, start, start + 1);
    case '/':
      return emit(out, Tok::kSlash, start, start + 1);
    case '+':
      return emit(out, Tok::kPlus, start, start + 1);
    case '-':
      return emit(out, Tok::kMinus, start, start + 1);
    case '.':
      if (at(1) == '.') return emit(out, Tok::kDotDot, start, start + 2);
      return fail_into(out, "syntax", "a single '.' is not a token (did you mean '..'?)", start);
    case '!':
      return scan_directive(out, start);
    case '\0':
      return fail_into(out, "bad-character", "NUL byte in layout text (is this a binary file?)",
                       start);
    default:
      break;
  }
  return fail_bad_character(out, start);
}

void Lexer::next_into(Token& out) {
  scan(out);
}

Token Lexer::next() {
  Token t;
  scan(t);
  return t;
}

}  // namespace dudley::layout
