#include "dudley/layout/bind/binder.hpp"

#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "dudley/core/error.hpp"
#include "dudley/core/shape.hpp"

namespace dudley::layout {

std::optional<ByteOrder> decode_signature(const unsigned char b[8]) {
  static constexpr unsigned char kTail[4] = {0x0d, 0x0a, 0x1a, 0x0a};
  if (b[0] != 0x89 || std::memcmp(b + 4, kTail, 4) != 0) return std::nullopt;
  // The spec's literal bytes, and the ASCII "DUD"/"dud" it clearly meant [C20].
  if ((b[1] == 0x44 && b[2] == 0x75 && b[3] == 0x44) ||
      (b[1] == 0x44 && b[2] == 0x55 && b[3] == 0x44))
    return ByteOrder::kBig;
  if ((b[1] == 0x64 && b[2] == 0x95 && b[3] == 0x64) ||
      (b[1] == 0x64 && b[2] == 0x75 && b[3] == 0x64))
    return ByteOrder::kLittle;
  return std::nullopt;
}

namespace {

// [C14]: negative dimensions disappear; suffixes apply to positive values, clamped at 0.
// A value near 2^63 with a '+' suffix would overflow: refused (no file holds such a shape).
void push_dimension(std::vector<int64_t>& shape, int64_t value, int32_t adjust) {
  if (value < 0) return;
  if (value > 0 && adjust != 0) {
    if (adjust > 0 && value > std::numeric_limits<int64_t>::max() - adjust) {
      throw Error(ErrorCategory::kLimit,
                  fmt::format("dimension {}{:+d} is more than 2^63 - 1", value, adjust));
    }
    value = std::max<int64_t>(0, value + adjust);
  }
  shape.push_back(value);
}

}  // namespace

Binding::Binding(const Layout& layout, std::shared_ptr<io::ByteSource> source, BindOptions options)
    : Binding(std::make_unique<BindPlan>(layout, options.params_absent), nullptr, std::move(source),
              std::move(options)) {}

Binding::Binding(const BindPlan& plan, std::shared_ptr<io::ByteSource> source, BindOptions options)
    : Binding(nullptr, &plan, std::move(source), std::move(options)) {}

Binding::Binding(std::unique_ptr<BindPlan> own_plan, const BindPlan* plan,
                 std::shared_ptr<io::ByteSource> source, BindOptions options)
    : own_plan_(std::move(own_plan)),
      plan_(plan ? *plan : *own_plan_),
      layout_(plan_.layout()),
      source_(std::move(source)),
      options_(std::move(options)) {
  if (options_.params_absent != plan_.params_absent()) {
    throw Error(ErrorCategory::kUsage,
                "the binding's params_absent option differs from its plan's: build the plan "
                "with the same flag");
  }
  values_.assign(layout_.params.size(), ParamValue{});
  if (!options_.params.empty() || !options_.param_values.empty()) {
    external_.assign(layout_.params.size(), std::nullopt);
  }
  // External parameters [C23]: by path first, then by name.
  for (const auto& [key, value] : options_.params) {
    bool matched = false;
    for (ParamId p = 0; p < layout_.params.size(); ++p) {
      const Param& param = layout_.params[p];
      if (param.group == kNone) continue;
      std::string group_path = layout_.path(param.group);
      std::string path =
          (group_path == "/" ? "" : group_path) + "/" + std::string(layout_.name(param.name));
      if (key == path || (key.find('/') == std::string::npos && key == layout_.name(param.name))) {
        if (!external_[p] || key == path) external_[p] = value;
        matched = true;
      }
    }
    if (!matched) {
      throw Error(ErrorCategory::kUsage,
                  fmt::format("--param {}: the layout has no parameter of that name or path", key));
    }
  }
  for (const auto& [p, value] : options_.param_values) external_.at(p) = value;
}

std::string Binding::describe(uint32_t statement) const {
  if (!naming_) return {};  // names are only for messages: built on the retry after an error
  const Statement& s = layout_.statements[statement];
  switch (s.kind) {
    case Statement::Kind::kParam: {
      const Param& p = layout_.params[s.index];
      std::string g = layout_.path(p.group);
      return fmt::format("parameter {}{}", g == "/" ? "/" : g + "/", layout_.name(p.name));
    }
    case Statement::Kind::kData:
    case Statement::Kind::kGroup:
    case Statement::Kind::kList:
      return layout_.path(s.index);
    case Statement::Kind::kType:
      return fmt::format("parameter block {}", layout_.name(layout_.types[s.index].name));
    case Statement::Kind::kPointee:
      return fmt::format("pointee {}", layout_.pointees[s.index].key);
    case Statement::Kind::kSignature:
      return "the !DUDLEY signature";
    case Statement::Kind::kCursor:
      return "!@";
  }
  return "?";
}

std::optional<uint64_t> Binding::signature_address() {
  const uint32_t k = plan_.signature_statement();
  if (k == kNone) return std::nullopt;
  ensure(k);
  return start_[k];
}

std::optional<ByteOrder> Binding::default_order() {
  if (plan_.signature_statement() != kNone) {
    ensure(plan_.signature_statement());
    return signature_order_;
  }
  return options_.default_order;
}

// ---------- demand-driven evaluation ----------

template <typename Visit>
void Binding::for_each_dependency(uint32_t k, Visit&& visit) {
  const Statement& s = layout_.statements[k];
  auto has_explicit_start = [&]() {
    switch (s.kind) {
      case Statement::Kind::kCursor:
        return true;
      case Statement::Kind::kSignature:
        return layout_.signature->has_address;
      case Statement::Kind::kParam: {
        // A fixed parameter takes no bytes: its end is its predecessor's.
        const Param& p = layout_.params[s.index];
        return p.kind == ParamKind::kDynamic && p.has_address;
      }
      case Statement::Kind::kData:
        return layout_.nodes[s.index].has_address;
      case Statement::Kind::kPointee:
        return layout_.pointees[s.index].has_address;
      case Statement::Kind::kType:
        return layout_.types[s.index].has_address;
      default:
        return false;
    }
  };
  if (k > 0 && !has_explicit_start()) visit(k - 1);
  // Parameters whose value is read from the file are placed first (on this stack, not by
  // recursion). Fixed and supplied values need no placement, so none is asked for.
  auto read_from_file = [&](ParamId p) {
    const Param& param = layout_.params[p];
    return param.group != kNone && param.kind == ParamKind::kDynamic && !values_[p].known &&
           (external_.empty() || !external_[p]);
  };
  auto params_of = [&](Span dims) {
    for (const Dim& d : layout_.dims_of(dims)) {
      if (d.kind == Dim::Kind::kParam && read_from_file(d.param)) {
        visit(plan_.statement_of_param(d.param));
      }
    }
  };
  auto bindings_of = [&](Span span) {
    for (ParamId p : layout_.bindings_of(span)) {
      if (p != kNone && !(p & kOuterBinding) && read_from_file(p)) {
        visit(plan_.statement_of_param(p));
      }
    }
  };
  switch (s.kind) {
    case Statement::Kind::kData: {
      const Node& n = layout_.nodes[s.index];
      params_of(n.dims);
      bindings_of(n.bindings);
      if (n.type.kind == TypeRef::Kind::kUser) {
        const TypeDef& t = layout_.types[n.type.user];
        if (t.kind == TypeKind::kHeteroBody && t.block != kNone) {
          // The block's values are read from its storage: it must be placed first.
          if (plan_.statement_of_type(t.block) < k) visit(plan_.statement_of_type(t.block));
        }
      }
      break;
    }
    case Statement::Kind::kType:
      params_of(layout_.types[s.index].dims);
      break;
    default:
      break;
  }
}

void Binding::ensure(uint32_t target) {
  if (target == kNone) return;
  if (done_.empty()) allocate_placement();
  if (done_[target]) return;
  // An explicit stack instead of recursion: dependency chains can be as long as the layout.
  // compute() may call back here (a value or byte order it needs); a statement already being
  // computed further up means the layout is circular.
  auto cycle = [&](uint32_t d) {
    throw Error(ErrorCategory::kData,
                fmt::format("circular layout: the place of {} depends on {}, which needs it "
                            "(for example a !DUDLEY signature placed after data that needs its "
                            "byte order)",
                            describe(d), describe(target)),
                Location::file(source_->name()));
  };
  if (computing_[target]) cycle(target);
  std::vector<uint32_t> stack{target};
  while (!stack.empty()) {
    const uint32_t k = stack.back();
    if (done_[k]) {
      stack.pop_back();
      continue;
    }
    const size_t before = stack.size();
    for_each_dependency(k, [&](uint32_t d) {
      if (computing_[d]) cycle(d);
      if (!done_[d]) stack.push_back(d);
    });
    if (stack.size() == before) {
      computing_[k] = 1;
      bool placed = false;
      try {
        placed = compute(k);
      } catch (...) {
        computing_[k] = 0;  // a failure is not a cycle: later lookups report it again
        throw;
      }
      computing_[k] = 0;
      if (!placed) {
        stack.push_back(k - 1);  // a lower statement: this always ends
        continue;
      }
      done_[k] = 1;
      stack.pop_back();
    }
  }
}

bool Binding::compute(uint32_t k) {
  const Statement& s = layout_.statements[k];
  // Items at an explicit address do not wait for their predecessor, unless they turn out to
  // take no bytes: then they leave the cursor where the predecessor put it [C14].
  const bool cursor_known = k == 0 || done_[k - 1];
  const uint64_t cursor = k == 0 ? 0 : end_[k - 1];
  uint64_t start = cursor;
  switch (s.kind) {
    case Statement::Kind::kCursor:
      start_[k] = end_[k] = layout_.cursors[s.index];
      return true;
    case Statement::Kind::kSignature: {
      if (layout_.signature->has_address) start = layout_.signature->address;
      if (options_.signature_unread) {
        signature_order_ = options_.default_order;
        start_[k] = start;
        end_[k] = start + 8;
        return true;
      }
      unsigned char bytes[8];
      read_small(start, 8, bytes, "the !DUDLEY signature");
      signature_order_ = decode_signature(bytes);
      if (!signature_order_) {
        throw Error(ErrorCategory::kData,
                    fmt::format("bad !DUDLEY signature: {:02x}", fmt::join(bytes, bytes + 8, " ")),
                    Location::binary(source_->name(), start));
      }
      start_[k] = start;
      end_[k] = start + 8;
      return true;
    }
    case Statement::Kind::kParam: {
      // Placement only: where the parameter is never depends on its value (read on demand).
      const Param& p = layout_.params[s.index];
      if (p.kind == ParamKind::kDynamic && p.has_address) start = p.address;
      start_[k] = start;
      const uint64_t size = size_of(k);
      if (size == 0 && !cursor_known) return false;
      if (size != 0 && !checked_add(start, size)) {
        throw Error(ErrorCategory::kData, fmt::format("{} ends beyond 2^64 bytes", describe(k)),
                    Location::binary(source_->name(), start));
      }
      end_[k] = size == 0 ? cursor : start + size;  // fixed or absent: takes no bytes
      return true;
    }
    case Statement::Kind::kData:
      if (layout_.nodes[s.index].has_address) start = layout_.nodes[s.index].address;
      break;
    case Statement::Kind::kPointee:
      if (layout_.pointees[s.index].has_address) start = layout_.pointees[s.index].address;
      break;
    case Statement::Kind::kType:
      if (layout_.types[s.index].has_address) start = layout_.types[s.index].address;
      break;
    default:
      break;
  }
  start_[k] = start;
  const uint64_t size = size_of(k);
  // [C14]: an item with no data does not move the cursor, even at an explicit address.
  if (size == 0) {
    if (!cursor_known) return false;
    end_[k] = cursor;
    return true;
  }
  auto end = checked_add(start, size);
  if (!end) {
    throw Error(ErrorCategory::kData, fmt::format("{} ends beyond 2^64 bytes", describe(k)),
                Location::binary(source_->name(), start));
  }
  end_[k] = *end;
  return true;
}

int64_t Binding::read_integer(const TypeRef& type, uint64_t address, const std::string& what) {
  // Parameters are integer primitives (the parser sees to it); this path builds no DType.
  if (type.kind != TypeRef::Kind::kPrimitive || !primitive_is_integer(type.primitive)) {
    throw Error(ErrorCategory::kType, what + ": a parameter needs an integer type");
  }
  const unsigned n = primitive_size(type.primitive);
  ByteOrder order = type.order;
  if (order == ByteOrder::kUnspecified && n > 1) {
    const bool was_sizing = sizing_;
    sizing_ = false;  // a value needs its real byte order, even while measuring
    struct Restore {
      bool& flag;
      bool value;
      ~Restore() { flag = value; }
    } restore{sizing_, was_sizing};
    std::vector<int64_t> inner;
    order = element_dtype(type, {}, inner, what, 0).byte_order();  // throws when unknown
  }
  unsigned char bytes[8] = {};
  read_small(address, n, bytes, what);
  uint64_t raw = 0;
  for (unsigned i = 0; i < n; ++i) {
    unsigned shift = 8 * (order == ByteOrder::kBig ? n - 1 - i : i);
    raw |= uint64_t{bytes[i]} << shift;
  }
  const bool is_signed = type.primitive == Primitive::i1 || type.primitive == Primitive::i2 ||
                         type.primitive == Primitive::i4 || type.primitive == Primitive::i8;
  if (is_signed && n < 8 && (raw >> (8 * n - 1)) & 1) {
    raw |= ~uint64_t{0} << (8 * n);  // sign-extend
  }
  if (!is_signed && n == 8 && raw >= (uint64_t{1} << 63)) {
    throw Error(ErrorCategory::kData, fmt::format("{} holds {}, which is 2^63 or more", what, raw),
                Location::binary(source_->name(), address));
  }
  return static_cast<int64_t>(raw);
}

std::vector<int64_t> Binding::bound_values(const Node& node) {
  std::vector<int64_t> out;
  for (ParamId p : layout_.bindings_of(node.bindings)) {
    out.push_back(p == kNone ? 0 : param_value(p));
  }
  return out;
}

// A shape written in a group (data, pointees, parameter blocks): literals and parameters.
std::vector<int64_t> Binding::evaluate_dims(Span dims) {
  std::vector<int64_t> shape;
  for (const Dim& d : layout_.dims_of(dims)) {
    push_dimension(shape, d.kind == Dim::Kind::kParam ? param_value(d.param) : d.literal,
                   d.kind == Dim::Kind::kParam ? d.adjust : 0);
  }
  return shape;
}

int64_t Binding::param_value_impl(ParamId p) {
  const Param& param = layout_.params[p];
  if (param.group == kNone) {
    throw Error(ErrorCategory::kUsage, "param_value needs a group parameter");
  }
  if (values_[p].known) return values_[p].value;
  const uint32_t k = plan_.statement_of_param(p);
  int64_t value = 0;
  if (!external_.empty() && external_[p]) {
    value = *external_[p];
  } else if (param.kind == ParamKind::kFixed) {
    value = param.value;
  } else if (options_.params_absent) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("{} is absent from the file and was not given (--param)", describe(k)));
  } else {
    value = read_integer(param.type, param_start(p), describe(k));
  }
  values_[p] = {value, true};
  return value;
}

template <typename F>
auto Binding::named_on_error(F&& f) {
  // The fast path builds no names; a failure is replayed with names for its message.
  if (naming_) return f();
  try {
    return f();
  } catch (const Error&) {
  }
  naming_ = true;
  struct Restore {
    bool& flag;
    ~Restore() { flag = false; }
  } restore{naming_};
  return f();
}

int64_t Binding::param_value(ParamId p) {
  return named_on_error([&] { return param_value_impl(p); });
}

BoundArray Binding::array(NodeId node) {
  return named_on_error([&] { return array_impl(node, true); });
}

BoundArray Binding::locate(NodeId node) {
  return named_on_error([&] { return array_impl(node, false); });
}

std::optional<DType> Binding::param_dtype(ParamId p) {
  const Param& param = layout_.params[p];
  if (param.kind == ParamKind::kFixed) return std::nullopt;
  std::vector<int64_t> inner;
  return element_dtype(param.type, {}, inner, describe(plan_.statement_of_param(p)), 0);
}

std::optional<uint64_t> Binding::param_address(ParamId p) {
  const Param& param = layout_.params[p];
  if (param.group == kNone || param.kind == ParamKind::kFixed || options_.params_absent) {
    return std::nullopt;
  }
  return param_start(p);
}

uint64_t Binding::param_start(ParamId p) {
  const Param& param = layout_.params[p];
  return param.has_address ? param.address : cursor_before(plan_.statement_of_param(p));
}

void Binding::allocate_placement() {
  const size_t n = layout_.statements.size();
  start_.assign(n, 0);
  end_.assign(n, 0);
  done_.assign(n, 0);
  computing_.assign(n, 0);
}

uint64_t Binding::extent(uint32_t statements) {
  return named_on_error([&] {
    uint64_t end = 0;
    const auto count = std::min<size_t>(statements, layout_.statements.size());
    for (uint32_t k = 0; k < count; ++k) {
      ensure(k);
      if (end_[k] > start_[k]) end = std::max(end, end_[k]);
    }
    return end;
  });
}

uint64_t Binding::cursor_before(uint32_t k) {
  if (k == 0) return 0;
  // A signature before the item is checked whichever way the cursor is found (formula or
  // walk, and a walk cut short by an explicit address): a file with a bad signature is not
  // this layout's file.
  if (plan_.signature_statement() < k) ensure(plan_.signature_statement());
  if (!done_.empty() && done_[k - 1]) return end_[k - 1];
  if (auto cursor = formula_cursor(k)) return *cursor;
  ensure(k - 1);
  return end_[k - 1];
}

// The plan's closed formula for the cursor, evaluated with this file's parameters. nullopt
// (walk step by step instead) when there is none or when a product overflows: the walk then
// names the item at fault. A cursor beyond the data is caught by the read (or the range
// check) of the item asked for, since every item before it in the run ends before it.
std::optional<uint64_t> Binding::formula_cursor(uint32_t k) {
  BindPlan::Formula f;
  if (!plan_.cursor_formula(k, f)) return std::nullopt;
  uint64_t cursor = f.base;  // (cursor_before has checked the signature)
  for (uint32_t i = 0; i < f.count; ++i) {
    std::optional<uint64_t> term = f.coefficients[i];
    if (*term == 0) continue;
    for (const BindPlan::Factor& factor : plan_.monomial_factors(f.monomials[i])) {
      int64_t v = param_value(factor.param);
      if (v < 0) continue;  // the dimension disappears [C14]
      if (v > 0 && factor.adjust != 0) v = std::max<int64_t>(0, v + factor.adjust);
      term = checked_mul(*term, static_cast<uint64_t>(v));
      if (!term) return std::nullopt;
    }
    auto sum = checked_add(cursor, *term);
    if (!sum) return std::nullopt;
    cursor = *sum;
  }
  return cursor;
}

void Binding::read_small(uint64_t address, unsigned length, unsigned char* out,
                         const std::string& what) {
  if (address >= read_ahead_start_ && address - read_ahead_start_ <= read_ahead_size_ &&
      length <= read_ahead_size_ - (address - read_ahead_start_)) {
    std::memcpy(out, read_ahead_ + (address - read_ahead_start_), length);
    return;
  }
  const uint64_t got = source_->read_some(address, read_ahead_next_, read_ahead_);
  read_ahead_next_ = std::min(2 * read_ahead_next_, kReadAheadMax);
  read_ahead_start_ = address;
  read_ahead_size_ = got;
  if (got < length) {
    source_->check_range(address, length, what);  // names the item and where the data ends
    throw Error(ErrorCategory::kIo, "the file shrank while being read",
                Location::binary(source_->name(), address));
  }
  std::memcpy(out, read_ahead_, length);
}

uint64_t Binding::checked_bytes(const std::vector<int64_t>& shape, uint64_t element,
                                const std::string& what, uint64_t at) {
  uint64_t n = element;
  for (int64_t d : shape) {
    auto m = checked_mul(n, static_cast<uint64_t>(d));
    if (!m) {
      throw Error(
          ErrorCategory::kData,
          fmt::format("{} has a byte size beyond 2^64 (shape {})", what, Shape(shape).to_string()),
          Location::binary(source_->name(), at));
    }
    n = *m;
  }
  return n;
}

DType Binding::element_dtype(const TypeRef& ref, const std::vector<int64_t>& bound,
                             std::vector<int64_t>& inner_shape, const std::string& what,
                             int depth) {
  if (depth > 64) throw Error(ErrorCategory::kType, what + ": types nest too deeply");
  if (ref.kind == TypeRef::Kind::kPrimitive) {
    ByteOrder order = ref.order;
    if (order == ByteOrder::kUnspecified && primitive_size(ref.primitive) > 1 && !sizing_) {
      auto d = default_order();
      if (!d) {
        throw Error(ErrorCategory::kType,
                    fmt::format("{} has multi-byte type {} with no byte order: the layout has no "
                                "!DUDLEY signature and none was given (--order little|big)",
                                what, layout_.type_text(ref)));
      }
      order = *d;
    }
    return primitive_dtype(ref.primitive, order);
  }
  if (ref.kind != TypeRef::Kind::kUser) throw Error(ErrorCategory::kType, what + ": invalid type");
  const TypeDef& t = layout_.types[ref.user];
  if (t.has_dynamic_params || t.kind != TypeKind::kStruct) {
    throw Error(ErrorCategory::kType,
                fmt::format("{}: instances of '{}' differ in size (parameters read per instance) "
                            "and cannot be presented as one array",
                            what, layout_.name(t.name)));
  }
  // Own fixed parameters and free names give the member shapes.
  std::vector<int64_t> own_fixed;
  auto member_shape = [&](const Node& m) {
    std::vector<int64_t> shape;
    for (const Dim& d : layout_.dims_of(m.dims)) {
      int64_t value = d.literal;
      if (d.kind == Dim::Kind::kParam) {
        const Param& p = layout_.params[d.param];
        value = p.group != kNone ? param_value(d.param) : p.value;
      } else if (d.kind == Dim::Kind::kFreeName) {
        value = 0;
        for (size_t i = 0; i < t.free_names.size(); ++i) {
          if (t.free_names[i] == d.name && i < bound.size()) value = bound[i];
        }
      }
      push_dimension(shape, value, d.kind == Dim::Kind::kLiteral ? 0 : d.adjust);
    }
    return shape;
  };
  auto member_bound = [&](const Node& m) {
    std::vector<int64_t> values;
    for (ParamId p : layout_.bindings_of(m.bindings)) {
      if (p & kOuterBinding) {
        uint32_t i = p & ~kOuterBinding;
        values.push_back(i < bound.size() ? bound[i] : 0);
      } else {
        values.push_back(layout_.params[p].value);  // an own fixed parameter
      }
    }
    return values;
  };
  if (t.is_typedef(layout_.nodes)) {
    for (const StructEntry& e : t.body) {
      if (e.kind != StructEntry::Kind::kMember) continue;
      const Node& m = layout_.nodes[e.index];
      std::vector<int64_t> shape = member_shape(m);
      std::vector<int64_t> deeper;
      DType inner = element_dtype(m.type, member_bound(m), deeper, what, depth + 1);
      inner_shape.insert(inner_shape.end(), shape.begin(), shape.end());
      inner_shape.insert(inner_shape.end(), deeper.begin(), deeper.end());
      return inner;
    }
  }
  std::vector<DTypeField> fields;
  uint64_t cursor = 0, size = 0;
  for (const StructEntry& e : t.body) {
    if (e.kind == StructEntry::Kind::kCursor) {
      cursor = e.offset;
      continue;
    }
    if (e.kind == StructEntry::Kind::kParam) continue;  // fixed only here: no space
    const Node& m = layout_.nodes[e.index];
    std::vector<int64_t> shape = member_shape(m);
    std::vector<int64_t> deeper;
    DType type = element_dtype(m.type, member_bound(m), deeper, what, depth + 1);
    shape.insert(shape.end(), deeper.begin(), deeper.end());
    uint64_t offset = m.has_address ? m.address : cursor;
    uint64_t bytes = checked_bytes(shape, type.size(), what, 0);
    cursor = member_end(t, m, offset, bytes, what);
    if (type.joins_units() && !shape.empty() && shape.back() > 0) {
      // A field of text units (`name = S1[8]`) is a string of that many units, as numpy's
      // S8, ASDF's ascii and HDF5's fixed strings hold it; arrays of strings keep the
      // other dimensions (`S1[3, 8]`: three strings). Same bytes, another reading.
      type = DType::string(type.encoding(), static_cast<uint64_t>(shape.back()), type.byte_order());
      shape.pop_back();
    }
    fields.push_back(
        {std::string(layout_.name(m.name)), std::make_shared<const DType>(type), offset, shape});
    size = std::max(size, cursor);
  }
  return DType::compound(std::move(fields), size, std::string(layout_.name(t.name)));
}

uint64_t Binding::member_end(const TypeDef& type, const Node& member, uint64_t offset,
                             uint64_t bytes, const std::string& what) {
  auto end = checked_add(offset, bytes);
  if (!end) {
    throw Error(ErrorCategory::kType,
                fmt::format("{}{}member {} of struct {} (offset {}, {} bytes) ends beyond 2^64 "
                            "bytes",
                            what, what.empty() ? "" : ": ",
                            member.name == kNone ? "(anonymous)" : layout_.name(member.name),
                            layout_.name(type.name), offset, bytes));
  }
  return *end;
}

uint64_t Binding::size_of(uint32_t k) {
  // Sizes never depend on byte order: measure without asking for the default order, so a
  // signature declared after some data can still be placed.
  const bool was_sizing = sizing_;
  sizing_ = true;
  struct Restore {
    bool& flag;
    bool value;
    ~Restore() { flag = value; }
  } restore{sizing_, was_sizing};
  const Statement& s = layout_.statements[k];
  switch (s.kind) {
    case Statement::Kind::kParam: {
      const Param& p = layout_.params[s.index];
      if (p.kind == ParamKind::kFixed || options_.params_absent) return 0;
      std::vector<int64_t> inner;
      return element_dtype(p.type, {}, inner, describe(k), 0).size();
    }
    case Statement::Kind::kData: {
      const Node& n = layout_.nodes[s.index];
      if (has_variable_instances(n.type)) {
        // Counted arrays and heterogeneous arrays: instances are measured one by one.
        const std::string what = naming_ ? layout_.path(s.index) : std::string();
        const uint64_t count = instance_count(instance_shape(n), what);
        const std::vector<int64_t> bound = bound_values(n);
        // Measuring may place other items first (through a parameter's position): keep the
        // hook's item of the caller.
        const NodeId outer_item = hook_item_;
        std::vector<uint64_t> outer_path = std::move(hook_path_);
        hook_path_.clear();
        hook_item_ = s.index;
        const uint64_t size = variable_extent(n.type, count, start_[k], bound, what, 0, nullptr);
        hook_item_ = outer_item;
        hook_path_ = std::move(outer_path);
        return size;
      }
      if (n.type.kind == TypeRef::Kind::kPrimitive) {
        // Hot path of long cursor chains (file families): the size of a primitive array
        // without building its type or shape. Any failure goes to array(), which reports it.
        uint64_t bytes = primitive_size(n.type.primitive);
        bool ok = true;
        for (const Dim& d : layout_.dims_of(n.dims)) {
          int64_t v = d.kind == Dim::Kind::kParam ? param_value(d.param) : d.literal;
          if (v < 0) continue;  // the dimension disappears [C14]
          if (d.kind == Dim::Kind::kParam && v > 0 && d.adjust != 0) {
            v = std::max<int64_t>(0, v + d.adjust);
          }
          auto m = checked_mul(bytes, static_cast<uint64_t>(v));
          if (!m) {
            ok = false;
            break;
          }
          bytes = *m;
        }
        if (ok && (bytes == 0 || source_->contains(start_[k], bytes))) return bytes;
      }
      return array(s.index).byte_size;
    }
    case Statement::Kind::kPointee: {
      const Pointee& p = layout_.pointees[s.index];
      std::vector<int64_t> inner;
      DType t = element_dtype(p.type, {}, inner, describe(k), 0);
      std::vector<int64_t> shape = evaluate_dims(p.dims);
      shape.insert(shape.end(), inner.begin(), inner.end());
      return checked_bytes(shape, t.size(), describe(k), start_[k]);
    }
    case Statement::Kind::kType: {
      const TypeDef& t = layout_.types[s.index];
      if (t.kind != TypeKind::kParamBlock) return 0;
      uint64_t cursor = 0, instance = 0;
      for (const StructEntry& e : t.body) {
        if (e.kind == StructEntry::Kind::kCursor) cursor = e.offset;
        if (e.kind != StructEntry::Kind::kParam) continue;
        const Param& p = layout_.params[e.index];
        if (p.kind == ParamKind::kFixed) continue;
        std::vector<int64_t> inner;
        uint64_t offset = p.has_address ? p.address : cursor;
        auto end = checked_add(offset, element_dtype(p.type, {}, inner, describe(k), 0).size());
        if (!end) {
          throw Error(ErrorCategory::kData,
                      fmt::format("{}: parameter {} ends beyond 2^64 bytes", describe(k),
                                  layout_.name(p.name)),
                      Location::binary(source_->name(), offset));
        }
        cursor = *end;
        instance = std::max(instance, cursor);
      }
      return checked_bytes(evaluate_dims(t.dims), instance, describe(k), start_[k]);
    }
    default:
      return 0;
  }
}

bool Binding::has_variable_instances(const TypeRef& ref, int depth) const {
  if (ref.kind != TypeRef::Kind::kUser || depth > 64) return false;
  const TypeDef& t = layout_.types[ref.user];
  if (t.has_dynamic_params || t.kind == TypeKind::kHeteroBody) return true;
  for (const StructEntry& e : t.body) {
    if (e.kind == StructEntry::Kind::kMember &&
        has_variable_instances(layout_.nodes[e.index].type, depth + 1))
      return true;
  }
  return false;
}

int64_t Binding::local_value(ParamId p, const Locals& own, const Locals& block) {
  for (const Locals* locals : {&own, &block}) {
    for (auto it = locals->rbegin(); it != locals->rend(); ++it) {
      if (it->first == p) return it->second;
    }
  }
  const Param& param = layout_.params[p];
  return param.group != kNone ? param_value(p) : param.value;
}

// The parameters of instance `index` of a parameter block, read from its storage.
Binding::Locals Binding::block_instance(TypeId block, uint64_t index, const std::string& what,
                                        BoundInstance* record) {
  const uint32_t k = plan_.statement_of_type(block);
  ensure(k);
  const uint64_t total = end_[k] - start_[k];
  const uint64_t count = instance_count(evaluate_dims(layout_.types[block].dims), what);
  const uint64_t instance = count ? total / count : 0;
  Locals values;
  uint64_t cursor = 0, extent = 0;
  for (const StructEntry& e : layout_.types[block].body) {
    if (e.kind == StructEntry::Kind::kCursor) cursor = e.offset;
    if (e.kind == StructEntry::Kind::kParam) {
      instance_param(e.index, start_[k] + index * instance, cursor, extent, values, what, 0,
                     record);
    }
  }
  return values;
}

void Binding::instance_param(ParamId id, uint64_t base, uint64_t& cursor, uint64_t& extent,
                             Locals& values, const std::string& what, int depth,
                             BoundInstance* record) {
  const Param& p = layout_.params[id];
  if (p.kind == ParamKind::kFixed) {
    values.emplace_back(id, p.value);
    if (record) record->params.push_back({id, p.value, std::nullopt});
    return;
  }
  const uint64_t offset = p.has_address ? p.address : cursor;
  std::vector<int64_t> inner;
  const uint64_t size = element_dtype(p.type, {}, inner, what, depth).size();
  const std::string name =
      naming_ ? fmt::format("{} (parameter {} of an instance)", what, layout_.name(p.name))
              : std::string();
  ++stored_reads_;  // a value that may differ from one instance to the next
  std::optional<int64_t> given;
  if (options_.instance_params && hook_item_ != kNone) {
    given = options_.instance_params(hook_item_, hook_path_, id);
  }
  auto at = checked_add(base, offset);
  if (!at) throw Error(ErrorCategory::kData, what + " ends beyond 2^64 bytes");
  const int64_t value = given ? *given : read_integer(p.type, *at, name);
  values.emplace_back(id, value);
  if (record) record->params.push_back({id, value, *at});
  auto end = checked_add(offset, size);
  if (!end) throw Error(ErrorCategory::kData, what + " ends beyond 2^64 bytes");
  cursor = *end;
  extent = std::max(extent, cursor);
}

uint64_t Binding::instance_count(const std::vector<int64_t>& shape, const std::string& what) {
  uint64_t count = 1;
  for (int64_t d : shape) {
    auto m = checked_mul(count, static_cast<uint64_t>(d));
    if (!m) throw Error(ErrorCategory::kData, what + ": more than 2^64 instances");
    count = *m;
  }
  return count;
}

uint64_t Binding::one_instance(const TypeRef& type, uint64_t i, uint64_t base,
                               const std::vector<int64_t>& bound, const std::string& what,
                               int depth, BoundInstance* record) {
  const TypeDef& t = layout_.types[type.user];
  Locals block;
  if (depth == 0) hook_path_.assign(1, i);
  if (depth > 0 && !hook_path_.empty()) hook_path_.back() = i;
  if (t.kind == TypeKind::kHeteroBody && t.block != kNone && depth == 0) {
    block = block_instance(t.block, i, what, record);  // its parameters come first
  }
  return instance_extent(type.user, base, bound, block, what, depth, record);
}

void Binding::take_record(const std::string& what, uint64_t n) {
  if (n > records_left_) {
    throw Error(ErrorCategory::kLimit,
                fmt::format("{}: more than {} instances to lay out at once (nested ones included); "
                            "they are not expanded",
                            what, kMaxInstanceRecords));
  }
  records_left_ -= n;
}

void Binding::shift_instance(BoundInstance& instance, uint64_t delta) {
  instance.address += delta;
  for (auto& p : instance.params) {
    if (p.address) *p.address += delta;
  }
  for (auto& m : instance.members) {
    m.array.address += delta;
    for (auto& nested : m.instances) shift_instance(nested, delta);  // depth <= type nesting
  }
}

uint64_t Binding::variable_extent(const TypeRef& type, uint64_t count, uint64_t base,
                                  const std::vector<int64_t>& bound, const std::string& what,
                                  int depth, std::vector<BoundInstance>* record) {
  uint64_t total = 0;
  for (uint64_t i = 0; i < count; ++i) {
    BoundInstance* instance = nullptr;
    const uint64_t records_before = records_left_;
    if (record) {
      take_record(what, 1);
      instance = &record->emplace_back();
    }
    const uint64_t reads_before = stored_reads_;
    auto at = checked_add(base, total);
    if (!at) throw Error(ErrorCategory::kData, what + " ends beyond 2^64 bytes");
    const uint64_t size = one_instance(type, i, *at, bound, what, depth, instance);
    if (stored_reads_ == reads_before) {
      // The instance took no value from the file (its parameters are all fixed): every
      // other one is the same, so the rest follow by arithmetic rather than by a walk whose
      // length a layout of a few bytes could set to 2^60.
      auto rest = checked_mul(size, count - i);
      auto end = rest ? checked_add(total, *rest) : std::nullopt;
      if (!end) throw Error(ErrorCategory::kData, what + " ends beyond 2^64 bytes");
      if (record && count - i > 1) {
        // Each copy costs as many records as the first (its nested instances included).
        auto cost = checked_mul(records_before - records_left_, count - i - 1);
        take_record(what, cost.value_or(UINT64_MAX));
        const size_t first = record->size() - 1;
        for (uint64_t j = 1; j < count - i; ++j) {
          BoundInstance copy = (*record)[first];
          shift_instance(copy, size * j);  // within *end, checked above
          record->push_back(std::move(copy));
        }
      }
      return *end;
    }
    auto next = checked_add(total, size);
    if (!next) throw Error(ErrorCategory::kData, what + " ends beyond 2^64 bytes");
    total = *next;
  }
  return total;
}

uint64_t Binding::instance_extent(TypeId id, uint64_t base, const std::vector<int64_t>& bound,
                                  const Locals& block, const std::string& what, int depth,
                                  BoundInstance* record) {
  if (depth > 64) throw Error(ErrorCategory::kType, what + ": types nest too deeply");
  const TypeDef& t = layout_.types[id];
  Locals own;
  uint64_t cursor = 0, extent = 0;
  if (record) record->address = base;
  for (const StructEntry& e : t.body) {
    if (e.kind == StructEntry::Kind::kCursor) {
      cursor = e.offset;
      continue;
    }
    if (e.kind == StructEntry::Kind::kParam) {
      instance_param(e.index, base, cursor, extent, own, what, depth, record);
      continue;
    }
    const Node& m = layout_.nodes[e.index];
    std::vector<int64_t> shape;
    for (const Dim& d : layout_.dims_of(m.dims)) {
      int64_t value = d.literal;
      if (d.kind == Dim::Kind::kParam) value = local_value(d.param, own, block);
      if (d.kind == Dim::Kind::kFreeName) {
        value = 0;
        for (size_t i = 0; i < t.free_names.size(); ++i) {
          if (t.free_names[i] == d.name && i < bound.size()) value = bound[i];
        }
      }
      push_dimension(shape, value, d.kind == Dim::Kind::kLiteral ? 0 : d.adjust);
    }
    std::vector<int64_t> member_bound;
    for (ParamId p : layout_.bindings_of(m.bindings)) {
      member_bound.push_back((p & kOuterBinding) ? bound.at(p & ~kOuterBinding)
                                                 : local_value(p, own, block));
    }
    const uint64_t offset = m.has_address ? m.address : cursor;
    auto start = checked_add(base, offset);
    if (!start) throw Error(ErrorCategory::kData, what + " ends beyond 2^64 bytes");
    BoundInstance::Member* member = nullptr;
    if (record) {
      member = &record->members.emplace_back();
      member->node = e.index;
    }
    uint64_t size = 0;
    if (has_variable_instances(m.type)) {
      if (member) {
        member->varies = true;
        member->shape = shape;
      }
      const uint64_t count = instance_count(shape, what);
      hook_path_.push_back(e.index);  // the member, then its instance's index (set there)
      hook_path_.push_back(0);
      size = variable_extent(m.type, count, *start, member_bound, what, depth + 1,
                             member ? &member->instances : nullptr);
      hook_path_.resize(hook_path_.size() - 2);
    } else {
      std::vector<int64_t> inner;
      DType type = element_dtype(m.type, member_bound, inner, what, depth + 1);
      shape.insert(shape.end(), inner.begin(), inner.end());
      size = checked_bytes(shape, type.size(), what, *start);
      if (member) member->array = {std::move(type), std::move(shape), *start, size};
    }
    auto end = checked_add(offset, size);
    if (!end) throw Error(ErrorCategory::kData, what + " ends beyond 2^64 bytes");
    cursor = *end;
    extent = std::max(extent, cursor);
  }
  if (record) record->size = extent;
  return extent;
}

std::vector<int64_t> Binding::instance_shape(const Node& n) {
  const TypeDef* t = n.type.kind == TypeRef::Kind::kUser ? &layout_.types[n.type.user] : nullptr;
  // A heterogeneous array takes its parameter block's shape [C21].
  return t && t->kind == TypeKind::kHeteroBody && t->block != kNone
             ? evaluate_dims(layout_.types[t->block].dims)
             : evaluate_dims(n.dims);
}

BoundArray Binding::pointee(uint32_t index) {
  return named_on_error([&] {
    const Pointee& p = layout_.pointees.at(index);
    const uint32_t k = plan_.statement_of_pointee(index);
    const std::string what = naming_ ? fmt::format("pointee {}", p.key) : std::string();
    BoundArray a;
    a.address = p.has_address ? p.address : cursor_before(k);
    std::vector<int64_t> inner;
    a.dtype = element_dtype(p.type, {}, inner, what, 0);
    a.shape = evaluate_dims(p.dims);
    a.shape.insert(a.shape.end(), inner.begin(), inner.end());
    a.byte_size = checked_bytes(a.shape, a.dtype.size(), what, a.address);
    if (a.byte_size > 0) source_->check_range(a.address, a.byte_size, what);
    return a;
  });
}

bool Binding::has_varying_instances(NodeId node) const {
  const Node& n = layout_.nodes[node];
  return n.kind == NodeKind::kData && has_variable_instances(n.type);
}

void Binding::check_instance_ranges(const BoundInstance& instance, const std::string& what) {
  // Every member's bytes must be there, as array() checks for a plain item.
  std::vector<const BoundInstance*> pending{&instance};
  while (!pending.empty()) {
    const BoundInstance* i = pending.back();
    pending.pop_back();
    for (const auto& m : i->members) {
      if (!m.varies && m.array.byte_size > 0) {
        source_->check_range(m.array.address, m.array.byte_size,
                             naming_ ? "data item " + what : std::string());
      }
      for (const auto& nested : m.instances) pending.push_back(&nested);
    }
  }
}

const Node& Binding::varying_item(NodeId node) const {
  const Node& n = layout_.nodes.at(node);
  if (plan_.statement_of_node(node) == kNone || !has_variable_instances(n.type)) {
    throw Error(ErrorCategory::kUsage,
                layout_.path(node) + " has no instances that differ in size: use array()");
  }
  return n;
}

std::vector<int64_t> Binding::instance_shape_of(NodeId node) {
  return named_on_error([&] { return instance_shape(varying_item(node)); });
}

std::vector<BoundInstance> Binding::instances(NodeId node, std::vector<int64_t>& shape) {
  return named_on_error([&] {
    const Node& n = varying_item(node);
    const uint32_t k = plan_.statement_of_node(node);
    const std::string what = naming_ ? layout_.path(node) : std::string();
    const uint64_t address = n.has_address ? n.address : cursor_before(k);
    shape = instance_shape(n);
    std::vector<BoundInstance> out;
    const uint64_t count = instance_count(shape, what);
    const std::vector<int64_t> bound = bound_values(n);
    hook_item_ = node;
    hook_path_.clear();
    records_left_ = kMaxInstanceRecords;
    variable_extent(n.type, count, address, bound, what, 0, &out);
    hook_item_ = kNone;
    for (const auto& i : out) check_instance_ranges(i, what);
    return out;
  });
}

BoundInstance Binding::instance(NodeId node, uint64_t index) {
  return named_on_error([&] {
    const Node& n = varying_item(node);
    const uint32_t k = plan_.statement_of_node(node);
    const std::string what = naming_ ? layout_.path(node) : std::string();
    const uint64_t count = instance_count(instance_shape(n), what);
    if (index >= count) {
      throw Error(ErrorCategory::kUsage,
                  fmt::format("{}: no instance {} (it has {})", layout_.path(node), index, count));
    }
    const std::vector<int64_t> bound = bound_values(n);
    if (walk_.node != node || walk_.next > index) {
      walk_ = {node, 0, n.has_address ? n.address : cursor_before(k)};
    }
    hook_item_ = node;
    struct Done {
      NodeId& item;
      ~Done() { item = kNone; }
    } done{hook_item_};
    // Measure (without keeping) the instances before the one asked for.
    while (walk_.next < index) {
      const uint64_t reads_before = stored_reads_;
      const uint64_t size =
          one_instance(n.type, walk_.next, walk_.address, bound, what, 0, nullptr);
      uint64_t steps = 1;
      if (stored_reads_ == reads_before) steps = index - walk_.next;  // all alike: jump
      auto next = checked_mul(size, steps);
      auto address = next ? checked_add(walk_.address, *next) : std::nullopt;
      if (!address) throw Error(ErrorCategory::kData, what + " ends beyond 2^64 bytes");
      walk_.address = *address;
      walk_.next += steps;
    }
    BoundInstance out;
    records_left_ = kMaxInstanceRecords;
    const uint64_t size = one_instance(n.type, index, walk_.address, bound, what, 0, &out);
    check_instance_ranges(out, what);
    if (auto after = checked_add(walk_.address, size)) walk_ = {node, index + 1, *after};
    return out;
  });
}

BoundArray Binding::array_impl(NodeId node, bool check_range) {
  const Node& n = layout_.nodes[node];
  const uint32_t k = plan_.statement_of_node(node);
  if (n.kind != NodeKind::kData || k == kNone) {
    throw Error(ErrorCategory::kUsage, layout_.path(node) + " is not a data item");
  }
  const std::string what = naming_ ? layout_.path(node) : std::string();
  // Start address (without evaluating this statement itself, which calls back here).
  const uint64_t address = n.has_address ? n.address : cursor_before(k);
  BoundArray a;
  std::vector<int64_t> inner;
  a.dtype = element_dtype(n.type, bound_values(n), inner, what, 0);
  a.shape = evaluate_dims(n.dims);
  a.shape.insert(a.shape.end(), inner.begin(), inner.end());
  a.address = address;
  a.byte_size = checked_bytes(a.shape, a.dtype.size(), what, address);
  if (check_range && a.byte_size > 0) {
    source_->check_range(address, a.byte_size, naming_ ? "data item " + what : std::string());
  } else if (check_range && !n.has_address && k > 0 && address > source_->size()) {
    ensure(k - 1);  // an empty item past the end: the walk names the item that ran over
  }
  return a;
}

}  // namespace dudley::layout
