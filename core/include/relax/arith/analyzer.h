// Symbolic integer arithmetic: simplification, proofs and constant bounds over PrimExpr.
//
// The simplifier brings integer expressions into a canonical form: a sum of monomials with
// int64 coefficients over "atoms" (variables, floordiv/floormod/min/max/select/calls...), each
// atom itself simplified. Sums are ordered by a structural key that never depends on pointer
// values, so the printed result is the same from run to run. Targeted rewrite rules (in the
// style of Halide's simplifier) then act on that form: floordiv/floormod by constants, min/max
// decided by bounds, comparisons decided by the bounds of their difference.
//
// Assumptions, as in every shape-reasoning simplifier: integer arithmetic does not overflow,
// and divisors are non-zero (division by zero is undefined, so `floordiv(n * m, m)` is `n`).
// Variables are unbounded unless told otherwise: an int64 shape variable may be negative
// until `assume_nonnegative` (or the `int64_vars_nonnegative` option) says it is not.
//
// An Analyzer collects facts about variables; every query uses them. It is not thread-safe:
// use one per thread.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#include "relax/tir/expr.h"

namespace relax::arith {

using tir::PrimExpr;

/// An inclusive integer interval; kNegInf / kPosInf stand for an unbounded end.
struct ConstIntBound {
  static constexpr int64_t kPosInf = std::numeric_limits<int64_t>::max();
  static constexpr int64_t kNegInf = std::numeric_limits<int64_t>::min();

  int64_t min_value = kNegInf;
  int64_t max_value = kPosInf;

  /// The interval of all integers.
  static ConstIntBound everything() { return {}; }
  /// The interval holding only `v`.
  static ConstIntBound single(int64_t v) { return {v, v}; }
  bool is_const() const { return min_value == max_value; }
  bool is_everything() const { return min_value == kNegInf && max_value == kPosInf; }
  bool contains(int64_t v) const { return min_value <= v && v <= max_value; }
  /// The intersection (may be empty, min > max, when facts contradict).
  ConstIntBound intersect(const ConstIntBound& other) const;
  /// "[0, 7]", "[1, +inf]".
  std::string to_string() const;
  friend bool operator==(const ConstIntBound&, const ConstIntBound&) = default;
};

/// Options of an Analyzer.
struct AnalyzerOptions {
  /// Treat every int64 variable without an explicit bound as >= 0 (shape dimensions).
  bool int64_vars_nonnegative = false;
};

namespace detail {
struct AnalyzerState;
}

/// Facts about variables plus the queries that use them.
class Analyzer {
 public:
  explicit Analyzer(AnalyzerOptions options = {});
  ~Analyzer();
  Analyzer(Analyzer&&) noexcept;
  Analyzer& operator=(Analyzer&&) noexcept;
  Analyzer(const Analyzer&) = delete;
  Analyzer& operator=(const Analyzer&) = delete;

  /// `var` equals `value` from now on: simplify substitutes it, bounds follow it.
  void bind(const Ref<tir::Var>& var, const PrimExpr& value);
  /// `var` lies in [min, min + extent) (a loop variable); symbolic ends use their bounds.
  void bind_range(const Ref<tir::Var>& var, const PrimExpr& min, const PrimExpr& extent);
  /// `var` lies in [min_value, max_value] (inclusive; pass ConstIntBound::kPosInf for no upper
  /// end). Repeated calls intersect.
  void set_bound(const Ref<tir::Var>& var, int64_t min_value, int64_t max_value);
  /// `var` >= 0 (a shape dimension).
  void assume_nonnegative(const Ref<tir::Var>& var);

  /// The canonical simplified form of `e` (same dtype, same value for every variable
  /// assignment consistent with the known facts).
  PrimExpr simplify(const PrimExpr& e);
  /// True when `cond` (a bool expression) holds for every assignment consistent with the
  /// known facts. False means "could not prove", not "false".
  bool can_prove(const PrimExpr& cond);
  /// True when `a` and `b` provably have the same value.
  bool prove_equal(const PrimExpr& a, const PrimExpr& b);
  /// True when `e >= lower` provably.
  bool can_prove_greater_equal(const PrimExpr& e, int64_t lower);
  /// True when `e < upper` provably.
  bool can_prove_less(const PrimExpr& e, int64_t upper);
  /// Constant bounds of an integer expression (everything for non-integer ones).
  ConstIntBound const_int_bound(const PrimExpr& e);

 private:
  std::unique_ptr<detail::AnalyzerState> state_;
};

/// Simplifies `e` without facts about its variables.
PrimExpr simplify(const PrimExpr& e);
/// prove_equal without facts about variables.
bool prove_equal(const PrimExpr& a, const PrimExpr& b);

}  // namespace relax::arith
