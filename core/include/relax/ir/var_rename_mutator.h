// VarRenameMutator: the base of rewrites that replace variables by variables of the same struct
// info (renaming, DataflowVar -> Var). Rebuilt Call, TupleGetItem, Tuple and If nodes keep the
// struct info of the node they replace instead of being re-inferred: it cannot change, and
// re-inference would need a BlockBuilder the rewrite does not have.
#pragma once

#include "relax/ir/expr_functor.h"

namespace relax {

class VarRenameMutator : public ExprMutatorBase {
 public:
  using ExprMutatorBase::visit_;

  Expr visit_(const Call* op) override {
    Expr out = ExprMutatorBase::visit_(op);
    if (out.get() == op) return out;
    auto* c = out.as<Call>();
    return make_ref<Call>(c->op, c->args, c->attrs, c->sinfo_args, op->struct_info, op->span);
  }
  Expr visit_(const TupleGetItem* op) override {
    Expr out = ExprMutatorBase::visit_(op);
    if (out.get() == op) return out;
    return make_ref<TupleGetItem>(out.as<TupleGetItem>()->tuple, op->index, op->struct_info, op->span);
  }
  Expr visit_(const Tuple* op) override {
    Expr out = ExprMutatorBase::visit_(op);
    if (out.get() == op) return out;
    return make_ref<Tuple>(out.as<Tuple>()->fields, op->struct_info, op->span);
  }
  Expr visit_(const If* op) override {
    Expr out = ExprMutatorBase::visit_(op);
    if (out.get() == op) return out;
    auto* i = out.as<If>();
    return make_ref<If>(i->cond, i->then_branch, i->else_branch, op->struct_info, op->span);
  }
};

}  // namespace relax
