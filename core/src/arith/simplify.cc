// The bottom-up simplifier: every node's children are simplified first, then its own rules
// run. Integer +, - and * go through the canonical sum form (canonical.cc); floordiv/floormod,
// min/max and comparisons have their rule files; this file holds the dispatch and the small
// rules of Select, Cast, Let and logic.
//
// Let: a value that is a constant or a variable is inlined; otherwise the Let stays, its
// body simplified with the variable bounded by its value's bounds, and it disappears when the
// body no longer uses the variable.
#include <optional>

#include "internal.h"
#include "relax/tir/stmt_functor.h"

namespace relax::arith::detail {

using namespace tir;

PrimExpr Simplifier::visit_(const Var* op) {
  if (auto it = state_.facts.find(op); it != state_.facts.end() && it->second.value.defined())
    return it->second.value;
  return PrimExpr(op);
}

PrimExpr Simplifier::visit_(const Add* op) {
  PrimExpr a = visit_expr(op->a), b = visit_expr(op->b);
  if (!is_canonical_type(op->dtype)) return a + b;
  return canonical(alg_.add(alg_.to_sum(a), alg_.to_sum(b)));
}

PrimExpr Simplifier::visit_(const Sub* op) {
  PrimExpr a = visit_expr(op->a), b = visit_expr(op->b);
  if (!is_canonical_type(op->dtype)) return a - b;
  return canonical(alg_.add(alg_.to_sum(a), alg_.to_sum(b), -1));
}

PrimExpr Simplifier::visit_(const Mul* op) {
  PrimExpr a = visit_expr(op->a), b = visit_expr(op->b);
  if (!is_canonical_type(op->dtype)) return a * b;
  return canonical(alg_.mul(alg_.to_sum(a), alg_.to_sum(b)));
}

PrimExpr Simplifier::visit_(const FloorDiv* op) {
  return floordiv(visit_expr(op->a), visit_expr(op->b));
}
PrimExpr Simplifier::visit_(const FloorMod* op) {
  return floormod(visit_expr(op->a), visit_expr(op->b));
}

PrimExpr Simplifier::visit_(const Div* op) {
  PrimExpr a = visit_expr(op->a), b = visit_expr(op->b);
  // Truncating division is flooring division when neither side is negative.
  if (is_canonical_type(op->dtype) && bound_of(state_, a).min_value >= 0 &&
      bound_of(state_, b).min_value > 0)
    return floordiv(a, b);
  return truncdiv(a, b);
}

PrimExpr Simplifier::visit_(const Mod* op) {
  PrimExpr a = visit_expr(op->a), b = visit_expr(op->b);
  if (is_canonical_type(op->dtype) && bound_of(state_, a).min_value >= 0 &&
      bound_of(state_, b).min_value > 0)
    return floormod(a, b);
  return truncmod(a, b);
}

PrimExpr Simplifier::visit_(const Min* op) { return min(visit_expr(op->a), visit_expr(op->b)); }
PrimExpr Simplifier::visit_(const Max* op) { return max(visit_expr(op->a), visit_expr(op->b)); }

#define RELAX_X(Name)                                                            \
  PrimExpr Simplifier::visit_(const Name* op) {                                  \
    return compare(PrimExprKind::k##Name, visit_expr(op->a), visit_expr(op->b)); \
  }
RELAX_X(EQ)
RELAX_X(NE)
RELAX_X(LT)
RELAX_X(LE)
RELAX_X(GT)
RELAX_X(GE)
#undef RELAX_X

// ---- Logic.

PrimExpr Simplifier::visit_(const And* op) {
  PrimExpr a = visit_expr(op->a), b = visit_expr(op->b);
  if (!a->dtype.is_scalar()) return tir::logical_and(a, b);
  if (state_.order.equal(a, b)) return a;
  if (state_.order.equal(logical_not(a), b)) return bool_imm(false);  // x && !x
  if (state_.order.compare(a, b) > 0) std::swap(a, b);
  return tir::logical_and(a, b);
}

PrimExpr Simplifier::visit_(const Or* op) {
  PrimExpr a = visit_expr(op->a), b = visit_expr(op->b);
  if (!a->dtype.is_scalar()) return tir::logical_or(a, b);
  if (state_.order.equal(a, b)) return a;
  if (state_.order.equal(logical_not(a), b)) return bool_imm(true);  // x || !x
  if (state_.order.compare(a, b) > 0) std::swap(a, b);
  return tir::logical_or(a, b);
}

PrimExpr Simplifier::visit_(const Not* op) { return logical_not(visit_expr(op->a)); }

PrimExpr Simplifier::logical_not(const PrimExpr& a) {
  if (auto* n = a.as<Not>()) return n->a;
  if (!a->dtype.is_scalar()) return tir::logical_not(a);
  // De Morgan only where it lets the negation fold into comparisons.
  auto* bin = a.as<BinaryOp>();
  if (!bin) return tir::logical_not(a);
  switch (PrimExprKind(a->kind())) {
    case PrimExprKind::kEQ:
      return compare(PrimExprKind::kNE, bin->a, bin->b);
    case PrimExprKind::kNE:
      return compare(PrimExprKind::kEQ, bin->a, bin->b);
    case PrimExprKind::kLT:
      return compare(PrimExprKind::kGE, bin->a, bin->b);
    case PrimExprKind::kLE:
      return compare(PrimExprKind::kGT, bin->a, bin->b);
    case PrimExprKind::kGT:
      return compare(PrimExprKind::kLE, bin->a, bin->b);
    case PrimExprKind::kGE:
      return compare(PrimExprKind::kLT, bin->a, bin->b);
    default:
      return tir::logical_not(a);
  }
}

// ---- Select, Cast, Let.

PrimExpr Simplifier::visit_(const Select* op) {
  PrimExpr c = visit_expr(op->condition);
  if (auto* imm = c.as<IntImm>()) return visit_expr(imm->value ? op->true_value : op->false_value);
  PrimExpr t = visit_expr(op->true_value), f = visit_expr(op->false_value);
  if (state_.order.equal(t, f)) return t;
  // select(!c, t, f) -> select(c, f, t)
  if (auto* n = c.as<Not>()) return tir::select(n->a, f, t);
  return tir::select(c, t, f);
}

PrimExpr Simplifier::visit_(const Cast* op) {
  PrimExpr v = visit_expr(op->value);
  // cast(t, cast(u, x)) -> cast(t, x) when u holds every value of x (the inner cast is exact).
  if (auto* inner = v.as<Cast>(); inner && op->dtype.is_integer_like() &&
                                  inner->dtype.is_integer_like() &&
                                  inner->value->dtype.is_integer_like()) {
    ConstIntBound range = dtype_bound(inner->dtype);
    ConstIntBound vb = bound_of(state_, inner->value);
    if (range.min_value <= vb.min_value && vb.max_value <= range.max_value)
      return tir::cast(op->dtype, inner->value);
  }
  return tir::cast(op->dtype, v);
}

PrimExpr Simplifier::visit_(const Let* op) {
  PrimExpr value = visit_expr(op->value);
  const Var* v = op->var.get();
  auto saved = state_.facts.find(v) != state_.facts.end() ? std::optional<VarFact>(state_.facts[v])
                                                          : std::nullopt;
  VarFact fact;
  fact.var = op->var;
  fact.bound = bound_of(state_, value);
  // Constants and variables are inlined: nothing is recomputed and later rules see through.
  if (value.is<IntImm>() || value.is<Var>()) fact.value = value;
  state_.facts[v] = fact;
  PrimExpr body = visit_expr(op->body);
  if (saved) {
    state_.facts[v] = *saved;
  } else {
    state_.facts.erase(v);
  }
  if (!uses_var(body, v)) return body;
  if (value.same_as(op->value) && body.same_as(op->body)) return PrimExpr(op);
  return make_ref<Let>(op->var, value, body);
}

}  // namespace relax::arith::detail
