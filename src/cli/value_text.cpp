#include "cli/value_text.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <algorithm>

#include <fmt/compile.h>

#include "cli/tree_json.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/float16.hpp"
#include "dudley/core/text.hpp"
#include "dudley/core/vlen.hpp"

namespace dudley::cli {

void Output::flush() {
  if (buffer_.size() == 0 || file_ == nullptr) return;
  const bool written = std::fwrite(buffer_.data(), 1, buffer_.size(), file_) == buffer_.size();
  flushed_ += buffer_.size();
  buffer_.clear();
  // A full disk or a closed pipe: the command fails saying so, never exit 0 with output lost.
  if (!written || std::fflush(file_) != 0) {
    throw Error(ErrorCategory::kIo,
                fmt::format("cannot write the output (standard output): {}", std::strerror(errno)));
  }
}

Output::~Output() {
  try {
    flush();
  } catch (const Error&) {
    // Unwinding already, or at the end of main: the stream's error flag stays set, and
    // main's last check of stdout reports it.
  }
}

namespace {

void put(fmt::memory_buffer& b, std::string_view text) {
  b.append(text.data(), text.data() + text.size());
}

template <typename T>
T load(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// JSON has no NaN or infinities: they print as strings, as values_json does.
bool non_finite(fmt::memory_buffer& b, double v) {
  if (std::isnan(v)) {
    put(b, "\"NaN\"");
  } else if (std::isinf(v)) {
    put(b, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
  } else {
    return false;
  }
  return true;
}

// A float prints with a point or exponent, so 2.0 stays a float ("2.0", not "2").
void ensure_point(fmt::memory_buffer& b, size_t from) {
  for (size_t i = from; i < b.size(); ++i) {
    if (b[i] == '.' || b[i] == 'e') return;
  }
  put(b, ".0");
}

// Most bytes one float's text takes ("-1.2345678901234567e-308", "\"-Infinity\"").
constexpr size_t kMaxFloatText = 32;

// `count` floats of type F, `stride` bytes apart from `p`, separated by commas: each the
// shortest text that reads back as it (fmt's Dragonbox, its format compiled: no format
// string parsed per value), with a point or an exponent. The inner loop of a dump: the
// buffer grown once for the run and written through a pointer.
template <typename F>
void float_run(fmt::memory_buffer& b, const unsigned char* p, uint64_t count, uint64_t stride) {
  const size_t from = b.size();
  b.resize(from + count * (kMaxFloatText + 1));
  char* out = b.data() + from;
  for (uint64_t i = 0; i < count; ++i, p += stride) {
    if (i > 0) *out++ = ',';
    const F v = load<F>(p);
    if (!std::isfinite(v)) {
      fmt::memory_buffer special;
      non_finite(special, static_cast<double>(v));
      out = std::copy(special.begin(), special.end(), out);
      continue;
    }
    char* start = out;
    out = fmt::format_to(out, FMT_COMPILE("{}"), v);
    // Integral values print without a point ("2"): a float stays one ("2.0").
    if (std::find_if(start, out, [](char c) { return c == '.' || c == 'e'; }) == out) {
      *out++ = '.';
      *out++ = '0';
    }
  }
  b.resize(static_cast<size_t>(out - b.data()));
}

// One float's text, as float_run writes it.
template <typename F>
void float_text(fmt::memory_buffer& b, F v) {
  float_run<F>(b, reinterpret_cast<const unsigned char*>(&v), 1, sizeof v);
}

void string_text(fmt::memory_buffer& b, const std::string& s) {
  const std::string quoted = json_text(nlohmann::ordered_json(s));
  b.append(quoted.data(), quoted.data() + quoted.size());
}

std::string decode_text(const DType& t, const unsigned char* p, size_t n) {
  switch (t.encoding()) {
    case TextEncoding::kAscii:
      return decode_s1({reinterpret_cast<const char*>(p), n});
    case TextEncoding::kUtf8:
      return decode_utf8({reinterpret_cast<const char*>(p), n});
    case TextEncoding::kUtf16: {
      std::vector<uint16_t> u(n);
      if (n > 0) std::memcpy(u.data(), p, 2 * n);
      return decode_utf16(u.data(), n);
    }
    case TextEncoding::kUtf32: {
      std::vector<uint32_t> u(n);
      if (n > 0) std::memcpy(u.data(), p, 4 * n);
      return decode_utf32(u.data(), n);
    }
  }
  return {};
}

}  // namespace

std::string half_text(uint16_t bits) {
  fmt::memory_buffer b;
  if (non_finite(b, half_to_float(bits))) return fmt::to_string(b);
  put(b, half_shortest_text(bits));
  ensure_point(b, 0);
  return fmt::to_string(b);
}

ValueWriter::ValueWriter(Output& out, DType dtype, std::vector<int64_t> shape, Options options)
    : out_(out), dtype_(std::move(dtype)), nest_(std::move(shape)), options_(std::move(options)) {
  unit_bytes_ = dtype_.size();
  if (dtype_.joins_units() && !nest_.empty() && options_.last_dim_is_string) {
    unit_bytes_ *= static_cast<uint64_t>(nest_.back());
    nest_.pop_back();
  }
  units_ = 1;
  for (int64_t d : nest_) units_ *= static_cast<uint64_t>(d);  // the caller checked the size
  wanted_ = options_.max_values == 0 ? units_ : std::min(units_, options_.max_values);
  index_.assign(nest_.size(), 0);
  float_runs_ = dtype_.kind() == DTypeKind::kFloat && unit_bytes_ == dtype_.size() &&
                (unit_bytes_ == 8 || unit_bytes_ == 4) && !dtype_.needs_swap();
}

void ValueWriter::unit(const unsigned char* p) {
  fmt::memory_buffer& b = out_.buffer();
  const uint64_t n = dtype_.size();
  switch (dtype_.kind()) {
    case DTypeKind::kBool:
      put(b, *p != 0 ? "true" : "false");
      return;
    case DTypeKind::kInt: {
      const int64_t v = n == 1   ? load<int8_t>(p)
                        : n == 2 ? load<int16_t>(p)
                        : n == 4 ? load<int32_t>(p)
                                 : load<int64_t>(p);
      put(b, fmt::format_int(v).c_str());
      return;
    }
    case DTypeKind::kUInt:
    case DTypeKind::kPointer: {
      const uint64_t v = n == 1   ? load<uint8_t>(p)
                         : n == 2 ? load<uint16_t>(p)
                         : n == 4 ? load<uint32_t>(p)
                                  : load<uint64_t>(p);
      put(b, fmt::format_int(v).c_str());
      return;
    }
    case DTypeKind::kFloat:
      if (n == 8) return float_text(b, load<double>(p));
      if (n == 4) return float_text(b, load<float>(p));
      if (n == 2) return put(b, half_text(load<uint16_t>(p)));
      break;
    case DTypeKind::kComplex: {
      const uint64_t half = n / 2;
      b.push_back('[');
      for (uint64_t part = 0; part < 2; ++part) {
        const unsigned char* q = p + part * half;
        if (part == 1) b.push_back(',');
        if (half == 8) float_text(b, load<double>(q));
        if (half == 4) float_text(b, load<float>(q));
        if (half == 2) put(b, half_text(load<uint16_t>(q)));
      }
      b.push_back(']');
      return;
    }
    case DTypeKind::kText:
      if (dtype_.is_string()) {  // one NUL-padded string per element, shown without its padding
        std::string s = decode_text(dtype_, p, static_cast<size_t>(dtype_.text_length()));
        while (!s.empty() && s.back() == '\0') s.pop_back();
        string_text(b, s);
        return;
      }
      string_text(b, decode_text(dtype_, p, static_cast<size_t>(unit_bytes_ / n)));
      return;
    case DTypeKind::kVLen:
      if (dtype_.base().joins_units()) {  // UTF-8 text of any length
        VLenElement e;
        std::memcpy(&e, p, sizeof e);
        string_text(b, std::string(e.bytes(1)));
        return;
      }
      break;
    default:
      break;
  }
  const std::string text = json_text(element_json(dtype_, p));
  b.append(text.data(), text.data() + text.size());
}

// "LABEL[3, 0:4]" for the row or value about to be written: stored indexes where known.
void ValueWriter::line_prefix() {
  fmt::memory_buffer& b = out_.buffer();
  put(b, options_.label);
  const bool row = options_.lines == LineStyle::kRow;
  std::vector<std::string> parts;
  size_t d = 0;  // result dimension
  auto result_part = [&](size_t dim) {
    if (row && dim + 1 == nest_.size()) return options_.row_slice;
    const int64_t i = index_[dim];
    return fmt::format("{}", options_.stored_index ? options_.stored_index(dim, i) : i);
  };
  if (options_.fixed.empty()) {
    for (; d < nest_.size(); ++d) parts.push_back(result_part(d));
  } else {
    for (int64_t f : options_.fixed) {
      parts.push_back(f >= 0 ? fmt::format("{}", f) : result_part(d++));
    }
  }
  if (!parts.empty()) fmt::format_to(std::back_inserter(b), "[{}]", fmt::join(parts, ", "));
  put(b, " = ");
}

void ValueWriter::open_brackets(size_t from) {
  for (size_t d = from; d < nest_.size(); ++d) out_.buffer().push_back('[');
}

void ValueWriter::masked_unit(const unsigned char* p, bool masked) {
  if (!masked) return unit(p);
  const char* text = options_.json ? "null" : "--";
  out_.buffer().append(text, text + std::strlen(text));
}

bool ValueWriter::add(const void* data, uint64_t n, const uint8_t* masked) {
  const auto* p = static_cast<const unsigned char*>(data);
  fmt::memory_buffer& b = out_.buffer();
  const size_t rank = nest_.size();
  const bool text_lines = !options_.json && options_.lines != LineStyle::kArray;
  for (uint64_t k = 0; k < n && done_ < wanted_; ++k, p += unit_bytes_) {
    if (text_lines) {
      // Rows: a line per innermost row; values: a line per value.
      const bool row_start = options_.lines == LineStyle::kValue || rank == 0 || index_.back() == 0;
      if (row_start) {
        line_prefix();
        if (options_.lines == LineStyle::kRow && rank > 0) b.push_back('[');
      } else {
        b.push_back(',');
      }
      masked_unit(p, masked && masked[k]);
      const bool row_end =
          options_.lines == LineStyle::kValue || rank == 0 || index_.back() + 1 == nest_.back();
      if (row_end) {
        if (options_.lines == LineStyle::kRow && rank > 0) b.push_back(']');
        b.push_back('\n');
      }
    } else {
      if (done_ == 0) open_brackets(0);
      if (float_runs_ && masked == nullptr && rank > 0) {
        // The rest of this innermost row but its last value in one loop (bounded, so that
        // the buffer flushes); the last goes the common way, which closes the row.
        const uint64_t run = std::min({static_cast<uint64_t>(nest_.back() - index_.back()), n - k,
                                       wanted_ - done_, kFloatRun}) -
                             1;
        if (run > 0) {
          if (unit_bytes_ == 8) {
            float_run<double>(b, p, run, unit_bytes_);
          } else {
            float_run<float>(b, p, run, unit_bytes_);
          }
          b.push_back(',');
          p += run * unit_bytes_;
          k += run;
          done_ += run;
          index_.back() += static_cast<int64_t>(run);
        }
      }
      masked_unit(p, masked && masked[k]);
    }
    ++done_;
    // Next index (an odometer); `closed` dimensions rolled over.
    size_t closed = 0;
    for (size_t d = rank; d-- > 0;) {
      if (++index_[d] < nest_[d]) break;
      index_[d] = 0;
      ++closed;
    }
    if (!text_lines && done_ < wanted_) {
      for (size_t i = 0; i < closed; ++i) b.push_back(']');
      b.push_back(',');
      if (options_.json && (options_.lines == LineStyle::kValue ||
                            (options_.lines == LineStyle::kRow && closed > 0))) {
        b.push_back('\n');
      }
      open_brackets(rank - closed);
    }
    out_.maybe_flush();
  }
  if (done_ == wanted_ && wanted_ < units_) truncated_ = true;
  return done_ < wanted_;
}

void ValueWriter::finish() {
  if (finished_) return;
  finished_ = true;
  fmt::memory_buffer& b = out_.buffer();
  const bool text_lines = !options_.json && options_.lines != LineStyle::kArray;
  if (text_lines) {
    if (truncated_) {
      // A row cut short is closed first.
      if (options_.lines == LineStyle::kRow && !nest_.empty() && index_.back() != 0) {
        put(b, ",...]\n");
      }
      fmt::format_to(std::back_inserter(b), "{} ... {} more values\n", options_.label,
                     units_ - done_);
    }
    return;
  }
  if (done_ == 0 && nest_.empty()) {
    put(b, "null");  // an error before the one value
    return;
  }
  if (done_ == 0) {
    open_brackets(0);  // nothing was added: an empty array or an error before the first
  } else if (truncated_ && !options_.json) {
    put(b, ",...");
  }
  // Brackets still open: every dimension for a complete array (the odometer wrapped), else
  // the ones the next unit would have been inside.
  for (size_t d = 0; d < nest_.size(); ++d) b.push_back(']');
}

}  // namespace dudley::cli
