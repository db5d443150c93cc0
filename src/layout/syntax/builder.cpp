#include "dudley/layout/syntax/builder.hpp"

#include <cctype>

#include <fmt/format.h>

#include "dudley/core/error.hpp"
#include "dudley/layout/syntax/doc_lines.hpp"
#include "dudley/layout/syntax/parser.hpp"

namespace dudley::layout {

namespace {

void check_name(std::string_view name, std::string_view what) {
  if (!is_dudley_name(name)) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("{}: '{}' is not a Dudley name (a letter or '_', then letters, "
                            "digits or '_')",
                            what, name));
  }
}

// A new type's name must also not be a primitive's: it would redefine the primitive.
void check_type_name(std::string_view name, std::string_view what) {
  check_name(name, what);
  if (!is_type_name(name)) {
    throw Error(
        ErrorCategory::kUsage,
        fmt::format("{}: '{}' is a primitive type's name; a new type needs another", what, name));
  }
}

// "f8", "<i4", ">c16", "|u2", "Vec": an optional order prefix, then a name.
void check_type(std::string_view type, std::string_view what) {
  std::string_view name = type;
  if (!name.empty() && (name[0] == '<' || name[0] == '>' || name[0] == '|')) {
    name.remove_prefix(1);
  }
  if (name.empty() || !(primitive_from_name(name) || is_dudley_name(name))) {
    throw Error(ErrorCategory::kUsage, fmt::format("{}: '{}' is not a type", what, type));
  }
}

std::string shape_text(const Extents& shape) {
  if (shape.empty()) return {};
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ", ";
    out += shape[i].text();
  }
  return out + "]";
}

std::string address_text(std::optional<uint64_t> address) {
  return address ? fmt::format(" @ {}", *address) : std::string();
}

}  // namespace

Extent::Extent(int64_t length) : text_(std::to_string(length)) {}

Extent::Extent(std::string_view name) {
  std::string_view base = name;
  while (!base.empty() && (base.back() == '+' || base.back() == '-')) base.remove_suffix(1);
  check_name(base, "a shape");
  text_ = std::string(name);
}

void LayoutBuilder::line(const std::string& text) {
  text_.append(2 * open_.size(), ' ');
  text_ += text;
  text_ += '\n';
  declared_ = true;
  can_document_ = true;
}

void LayoutBuilder::expect(std::initializer_list<Scope> allowed, std::string_view what) const {
  for (Scope s : allowed) {
    if (current() == s) return;
  }
  static constexpr const char* kNames[] = {"a group",
                                           "a list",
                                           "an anonymous group",
                                           "a struct",
                                           "a parameter block",
                                           "a heterogeneous array"};
  throw Error(ErrorCategory::kUsage, fmt::format("{} cannot be declared inside {}", what,
                                                 kNames[static_cast<int>(current())]));
}

LayoutBuilder& LayoutBuilder::template_directive() {
  if (declared_) {
    throw Error(ErrorCategory::kUsage, "!TEMPLATE must come before every declaration");
  }
  line("!TEMPLATE");
  can_document_ = false;
  return *this;
}

LayoutBuilder& LayoutBuilder::signature(std::optional<uint64_t> address) {
  expect({Scope::kGroup}, "the !DUDLEY signature");
  if (!open_.empty()) throw Error(ErrorCategory::kUsage, "the !DUDLEY signature is global");
  line("!DUDLEY := S1[8]" + address_text(address));
  can_document_ = false;
  return *this;
}

LayoutBuilder& LayoutBuilder::cursor(uint64_t address) {
  expect({Scope::kGroup, Scope::kList, Scope::kItemGroup}, "!@");
  line(fmt::format("!@ {}", address));
  can_document_ = false;
  return *this;
}

LayoutBuilder& LayoutBuilder::param(std::string_view name, int64_t value) {
  check_name(name, "param");
  expect({Scope::kGroup, Scope::kItemGroup, Scope::kStruct, Scope::kBlock}, "a parameter");
  line(fmt::format("{} := {}", name, value));
  return *this;
}

LayoutBuilder& LayoutBuilder::param(std::string_view name, std::string_view type,
                                    std::optional<uint64_t> address) {
  check_name(name, "param");
  check_type(type, fmt::format("param {}", name));
  expect({Scope::kGroup, Scope::kItemGroup, Scope::kStruct, Scope::kBlock}, "a parameter");
  line(fmt::format("{} := {}{}", name, type, address_text(address)));
  return *this;
}

LayoutBuilder& LayoutBuilder::data(std::string_view name, std::string_view type,
                                   const Extents& shape, std::optional<uint64_t> address) {
  // A typedef's single member has no name.
  if (!(name.empty() && current() == Scope::kStruct)) check_name(name, "data");
  check_type(type, fmt::format("data {}", name));
  expect({Scope::kGroup, Scope::kItemGroup, Scope::kStruct, Scope::kHetero}, "a variable");
  line(fmt::format("{}{}= {}{}{}", name, name.empty() ? "" : " ", type, shape_text(shape),
                   address_text(address)));
  return *this;
}

LayoutBuilder& LayoutBuilder::group(std::string_view name) {
  check_name(name, "group");
  expect({Scope::kGroup, Scope::kItemGroup}, "a group");
  line(fmt::format("{} /", name));
  open_.push_back({Scope::kGroup, ".."});
  can_document_ = true;
  return *this;
}

LayoutBuilder& LayoutBuilder::list(std::string_view name) {
  check_name(name, "list");
  expect({Scope::kGroup, Scope::kItemGroup}, "a list");
  line(fmt::format("{} = [", name));
  open_.push_back({Scope::kList, "]"});
  return *this;
}

LayoutBuilder& LayoutBuilder::item(std::string_view type, const Extents& shape,
                                   std::optional<uint64_t> address) {
  check_type(type, "item");
  expect({Scope::kList}, "a list item");
  line(fmt::format("= {}{}{}", type, shape_text(shape), address_text(address)));
  return *this;
}

LayoutBuilder& LayoutBuilder::item_group() {
  expect({Scope::kList}, "an anonymous group");
  line("/");
  open_.push_back({Scope::kItemGroup, ".."});
  return *this;
}

LayoutBuilder& LayoutBuilder::item_list() {
  expect({Scope::kList}, "a sublist");
  line("= [");
  open_.push_back({Scope::kList, "]"});
  return *this;
}

LayoutBuilder& LayoutBuilder::struct_type(std::string_view name) {
  check_type_name(name, "struct_type");
  expect({Scope::kGroup, Scope::kItemGroup}, "a type");
  line(fmt::format("{} := {{", name));
  open_.push_back({Scope::kStruct, "}"});
  return *this;
}

LayoutBuilder& LayoutBuilder::param_block(std::string_view name, const Extents& shape,
                                          std::optional<uint64_t> address) {
  check_type_name(name, "param_block");
  expect({Scope::kGroup, Scope::kItemGroup}, "a parameter block");
  line(fmt::format("{} := {{", name));
  open_.push_back({Scope::kBlock, "}" + shape_text(shape) + address_text(address)});
  return *this;
}

LayoutBuilder& LayoutBuilder::heterogeneous(std::string_view name, std::string_view block) {
  check_name(name, "heterogeneous");
  check_type_name(block, fmt::format("heterogeneous {}", name));
  expect({Scope::kGroup, Scope::kItemGroup}, "a heterogeneous array");
  line(fmt::format("{} = {}{{", name, block));
  open_.push_back({Scope::kHetero, "}"});
  return *this;
}

LayoutBuilder& LayoutBuilder::pointee(uint64_t key, std::string_view type, const Extents& shape,
                                      std::optional<uint64_t> address) {
  if (key == 0 || key == ~uint64_t{0}) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("pointee {}: 0 and all ones are reserved for NULL", key));
  }
  check_type(type, fmt::format("pointee {}", key));
  if (!open_.empty()) throw Error(ErrorCategory::kUsage, "pointees are declared at the root");
  line(fmt::format("{} = {}{}{}", key, type, shape_text(shape), address_text(address)));
  return *this;
}

LayoutBuilder& LayoutBuilder::doc(std::string_view text) {
  if (!can_document_) {
    throw Error(ErrorCategory::kUsage, "doc: no declaration to document yet");
  }
  // The item's line is the one above: a `#!` first on its line continues that item's doc.
  for (const std::string& line : doc_lines(text)) {
    text_.append(2 * open_.size() + 2, ' ');
    text_ += line.empty() ? "#!\n" : fmt::format("#! {}\n", line);
  }
  return *this;
}

LayoutBuilder& LayoutBuilder::end() {
  if (open_.empty()) throw Error(ErrorCategory::kUsage, "end(): nothing is open");
  const std::string closing = open_.back().closing;
  open_.pop_back();
  line(closing);
  can_document_ = false;
  return *this;
}

std::string LayoutBuilder::text() const {
  std::string out = text_;
  for (size_t i = open_.size(); i-- > 0;) {
    out.append(2 * i, ' ');
    out += open_[i].closing + "\n";
  }
  return out;
}

Layout LayoutBuilder::build() const {
  const std::string text = this->text();
  ParseResult result = parse_layout(text);
  if (result.ok()) return std::move(result.layout);
  const Diagnostic& d = result.diagnostics.front();
  size_t start = 0;
  for (uint32_t l = 1; l < d.line && start != std::string::npos; ++l) {
    start = text.find('\n', start);
    if (start != std::string::npos) ++start;
  }
  const std::string source = start == std::string::npos
                                 ? std::string()
                                 : text.substr(start, text.find('\n', start) - start);
  const bool syntax = d.code == DiagCode::kSyntax || d.code == DiagCode::kUnexpectedEnd;
  throw Error(syntax ? ErrorCategory::kSyntax : ErrorCategory::kSemantic,
              fmt::format("built layout, line {} ({}): {}", d.line, source, d.message));
}

}  // namespace dudley::layout
