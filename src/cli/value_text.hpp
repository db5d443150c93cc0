// Array values as text, written as they are read: the streaming half of `dump`. An array of
// any size goes through in blocks, so memory is a block and an output buffer, and output
// appears as it is produced.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "dudley/core/dtype.hpp"

namespace dudley::cli {

/// Buffered stdout (or any FILE*): fmt appends to one buffer, written out each MiB.
class Output {
 public:
  explicit Output(std::FILE* file) : file_(file) {
    buffer_.reserve(kFlushAt + (size_t{64} << 10));  // grown once, not doubled up to a MiB
  }
  /// An output that keeps everything written to it (flush() writes nothing): text made
  /// aside, to be copied to another output whole or dropped.
  Output() : file_(nullptr) {}
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;
  ~Output();

  fmt::memory_buffer& buffer() { return buffer_; }
  void write(std::string_view text) {
    buffer_.append(text.data(), text.data() + text.size());
    maybe_flush();
  }
  /// Writes the buffer out once it holds a MiB. Throws Error(kIo) when the output refuses
  /// it (a full disk, a closed pipe).
  void maybe_flush() {
    if (buffer_.size() >= kFlushAt) flush();
  }
  /// Writes the buffer out; Error(kIo) when it cannot be.
  void flush();
  /// Bytes written so far, flushed or not: a mark for since().
  uint64_t written() const { return flushed_ + buffer_.size(); }
  /// What was written after `mark` (a written() value), while all of it is still in the
  /// buffer; nullopt once part of it has been flushed.
  std::optional<std::string_view> since(uint64_t mark) const {
    if (mark < flushed_ || mark > written()) return std::nullopt;
    const size_t at = mark - flushed_;
    return std::string_view(buffer_.data() + at, buffer_.size() - at);
  }

 private:
  static constexpr size_t kFlushAt = size_t{1} << 20;
  std::FILE* file_;
  fmt::memory_buffer buffer_;
  uint64_t flushed_ = 0;  ///< bytes written out by flush()
};

/// How many values a line holds in text output.
enum class LineStyle {
  kArray,  ///< one array a line: `PATH = [[1,2],[3,4]]`
  kRow,    ///< one innermost row a line: `PATH[1, :] = [3,4]`
  kValue,  ///< one value a line: `PATH[1, 0] = 3`
};

/// The shortest decimal text that reads back as the same binary16 value (0.1, not
/// 0.099975586). NaN and infinities as JSON strings ("NaN", "Infinity", "-Infinity").
std::string half_text(uint16_t bits);

/// Writes the values of one array, given block by block in C order, as nested lists (JSON
/// syntax: floats in shortest round-trip form, NaN and infinities as strings, text as
/// strings, complex as [re, im], structs as objects), or in rows or single values with
/// their indexes. The array's elements must be in native byte order.
class ValueWriter {
 public:
  struct Options {
    LineStyle lines = LineStyle::kArray;
    bool json = false;  ///< inside a JSON document: no labels, newlines only between values
    /// At most this many values (strings count one); 0: all. Text ends a cut array with
    /// "...", JSON just closes it.
    uint64_t max_values = 0;
    std::string label;  ///< text row/value styles: printed before each line's indexes
    /// Text row/value styles: the index in the stored array of result index `i` along result
    /// dimension `d` (a selection's start + i * step); unset: `i`. Dimensions an integer
    /// index removed are printed by `fixed` (one entry per stored dimension; -1 for those
    /// the result keeps).
    std::function<int64_t(size_t d, int64_t i)> stored_index;
    std::vector<int64_t> fixed;
    /// Text row style: the innermost dimension's part of each row's label, the slice the
    /// row shows of it in stored indexes (`1:3`, `::-1`); ":" when it is all of it.
    std::string row_slice = ":";
    /// Text: the last dimension is the strings' length (false: each code unit is a string
    /// of its own, as when a selection picked one unit of each).
    bool last_dim_is_string = true;
  };

  /// `shape` is the result's shape; for text the last dimension is the strings' length.
  ValueWriter(Output& out, DType dtype, std::vector<int64_t> shape, Options options);

  /// Bytes per unit of add(): an element, or a whole string for text.
  uint64_t unit_bytes() const { return unit_bytes_; }
  /// Units the array holds.
  uint64_t units() const { return units_; }
  /// Units add() still wants (max_values reached: 0).
  uint64_t wanted() const { return wanted_; }

  /// Writes `n` more units starting at `data`. Returns false once max_values is reached.
  /// `masked`, when given, holds one byte per unit: a non-zero one prints the unit as
  /// masked (`--` in text, as numpy prints masked arrays; null in JSON).
  bool add(const void* data, uint64_t n, const uint8_t* masked = nullptr);
  /// Closes the brackets still open (after an error too, so the JSON stays well-formed).
  void finish();
  /// True when max_values cut the array.
  bool truncated() const { return truncated_; }

 private:
  void unit(const unsigned char* p);
  void masked_unit(const unsigned char* p, bool masked);
  void line_prefix();
  void open_brackets(size_t from);

  Output& out_;
  DType dtype_;
  std::vector<int64_t> nest_;  ///< shape of the nesting of units (text: without the strings)
  Options options_;
  uint64_t unit_bytes_ = 0, units_ = 0, done_ = 0, wanted_ = 0;
  std::vector<int64_t> index_;  ///< index of the next unit in nest_
  /// float32 or float64 in native order: JSON and array lines print rows in one loop.
  bool float_runs_ = false;
  static constexpr uint64_t kFloatRun = 4096;  ///< values a loop prints before a flush
  bool truncated_ = false, finished_ = false;
};

}  // namespace dudley::cli
