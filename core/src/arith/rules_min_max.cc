// Rules for min and max on integers:
//
//   min(a, b)                -> a             when a <= b is provable (bounds of b - a, with
//                                             case splits on inner min/max; see rules_compare)
//   min(t + a, t + b)        -> t + min(a, b) (t: the terms, and constant, both sides share)
//   min(min(x, y), x)        -> min(x, y)
//   min(max(x, y), x)        -> x
//   min(min(x, c1), c2)      -> min(x, min(c1, c2))
//   min(b, a)                -> min(a, b)     operands in structural order, constants last
//
// and the same with min and max exchanged.
#include "internal.h"

namespace relax::arith::detail {

using namespace tir;

namespace {

/// The operands of `e` when it is a Min (is_min) or a Max (!is_min), else null.
const BinaryOp* as_min_max(const PrimExpr& e, bool is_min) {
  if (is_min ? e.is<Min>() : e.is<Max>()) return static_cast<const BinaryOp*>(e.get());
  return nullptr;
}

PrimExpr make_min_max(bool is_min, const PrimExpr& a, const PrimExpr& b) {
  if (is_min) return make_ref<Min>(a->dtype, a, b);
  return make_ref<Max>(a->dtype, a, b);
}

struct MinMaxRules {
  Simplifier& s;
  bool is_min;

  PrimExpr apply(PrimExpr a, PrimExpr b) {
    ExprOrder& order = s.state().order;
    SumAlgebra& alg = s.alg();
    if (order.equal(a, b)) return a;
    auto* ca = as_const_int(a);
    auto* cb = as_const_int(b);
    if (ca && cb)
      return make_ref<IntImm>(a->dtype, is_min ? std::min(*ca, *cb) : std::max(*ca, *cb));

    // Decide by the sign of b - a.
    Sum sa = alg.to_sum(a), sb = alg.to_sum(b);
    Sum d = alg.add(sb, sa, -1);
    if (s.prove_nonpositive(SumAlgebra::scale(d, -1))) return is_min ? a : b;  // a <= b
    if (s.prove_nonpositive(d)) return is_min ? b : a;                         // b <= a

    // Pull out what both sides share.
    Sum common = SumAlgebra::constant(a->dtype, sa.constant == sb.constant ? sa.constant : 0);
    for (const auto& ta : sa.terms)
      for (const auto& tb : sb.terms)
        if (ta.coeff == tb.coeff && alg.compare_atoms(ta.atoms, tb.atoms) == 0)
          common.terms.push_back(ta);
    if (!common.is_const() || common.constant != 0) {
      PrimExpr ra = SumAlgebra::from_sum(alg.add(sa, common, -1));
      PrimExpr rb = SumAlgebra::from_sum(alg.add(sb, common, -1));
      PrimExpr inner = apply(ra, rb);
      return SumAlgebra::from_sum(s.combine_div_mod(alg.add(common, alg.to_sum(inner))));
    }

    // Absorption, in both operand orders.
    for (int swap = 0; swap < 2; ++swap, std::swap(a, b)) {
      if (auto* same = as_min_max(a, is_min)) {
        if (order.equal(same->a, b) || order.equal(same->b, b)) return a;
        // min(min(x, c1), c2) -> min(x, min(c1, c2))
        if (as_const_int(b) && as_const_int(same->b)) return apply(same->a, apply(same->b, b));
      }
      if (auto* other = as_min_max(a, !is_min)) {
        if (order.equal(other->a, b) || order.equal(other->b, b)) return b;
      }
    }

    // Constants last, other operands in structural order.
    if (ca || (!cb && order.compare(a, b) > 0)) std::swap(a, b);
    return make_min_max(is_min, a, b);
  }
};

}  // namespace

PrimExpr Simplifier::min(const PrimExpr& a, const PrimExpr& b) {
  if (!is_canonical_type(a->dtype)) return tir::min(a, b);
  return MinMaxRules{*this, true}.apply(a, b);
}

PrimExpr Simplifier::max(const PrimExpr& a, const PrimExpr& b) {
  if (!is_canonical_type(a->dtype)) return tir::max(a, b);
  return MinMaxRules{*this, false}.apply(a, b);
}

}  // namespace relax::arith::detail
