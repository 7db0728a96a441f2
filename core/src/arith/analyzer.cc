// The public Analyzer: variable facts plus simplify / prove / bound queries, each a thin layer
// over the simplifier (simplify.cc and the rules_*.cc files) and the bound analysis.
#include "relax/arith/analyzer.h"

#include "internal.h"

namespace relax::arith {

using namespace tir;

Analyzer::Analyzer(AnalyzerOptions options) : state_(std::make_unique<detail::AnalyzerState>()) {
  state_->options = options;
}
Analyzer::~Analyzer() = default;
Analyzer::Analyzer(Analyzer&&) noexcept = default;
Analyzer& Analyzer::operator=(Analyzer&&) noexcept = default;

void Analyzer::bind(const Ref<Var>& var, const PrimExpr& value) {
  RX_ICHECK(var.defined() && value.defined()) << "Analyzer::bind of an undefined expression";
  RX_ICHECK(var->dtype == value->dtype)
      << "Analyzer::bind: " << var->name << " is " << var->dtype.to_string() << ", its value "
      << to_string(value) << " is " << value->dtype.to_string();
  PrimExpr v = simplify(value);
  ConstIntBound b = detail::bound_of(*state_, v);
  auto [it, inserted] = state_->facts.try_emplace(var.get());
  detail::VarFact& fact = it->second;
  fact.var = var;
  fact.value = v;
  fact.bound = inserted ? b : fact.bound.intersect(b);
}

void Analyzer::bind_range(const Ref<Var>& var, const PrimExpr& min, const PrimExpr& extent) {
  PrimExpr lo = simplify(min);
  PrimExpr hi = simplify(min + extent - 1);
  set_bound(var, const_int_bound(lo).min_value, const_int_bound(hi).max_value);
  auto& fact = state_->facts[var.get()];
  if (!lo.is<IntImm>()) fact.sym_min = lo;
  if (!hi.is<IntImm>()) fact.sym_max = hi;
}

void Analyzer::set_bound(const Ref<Var>& var, int64_t min_value, int64_t max_value) {
  RX_ICHECK(var.defined()) << "Analyzer::set_bound of an undefined variable";
  auto [it, inserted] = state_->facts.try_emplace(var.get());
  auto& fact = it->second;
  if (inserted) {
    fact.var = var;
    fact.bound = state_->var_bound(var.get());  // the dtype's range
  }
  fact.bound = fact.bound.intersect({min_value, max_value});
}

void Analyzer::assume_nonnegative(const Ref<Var>& var) {
  set_bound(var, 0, ConstIntBound::kPosInf);
}

PrimExpr Analyzer::simplify(const PrimExpr& e) {
  RX_ICHECK(e.defined()) << "Analyzer::simplify of an undefined expression";
  return detail::Simplifier(*state_)(e);
}

bool Analyzer::can_prove(const PrimExpr& cond) {
  PrimExpr s = simplify(cond);
  if (auto* imm = s.as<IntImm>()) return imm->value != 0;
  // A conjunction holds when each side does (the simplifier may not have split them).
  if (auto* a = s.as<And>()) return can_prove(a->a) && can_prove(a->b);
  if (auto* o = s.as<Or>()) return can_prove(o->a) || can_prove(o->b);
  return false;
}

bool Analyzer::prove_equal(const PrimExpr& a, const PrimExpr& b) {
  if (a->dtype != b->dtype) return false;
  if (detail::is_canonical_type(a->dtype)) return can_prove(eq(a, b));
  return state_->order.equal(simplify(a), simplify(b));
}

bool Analyzer::can_prove_greater_equal(const PrimExpr& e, int64_t lower) {
  if (const_int_bound(e).min_value >= lower) return true;
  return can_prove(ge(e, int_imm(lower, e->dtype)));
}

bool Analyzer::can_prove_less(const PrimExpr& e, int64_t upper) {
  if (const_int_bound(e).max_value < upper) return true;
  return can_prove(lt(e, int_imm(upper, e->dtype)));
}

ConstIntBound Analyzer::const_int_bound(const PrimExpr& e) {
  if (!e->dtype.is_integer_like()) return ConstIntBound::everything();
  // The simplified form often bounds tighter (x - x is 0), the original never looser.
  ConstIntBound b = detail::bound_of(*state_, e);
  return b.intersect(detail::bound_of(*state_, simplify(e)));
}

PrimExpr simplify(const PrimExpr& e) { return Analyzer().simplify(e); }

bool prove_equal(const PrimExpr& a, const PrimExpr& b) { return Analyzer().prove_equal(a, b); }

}  // namespace relax::arith
