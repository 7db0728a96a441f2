// Rules for integer comparisons. `a > b` and `a >= b` become `b < a` and `b <= a`; then the
// difference d = a - b (a canonical sum) decides:
//
//   d < 0, d <= 0, d == 0   -> true / false  when the sign of d is provable
//   g * d' op 0             -> d' op' 0      dividing by the gcd g of the coefficients
//                                            (== is false when g does not divide the constant)
//
// An undecided comparison is written back with positive terms on the left and the constant on
// the right (`i < 8`, `x + y <= z + 3`, `n > 0`), so equal conditions print equally.
//
// prove_nonpositive: the bounds of d, then, if that fails, case splits on min/max/select
// atoms: k * min(x, y) <= k * x for k > 0, so proving d with min(x, y) replaced by x (or by y)
// suffices; max needs both replacements; a negative k swaps the roles. Last, a variable with
// symbolic ends (bind_range(i, 0, n)) is replaced by the end that bounds its term: k * i <=
// k * (n - 1) for k > 0.
#include <algorithm>
#include <limits>

#include "internal.h"

namespace relax::arith::detail {

using namespace tir;

namespace {

PrimExprKind flip(PrimExprKind k) {
  switch (k) {
    case PrimExprKind::kLT:
      return PrimExprKind::kGT;
    case PrimExprKind::kLE:
      return PrimExprKind::kGE;
    case PrimExprKind::kGT:
      return PrimExprKind::kLT;
    case PrimExprKind::kGE:
      return PrimExprKind::kLE;
    default:
      return k;  // EQ, NE
  }
}

PrimExpr make_compare(PrimExprKind k, const PrimExpr& a, const PrimExpr& b) {
  switch (k) {
    case PrimExprKind::kEQ:
      return make_ref<EQ>(DataType::Bool(), a, b);
    case PrimExprKind::kNE:
      return make_ref<NE>(DataType::Bool(), a, b);
    case PrimExprKind::kLT:
      return make_ref<LT>(DataType::Bool(), a, b);
    case PrimExprKind::kLE:
      return make_ref<LE>(DataType::Bool(), a, b);
    case PrimExprKind::kGT:
      return make_ref<GT>(DataType::Bool(), a, b);
    default:
      return make_ref<GE>(DataType::Bool(), a, b);
  }
}

PrimExpr fold_compare(PrimExprKind k, const PrimExpr& a, const PrimExpr& b) {
  switch (k) {
    case PrimExprKind::kEQ:
      return tir::eq(a, b);
    case PrimExprKind::kNE:
      return tir::ne(a, b);
    case PrimExprKind::kLT:
      return tir::lt(a, b);
    case PrimExprKind::kLE:
      return tir::le(a, b);
    case PrimExprKind::kGT:
      return tir::gt(a, b);
    default:
      return tir::ge(a, b);
  }
}

Sum plus(const Sum& s, int64_t c) {
  Sum r = s;
  r.constant = wrap_add(r.constant, c);
  return r;
}

}  // namespace

bool Simplifier::prove_nonpositive(const Sum& d, int depth) {
  if (d.is_const()) return d.constant <= 0;
  if (bound_of_sum(state_, d).max_value <= 0) return true;
  if (depth == 0) return false;
  for (size_t i = 0; i < d.terms.size(); ++i) {
    const Monomial& m = d.terms[i];
    if (m.atoms.size() != 1) continue;
    const PrimExpr& atom = m.atoms[0];
    PrimExpr x, y;
    bool either;  // one replacement suffices (the atom is below each), or both are needed
    if (auto* op = atom.as<Min>()) {
      x = op->a, y = op->b, either = m.coeff > 0;
    } else if (auto* op = atom.as<Max>()) {
      x = op->a, y = op->b, either = m.coeff < 0;
    } else if (auto* op = atom.as<Select>()) {
      x = op->true_value, y = op->false_value, either = false;
    } else {
      continue;
    }
    Sum rest = d;
    rest.terms.erase(rest.terms.begin() + i);
    bool px = prove_nonpositive(alg_.add(rest, alg_.to_sum(x), m.coeff), depth - 1);
    if (px && either) return true;
    if (!px && !either) continue;
    bool py = prove_nonpositive(alg_.add(rest, alg_.to_sum(y), m.coeff), depth - 1);
    if (py) return true;
  }
  // k * v <= k * max(v) for k > 0 (k * min(v) for k < 0), with v's symbolic ends.
  for (size_t i = 0; i < d.terms.size(); ++i) {
    const Monomial& m = d.terms[i];
    auto* v = m.atoms.size() == 1 ? m.atoms[0].as<Var>() : nullptr;
    auto it = v ? state_.facts.find(v) : state_.facts.end();
    if (it == state_.facts.end()) continue;
    const PrimExpr& end = m.coeff > 0 ? it->second.sym_max : it->second.sym_min;
    if (!end.defined()) continue;
    Sum rest = d;
    rest.terms.erase(rest.terms.begin() + i);
    if (prove_nonpositive(alg_.add(rest, alg_.to_sum(end), m.coeff), depth - 1)) return true;
  }
  return false;
}

PrimExpr Simplifier::compare(PrimExprKind kind, const PrimExpr& a0, const PrimExpr& b0) {
  if (!is_canonical_type(a0->dtype)) return fold_compare(kind, a0, b0);
  PrimExpr a = a0, b = b0;
  if (kind == PrimExprKind::kGT || kind == PrimExprKind::kGE) {
    std::swap(a, b);
    kind = flip(kind);
  }
  Sum d = combine_div_mod(alg_.add(alg_.to_sum(a), alg_.to_sum(b), -1));
  auto neg = [](const Sum& s) { return SumAlgebra::scale(s, -1); };
  // What follows negates coefficients and the constant: one at INT64_MIN has no negation,
  // and the comparison stays as it is.
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  if (d.constant == kMin ||
      std::any_of(d.terms.begin(), d.terms.end(), [](const auto& t) { return t.coeff == kMin; }))
    return make_compare(kind, a, b);
  // Decide by the sign of d.
  bool lt0 = prove_nonpositive(plus(d, 1));
  bool gt0 = prove_nonpositive(plus(neg(d), 1));
  bool le0 = lt0 || prove_nonpositive(d);
  bool ge0 = gt0 || prove_nonpositive(neg(d));
  switch (kind) {
    case PrimExprKind::kEQ:
      if (le0 && ge0) return bool_imm(true);
      if (lt0 || gt0) return bool_imm(false);
      break;
    case PrimExprKind::kNE:
      if (le0 && ge0) return bool_imm(false);
      if (lt0 || gt0) return bool_imm(true);
      break;
    case PrimExprKind::kLT:
      if (lt0) return bool_imm(true);
      if (ge0) return bool_imm(false);
      break;
    default:  // kLE
      if (le0) return bool_imm(true);
      if (gt0) return bool_imm(false);
      break;
  }

  // Divide by the gcd of the coefficients.
  int64_t g = 0;
  for (const auto& t : d.terms) g = gcd_int(g, t.coeff);
  if (g > 1) {
    int64_t c = d.constant;
    bool exact = c % g == 0;
    if (kind == PrimExprKind::kEQ && !exact) return bool_imm(false);
    if (kind == PrimExprKind::kNE && !exact) return bool_imm(true);
    for (auto& t : d.terms) t.coeff /= g;
    // g*t + c < 0  <=>  t < -c/g  <=>  t + floor(c/g) < 0;  g*t + c <= 0  <=>  t + ceil(c/g) <= 0.
    d.constant = kind == PrimExprKind::kLE ? -floordiv_int(-c, g) : floordiv_int(c, g);
  }
  // == and != are symmetric: orient so the leading term is positive.
  if ((kind == PrimExprKind::kEQ || kind == PrimExprKind::kNE) && d.terms.front().coeff < 0)
    d = neg(d);

  // d = P - N + c: write `P op N - c`, or `N op' c` when P is empty.
  Sum pos = SumAlgebra::constant(d.dtype, 0), negs = SumAlgebra::constant(d.dtype, 0);
  for (const auto& t : d.terms) {
    if (t.coeff > 0) {
      pos.terms.push_back(t);
    } else {
      negs.terms.push_back({t.atoms, -t.coeff});
    }
  }
  if (pos.is_const()) {
    return make_compare(flip(kind), SumAlgebra::from_sum(negs),
                        make_ref<IntImm>(d.dtype, d.constant));
  }
  negs.constant = -d.constant;
  return make_compare(kind, SumAlgebra::from_sum(pos), SumAlgebra::from_sum(negs));
}

}  // namespace relax::arith::detail
