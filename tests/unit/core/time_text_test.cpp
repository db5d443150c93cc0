#include "dudley/core/time_text.hpp"

#include <gtest/gtest.h>

namespace dudley {
namespace {

// Expected texts are numpy 1.24's np.datetime_as_string of the same values.
TEST(TimeText, DatesAsNumpyPrintsThem) {
  EXPECT_EQ(datetime_text(0, DType::time(false, "D")), "1970-01-01");
  EXPECT_EQ(datetime_text(-1, DType::time(false, "D")), "1969-12-31");
  EXPECT_EQ(datetime_text(kNotATime, DType::time(false, "s")), "NaT");
  EXPECT_EQ(datetime_text(5, DType::time(false, "ms", 10)), "1970-01-01T00:00:00.050");
  EXPECT_EQ(datetime_text(5, DType::time(false, "W")), "1970-02-05");
  EXPECT_EQ(datetime_text(-1975, DType::time(false, "Y")), "-005");
  EXPECT_EQ(datetime_text(-1100, DType::time(false, "Y")), "0870");
  EXPECT_EQ(datetime_text(13, DType::time(false, "M")), "1971-02");
  EXPECT_EQ(datetime_text(-1, DType::time(false, "h")), "1969-12-31T23");
  EXPECT_EQ(datetime_text(61, DType::time(false, "m")), "1970-01-01T01:01");
  EXPECT_EQ(datetime_text(951782400, DType::time(false, "s")), "2000-02-29T00:00:00");
  EXPECT_EQ(datetime_text(-1, DType::time(false, "as")), "1969-12-31T23:59:59.999999999999999999");
  EXPECT_EQ(datetime_text(42, DType::time(false, "")), "42");  // numpy's generic unit
}

}  // namespace
}  // namespace dudley
