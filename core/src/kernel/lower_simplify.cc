// simplify_indices: arith-simplification of index arithmetic (tir/lower.h).
//
// Expects no blocks. Every maximal sub-expression that is index arithmetic — int32/int64 (or a
// bool built from such) and loading nothing and computing nothing in floating point — goes
// through one arith::Analyzer that knows each loop variable's range and that parameter shape
// variables are non-negative. Data values are not rewritten (the simplifier assumes no
// overflow). IfThenElse with a constant condition keeps the branch taken; loops of constant
// extent 0 disappear and non-thread loops of extent 1 are replaced by their body at the start.
#include "relax/arith/analyzer.h"
#include "relax/kernel/lower.h"
#include "relax/tir/stmt_functor.h"

namespace relax::tir {

namespace {

/// True for an expression the simplifier may rewrite freely (see the header comment).
bool is_index_expr(const PrimExpr& e) {
  struct Check : ExprVisitor {
    bool ok = true;
    using ExprVisitor::visit_;
    void visit_expr(const PrimExpr& x) override {
      if (!ok) return;
      DataType t = x->dtype;
      if (t.is_float() || t.is_handle() || t.is_vector()) {
        ok = false;
        return;
      }
      ExprVisitor::visit_expr(x);
    }
    void visit_(const BufferLoad*) override { ok = false; }
    void visit_(const Call*) override { ok = false; }
  } check;
  DataType t = e->dtype;
  if (!(t.is_bool() || (t.is_int() && (t.bits == 32 || t.bits == 64)))) return false;
  check(e);
  return check.ok;
}

class IndexSimplifier : public StmtExprMutator {
 public:
  explicit IndexSimplifier(const Ref<PrimFunc>& func) {
    // The symbolic sizes in the parameters' shapes (batch of (batch * 12, 64)) are shape
    // variables: never negative.
    struct ShapeVars : ExprVisitor {
      arith::Analyzer* analyzer;
      using ExprVisitor::visit_;
      void visit_(const Var* v) override {
        if (v->dtype.is_int()) analyzer->assume_nonnegative(Ref<Var>(v));
      }
    } vars;
    vars.analyzer = &analyzer_;
    for (const auto& [param, buffer] : func->buffer_map)
      for (const auto& d : buffer->shape) vars.visit_expr(d);
  }

  using StmtExprMutator::visit_;

  PrimExpr visit_expr(const PrimExpr& e) override {
    if (is_index_expr(e)) return analyzer_.simplify(e);
    return ExprMutator::visit_expr(e);
  }

  Stmt visit_(const For* op) override {
    PrimExpr min = visit_expr(op->min);
    PrimExpr extent = visit_expr(op->extent);
    const int64_t* n = as_const_int(extent);
    if (n != nullptr && *n <= 0) return no_op();
    if (n != nullptr && *n == 1 && op->kind != ForKind::kThreadBinding) {
      std::unordered_map<Ref<Var>, PrimExpr> vmap{{op->loop_var, min}};
      return visit_stmt(substitute(op->body, vmap));
    }
    analyzer_.bind_range(op->loop_var, min, extent);
    Stmt body = visit_stmt(op->body);
    if (min.same_as(op->min) && extent.same_as(op->extent) && body.same_as(op->body))
      return Stmt(op);
    return make_ref<For>(op->loop_var, std::move(min), std::move(extent), op->kind, std::move(body),
                         op->thread_tag, op->annotations);
  }

  Stmt visit_(const IfThenElse* op) override {
    PrimExpr cond = visit_expr(op->condition);
    if (const int64_t* c = as_const_int(cond)) {
      if (*c) return visit_stmt(op->then_case);
      return op->else_case.defined() ? visit_stmt(op->else_case) : no_op();
    }
    Stmt then_case = visit_stmt(op->then_case);
    Stmt else_case = visit_opt(op->else_case);
    if (cond.same_as(op->condition) && then_case.same_as(op->then_case) &&
        else_case.same_as(op->else_case))
      return Stmt(op);
    return make_ref<IfThenElse>(std::move(cond), std::move(then_case), std::move(else_case));
  }

 private:
  arith::Analyzer analyzer_;
};

}  // namespace

Ref<PrimFunc> simplify_indices(const Ref<PrimFunc>& func) {
  IndexSimplifier simplifier(func);
  return with_body(func, simplifier(func->body));
}

}  // namespace relax::tir
