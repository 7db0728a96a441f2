// Interfaces shared by the files of the arithmetic analyzer; not installed.
//
//   expr_order.cc      a deterministic structural total order on PrimExpr
//   canonical.cc       sums of monomials: conversion from and to PrimExpr, + and *
//   const_int_bound.cc constant interval bounds of expressions and sums
//   simplify.cc        the bottom-up simplifier (dispatch, Select, Let, Cast, logic)
//   rules_div_mod.cc   floordiv / floormod rules
//   rules_min_max.cc   min / max rules
//   rules_compare.cc   comparison rules and sign proofs
//   analyzer.cc        the public Analyzer
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "relax/arith/analyzer.h"
#include "relax/tir/expr.h"
#include "relax/tir/expr_functor.h"

namespace relax::arith::detail {

using tir::PrimExpr;

// ---- Integer helpers. Coefficients wrap (never undefined behaviour); bounds saturate.

inline int64_t wrap_add(int64_t a, int64_t b) { return int64_t(uint64_t(a) + uint64_t(b)); }
inline int64_t wrap_mul(int64_t a, int64_t b) { return int64_t(uint64_t(a) * uint64_t(b)); }
int64_t floordiv_int(int64_t a, int64_t b);
int64_t floormod_int(int64_t a, int64_t b);
/// Greatest common divisor of |a| and |b| (gcd(0, 0) == 0).
int64_t gcd_int(int64_t a, int64_t b);
/// True for the dtypes the canonical form handles: scalar signed integers.
inline bool is_canonical_type(DataType t) { return t.is_int() && t.is_scalar(); }

// ---- Structural order.

/// A total order on expressions that depends only on their structure and on the order in which
/// distinct-but-same-named variables are first met, never on addresses: sorting by it is
/// deterministic from run to run.
class ExprOrder {
 public:
  /// <0, 0, >0. Zero exactly when the expressions are structurally equal (variables by identity).
  int compare(const PrimExpr& a, const PrimExpr& b);
  bool equal(const PrimExpr& a, const PrimExpr& b) { return compare(a, b) == 0; }

 private:
  int compare_identity(const Object* a, const Object* b);
  std::unordered_map<const Object*, uint64_t> serials_;
  std::vector<Ref<Object>> keep_alive_;  // so that a serial's address is never reused
};

// ---- Canonical form.

/// coeff * atoms[0] * atoms[1] * ..., atoms sorted by ExprOrder (repeats allowed: x * x).
struct Monomial {
  std::vector<PrimExpr> atoms;
  int64_t coeff = 1;
};

/// constant + sum of terms. Terms are sorted by their atom lists, pairwise distinct, non-zero.
struct Sum {
  DataType dtype;
  std::vector<Monomial> terms;
  int64_t constant = 0;

  bool is_const() const { return terms.empty(); }
  /// Number of terms, counting a non-zero constant as one (the measure rules try to lower).
  size_t size() const { return terms.size() + (constant != 0 ? 1 : 0); }
};

/// Arithmetic on sums, keeping them sorted and merged.
class SumAlgebra {
 public:
  explicit SumAlgebra(ExprOrder& order) : order_(order) {}

  static Sum constant(DataType t, int64_t v);
  /// The sum holding one atom with coefficient 1.
  static Sum atom(const PrimExpr& e);
  /// Reads an (already simplified) expression: Add, Sub, Mul and integer constants are the
  /// structure; anything else is an atom.
  Sum to_sum(const PrimExpr& e);
  /// Writes a sum back: positive terms in order, then negative ones subtracted, then the constant.
  static PrimExpr from_sum(const Sum& s);
  /// a + k * b.
  Sum add(const Sum& a, const Sum& b, int64_t k = 1);
  /// a * b, distributed unless that would give more than kMaxDistributedTerms products of
  /// terms (then the product is one atom).
  Sum mul(const Sum& a, const Sum& b);
  static constexpr size_t kMaxDistributedTerms = 64;
  static Sum scale(const Sum& a, int64_t k);
  /// Orders monomials by their atom lists.
  int compare_atoms(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b);

 private:
  void normalize(Sum* s);
  ExprOrder& order_;
};

// ---- Analyzer state.

/// What the analyzer knows about one variable.
struct VarFact {
  Ref<tir::Var> var;  // keeps the key alive
  ConstIntBound bound;
  PrimExpr value;  // set by bind(var, value)
  /// Symbolic inclusive ends from bind_range (`i` in [0, n) gives sym_max = n - 1), for proofs
  /// the constant bound cannot make.
  PrimExpr sym_min, sym_max;
};

struct AnalyzerState {
  AnalyzerOptions options;
  std::unordered_map<const tir::Var*, VarFact> facts;
  ExprOrder order;

  /// The bound of a variable: its facts, its dtype's range and the options.
  ConstIntBound var_bound(const tir::Var* v) const;
};

// ---- Bounds.

/// The range of values of an integer dtype (everything for other dtypes).
ConstIntBound dtype_bound(DataType t);
/// Interval arithmetic with saturation at the infinities.
ConstIntBound bound_add(const ConstIntBound& a, const ConstIntBound& b);
ConstIntBound bound_mul(const ConstIntBound& a, const ConstIntBound& b);
ConstIntBound bound_scale(const ConstIntBound& a, int64_t k);
/// Constant bounds of `e` under the facts of `state`.
ConstIntBound bound_of(AnalyzerState& state, const PrimExpr& e);
/// Constant bounds of a canonical sum (repeated atoms count as powers: x * x >= 0).
ConstIntBound bound_of_sum(AnalyzerState& state, const Sum& s);

// ---- The simplifier.

/// Bottom-up simplifier: children first, then the rules of the node's kind. Each rule receives
/// simplified operands and returns a simplified result.
class Simplifier : public tir::ExprMutator {
 public:
  explicit Simplifier(AnalyzerState& state) : state_(state), alg_(state.order) {}

  using tir::ExprMutator::visit_;
  PrimExpr visit_(const tir::Var* op) override;
  PrimExpr visit_(const tir::Add* op) override;
  PrimExpr visit_(const tir::Sub* op) override;
  PrimExpr visit_(const tir::Mul* op) override;
  PrimExpr visit_(const tir::Div* op) override;
  PrimExpr visit_(const tir::Mod* op) override;
  PrimExpr visit_(const tir::FloorDiv* op) override;
  PrimExpr visit_(const tir::FloorMod* op) override;
  PrimExpr visit_(const tir::Min* op) override;
  PrimExpr visit_(const tir::Max* op) override;
  PrimExpr visit_(const tir::EQ* op) override;
  PrimExpr visit_(const tir::NE* op) override;
  PrimExpr visit_(const tir::LT* op) override;
  PrimExpr visit_(const tir::LE* op) override;
  PrimExpr visit_(const tir::GT* op) override;
  PrimExpr visit_(const tir::GE* op) override;
  PrimExpr visit_(const tir::And* op) override;
  PrimExpr visit_(const tir::Or* op) override;
  PrimExpr visit_(const tir::Not* op) override;
  PrimExpr visit_(const tir::Select* op) override;
  PrimExpr visit_(const tir::Cast* op) override;
  PrimExpr visit_(const tir::Let* op) override;

  // Rules; operands are simplified. (rules_div_mod.cc)
  PrimExpr floordiv(const PrimExpr& a, const PrimExpr& b);
  PrimExpr floormod(const PrimExpr& a, const PrimExpr& b);
  /// Cancels c * floordiv(e, c) + floormod(e, c) against e wherever that shortens the sum.
  Sum combine_div_mod(Sum s);
  // (rules_min_max.cc)
  PrimExpr min(const PrimExpr& a, const PrimExpr& b);
  PrimExpr max(const PrimExpr& a, const PrimExpr& b);
  // (rules_compare.cc) `kind` is one of EQ, NE, LT, LE, GT, GE.
  PrimExpr compare(tir::PrimExprKind kind, const PrimExpr& a, const PrimExpr& b);
  /// True when d <= 0 provably (bounds, then case splits on min/max/select atoms, then
  /// variables replaced by their symbolic ends).
  bool prove_nonpositive(const Sum& d, int depth = 3);
  PrimExpr logical_not(const PrimExpr& a);

  AnalyzerState& state() { return state_; }
  SumAlgebra& alg() { return alg_; }

 private:
  /// The canonical form of an integer expression built from simplified operands.
  PrimExpr canonical(const Sum& s) { return SumAlgebra::from_sum(combine_div_mod(s)); }
  /// floordiv / floormod with a positive constant divisor, numerator as a sum.
  Sum floordiv_const(const Sum& a, int64_t c);
  PrimExpr floormod_const(const Sum& a, int64_t c);
  /// `r` (divided by the positive constant c, or by c times a symbolic factor: `whole`) as
  /// g * x + s: g the largest gcd(c, a term's coefficient), 1 < g < c (g <= c when `whole`),
  /// for which x (the terms that are multiples of g, over g) leaves s (the others and the
  /// constant) provably in [0, g). Nothing otherwise.
  std::optional<std::pair<Sum, Sum>> split_small_remainder(const Sum& r, int64_t c, int64_t* g,
                                                           bool whole = false);

  AnalyzerState& state_;
  SumAlgebra alg_;
};

}  // namespace relax::arith::detail
