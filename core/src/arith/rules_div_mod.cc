// Rules for floordiv and floormod (Python semantics: the quotient rounds toward -inf, the
// remainder has the divisor's sign). With a positive constant divisor c:
//
//   floordiv(q * c + r, c)            -> q + floordiv(r, c)      (multiples of c leave)
//   floordiv(r, c)                    -> k     when r is in [k*c, k*c + c)
//   floordiv(g * r, g * c)            -> floordiv(r, c)
//   floordiv(g * r + s, g * c)        -> floordiv(r, c)          when s is in [0, g)
//   floordiv(floordiv(e, c1) + k, c)  -> floordiv(e + k * c1, c1 * c)
//   floormod(q * c + r, c)            -> floormod(r, c)
//   floormod(r, c)                    -> r - k * c   when r is in [k*c, k*c + c)
//   floormod(g * r, g * c)            -> floormod(r, c) * g
//   floormod(g * r + s, g * c)        -> floormod(r, c) * g + s  when s is in [0, g)
//   floormod(floormod(e, c1) + k, c)  -> floormod(e + k, c)      when c divides c1
//   c * floordiv(e, c) + floormod(e, c) -> e  (in any sum, whenever that leaves fewer terms,
//                                              or as many with fewer floordiv/floormod)
//
// A negative constant divisor is made positive first; a symbolic divisor that divides every
// term of the numerator exactly gives the quotient, and the terms it divides leave the
// division (floordiv(b * q + r, b) -> q + floordiv(r, b), floormod(b * q + r, b) ->
// floormod(r, b)) (divisors are assumed non-zero).
#include <algorithm>
#include <limits>
#include <optional>
#include <utility>

#include "internal.h"

namespace relax::arith::detail {

using namespace tir;

namespace {

/// The quotient of `a` by the single monomial `b` when every term of `a` is a multiple of it.
std::optional<Sum> divide_exact(ExprOrder& order, SumAlgebra& alg, const Sum& a, const Sum& b) {
  if (b.terms.size() != 1 || b.constant != 0 || a.constant != 0) return std::nullopt;
  const Monomial& d = b.terms[0];
  Sum q = a;
  for (auto& t : q.terms) {
    if (t.coeff % d.coeff != 0) return std::nullopt;
    t.coeff /= d.coeff;
    // Remove d's atoms from t's (both sorted, so one merge-like pass).
    std::vector<PrimExpr> rest;
    size_t j = 0;
    for (const auto& atom : t.atoms) {
      if (j < d.atoms.size() && order.equal(atom, d.atoms[j])) {
        ++j;
      } else {
        rest.push_back(atom);
      }
    }
    if (j != d.atoms.size()) return std::nullopt;
    t.atoms = std::move(rest);  // empty when the term was exactly a multiple of d
  }
  // Terms whose atoms all cancelled are constants now.
  Sum r = SumAlgebra::constant(a.dtype, 0);
  for (auto& t : q.terms) {
    if (t.atoms.empty()) {
      r.constant = wrap_add(r.constant, t.coeff);
    } else {
      r.terms.push_back(std::move(t));
    }
  }
  return alg.add(SumAlgebra::constant(a.dtype, 0), r);  // re-sorts: removing atoms may reorder
}

/// `a` as q * b + r for the single monomial `b`: q from the terms of `a` that are multiples of
/// b, r the other terms and the constant. Nothing when no term is a multiple.
std::optional<std::pair<Sum, Sum>> split_multiples(ExprOrder& order, SumAlgebra& alg,
                                                   const Sum& a, const Sum& b) {
  if (b.terms.size() != 1 || b.constant != 0) return std::nullopt;
  Sum multiples = SumAlgebra::constant(a.dtype, 0), rest = SumAlgebra::constant(a.dtype, 0);
  rest.constant = a.constant;
  for (const Monomial& t : a.terms) {
    Sum one = SumAlgebra::constant(a.dtype, 0);
    one.terms.push_back(t);
    (divide_exact(order, alg, one, b) ? multiples : rest).terms.push_back(t);
  }
  if (multiples.terms.empty()) return std::nullopt;
  auto q = divide_exact(order, alg, multiples, b);
  if (!q) return std::nullopt;
  return std::make_pair(*q, rest);
}

/// gcd of the divisor, the constant and every coefficient of `s`.
int64_t common_factor(const Sum& s, int64_t c) {
  int64_t g = gcd_int(c, s.constant);
  for (const auto& t : s.terms) g = gcd_int(g, t.coeff);
  return g;
}

Sum divide_all(const Sum& s, int64_t g) {
  Sum r = s;
  r.constant /= g;
  for (auto& t : r.terms) t.coeff /= g;
  return r;
}

/// The single atom of `s` with coefficient 1 when `s` is `atom + constant`, else null.
const PrimExpr* single_atom(const Sum& s) {
  if (s.terms.size() != 1 || s.terms[0].coeff != 1 || s.terms[0].atoms.size() != 1) return nullptr;
  return &s.terms[0].atoms[0];
}

/// The positive constant divisor of a floordiv/floormod node, or 0.
int64_t const_divisor(const BinaryOp* op) {
  auto* c = as_const_int(op->b);
  return c && *c > 0 ? *c : 0;
}

}  // namespace

Sum Simplifier::floordiv_const(const Sum& a, int64_t c) {
  if (c == 1) return a;
  DataType t = a.dtype;
  // Multiples of c leave the division; the rest r has its constant in [0, c).
  Sum q = SumAlgebra::constant(t, floordiv_int(a.constant, c));
  Sum r = SumAlgebra::constant(t, floormod_int(a.constant, c));
  for (const auto& m : a.terms) {
    if (m.coeff % c == 0) {
      q.terms.push_back({m.atoms, m.coeff / c});
    } else {
      r.terms.push_back(m);
    }
  }
  if (r.is_const()) return q;  // r.constant < c
  ConstIntBound br = bound_of_sum(state_, r);
  if (br.min_value != ConstIntBound::kNegInf && br.max_value != ConstIntBound::kPosInf &&
      floordiv_int(br.min_value, c) == floordiv_int(br.max_value, c)) {
    q.constant = wrap_add(q.constant, floordiv_int(br.min_value, c));
    return q;
  }
  // floordiv(g * x + s, g * c') -> floordiv(x, c') when 0 <= s < g: (x * 64 + lane) // 768 of
  // a head split, the lane in [0, 64), is x // 12 for every lane.
  int64_t g = 0;
  if (auto split = split_small_remainder(r, c, &g))
    return alg_.add(q, floordiv_const(split->first, c / g));
  if (int64_t g = common_factor(r, c); g > 1) {
    r = divide_all(r, g);
    c /= g;
  }
  Sum rest;
  if (auto* atom = single_atom(r);
      atom && atom->as<FloorDiv>() && const_divisor(atom->as<FloorDiv>())) {
    auto* inner = atom->as<FloorDiv>();
    int64_t c1 = const_divisor(inner);
    Sum e = alg_.add(alg_.to_sum(inner->a), SumAlgebra::constant(t, wrap_mul(r.constant, c1)));
    rest = floordiv_const(e, wrap_mul(c1, c));
  } else {
    rest = SumAlgebra::atom(make_ref<FloorDiv>(t, SumAlgebra::from_sum(r), make_ref<IntImm>(t, c)));
  }
  return alg_.add(q, rest);
}

std::optional<std::pair<Sum, Sum>> Simplifier::split_small_remainder(const Sum& r, int64_t c,
                                                                     int64_t* g_out,
                                                                     bool whole) {
  // Candidates g = gcd(c, a term's coefficient), largest first: the terms that are multiples
  // of g go to x, the others and the constant must stay within [0, g) (so every term without
  // a finite bound is a multiple).
  std::vector<int64_t> candidates;
  for (const auto& t : r.terms) {
    int64_t g = gcd_int(c, t.coeff);
    if (g > 1 && (g < c || whole)) candidates.push_back(g);
  }
  std::sort(candidates.rbegin(), candidates.rend());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  for (int64_t g : candidates) {
    Sum big = SumAlgebra::constant(r.dtype, 0), small = SumAlgebra::constant(r.dtype, r.constant);
    for (const auto& t : r.terms) (t.coeff % g == 0 ? big : small).terms.push_back(t);
    ConstIntBound bs = bound_of_sum(state_, small);
    if (bs.min_value < 0 || bs.max_value == ConstIntBound::kPosInf || bs.max_value >= g) continue;
    *g_out = g;
    return std::make_pair(divide_all(big, g), small);
  }
  return std::nullopt;
}

PrimExpr Simplifier::floormod_const(const Sum& a, int64_t c) {
  DataType t = a.dtype;
  if (c == 1) return make_ref<IntImm>(t, 0);
  // Multiples of c vanish; other coefficients shrink into (-c, c).
  Sum r = SumAlgebra::constant(t, floormod_int(a.constant, c));
  for (const auto& m : a.terms)
    if (m.coeff % c != 0) r.terms.push_back({m.atoms, m.coeff % c});
  if (r.is_const()) return make_ref<IntImm>(t, r.constant);
  ConstIntBound br = bound_of_sum(state_, r);
  if (br.min_value != ConstIntBound::kNegInf && br.max_value != ConstIntBound::kPosInf &&
      floordiv_int(br.min_value, c) == floordiv_int(br.max_value, c)) {
    r.constant = wrap_add(r.constant, -wrap_mul(floordiv_int(br.min_value, c), c));
    return canonical(r);
  }
  // floormod(g * x + s, g * c') -> floormod(x, c') * g + s when 0 <= s < g.
  int64_t g = 0;
  if (auto split = split_small_remainder(r, c, &g)) {
    Sum m = SumAlgebra::scale(alg_.to_sum(floormod_const(split->first, c / g)), g);
    return canonical(alg_.add(m, split->second));
  }
  if (int64_t g = common_factor(r, c); g > 1) {
    PrimExpr inner = floormod_const(divide_all(r, g), c / g);
    return canonical(SumAlgebra::scale(alg_.to_sum(inner), g));
  }
  if (auto* atom = single_atom(r); atom && atom->as<FloorMod>()) {
    auto* inner = atom->as<FloorMod>();
    if (int64_t c1 = const_divisor(inner); c1 && c1 % c == 0) {
      Sum e = alg_.add(alg_.to_sum(inner->a), SumAlgebra::constant(t, r.constant));
      return floormod_const(e, c);
    }
  }
  return make_ref<FloorMod>(t, SumAlgebra::from_sum(r), make_ref<IntImm>(t, c));
}

PrimExpr Simplifier::floordiv(const PrimExpr& a, const PrimExpr& b) {
  if (!is_canonical_type(a->dtype)) return tir::floordiv(a, b);
  Sum sa = alg_.to_sum(a);
  if (auto* c = as_const_int(b); c && *c != 0 && *c != std::numeric_limits<int64_t>::min()) {
    // floordiv(a, -c) == floordiv(-a, c)  (-c exists: c is not INT64_MIN)
    if (*c < 0) return canonical(floordiv_const(SumAlgebra::scale(sa, -1), -*c));
    return canonical(floordiv_const(sa, *c));
  }
  Sum sb = alg_.to_sum(b);
  if (auto q = divide_exact(state_.order, alg_, sa, sb)) return canonical(*q);
  // floordiv(g * x + s, g * b') -> floordiv(x, b') when 0 <= s < g (b' symbolic, not
  // negative: a divisor is non-zero, so at least 1).
  if (sb.terms.size() == 1 && sb.constant == 0 && sb.terms[0].coeff > 1 &&
      bound_of_sum(state_, sb).min_value >= 0) {
    int64_t g = 0;
    if (auto split = split_small_remainder(sa, sb.terms[0].coeff, &g, true)) {
      PrimExpr x = SumAlgebra::from_sum(split->first);
      return floordiv(x, SumAlgebra::from_sum(divide_all(sb, g)));
    }
  }
  // floordiv(q * b + r, b) -> q + floordiv(r, b) for a symbolic b (b != 0): BERT's
  // (batch * x + y) // batch of a reshape through a symbolic batch, once per element.
  if (auto qr = split_multiples(state_.order, alg_, sa, sb)) {
    Sum rest = qr->second;
    Sum out = qr->first;
    if (!rest.is_const() || rest.constant != 0)
      out = alg_.add(out, SumAlgebra::atom(tir::floordiv(SumAlgebra::from_sum(rest), b)));
    return canonical(out);
  }
  return tir::floordiv(a, b);
}

PrimExpr Simplifier::floormod(const PrimExpr& a, const PrimExpr& b) {
  if (!is_canonical_type(a->dtype)) return tir::floormod(a, b);
  Sum sa = alg_.to_sum(a);
  if (auto* c = as_const_int(b); c && *c != 0 && *c != std::numeric_limits<int64_t>::min()) {
    // floormod(a, -c) == -floormod(-a, c)  (-c exists: c is not INT64_MIN)
    if (*c < 0) {
      PrimExpr m = floormod_const(SumAlgebra::scale(sa, -1), -*c);
      return canonical(SumAlgebra::scale(alg_.to_sum(m), -1));
    }
    return floormod_const(sa, *c);
  }
  Sum sb = alg_.to_sum(b);
  if (divide_exact(state_.order, alg_, sa, sb)) return make_ref<IntImm>(a->dtype, 0);
  // floormod(g * x + s, g * b') -> floormod(x, b') * g + s when 0 <= s < g (b' symbolic).
  if (sb.terms.size() == 1 && sb.constant == 0 && sb.terms[0].coeff > 1 &&
      bound_of_sum(state_, sb).min_value >= 0) {
    int64_t g = 0;
    if (auto split = split_small_remainder(sa, sb.terms[0].coeff, &g, true)) {
      PrimExpr m = floormod(SumAlgebra::from_sum(split->first),
                            SumAlgebra::from_sum(divide_all(sb, g)));
      return canonical(alg_.add(SumAlgebra::scale(alg_.to_sum(m), g), split->second));
    }
  }
  // floormod(q * b + r, b) -> floormod(r, b) for a symbolic b.
  if (auto qr = split_multiples(state_.order, alg_, sa, sb)) {
    const Sum& rest = qr->second;
    if (rest.is_const() && rest.constant == 0) return make_ref<IntImm>(a->dtype, 0);
    return tir::floormod(SumAlgebra::from_sum(rest), b);
  }
  return tir::floormod(a, b);
}

Sum Simplifier::combine_div_mod(Sum s) {
  // A step is taken only when it lowers (terms, floordiv/floormod terms), so this ends.
  auto measure = [](const Sum& x) {
    size_t div_mod = 0;
    for (const auto& m : x.terms)
      for (const auto& a : m.atoms) div_mod += a.is<FloorDiv>() || a.is<FloorMod>();
    return std::pair(x.size(), div_mod);
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& m : s.terms) {
      if (m.atoms.size() != 1) continue;
      bool is_div = m.atoms[0].is<FloorDiv>();
      if (!is_div && !m.atoms[0].is<FloorMod>()) continue;
      auto* op = m.atoms[0].as<BinaryOp>();
      int64_t c = const_divisor(op);
      if (c == 0 || (is_div && m.coeff % c != 0)) continue;
      // Adding k * (e - c * floordiv(e, c) - floormod(e, c)), which is zero, cancels this term.
      int64_t k = is_div ? m.coeff / c : m.coeff;
      Sum fd = alg_.to_sum(floordiv(op->a, op->b));
      Sum fm = alg_.to_sum(floormod(op->a, op->b));
      Sum zero = alg_.add(alg_.add(alg_.to_sum(op->a), fd, -c), fm, -1);
      Sum candidate = alg_.add(s, zero, k);
      if (measure(candidate) < measure(s)) {
        s = std::move(candidate);
        changed = true;
        break;
      }
    }
  }
  return s;
}

}  // namespace relax::arith::detail
