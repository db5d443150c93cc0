// Decoding the fixed-width text types to UTF-8. Trailing NUL code units are padding and
// are dropped; invalid sequences become U+FFFD, so the result is always valid UTF-8.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace dudley {

/// Dudley S1 / numpy S: cp1252, or latin-1 when a byte cp1252 leaves undefined (0x81,
/// 0x8D, 0x8F, 0x90, 0x9D) occurs, as the Dudley spec recommends.
std::string decode_s1(std::string_view bytes);
/// U1: UTF-8, checked.
std::string decode_utf8(std::string_view bytes);
/// U2: UTF-16 code units (native order), surrogate pairs joined.
std::string decode_utf16(const uint16_t* units, size_t count);
/// U4: UTF-32 code units (native order).
std::string decode_utf32(const uint32_t* units, size_t count);

/// Appends the UTF-8 form of a code point (U+FFFD for invalid ones).
void append_utf8(std::string& out, uint32_t code_point);
/// Whether `text` is well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing
/// above U+10FFFF): what JSON, YAML and Avro strings must hold. Names and attributes read
/// from HDF5, netCDF or numpy's S type can be any bytes (Latin-1 "\xb5m" for micrometres).
bool is_utf8(std::string_view text);
/// The code points of UTF-8 text (for UCS-4 storage); nullopt when it is not valid UTF-8.
std::optional<std::u32string> utf8_to_utf32(std::string_view text);

/// `text` with its control characters (C0, DEL and C1, also as stray bytes 0x80-0x9F that
/// are not UTF-8) and the characters that reorder text around them (U+200E/F,
/// U+202A-U+202E, U+2066-U+2069) written as escapes ("\n", "\r", "\t", "\x1b",
/// "\u009b", "\x9b", "\u202e"), so that text from a file printed to a terminal never moves
/// its cursor, clears it, starts a line of its own or reads as other text; `keep_line_ends`
/// keeps "\n" and "\t" (a multi-line report). Other bytes that are not UTF-8 (Latin-1 text)
/// are kept. Text without such characters comes back unchanged.
std::string escape_controls(std::string_view text, bool keep_line_ends = false);

/// `text` as a quoted name shows it, every byte visible: what escape_controls escapes, and
/// '\\', the `quote` character (0: none) and bytes that are not UTF-8 ("\\xb5"); whole
/// UTF-8 sequences are kept. The text between the quotes of model::quoted_name.
std::string escape_text(std::string_view text, char quote = 0);

/// Standard base64 (RFC 4648, with '=' padding) of `bytes`: JSON's and YAML's `!!binary`
/// spelling of raw bytes.
std::string encode_base64(std::span<const uint8_t> bytes);
/// The bytes of base64 text (whitespace ignored); nullopt for any other character or
/// misplaced padding.
std::optional<std::vector<uint8_t>> decode_base64(std::string_view text);

}  // namespace dudley
