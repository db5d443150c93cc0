// Building a layout from code, declaration by declaration, instead of writing its text:
//
//   LayoutBuilder b;
//   b.signature().param("NX", "i4").doc("cells along x");
//   b.group("mesh").data("x", "f8", {"NX"}).end();
//   b.list("history").item("f4", {"NX"}).end();
//   Layout layout = b.build();      // then Writer(layout, "run.bin")
//
// The builder writes canonical layout text as it goes (text() shows it) and build() parses
// it, so a built layout obeys exactly the rules a layout file does, and the .dud a Writer
// puts beside its data reads back as the same layout. Names, types and extents are checked
// when they are given (Error(kUsage) naming the call); rules that need the whole layout
// (an undefined parameter, a struct member shape using a name it cannot see) are reported
// by build(), naming the declaration and its line in text().
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dudley/layout/syntax/layout.hpp"

namespace dudley::layout {

/// One dimension of a shape: a literal length (3), a parameter ("N"), a parameter with
/// '+'/'-' suffixes ("N+", "M--") [C14], or a negative literal that removes it (-1).
class Extent {
 public:
  Extent(int64_t length);  // NOLINT(google-explicit-constructor): {3, "N"} reads naturally
  Extent(int length) : Extent(static_cast<int64_t>(length)) {}         // NOLINT
  Extent(const char* name) : Extent(std::string_view(name)) {}         // NOLINT
  Extent(std::string_view name);                                       // NOLINT
  Extent(const std::string& name) : Extent(std::string_view(name)) {}  // NOLINT
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};
using Extents = std::vector<Extent>;

class LayoutBuilder {
 public:
  /// `!TEMPLATE`: the layout describes a family [C22]. Must come before any declaration.
  LayoutBuilder& template_directive();
  /// `!DUDLEY := S1[8]`: the file starts (or, with an address, holds at `address`) the
  /// signature that records its byte order [C20].
  LayoutBuilder& signature(std::optional<uint64_t> address = std::nullopt);
  /// `!@ address`: the next declaration without an address starts there.
  LayoutBuilder& cursor(uint64_t address);

  /// `name := value`: a fixed parameter (no file space).
  LayoutBuilder& param(std::string_view name, int64_t value);
  /// `name := type @ address`: a parameter read from the file (an integer type).
  LayoutBuilder& param(std::string_view name, std::string_view type,
                       std::optional<uint64_t> address = std::nullopt);

  /// `name = type[shape] @ address`: a data variable of the current group, or a member of
  /// the struct being defined (the address is then an offset in the instance).
  LayoutBuilder& data(std::string_view name, std::string_view type, const Extents& shape = {},
                      std::optional<uint64_t> address = std::nullopt);
  /// `name /`: enters group `name` (creating it, or returning to it).
  LayoutBuilder& group(std::string_view name);
  /// `name = [`: enters list `name` (creating it, or reopening it to append items).
  LayoutBuilder& list(std::string_view name);

  /// `= type[shape] @ address`: the next item of the current list.
  LayoutBuilder& item(std::string_view type, const Extents& shape = {},
                      std::optional<uint64_t> address = std::nullopt);
  /// `/`: the next item of the current list is an anonymous group (end() closes it).
  LayoutBuilder& item_group();
  /// `= [`: the next item of the current list is a sublist (end() closes it).
  LayoutBuilder& item_list();

  /// `name := {`: defines a struct type; data() and param() add members and per-instance
  /// parameters (a typedef: one member with an empty name), end() closes it.
  LayoutBuilder& struct_type(std::string_view name);
  /// `name := { params }[shape] @ address`: a parameter block [C21]; param() adds its
  /// parameters, end() closes it with the shape and address given here.
  LayoutBuilder& param_block(std::string_view name, const Extents& shape = {},
                             std::optional<uint64_t> address = std::nullopt);
  /// `name = block{`: a heterogeneous array of parameter block `block`; data() adds the
  /// members of each element, end() closes it.
  LayoutBuilder& heterogeneous(std::string_view name, std::string_view block);

  /// `key = type[shape] @ address`: the target of pointers holding `key` [C19]. Its shape
  /// uses literal lengths only; keys 0 and all ones are reserved for NULL.
  LayoutBuilder& pointee(uint64_t key, std::string_view type, const Extents& shape = {},
                         std::optional<uint64_t> address = std::nullopt);

  /// Documents the declaration made last (`#! text`); several calls add lines [C24].
  LayoutBuilder& doc(std::string_view text);

  /// Leaves the innermost group, list, struct, block or heterogeneous array. Throws
  /// Error(kUsage) at the root.
  LayoutBuilder& end();

  /// The layout text so far, with whatever is still open closed.
  std::string text() const;
  /// Parses text(): the layout, or Error(kSyntax / kSemantic) naming the first problem,
  /// its line in text() and that line.
  Layout build() const;

 private:
  enum class Scope { kGroup, kList, kItemGroup, kStruct, kBlock, kHetero };
  struct Open {
    Scope scope;
    std::string closing;  ///< what end() writes
  };
  void line(const std::string& text);
  void expect(std::initializer_list<Scope> allowed, std::string_view what) const;
  Scope current() const { return open_.empty() ? Scope::kGroup : open_.back().scope; }
  std::string text_;
  std::vector<Open> open_;
  bool declared_ = false;  ///< any declaration yet (for !TEMPLATE)
  bool can_document_ = false;
};

}  // namespace dudley::layout
