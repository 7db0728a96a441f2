// Purity and use counting, shared by the cleanup passes (DCE, CSE,
// canonicalize-bindings, fold-constant).
//
// "Removable" follows the IR's definition of pure (ir/expr.h): a pure call may be removed or
// merged when its result is unused or equal. The VM-level allocation and call ops
// (relax.builtin.*, relax.vm.*; target/vm_ops.h) are declared pure for the graph but mean an
// allocation or a write into an output buffer: the cleanup passes never remove or merge them.
#pragma once

#include <unordered_map>
#include <unordered_set>

#include "relax/ir/expr_functor.h"
#include "relax/ir/module.h"

namespace relax::cleanup {

/// True when `call` has no visible effect: a pure op (not a VM-level one), a call of a pure
/// function (by its struct info or, for a GlobalVar, the module's function). Packed calls
/// (ExternFunc callees) are impure.
bool call_is_pure(const Call& call, const IRModule& mod);

/// True when no call inside `e` (nested SeqExprs and If branches included) is impure.
bool expr_is_pure(const Expr& e, const IRModule& mod);

/// Counts the uses of each variable; bindings in `skip` (removed ones) are not visited.
class UseCounter : public ExprVisitor {
 public:
  explicit UseCounter(const std::unordered_set<const BindingNode*>* skip = nullptr) : skip_(skip) {}
  using ExprVisitor::visit_;
  void visit_(const Var* op) override { ++counts[op]; }
  void visit_(const DataflowVar* op) override { ++counts[op]; }
  void visit_binding(const Binding& b) override {
    if (skip_ != nullptr && skip_->count(b.get())) return;
    ExprVisitor::visit_binding(b);
  }

  std::unordered_map<const VarNode*, int> counts;

 private:
  const std::unordered_set<const BindingNode*>* skip_;
};

}  // namespace relax::cleanup
