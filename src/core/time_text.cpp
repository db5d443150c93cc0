#include "dudley/core/time_text.hpp"

#include <fmt/format.h>

#include <map>

namespace dudley {
namespace {

using Wide = __int128;

// Floor division and its non-negative remainder.
Wide floor_div(Wide a, Wide b) {
  Wide q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

struct Date {
  Wide year;
  unsigned month, day;
};

// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's civil_from_days).
Date date_of(Wide days) {
  days += 719468;
  const Wide era = floor_div(days, 146097);
  const auto doe = static_cast<unsigned>(days - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  return {static_cast<Wide>(yoe) + era * 400 + (m <= 2 ? 1 : 0), m, d};
}

std::string wide_text(Wide v) {
  if (v >= INT64_MIN && v <= INT64_MAX) return fmt::format("{}", static_cast<int64_t>(v));
  // Beyond int64 (a huge count times its scale): digits by hand.
  const bool negative = v < 0;
  std::string digits;
  do {
    const Wide r = v % 10;
    digits.insert(digits.begin(), static_cast<char>('0' + (negative ? -r : r)));
    v /= 10;
  } while (v != 0);
  return (negative ? "-" : "") + digits;
}

// A year as numpy writes it: printf's "%04d", so at least four characters, a sign included
// ("0878", "-878", "-055").
std::string year_text(Wide year) {
  std::string digits = wide_text(year < 0 ? -year : year);
  const size_t width = year < 0 ? 3 : 4;
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  return (year < 0 ? "-" : "") + digits;
}

}  // namespace

std::string datetime_text(int64_t count, const DType& type) {
  if (count == kNotATime) return "NaT";
  const std::string& unit = type.time_unit();
  if (unit.empty()) return fmt::format("{}", count);
  const Wide n = static_cast<Wide>(count) * static_cast<Wide>(type.time_scale());
  if (unit == "Y") return year_text(1970 + n);
  if (unit == "M") {
    const Wide years = floor_div(n, 12);
    return fmt::format("{}-{:02}", year_text(1970 + years),
                       static_cast<unsigned>(n - years * 12) + 1);
  }
  // Units within a day: how many make a day, and the fraction digits numpy shows.
  struct Sub {
    Wide per_day;
    int fraction_digits;  // -1: hours only, -2: hours and minutes
  };
  static const std::map<std::string, Sub> kSub = {
      {"h", {24, -1}},
      {"m", {Wide{24} * 60, -2}},
      {"s", {86400, 0}},
      {"ms", {Wide{86400} * 1000, 3}},
      {"us", {Wide{86400} * 1000000, 6}},
      {"ns", {Wide{86400} * 1000000000, 9}},
      {"ps", {Wide{86400} * 1000000000 * 1000, 12}},
      {"fs", {Wide{86400} * 1000000000 * 1000000, 15}},
      {"as", {Wide{86400} * 1000000000 * 1000000000, 18}},
  };
  Wide days = n;
  if (unit == "W") days = n * 7;
  const auto sub = kSub.find(unit);
  Wide within = 0;
  if (sub != kSub.end()) {
    days = floor_div(n, sub->second.per_day);
    within = n - days * sub->second.per_day;
  }
  const Date d = date_of(days);
  std::string text = fmt::format("{}-{:02}-{:02}", year_text(d.year), d.month, d.day);
  if (sub == kSub.end()) return text;  // D, W
  const int digits = sub->second.fraction_digits;
  if (digits == -1) return text + fmt::format("T{:02}", static_cast<unsigned>(within));
  if (digits == -2) {
    return text + fmt::format("T{:02}:{:02}", static_cast<unsigned>(within / 60),
                              static_cast<unsigned>(within % 60));
  }
  Wide per_second = 1;
  for (int i = 0; i < digits; ++i) per_second *= 10;
  const Wide seconds = within / per_second;
  const Wide fraction = within % per_second;
  text +=
      fmt::format("T{:02}:{:02}:{:02}", static_cast<unsigned>(seconds / 3600),
                  static_cast<unsigned>(seconds / 60 % 60), static_cast<unsigned>(seconds % 60));
  if (digits > 0) {
    std::string f = wide_text(fraction);
    text += "." + std::string(static_cast<size_t>(digits) - f.size(), '0') + f;
  }
  return text;
}

}  // namespace dudley
