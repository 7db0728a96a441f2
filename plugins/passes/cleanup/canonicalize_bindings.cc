// canonicalize-bindings: removes bindings that only rename a value.
//
//  - A trivial rebinding `y = x` is dropped and every use of y becomes a use of x.
//  - A match_cast `y = R.match_cast(x, S)` whose target S is already implied by x's struct
//    info (struct_info_base_check proves it, with every symbolic variable of S already defined)
//    is dropped the same way: the run-time check could never fail.
// Neither happens when y is a dataflow block's output and x a DataflowVar (x is invisible after
// the block), nor when y's struct info is not x's (the binding would lose an annotation).
//
// Expects: normalized IR. Guarantees: the same values; uses of removed variables are rewritten
// (and re-normalized, so struct info downstream may become more precise).
#include <unordered_set>

#include "relax/arith/analyzer.h"
#include "relax/ir/expr_functor.h"
#include "relax/ir/structural_equal.h"
#include "relax/ir/struct_info_analysis.h"
#include "relax/sdk/plugin.h"

namespace relax::cleanup {

namespace {

using transform::PassArgs;

class Canonicalizer : public ExprMutator {
 public:
  using ExprMutator::visit_;

  Expr visit_(const Function* op) override {
    for (const Ref<Var>& p : op->params) define(p->struct_info);
    return ExprMutator::visit_(op);
  }

  void visit_var_binding(const VarBinding* b) override {
    Expr value = visit_expr(b->value);
    if (value.is<VarNode>() && can_replace(b->var, value) &&
        structural_equal(b->var->struct_info, get_struct_info(value))) {
      var_remap_[b->var.get()] = value;
      return;
    }
    emit_visited(b, value);
  }

  void visit_match_cast(const MatchCast* mc) override {
    Expr value = visit_expr(mc->value);
    bool known = true;
    for (const auto& v : symbolic_vars(mc->struct_info)) known &= defined_.count(v.get()) != 0;
    if (known && value.is<VarNode>() && can_replace(mc->var, value) &&
        struct_info_base_check(mc->struct_info, get_struct_info(value), analyzer_) ==
            BaseCheck::kPass) {
      var_remap_[mc->var.get()] = value;
      return;
    }
    define(mc->struct_info);
    if (value.same_as(mc->value)) {
      builder_.emit_binding(Binding(mc));
      return;
    }
    builder_.emit_binding(make_ref<MatchCast>(mc->var, value, mc->struct_info));
  }

 private:
  /// Whether the uses of `var` may become uses of `value`.
  static bool can_replace(const Ref<VarNode>& var, const Expr& value) {
    return !(var.is<Var>() && value.is<DataflowVar>());
  }
  void define(const StructInfo& sinfo) {
    for (const auto& v : defined_symbolic_vars(sinfo)) {
      defined_.insert(v.get());
      keep_.push_back(v);
    }
  }

  arith::Analyzer analyzer_;
  std::unordered_set<const tir::Var*> defined_;
  std::vector<Ref<tir::Var>> keep_;
};

Ref<Function> canonicalize_bindings(const Ref<Function>& func, const PassArgs&) {
  Canonicalizer c;
  return c.visit_expr(func).as_ref<Function>();
}

}  // namespace

void register_canonicalize_bindings(transform::PluginRegistrar& r) {
  r.add_pass({"canonicalize-bindings",
              "Substitute away trivial rebindings (y = x) and match_casts that cannot fail",
              transform::Granularity::kFunction,
              {}},
             transform::FunctionTransform(canonicalize_bindings));
}

}  // namespace relax::cleanup
