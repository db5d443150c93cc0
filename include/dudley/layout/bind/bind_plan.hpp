// The per-layout half of binding, computed once and shared read-only by every Binding of the
// layout (every file of a family).
//
// Besides the statement index (which declaration places each item), the plan compiles the
// address cursor into closed formulas wherever it can: in a run of declarations whose sizes
// are element size times a product of literal and parameter dimensions, the cursor before
// each declaration is
//
//     base + sum over monomials m of coefficient(m) * m(parameter values)
//
// so a reader finds array #100 of a file by reading its few parameters and evaluating a
// handful of products, instead of walking 100 declarations per file. Declarations the
// formulas cannot express (structs, counted arrays, parameter blocks, an explicit address
// whose end depends on the size) end the run; the Binding then walks the cursor chain as
// before, so both paths give the same answer.
#pragma once

#include <cstdint>
#include <vector>

#include "dudley/layout/syntax/layout.hpp"

namespace dudley::layout {

class BindPlan {
 public:
  /// One factor of a monomial: the dimension value a parameter gives with its '+'/'-'
  /// adjustment applied [C14] (1 for a negative value: the dimension disappears).
  struct Factor {
    ParamId param = kNone;
    int32_t adjust = 0;
    friend bool operator==(const Factor&, const Factor&) = default;
  };

  /// The cursor before a statement: base + sum(coefficients[i] * monomial(monomials[i])).
  struct Formula {
    uint64_t base = 0;
    const uint64_t* coefficients = nullptr;
    const uint32_t* monomials = nullptr;  ///< ids for monomial_factors()
    uint32_t count = 0;
  };

  /// Compiles `layout` (kept by reference: it must outlive the plan). `params_absent` is the
  /// BindOptions flag the plan serves (absent dynamic parameters take no bytes [C23]);
  /// `use_formulas` false disables the closed formulas (tests compare both paths).
  explicit BindPlan(const Layout& layout, bool params_absent = false, bool use_formulas = true);

  const Layout& layout() const { return layout_; }
  bool params_absent() const { return params_absent_; }

  /// Statement declaring a group parameter, data node or named type; kNone if none.
  uint32_t statement_of_param(ParamId p) const { return statement_of_param_[p]; }
  uint32_t statement_of_node(NodeId n) const { return statement_of_node_[n]; }
  uint32_t statement_of_type(TypeId t) const { return statement_of_type_[t]; }
  uint32_t statement_of_pointee(uint32_t p) const { return statement_of_pointee_[p]; }
  /// The pointee declared with `key` [C19], or kNone.
  uint32_t pointee_with_key(uint64_t key) const;
  /// The !DUDLEY statement, or kNone.
  uint32_t signature_statement() const { return signature_statement_; }

  /// The closed formula for the cursor before statement `k` (where an item without an
  /// explicit address starts); false when the cursor there needs the step-by-step walk.
  bool cursor_formula(uint32_t k, Formula& out) const;
  /// The factors of monomial `id` (empty for the constant monomial).
  const std::vector<Factor>& monomial_factors(uint32_t id) const { return monomials_[id]; }

 private:
  friend class FormulaCompiler;  // compile_formulas()' pass (bind_plan.cpp)
  struct Run {
    uint64_t base = 0;
    std::vector<uint32_t> monomials;
  };
  void compile_formulas();
  uint32_t intern_monomial(std::vector<Factor> factors);

  const Layout& layout_;
  bool params_absent_;
  std::vector<uint32_t> statement_of_param_, statement_of_node_, statement_of_type_,
      statement_of_pointee_;
  uint32_t signature_statement_ = kNone;

  std::vector<std::vector<Factor>> monomials_;
  std::vector<Run> runs_;
  /// Per statement: its run (kNone without a formula) and its coefficients in the pool,
  /// one per monomial of the run known at that point (the constant one first).
  struct Slot {
    uint32_t run = kNone;
    uint32_t offset = 0;
    uint32_t count = 0;
  };
  std::vector<Slot> slots_;
  std::vector<uint64_t> coefficient_pool_;
};

}  // namespace dudley::layout
