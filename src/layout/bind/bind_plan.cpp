#include "dudley/layout/bind/bind_plan.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include "dudley/core/shape.hpp"

namespace dudley::layout {

namespace {

// More distinct monomials than this in one run and the formula would cost as much as the
// walk it replaces (and its coefficient table would grow with the square of the layout).
constexpr size_t kMaxMonomialsPerRun = 16;

// The size of a declaration as coefficient * product of parameter factors, if it has one.
struct Term {
  uint64_t coefficient = 0;
  std::vector<BindPlan::Factor> factors;
};

// Primitive element, literal and group-parameter dimensions: the only sizes the formulas
// express. Structs, counted and heterogeneous arrays go the step-by-step way.
std::optional<Term> array_term(const Layout& l, const TypeRef& type, Span dims) {
  if (type.kind != TypeRef::Kind::kPrimitive) return std::nullopt;
  Term t{primitive_size(type.primitive), {}};
  for (const Dim& d : l.dims_of(dims)) {
    if (d.kind == Dim::Kind::kLiteral) {
      if (d.literal < 0) continue;  // the dimension disappears [C14]
      auto m = checked_mul(t.coefficient, static_cast<uint64_t>(d.literal));
      if (!m) return std::nullopt;
      t.coefficient = *m;
    } else if (d.kind == Dim::Kind::kParam && l.params[d.param].group != kNone) {
      t.factors.push_back({d.param, d.adjust});
    } else {
      return std::nullopt;
    }
  }
  if (t.coefficient == 0) t.factors.clear();
  return t;
}

}  // namespace

BindPlan::BindPlan(const Layout& layout, bool params_absent, bool use_formulas)
    : layout_(layout), params_absent_(params_absent) {
  statement_of_param_.assign(layout_.params.size(), kNone);
  statement_of_node_.assign(layout_.nodes.size(), kNone);
  statement_of_type_.assign(layout_.types.size(), kNone);
  statement_of_pointee_.assign(layout_.pointees.size(), kNone);
  for (uint32_t i = 0; i < layout_.statements.size(); ++i) {
    const Statement& s = layout_.statements[i];
    if (s.kind == Statement::Kind::kParam) statement_of_param_[s.index] = i;
    if (s.kind == Statement::Kind::kData) statement_of_node_[s.index] = i;
    if (s.kind == Statement::Kind::kSignature) signature_statement_ = i;
    if (s.kind == Statement::Kind::kType) statement_of_type_[s.index] = i;
    if (s.kind == Statement::Kind::kPointee) statement_of_pointee_[s.index] = i;
  }
  monomials_.emplace_back();  // id 0: the constant monomial
  slots_.assign(layout_.statements.size(), Slot{});
  if (use_formulas) compile_formulas();
}

uint32_t BindPlan::pointee_with_key(uint64_t key) const {
  // Pointees are few and looked up only when a pointer is followed: a scan will do.
  for (uint32_t i = 0; i < layout_.pointees.size(); ++i) {
    if (layout_.pointees[i].key == key) return i;
  }
  return kNone;
}

uint32_t BindPlan::intern_monomial(std::vector<Factor> factors) {
  if (factors.empty()) return 0;
  std::sort(factors.begin(), factors.end(), [](const Factor& a, const Factor& b) {
    return a.param != b.param ? a.param < b.param : a.adjust < b.adjust;
  });
  // Few distinct monomials per layout: a linear search keeps this simple and is cheap.
  for (uint32_t id = 1; id < monomials_.size(); ++id) {
    if (monomials_[id] == factors) return id;
  }
  monomials_.push_back(std::move(factors));
  return static_cast<uint32_t>(monomials_.size() - 1);
}

// compile_formulas()'s pass: one walk in file order, tracking the cursor as a formula.
// `coefficients` holds one entry per monomial of the current run (entry 0 is the constant
// part, added to the base).
class FormulaCompiler {
 public:
  explicit FormulaCompiler(BindPlan& plan) : plan_(plan), layout_(plan.layout_) {
    plan_.runs_.push_back({0, {0}});
  }

  void run() {
    for (uint32_t k = 0; k < layout_.statements.size(); ++k) {
      record_slot(k);
      statement(layout_.statements[k]);
    }
  }

 private:
  // The formula before statement k, shared with the one before when nothing moved.
  void record_slot(uint32_t k) {
    if (!valid_) return;
    if (changed_) {
      plan_.slots_[k] = {run_, static_cast<uint32_t>(plan_.coefficient_pool_.size()),
                         static_cast<uint32_t>(coefficients_.size())};
      plan_.coefficient_pool_.insert(plan_.coefficient_pool_.end(), coefficients_.begin(),
                                     coefficients_.end());
      changed_ = false;
    } else {
      plan_.slots_[k] = plan_.slots_[k - 1];  // nothing moved the cursor: share that copy
    }
  }

  void statement(const Statement& s) {
    switch (s.kind) {
      case Statement::Kind::kCursor:
        start_run(layout_.cursors[s.index]);
        break;
      case Statement::Kind::kSignature:
        if (layout_.signature->has_address) {
          explicit_end(layout_.signature->address, constant(8));
        } else {
          add_term(*constant(8));
        }
        break;
      case Statement::Kind::kParam:
        param(layout_.params[s.index]);
        break;
      case Statement::Kind::kData: {
        const Node& n = layout_.nodes[s.index];
        array_statement(n.has_address, n.address, array_term(layout_, n.type, n.dims));
        break;
      }
      case Statement::Kind::kPointee: {
        const Pointee& p = layout_.pointees[s.index];
        array_statement(p.has_address, p.address, array_term(layout_, p.type, p.dims));
        break;
      }
      case Statement::Kind::kType:
        if (layout_.types[s.index].kind == TypeKind::kParamBlock) valid_ = false;
        break;
      case Statement::Kind::kGroup:
      case Statement::Kind::kList:
        break;  // no bytes
    }
  }

  void param(const Param& p) {
    if (p.kind == ParamKind::kFixed || plan_.params_absent_) return;  // no file space
    if (p.type.kind != TypeRef::Kind::kPrimitive) {
      valid_ = false;
      return;
    }
    auto bytes = constant(primitive_size(p.type.primitive));
    if (p.has_address) {
      explicit_end(p.address, bytes);
    } else {
      add_term(*bytes);
    }
  }

  static std::optional<Term> constant(uint64_t bytes) { return Term{bytes, {}}; }

  void start_run(uint64_t base) {
    plan_.runs_.push_back({base, {0}});
    run_ = static_cast<uint32_t>(plan_.runs_.size() - 1);
    coefficients_.assign(1, 0);
    valid_ = true;
    changed_ = true;
  }

  void add_term(const Term& t) {
    if (!valid_ || t.coefficient == 0) return;
    const uint32_t id = plan_.intern_monomial(t.factors);
    auto& monomials = plan_.runs_[run_].monomials;
    size_t i = std::find(monomials.begin(), monomials.end(), id) - monomials.begin();
    if (i == monomials.size()) {
      if (monomials.size() == kMaxMonomialsPerRun) {
        valid_ = false;
        return;
      }
      monomials.push_back(id);
      coefficients_.push_back(0);
    }
    auto sum = checked_add(coefficients_[i], t.coefficient);
    if (!sum) {
      valid_ = false;
      return;
    }
    coefficients_[i] = *sum;
    changed_ = true;
  }

  // An explicit address ends the run; the next one starts at a constant end when the
  // item's size is a known constant. A size that may be zero keeps the cursor where it was
  // [C14], which no single formula says: no formula until the next constant anchor.
  void explicit_end(uint64_t address, const std::optional<Term>& term) {
    if (!term || !term->factors.empty()) {
      valid_ = false;
      return;
    }
    if (term->coefficient == 0) return;  // takes no bytes: the cursor does not move
    auto end = checked_add(address, term->coefficient);
    if (end) {
      start_run(*end);
    } else {
      valid_ = false;
    }
  }

  // A data item or pointee: at an explicit address, or at the cursor when its size is a term.
  void array_statement(bool has_address, uint64_t address, const std::optional<Term>& term) {
    if (has_address) {
      explicit_end(address, term);
    } else if (term) {
      add_term(*term);
    } else {
      valid_ = false;
    }
  }

  BindPlan& plan_;
  const Layout& layout_;
  bool valid_ = true;  // the cursor before statement 0 is 0
  uint32_t run_ = 0;
  std::vector<uint64_t> coefficients_{0};
  bool changed_ = true;  // the pool holds no copy of `coefficients_` yet
};

void BindPlan::compile_formulas() {
  FormulaCompiler(*this).run();
}

bool BindPlan::cursor_formula(uint32_t k, Formula& out) const {
  if (k >= slots_.size() || slots_[k].run == kNone) return false;
  const Slot& slot = slots_[k];
  const uint64_t* c = coefficient_pool_.data() + slot.offset;
  auto base = checked_add(runs_[slot.run].base, c[0]);
  if (!base) return false;
  out.base = *base;
  out.coefficients = c + 1;
  out.monomials = runs_[slot.run].monomials.data() + 1;
  out.count = slot.count - 1;
  return true;
}

}  // namespace dudley::layout
