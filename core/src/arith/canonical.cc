// The canonical form of integer expressions: a constant plus a sorted list of monomials
// (int64 coefficient times a sorted product of atoms). Everything that is not +, - or * by
// the structure of the expression (variables, floordiv, min, select, calls...) is an atom;
// the simplifier simplifies atoms before they enter a sum, so equal atoms compare equal.
//
// from_sum writes a sum in one fixed shape and to_sum reads exactly that shape back, so
// simplified expressions can be re-read cheaply as operands of the next rule.
#include <algorithm>

#include "internal.h"

namespace relax::arith::detail {

using namespace tir;

Sum SumAlgebra::constant(DataType t, int64_t v) {
  Sum s;
  s.dtype = t;
  s.constant = v;
  return s;
}

Sum SumAlgebra::atom(const PrimExpr& e) {
  Sum s;
  s.dtype = e->dtype;
  s.terms.push_back(Monomial{{e}, 1});
  return s;
}

int SumAlgebra::compare_atoms(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b) {
  size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i)
    if (int c = order_.compare(a[i], b[i])) return c;
  if (a.size() == b.size()) return 0;
  return a.size() < b.size() ? -1 : 1;
}

void SumAlgebra::normalize(Sum* s) {
  std::stable_sort(s->terms.begin(), s->terms.end(), [&](const Monomial& x, const Monomial& y) {
    return compare_atoms(x.atoms, y.atoms) < 0;
  });
  std::vector<Monomial> merged;
  for (auto& t : s->terms) {
    if (!merged.empty() && compare_atoms(merged.back().atoms, t.atoms) == 0) {
      merged.back().coeff = wrap_add(merged.back().coeff, t.coeff);
    } else {
      merged.push_back(std::move(t));
    }
  }
  std::erase_if(merged, [](const Monomial& m) { return m.coeff == 0; });
  s->terms = std::move(merged);
}

Sum SumAlgebra::scale(const Sum& a, int64_t k) {
  if (k == 0) return constant(a.dtype, 0);
  Sum r = a;
  r.constant = wrap_mul(r.constant, k);
  for (auto& t : r.terms) t.coeff = wrap_mul(t.coeff, k);
  return r;
}

Sum SumAlgebra::add(const Sum& a, const Sum& b, int64_t k) {
  Sum r = a;
  r.constant = wrap_add(r.constant, wrap_mul(b.constant, k));
  for (const auto& t : b.terms) r.terms.push_back(Monomial{t.atoms, wrap_mul(t.coeff, k)});
  normalize(&r);
  return r;
}

Sum SumAlgebra::mul(const Sum& a, const Sum& b) {
  if (a.is_const()) return scale(b, a.constant);
  if (b.is_const()) return scale(a, b.constant);
  // Distributing multiplies the terms: a product of k binomials has 2^k of them (a fuzzed ONNX
  // shape computation took minutes). Past kMaxDistributedTerms the product stays one atom, a
  // Mul of its factors in canonical order (to_sum reads it back to the same atom). Such an atom
  // is never distributed again, except into another monomial: copying it into each term of a
  // sum would double the expression with every further factor.
  auto parts = [](const Sum& s) { return s.terms.size() + (s.constant != 0 ? 1 : 0); };
  auto has_product_atom = [](const Sum& s) {
    for (const auto& t : s.terms)
      for (const auto& x : t.atoms)
        if (x.is<Mul>()) return true;
    return false;
  };
  bool opaque = has_product_atom(a) || has_product_atom(b);
  if (a.terms.size() * b.terms.size() > kMaxDistributedTerms || (opaque && (parts(a) > 1 || parts(b) > 1))) {
    PrimExpr x = from_sum(a), y = from_sum(b);
    if (order_.compare(y, x) < 0) std::swap(x, y);
    return atom(make_ref<Mul>(a.dtype, x, y));
  }
  // Distribute: (c1 + sum m1) * (c2 + sum m2).
  Sum r = constant(a.dtype, wrap_mul(a.constant, b.constant));
  for (const auto& t : a.terms) r.terms.push_back(Monomial{t.atoms, wrap_mul(t.coeff, b.constant)});
  for (const auto& t : b.terms) r.terms.push_back(Monomial{t.atoms, wrap_mul(t.coeff, a.constant)});
  for (const auto& x : a.terms) {
    for (const auto& y : b.terms) {
      Monomial m{x.atoms, wrap_mul(x.coeff, y.coeff)};
      m.atoms.insert(m.atoms.end(), y.atoms.begin(), y.atoms.end());
      std::stable_sort(m.atoms.begin(), m.atoms.end(), [&](const PrimExpr& p, const PrimExpr& q) {
        return order_.compare(p, q) < 0;
      });
      r.terms.push_back(std::move(m));
    }
  }
  normalize(&r);
  return r;
}

Sum SumAlgebra::to_sum(const PrimExpr& e) {
  if (auto* imm = e.as<IntImm>()) return constant(e->dtype, imm->value);
  if (auto* add = e.as<Add>()) return this->add(to_sum(add->a), to_sum(add->b));
  if (auto* sub = e.as<Sub>()) return this->add(to_sum(sub->a), to_sum(sub->b), -1);
  if (auto* m = e.as<Mul>()) return mul(to_sum(m->a), to_sum(m->b));
  return atom(e);
}

namespace {

/// atoms[0] * atoms[1] * ... * |coeff|; the caller adds or subtracts it.
PrimExpr monomial_expr(const Monomial& m, DataType t) {
  PrimExpr r = m.atoms.front();
  for (size_t i = 1; i < m.atoms.size(); ++i) r = make_ref<Mul>(t, r, m.atoms[i]);
  int64_t k = m.coeff > 0 ? m.coeff : wrap_mul(m.coeff, -1);
  if (k != 1) r = make_ref<Mul>(t, r, make_ref<IntImm>(t, k));
  return r;
}

}  // namespace

PrimExpr SumAlgebra::from_sum(const Sum& s) {
  DataType t = s.dtype;
  PrimExpr r;
  for (const auto& m : s.terms) {
    if (m.coeff <= 0) continue;
    PrimExpr term = monomial_expr(m, t);
    r = r.defined() ? PrimExpr(make_ref<Add>(t, r, term)) : term;
  }
  if (!r.defined()) {
    // No positive term: start from the constant, `4 - x`, `0 - x`.
    r = make_ref<IntImm>(t, s.constant);
    for (const auto& m : s.terms) r = make_ref<Sub>(t, r, monomial_expr(m, t));
    return r;
  }
  for (const auto& m : s.terms)
    if (m.coeff < 0) r = make_ref<Sub>(t, r, monomial_expr(m, t));
  if (s.constant > 0) r = make_ref<Add>(t, r, make_ref<IntImm>(t, s.constant));
  if (s.constant < 0) r = make_ref<Sub>(t, r, make_ref<IntImm>(t, wrap_mul(s.constant, -1)));
  return r;
}

}  // namespace relax::arith::detail
