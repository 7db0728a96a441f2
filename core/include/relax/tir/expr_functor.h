// Functors over PrimExpr, dispatched on the kind tag from the one node list.
//
//   ExprFunctor<R(const PrimExpr&, Args...)>: override visit_(const Add*, ...) etc.
//   ExprVisitor: visits every sub-expression (override a case, call the base to recurse).
//   ExprMutator: rebuilds a node only when a child changed, otherwise returns it unchanged.
#pragma once

#include <vector>

#include "relax/support/diagnostic.h"
#include "relax/tir/expr.h"

namespace relax::tir {

template <class FType>
class ExprFunctor;

template <class R, class... Args>
class ExprFunctor<R(const PrimExpr&, Args...)> {
 public:
  virtual ~ExprFunctor() = default;
  R operator()(const PrimExpr& e, Args... args) { return visit_expr(e, args...); }

  /// Dispatches on the kind of `e`.
  virtual R visit_expr(const PrimExpr& e, Args... args) {
    RX_ICHECK(e.defined()) << "visiting an undefined PrimExpr";
    switch (PrimExprKind(e->kind())) {
#define RELAX_X(Name) \
  case PrimExprKind::k##Name: return visit_(static_cast<const Name*>(e.get()), args...);
      RELAX_PRIM_EXPR_NODES(RELAX_X)
#undef RELAX_X
      default: RX_IFAIL() << "not a PrimExpr kind: " << e->kind();
    }
  }

#define RELAX_X(Name) \
  virtual R visit_(const Name* op, Args... args) { return visit_expr_default(op, args...); }
  RELAX_PRIM_EXPR_NODES(RELAX_X)
#undef RELAX_X

  /// What every case not overridden does; by default an internal error.
  virtual R visit_expr_default(const PrimExprNode* op, Args...) {
    RX_IFAIL() << "PrimExpr functor does not handle " << prim_expr_kind_name(op->kind());
  }
};

/// Visits every sub-expression in evaluation order.
class ExprVisitor : public ExprFunctor<void(const PrimExpr&)> {
 public:
  using ExprFunctor::visit_;
  void visit_(const IntImm*) override {}
  void visit_(const FloatImm*) override {}
  void visit_(const Var*) override {}
#define RELAX_X(Name, Symbol)              \
  void visit_(const Name* op) override { \
    visit_expr(op->a);                   \
    visit_expr(op->b);                   \
  }
  RELAX_PRIM_EXPR_BINARY_NODES(RELAX_X)
#undef RELAX_X
  void visit_(const Not* op) override { visit_expr(op->a); }
  void visit_(const Select* op) override {
    visit_expr(op->condition);
    visit_expr(op->true_value);
    visit_expr(op->false_value);
  }
  void visit_(const Cast* op) override { visit_expr(op->value); }
  void visit_(const Let* op) override {
    visit_expr(op->value);
    visit_expr(op->body);
  }
  void visit_(const Call* op) override {
    for (const auto& a : op->args) visit_expr(a);
  }
  void visit_(const BufferLoad* op) override {
    for (const auto& i : op->indices) visit_expr(i);
  }
  void visit_(const Ramp* op) override {
    visit_expr(op->base);
    visit_expr(op->stride);
  }
  void visit_(const Broadcast* op) override { visit_expr(op->value); }
};

/// Rebuilds expressions bottom-up, sharing every unchanged node.
class ExprMutator : public ExprFunctor<PrimExpr(const PrimExpr&)> {
 public:
  using ExprFunctor::visit_;
  PrimExpr visit_(const IntImm* op) override { return PrimExpr(op); }
  PrimExpr visit_(const FloatImm* op) override { return PrimExpr(op); }
  PrimExpr visit_(const Var* op) override { return PrimExpr(op); }
#define RELAX_X(Name, Symbol)                                              \
  PrimExpr visit_(const Name* op) override {                             \
    PrimExpr a = visit_expr(op->a), b = visit_expr(op->b);               \
    if (a.same_as(op->a) && b.same_as(op->b)) return PrimExpr(op);       \
    return make_ref<Name>(op->dtype, std::move(a), std::move(b));        \
  }
  RELAX_PRIM_EXPR_BINARY_NODES(RELAX_X)
#undef RELAX_X
  PrimExpr visit_(const Not* op) override {
    PrimExpr a = visit_expr(op->a);
    return a.same_as(op->a) ? PrimExpr(op) : PrimExpr(make_ref<Not>(std::move(a)));
  }
  PrimExpr visit_(const Select* op) override {
    PrimExpr c = visit_expr(op->condition), t = visit_expr(op->true_value), f = visit_expr(op->false_value);
    if (c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value)) return PrimExpr(op);
    return make_ref<Select>(std::move(c), std::move(t), std::move(f));
  }
  PrimExpr visit_(const Cast* op) override {
    PrimExpr v = visit_expr(op->value);
    return v.same_as(op->value) ? PrimExpr(op) : PrimExpr(make_ref<Cast>(op->dtype, std::move(v)));
  }
  PrimExpr visit_(const Let* op) override {
    PrimExpr v = visit_expr(op->value), b = visit_expr(op->body);
    if (v.same_as(op->value) && b.same_as(op->body)) return PrimExpr(op);
    return make_ref<Let>(op->var, std::move(v), std::move(b));
  }
  PrimExpr visit_(const Call* op) override {
    std::vector<PrimExpr> args;
    if (!mutate_all(op->args, &args)) return PrimExpr(op);
    return make_ref<Call>(op->dtype, op->op, std::move(args), op->name);
  }
  PrimExpr visit_(const BufferLoad* op) override {
    std::vector<PrimExpr> indices;
    if (!mutate_all(op->indices, &indices)) return PrimExpr(op);
    return make_ref<BufferLoad>(op->dtype, op->buffer, std::move(indices));
  }
  PrimExpr visit_(const Ramp* op) override {
    PrimExpr base = visit_expr(op->base), stride = visit_expr(op->stride);
    if (base.same_as(op->base) && stride.same_as(op->stride)) return PrimExpr(op);
    return make_ref<Ramp>(std::move(base), std::move(stride), op->lanes);
  }
  PrimExpr visit_(const Broadcast* op) override {
    PrimExpr v = visit_expr(op->value);
    return v.same_as(op->value) ? PrimExpr(op) : PrimExpr(make_ref<Broadcast>(std::move(v), op->lanes));
  }

 protected:
  /// Mutates each element into *out; returns false (and leaves *out unspecified) when none changed.
  bool mutate_all(const std::vector<PrimExpr>& in, std::vector<PrimExpr>* out) {
    bool changed = false;
    out->clear();
    out->reserve(in.size());
    for (const auto& e : in) {
      out->push_back(visit_expr(e));
      changed |= !out->back().same_as(e);
    }
    return changed;
  }
};

/// Substitutes variables by the map `f` (returning null keeps the variable).
template <class F>
PrimExpr substitute(const PrimExpr& e, F&& f) {
  struct Sub : ExprMutator {
    F& fn;
    explicit Sub(F& fn) : fn(fn) {}
    using ExprMutator::visit_;
    PrimExpr visit_(const Var* op) override {
      PrimExpr r = fn(op);
      return r.defined() ? r : PrimExpr(op);
    }
  } sub(f);
  return sub(e);
}

}  // namespace relax::tir
