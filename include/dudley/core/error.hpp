// One error type for the whole toolkit. Every failure a user can cause (bad layout text, bad
// binary data, bad arguments) is reported as a dudley::Error carrying where it happened, so
// the CLI can print it like a compiler diagnostic and scripts can rely on its category.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace dudley {

/// What kind of failure an Error reports. Stable: scripts and tests switch on it.
enum class ErrorCategory {
  kSyntax,    ///< Text that does not follow a grammar (layout, typestr, ...).
  kSemantic,  ///< Well-formed text that breaks a rule of the language (undefined name, ...).
  kType,      ///< A data type that is unknown, unsupported or used where it may not be.
  kData,      ///< Binary data that is inconsistent with its description.
  kIo,        ///< The operating system refused an operation (open, read, write).
  kUsage,     ///< A caller passed arguments that make no sense.
  kLimit,     ///< A documented implementation limit was exceeded.
  kLoss,      ///< An output cannot carry all it was asked to (LossError names every item).
};

/// Short lowercase name of a category ("syntax", "io", ...).
const char* to_string(ErrorCategory category);

/// Where something is: a file path plus a text position (line:column, both from 1) or a
/// byte offset into binary data. Unknown parts are left empty / zero.
struct Location {
  std::string path;                     ///< File the problem is in; empty for in-memory text.
  uint32_t line = 0;                    ///< 1-based line for text, 0 when not text.
  uint32_t column = 0;                  ///< 1-based column for text, 0 when not text.
  std::optional<uint64_t> byte_offset;  ///< Offset into binary data, when relevant.

  /// A whole file.
  static Location file(std::string path) { return Location{std::move(path), 0, 0, std::nullopt}; }
  /// A position in a text file.
  static Location text(std::string path, uint32_t line, uint32_t column) {
    return Location{std::move(path), line, column, std::nullopt};
  }
  /// A byte offset in a binary file.
  static Location binary(std::string path, uint64_t offset) {
    return Location{std::move(path), 0, 0, offset};
  }

  /// "path:line:col", "path:@offset" or "path", whichever applies; "<input>" when no path.
  std::string to_string() const;
};

/// One of several problems an error carries (each diagnostic of a layout that does not
/// parse), as tools list them: place in the text, a stable code, the message.
struct ErrorDetail {
  uint32_t line = 0;
  uint32_t column = 0;
  std::string code;  ///< "undefined-parameter", ...
  std::string message;
};

/// The exception every dudley function throws for a problem the caller can act on.
class Error : public std::runtime_error {
 public:
  /// Builds an error; what() is "location: error: message".
  Error(ErrorCategory category, std::string message, Location location = {});

  ErrorCategory category() const noexcept { return category_; }
  /// The bare message, without location prefix.
  const std::string& message() const noexcept { return message_; }
  const Location& location() const noexcept { return location_; }

  /// Every problem the error stands for, when it stands for several (a layout's
  /// diagnostics); empty for a single one.
  virtual std::vector<ErrorDetail> details() const { return {}; }
  /// The error as a person should read it, ending in a newline: what() by default; a
  /// layout error shows each diagnostic with its source line and a caret.
  virtual std::string report() const { return std::string(what()) + "\n"; }

 private:
  ErrorCategory category_;
  std::string message_;
  Location location_;
};

/// Rebuilds an Error from its what() text ("path:@8: error: message", "path:3:4: error: ...",
/// "error: ..."), the form in which model nodes keep what stopped them; text in no such form
/// becomes the message.
Error error_from_text(ErrorCategory category, const std::string& what);

}  // namespace dudley
