// Constant interval bounds of integer expressions, from the bounds the analyzer knows for its
// variables and from the ranges of dtypes. Interval arithmetic saturates at the infinities;
// an unknown node kind is bounded by its dtype.
#include <algorithm>
#include <sstream>

#include "internal.h"

namespace relax::arith {

using Bound = ConstIntBound;

ConstIntBound ConstIntBound::intersect(const ConstIntBound& other) const {
  return {std::max(min_value, other.min_value), std::min(max_value, other.max_value)};
}

std::string ConstIntBound::to_string() const {
  std::ostringstream os;
  os << "[";
  if (min_value == kNegInf)
    os << "-inf";
  else
    os << min_value;
  os << ", ";
  if (max_value == kPosInf)
    os << "+inf";
  else
    os << max_value;
  os << "]";
  return os.str();
}

namespace detail {

using namespace tir;

namespace {

constexpr int64_t kPosInf = Bound::kPosInf;
constexpr int64_t kNegInf = Bound::kNegInf;

bool is_inf(int64_t v) { return v == kPosInf || v == kNegInf; }

int64_t sat_neg(int64_t a) {
  if (a == kNegInf) return kPosInf;
  if (a == kPosInf) return kNegInf;
  return -a;
}

int64_t sat_add(int64_t a, int64_t b) {
  if (is_inf(a)) return a;
  if (is_inf(b)) return b;
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return a > 0 ? kPosInf : kNegInf;
  return r;
}

int64_t sat_mul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  bool negative = (a < 0) != (b < 0);
  if (is_inf(a) || is_inf(b)) return negative ? kNegInf : kPosInf;
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return negative ? kNegInf : kPosInf;
  return r;
}

/// floordiv of a bound end by a positive constant, keeping infinities.
int64_t sat_floordiv(int64_t a, int64_t c) { return is_inf(a) ? a : floordiv_int(a, c); }

Bound hull(std::initializer_list<int64_t> values) { return {std::min(values), std::max(values)}; }

Bound bound_neg(const Bound& a) { return {sat_neg(a.max_value), sat_neg(a.min_value)}; }

Bound bound_floordiv(const Bound& a, const Bound& b) {
  if (b.is_const() && b.min_value > 0) {
    int64_t c = b.min_value;
    return {sat_floordiv(a.min_value, c), sat_floordiv(a.max_value, c)};
  }
  if (b.min_value > 0 && a.min_value >= 0) {
    // Non-negative by positive: largest when dividing the largest by the smallest.
    return {0, sat_floordiv(a.max_value, b.min_value)};
  }
  return Bound::everything();
}

Bound bound_floormod(const Bound& a, const Bound& b) {
  if (b.min_value > 0) {
    int64_t top = b.max_value == kPosInf ? kPosInf : b.max_value - 1;
    // A non-negative numerator below the divisor is its own remainder.
    if (a.min_value >= 0 && a.max_value < b.min_value) return a;
    if (a.min_value >= 0) return {0, std::min(top, a.max_value)};
    return {0, top};
  }
  return Bound::everything();
}

/// Squares keep their sign information: x * x >= 0.
Bound bound_square(const Bound& a) {
  Bound p = bound_mul(a, a);
  if (a.contains(0)) return {0, p.max_value};
  int64_t lo = std::min(sat_mul(a.min_value, a.min_value), sat_mul(a.max_value, a.max_value));
  return {lo, p.max_value};
}

class BoundAnalyzer : public ExprFunctor<Bound(const PrimExpr&)> {
 public:
  explicit BoundAnalyzer(AnalyzerState& state) : state_(state) {}

  Bound visit_expr(const PrimExpr& e) override {
    if (!e->dtype.is_integer_like()) return Bound::everything();
    return ExprFunctor::visit_expr(e).intersect(dtype_bound(e->dtype));
  }

  Bound visit_expr_default(const PrimExprNode* op) override { return dtype_bound(op->dtype); }
  Bound visit_(const IntImm* op) override { return Bound::single(op->value); }
  Bound visit_(const Var* op) override {
    if (auto it = scoped_.find(op); it != scoped_.end()) return it->second;
    return state_.var_bound(op);
  }
  Bound visit_(const Add* op) override { return bound_add(visit_expr(op->a), visit_expr(op->b)); }
  Bound visit_(const Sub* op) override {
    return bound_add(visit_expr(op->a), bound_neg(visit_expr(op->b)));
  }
  Bound visit_(const Mul* op) override {
    if (state_.order.equal(op->a, op->b)) return bound_square(visit_expr(op->a));
    return bound_mul(visit_expr(op->a), visit_expr(op->b));
  }
  Bound visit_(const FloorDiv* op) override {
    return bound_floordiv(visit_expr(op->a), visit_expr(op->b));
  }
  Bound visit_(const FloorMod* op) override {
    return bound_floormod(visit_expr(op->a), visit_expr(op->b));
  }
  Bound visit_(const Div* op) override {
    Bound a = visit_expr(op->a);
    Bound b = visit_expr(op->b);
    // Truncating and flooring division agree on non-negative numerators.
    if (a.min_value >= 0) return bound_floordiv(a, b);
    if (b.is_const() && b.min_value > 0) {
      int64_t c = b.min_value;
      auto trunc = [c](int64_t v) { return is_inf(v) ? v : v / c; };
      return {trunc(a.min_value), trunc(a.max_value)};
    }
    return Bound::everything();
  }
  Bound visit_(const Mod* op) override {
    Bound a = visit_expr(op->a);
    Bound b = visit_expr(op->b);
    if (a.min_value >= 0) return bound_floormod(a, b);
    if (b.is_const() && b.min_value > 0) {
      int64_t c = b.min_value;
      return {-(c - 1), a.max_value <= 0 ? 0 : c - 1};
    }
    return Bound::everything();
  }
  Bound visit_(const Min* op) override {
    Bound a = visit_expr(op->a), b = visit_expr(op->b);
    return {std::min(a.min_value, b.min_value), std::min(a.max_value, b.max_value)};
  }
  Bound visit_(const Max* op) override {
    Bound a = visit_expr(op->a), b = visit_expr(op->b);
    return {std::max(a.min_value, b.min_value), std::max(a.max_value, b.max_value)};
  }
  Bound visit_(const Select* op) override {
    Bound a = visit_expr(op->true_value), b = visit_expr(op->false_value);
    return {std::min(a.min_value, b.min_value), std::max(a.max_value, b.max_value)};
  }
  Bound visit_(const Cast* op) override {
    Bound target = dtype_bound(op->dtype);
    if (!op->value->dtype.is_integer_like()) return target;
    Bound v = visit_expr(op->value);
    // Values that fit are unchanged; others wrap to anything in the target range.
    if (target.min_value <= v.min_value && v.max_value <= target.max_value) return v;
    return target;
  }
  Bound visit_(const Let* op) override {
    Bound v = visit_expr(op->value);
    auto [it, inserted] = scoped_.try_emplace(op->var.get(), v);
    Bound saved = it->second;
    it->second = v;
    Bound r = visit_expr(op->body);
    if (inserted) {
      scoped_.erase(op->var.get());
    } else {
      scoped_[op->var.get()] = saved;
    }
    return r;
  }
  Bound visit_(const Broadcast* op) override { return visit_expr(op->value); }
  Bound visit_(const Ramp* op) override {
    Bound last = bound_mul(visit_expr(op->stride), Bound{0, op->lanes - 1});
    return bound_add(visit_expr(op->base), last);
  }
  Bound visit_(const Call* op) override {
    if (op->op == Intrinsic::kAbs && op->args.size() == 1) {
      Bound a = visit_expr(op->args[0]);
      if (a.min_value >= 0) return a;
      return {0, std::max(sat_neg(a.min_value), a.max_value)};
    }
    return dtype_bound(op->dtype);
  }

 private:
  AnalyzerState& state_;
  std::unordered_map<const Var*, Bound> scoped_;  // Let-bound variables
};

}  // namespace

ConstIntBound dtype_bound(DataType t) {
  if (t.is_bool()) return {0, 1};
  if (t.is_int() && t.bits < 64)
    return {-(int64_t(1) << (t.bits - 1)), (int64_t(1) << (t.bits - 1)) - 1};
  if (t.is_uint() && t.bits < 64) return {0, (int64_t(1) << t.bits) - 1};
  if (t.is_uint()) return {0, kPosInf};
  return Bound::everything();
}

ConstIntBound bound_add(const Bound& a, const Bound& b) {
  return {sat_add(a.min_value, b.min_value), sat_add(a.max_value, b.max_value)};
}

ConstIntBound bound_mul(const Bound& a, const Bound& b) {
  return hull({sat_mul(a.min_value, b.min_value), sat_mul(a.min_value, b.max_value),
               sat_mul(a.max_value, b.min_value), sat_mul(a.max_value, b.max_value)});
}

ConstIntBound bound_scale(const Bound& a, int64_t k) { return bound_mul(a, Bound::single(k)); }

ConstIntBound AnalyzerState::var_bound(const Var* v) const {
  Bound b = dtype_bound(v->dtype);
  if (auto it = facts.find(v); it != facts.end()) return b.intersect(it->second.bound);
  if (options.int64_vars_nonnegative && v->dtype == DataType::Int(64)) b.min_value = 0;
  return b;
}

ConstIntBound bound_of(AnalyzerState& state, const PrimExpr& e) { return BoundAnalyzer(state)(e); }

ConstIntBound bound_of_sum(AnalyzerState& state, const Sum& s) {
  BoundAnalyzer analyzer(state);
  Bound total = Bound::single(s.constant);
  for (const auto& m : s.terms) {
    Bound product = Bound::single(m.coeff);
    for (size_t i = 0; i < m.atoms.size();) {
      // Pair up repeated atoms (they are adjacent: atoms are sorted) as squares.
      if (i + 1 < m.atoms.size() && state.order.equal(m.atoms[i], m.atoms[i + 1])) {
        product = bound_mul(product, bound_square(analyzer(m.atoms[i])));
        i += 2;
      } else {
        product = bound_mul(product, analyzer(m.atoms[i]));
        i += 1;
      }
    }
    total = bound_add(total, product);
    if (total.is_everything()) break;
  }
  return total;
}

}  // namespace detail
}  // namespace relax::arith
