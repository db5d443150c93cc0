// Sizes the layout alone decides: a struct whose members sit at literal offsets with literal
// shapes has a size known before any data is read, and so does an item with a literal shape
// at an explicit address. Each must end within 2^64 bytes; `dudley check` says so at the
// declaration, instead of leaving a wrapped size for a reader to trip over. Sizes that
// depend on parameters are checked by the binder when the values are known.
#include <fmt/format.h>

#include "dudley/core/shape.hpp"
#include "dudley/layout/syntax/parser.hpp"

namespace dudley::layout {

namespace {

class ExtentChecker {
 public:
  ExtentChecker(const Layout& layout, std::vector<Diagnostic>& out)
      : l_(layout), out_(out), type_size_(layout.types.size()) {}

  void run() {
    // Types may only use types defined before them, so one pass in order sees every
    // member's type measured already.
    for (TypeId t = 0; t < l_.types.size(); ++t) type_size_[t] = measure_struct(t);
    for (const Statement& s : l_.statements) {
      if (s.kind == Statement::Kind::kData) {
        const Node& n = l_.nodes[s.index];
        item(n.type, n.dims, n.has_address, n.address, n.pos, [&] {
          return fmt::format("data item '{}'", n.name == kNone ? "(anonymous)" : l_.name(n.name));
        });
      } else if (s.kind == Statement::Kind::kPointee) {
        const Pointee& p = l_.pointees[s.index];
        item(p.type, p.dims, p.has_address, p.address, p.pos,
             [&] { return fmt::format("pointee {}", p.key); });
      }
    }
  }

 private:
  // Bytes of one element of `ref`; nullopt when parameters decide it (or it overflowed,
  // which has been reported at the type).
  std::optional<uint64_t> element_size(const TypeRef& ref) const {
    if (ref.kind == TypeRef::Kind::kPrimitive) return primitive_size(ref.primitive);
    if (ref.kind == TypeRef::Kind::kUser && ref.user < type_size_.size()) {
      return type_size_[ref.user];
    }
    return std::nullopt;
  }

  // Product of a shape's dimensions when the layout fixes them all: literals, and fixed
  // parameters of a struct (`n := 3` inside it). A negative dimension disappears [C14].
  std::optional<uint64_t> count(Span dims, bool* overflow) const {
    uint64_t n = 1;
    for (const Dim& d : l_.dims_of(dims)) {
      int64_t v = 0;
      if (d.kind == Dim::Kind::kLiteral) {
        v = d.literal;
      } else if (d.kind == Dim::Kind::kParam && l_.params[d.param].group == kNone &&
                 l_.params[d.param].kind == ParamKind::kFixed) {
        v = l_.params[d.param].value;
        if (v > 0 && d.adjust != 0) v = std::max<int64_t>(0, v + d.adjust);
      } else {
        return std::nullopt;
      }
      if (v < 0) continue;
      auto m = checked_mul(n, static_cast<uint64_t>(v));
      if (!m) {
        *overflow = true;
        return std::nullopt;
      }
      n = *m;
    }
    return n;
  }

  std::optional<uint64_t> bytes_of(const TypeRef& type, Span dims, bool* overflow) const {
    auto element = element_size(type);
    auto n = count(dims, overflow);
    if (!element || !n) return std::nullopt;
    auto bytes = checked_mul(*element, *n);
    if (!bytes) *overflow = true;
    return bytes;
  }

  // A struct's size, reporting the first member (or stored parameter) that ends past 2^64.
  std::optional<uint64_t> measure_struct(TypeId id) {
    const TypeDef& t = l_.types[id];
    if (t.kind != TypeKind::kStruct) return std::nullopt;
    std::optional<uint64_t> cursor = 0;
    uint64_t size = 0;
    bool known = true;
    for (const StructEntry& e : t.body) {
      if (e.kind == StructEntry::Kind::kCursor) {
        cursor = e.offset;
        continue;
      }
      std::optional<uint64_t> offset, bytes;
      TextPos pos;
      bool overflow = false;
      if (e.kind == StructEntry::Kind::kParam) {
        const Param& p = l_.params[e.index];
        if (p.kind == ParamKind::kFixed) continue;
        offset = p.has_address ? std::optional<uint64_t>(p.address) : cursor;
        bytes = element_size(p.type);
        pos = p.pos;
      } else {
        const Node& m = l_.nodes[e.index];
        offset = m.has_address ? std::optional<uint64_t>(m.address) : cursor;
        bytes = bytes_of(m.type, m.dims, &overflow);
        pos = m.pos;
      }
      std::optional<uint64_t> end;
      if (offset && bytes) end = checked_add(*offset, *bytes);
      if (overflow || (offset && bytes && !end)) {
        std::string what;
        if (e.kind == StructEntry::Kind::kParam) {
          what = fmt::format("parameter '{}'", l_.name(l_.params[e.index].name));
        } else {
          const Node& m = l_.nodes[e.index];
          what = m.name == kNone ? std::string("its element")
                                 : fmt::format("member '{}'", l_.name(m.name));
        }
        report(pos,
               fmt::format("{} of struct '{}' ends beyond 2^64 bytes{}", what, l_.name(t.name),
                           offset && bytes ? fmt::format(" (offset {} + {} bytes)", *offset, *bytes)
                                           : std::string()));
        return std::nullopt;
      }
      if (!end) known = false;
      cursor = end;
      if (end) size = std::max(size, *end);
    }
    if (!known) return std::nullopt;
    return size;
  }

  // `describe` names the item; it runs only when there is something to report, because
  // formatting a name for each of 100,000 healthy items was a tenth of the parse.
  template <typename Describe>
  void item(const TypeRef& type, Span dims, bool has_address, uint64_t address, TextPos pos,
            Describe describe) {
    bool overflow = false;
    std::optional<uint64_t> bytes = bytes_of(type, dims, &overflow);
    if (!overflow && bytes && has_address && *bytes > 0 && !checked_add(address, *bytes)) {
      report(pos, fmt::format("{} ends beyond 2^64 bytes (address {} + {} bytes)", describe(),
                              address, *bytes));
    } else if (overflow) {
      report(pos, fmt::format("{} has a byte size beyond 2^64", describe()));
    }
  }

  void report(TextPos at, std::string message) {
    out_.push_back({DiagCode::kSizeOverflow, std::move(message), at.line, at.column, at.offset});
  }

  const Layout& l_;
  std::vector<Diagnostic>& out_;
  std::vector<std::optional<uint64_t>> type_size_;
};

}  // namespace

void check_static_extents(const Layout& layout, std::vector<Diagnostic>& out) {
  ExtentChecker(layout, out).run();
}

}  // namespace dudley::layout
