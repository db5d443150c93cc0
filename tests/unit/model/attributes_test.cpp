#include <gtest/gtest.h>

#include <string>

#include "dudley/model/value.hpp"

namespace dudley::model {
namespace {

std::string text_of(const Attributes& a, std::string_view name) {
  return std::get<Value>(*a.find(name)).as<std::string>();
}

TEST(Attributes, SetTextKeepsTheStoredTypeUntilSetAgain) {
  Attributes a;
  a.set("plain", Value("x"));
  a.set_text("units", "K", DType::string(TextEncoding::kAscii, 20));
  ASSERT_NE(a.stored_text_type("units"), nullptr);
  EXPECT_EQ(*a.stored_text_type("units"), DType::string(TextEncoding::kAscii, 20));
  EXPECT_EQ(text_of(a, "units"), "K");  // readers see text
  EXPECT_EQ(a.stored_text_type("plain"), nullptr);
  a.set("units", Value("m"));  // another value: its stored type no longer applies
  EXPECT_EQ(a.stored_text_type("units"), nullptr);
  EXPECT_EQ(text_of(a, "units"), "m");
}

TEST(Attributes, EraseKeepsTheOrderAndTheIndex) {
  // Past kIndexFrom attributes, names are found through an index that erase must redo.
  for (const int count : {3, 40}) {
    Attributes a;
    for (int i = 0; i < count; ++i) {
      a.set_text("a" + std::to_string(i), std::to_string(i),
                 DType::string(TextEncoding::kAscii, 4));
    }
    a.erase("a1");
    a.erase("absent");
    EXPECT_EQ(a.size(), static_cast<size_t>(count - 1));
    EXPECT_EQ(a.find("a1"), nullptr);
    EXPECT_EQ(a.stored_text_type("a1"), nullptr);
    std::vector<std::string> names;
    for (const auto& [name, value] : a) names.push_back(name);
    EXPECT_EQ(names[0], "a0");
    EXPECT_EQ(names[1], "a2");
    for (int i = 0; i < count; ++i) {
      if (i == 1) continue;
      const std::string name = "a" + std::to_string(i);
      ASSERT_NE(a.find(name), nullptr) << name;
      EXPECT_EQ(text_of(a, name), std::to_string(i));
      EXPECT_NE(a.stored_text_type(name), nullptr);
    }
  }
}

}  // namespace
}  // namespace dudley::model
