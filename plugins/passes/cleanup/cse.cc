// cse: common-subexpression elimination of pure bindings.
//
// Within one block, a binding whose value (after earlier rewrites) is structurally equal to the
// value of an earlier binding (variables compared by identity) reuses the earlier variable: its
// uses are rewritten, or, for a dataflow output whose earlier twin is a DataflowVar, the binding
// becomes `y = twin`. Only pure calls, tuples and tuple projections are merged (purity.h:
// never an impure op, a packed call or a VM-level allocation). In a plain binding block the
// table is cleared at every binding that is not pure, so no value is reused across an impure
// call (it may have written into a tensor). Leaves are left to canonicalize-bindings; If
// values, match_casts and nested scopes are never merged.
//
// Expects: normalized IR. Guarantees: the same values; each value computed once per block.
#include <unordered_map>

#include "purity.h"
#include "relax/ir/structural_equal.h"
#include "relax/sdk/plugin.h"

namespace relax::cleanup {

namespace {

using transform::PassArgs;

class Cse : public ExprMutator {
 public:
  explicit Cse(const IRModule& mod) : mod_(mod) {}
  using ExprMutator::visit_;

  Block visit_binding_block(const Block& block) override {
    auto saved = std::move(table_);
    table_.clear();
    Block out = ExprMutator::visit_binding_block(block);
    table_ = std::move(saved);
    return out;
  }

  void visit_var_binding(const VarBinding* b) override {
    Expr value = visit_expr(b->value);
    bool mergeable = false;
    if (auto* call = value.as<Call>()) {
      mergeable = call_is_pure(*call, mod_);
    } else {
      mergeable = value.is<Tuple>() || value.is<TupleGetItem>();
    }
    if (!mergeable) {
      if (!expr_is_pure(value, mod_)) table_.clear();
      emit_visited(b, value);
      return;
    }
    auto it = table_.find(value);
    if (it == table_.end()) {
      Ref<VarNode> var = emit_visited(b, value);
      table_.emplace(value, var);
      return;
    }
    const Ref<VarNode>& twin = it->second;
    if (b->var.is<Var>() && twin.is<DataflowVar>()) {
      builder_.emit_binding(make_ref<VarBinding>(b->var, Expr(twin)));
      return;
    }
    var_remap_[b->var.get()] = Expr(twin);
  }

 private:
  const IRModule& mod_;
  std::unordered_map<Expr, Ref<VarNode>, StructuralHash, StructuralEqual> table_;
};

Ref<Function> cse(const Ref<Function>& func, const PassArgs& args) {
  Cse c(args.module);
  return c.visit_expr(func).as_ref<Function>();
}

}  // namespace

void register_cse(transform::PluginRegistrar& r) {
  r.add_pass({"cse",
              "Merge structurally equal pure bindings within a block",
              transform::Granularity::kFunction,
              {}},
             transform::FunctionTransform(cse));
}

}  // namespace relax::cleanup
