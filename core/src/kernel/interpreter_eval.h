// The reference interpreter's expression evaluator (tir/interpreter.h): one lane of a PrimExpr
// at a time, over the variables and memory of an Env. The intrinsic calls are evaluated in
// interpreter.cc.
#pragma once

#include <cmath>
#include <limits>

#include "interpreter_internal.h"
#include "relax/support/diagnostic.h"
#include "relax/tir/expr_functor.h"

namespace relax::tir::interp {

inline bool is_unsigned(DataType t) { return t.code == DataType::kUInt; }

/// a < b for two values of dtype t.
inline bool less(DataType t, Scalar a, Scalar b) {
  if (t.is_float()) return a.f < b.f;
  if (is_unsigned(t)) return uint64_t(a.i) < uint64_t(b.i);
  return a.i < b.i;
}
inline bool equal(DataType t, Scalar a, Scalar b) {
  return t.is_float() ? a.f == b.f : a.i == b.i;
}

/// Evaluates expressions lane by lane against `env` (see tir/interpreter.h for the semantics).
class Evaluator : public ExprFunctor<Scalar(const PrimExpr&, int)> {
 public:
  explicit Evaluator(Env& env) : env_(env) {}

  /// Every lane of `e`.
  std::vector<Scalar> lanes(const PrimExpr& e) {
    std::vector<Scalar> out;
    for (int l = 0; l < e->dtype.lanes; ++l) out.push_back(visit_expr(e, l));
    return out;
  }
  int64_t eval_int(const PrimExpr& e, int lane = 0) {
    RX_ICHECK(e->dtype.is_integer_like()) << "expected an integer, got " << to_string(e);
    return visit_expr(e, lane).i;
  }

  /// The element offset of buffer[indices] at `lane`: the flat index of a 1-D compact
  /// buffer, or elem_offset + sum(index * stride) otherwise.
  int64_t offset(const Buffer& b, const std::vector<PrimExpr>& indices, int lane) {
    if (b.ndim() == 1 && b.strides.empty() && is_const_int(b.elem_offset, 0))
      return eval_int(indices[0], lane);
    std::vector<PrimExpr> strides = effective_strides(b);
    int64_t off = eval_int(b.elem_offset);
    for (size_t d = 0; d < indices.size(); ++d)
      off += eval_int(indices[d], lane) * eval_int(strides[d]);
    return off;
  }

  /// The address of element `index` of `b`, checked against the memory behind it.
  char* address(const Buffer& b, int64_t index, const char* what) {
    auto it = env_.memory.find(b.data.get());
    RX_CHECK(it != env_.memory.end()) << what << " buffer " << b.name << ": its memory ("
                                      << b.data->name << ") is neither a parameter nor allocated";
    int64_t size = b.dtype.bytes();
    int64_t elements = it->second.nbytes / size;
    RX_CHECK(index >= 0 && index < elements)
        << what << " buffer " << b.name << " at index " << index << " is out of bounds ("
        << elements << " elements)";
    return it->second.data + index * size;
  }

  using ExprFunctor::visit_;

  Scalar visit_(const IntImm* op, int) override { return int_scalar(wrap(op->dtype, op->value)); }
  Scalar visit_(const FloatImm* op, int) override {
    return float_scalar(round_float(op->dtype, op->value));
  }
  Scalar visit_(const Var* op, int lane) override {
    auto it = env_.vars.find(op);
    RX_CHECK(it != env_.vars.end())
        << "variable " << op->name << " has no value (it is not defined)";
    return it->second.size() == 1 ? it->second[0] : it->second.at(size_t(lane));
  }

  Scalar visit_(const Add* op, int l) override {
    return arith(
        op, l, [](uint64_t a, uint64_t b) { return a + b; },
        [](double a, double b) { return a + b; });
  }
  Scalar visit_(const Sub* op, int l) override {
    return arith(
        op, l, [](uint64_t a, uint64_t b) { return a - b; },
        [](double a, double b) { return a - b; });
  }
  Scalar visit_(const Mul* op, int l) override {
    return arith(
        op, l, [](uint64_t a, uint64_t b) { return a * b; },
        [](double a, double b) { return a * b; });
  }
  Scalar visit_(const Div* op, int l) override { return divide(op, l, false, false); }
  Scalar visit_(const Mod* op, int l) override { return divide(op, l, true, false); }
  Scalar visit_(const FloorDiv* op, int l) override { return divide(op, l, false, true); }
  Scalar visit_(const FloorMod* op, int l) override { return divide(op, l, true, true); }
  Scalar visit_(const Min* op, int l) override {
    Scalar a = visit_expr(op->a, l), b = visit_expr(op->b, l);
    return less(op->a->dtype, b, a) ? b : a;
  }
  Scalar visit_(const Max* op, int l) override {
    Scalar a = visit_expr(op->a, l), b = visit_expr(op->b, l);
    return less(op->a->dtype, a, b) ? b : a;
  }
  Scalar visit_(const EQ* op, int l) override {
    return cmp(op, l, [](bool lt, bool eq, bool gt) { return eq; });
  }
  Scalar visit_(const NE* op, int l) override {
    return cmp(op, l, [](bool lt, bool eq, bool gt) { return !eq; });
  }
  Scalar visit_(const LT* op, int l) override {
    return cmp(op, l, [](bool lt, bool eq, bool gt) { return lt; });
  }
  Scalar visit_(const LE* op, int l) override {
    return cmp(op, l, [](bool lt, bool eq, bool gt) { return lt || eq; });
  }
  Scalar visit_(const GT* op, int l) override {
    return cmp(op, l, [](bool lt, bool eq, bool gt) { return gt; });
  }
  Scalar visit_(const GE* op, int l) override {
    return cmp(op, l, [](bool lt, bool eq, bool gt) { return gt || eq; });
  }
  Scalar visit_(const And* op, int l) override {
    return int_scalar(visit_expr(op->a, l).i != 0 && visit_expr(op->b, l).i != 0);
  }
  Scalar visit_(const Or* op, int l) override {
    return int_scalar(visit_expr(op->a, l).i != 0 || visit_expr(op->b, l).i != 0);
  }
  Scalar visit_(const Not* op, int l) override { return int_scalar(visit_expr(op->a, l).i == 0); }
  Scalar visit_(const Select* op, int l) override {
    Scalar c = visit_expr(op->condition, l);
    Scalar t = visit_expr(op->true_value, l), f = visit_expr(op->false_value, l);
    return c.i ? t : f;
  }
  Scalar visit_(const Cast* op, int l) override {
    return convert(op->value->dtype.element_of(), op->dtype.element_of(), visit_expr(op->value, l));
  }
  Scalar visit_(const Let* op, int l) override {
    auto [it, fresh] = env_.vars.emplace(op->var.get(), lanes(op->value));
    RX_CHECK(fresh) << "variable " << op->var->name << " is defined twice";
    Scalar r;
    try {
      r = visit_expr(op->body, l);
    } catch (...) {
      env_.vars.erase(op->var.get());
      throw;
    }
    env_.vars.erase(op->var.get());
    return r;
  }
  Scalar visit_(const BufferLoad* op, int l) override {
    const Buffer& b = *op->buffer;
    return load_scalar(b.dtype, address(b, offset(b, op->indices, l), "load from"));
  }
  Scalar visit_(const Ramp* op, int l) override {
    DataType t = op->base->dtype;
    Scalar base = visit_expr(op->base, l), stride = visit_expr(op->stride, l);
    return int_scalar(wrap(t, int64_t(uint64_t(base.i) + uint64_t(stride.i) * uint64_t(l))));
  }
  Scalar visit_(const Broadcast* op, int l) override { return visit_expr(op->value, 0); }
  Scalar visit_(const Call* op, int l) override;

 private:
  template <class IntFn, class FloatFn>
  Scalar arith(const BinaryOp* op, int l, IntFn fi, FloatFn ff) {
    DataType t = op->dtype.element_of();
    Scalar a = visit_expr(op->a, l), b = visit_expr(op->b, l);
    if (t.is_float()) return float_scalar(round_float(t, ff(a.f, b.f)));
    return int_scalar(wrap(t, int64_t(fi(uint64_t(a.i), uint64_t(b.i)))));
  }

  template <class Fn>
  Scalar cmp(const BinaryOp* op, int l, Fn fn) {
    DataType t = op->a->dtype.element_of();
    Scalar a = visit_expr(op->a, l), b = visit_expr(op->b, l);
    bool lt = less(t, a, b), gt = less(t, b, a), eq = equal(t, a, b);
    return int_scalar(fn(lt, eq, gt) ? 1 : 0);
  }

  Scalar divide(const BinaryOp* op, int l, bool mod, bool floor) {
    DataType t = op->dtype.element_of();
    Scalar a = visit_expr(op->a, l), b = visit_expr(op->b, l);
    if (t.is_float()) {
      double r = floor ? (mod ? a.f - std::floor(a.f / b.f) * b.f : std::floor(a.f / b.f))
                       : (mod ? std::fmod(a.f, b.f) : a.f / b.f);
      return float_scalar(round_float(t, r));
    }
    RX_CHECK(b.i != 0) << "integer " << (mod ? "modulo" : "division") << " by zero in "
                       << to_string(PrimExpr(op));
    if (is_unsigned(t)) {
      uint64_t x = uint64_t(a.i), y = uint64_t(b.i);
      return int_scalar(wrap(t, int64_t(mod ? x % y : x / y)));
    }
    if (a.i == std::numeric_limits<int64_t>::min() && b.i == -1)  // the one overflowing case
      return int_scalar(wrap(t, mod ? 0 : a.i));
    int64_t q = a.i / b.i, r = a.i % b.i;
    if (floor && r != 0 && ((r < 0) != (b.i < 0))) {
      q -= 1;
      r += b.i;
    }
    return int_scalar(wrap(t, mod ? r : q));
  }

  Env& env_;
};

}  // namespace relax::tir::interp
