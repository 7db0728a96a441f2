// dead-code-elimination: removes what no one uses.
//
//  - Bindings whose variable is unused and whose value is pure (purity.h): impure calls and the
//    VM-level ops stay, and so do match_casts that define symbolic variables (later struct info
//    may mention them). Removal cascades: a binding used only by removed ones goes too.
//  - Outputs of dataflow blocks that nothing after the block uses become DataflowVars (or go,
//    when nothing uses them at all).
//  - Functions that no entry reaches. Entries are the Relax functions with a "global_symbol"
//    attribute and those named by the `entry` option; reachability follows GlobalVars (calls,
//    call_tir callees). PrimFuncs are kernels, never entries: those no Relax function calls any
//    more (after fold-constant) go. A module without any entry keeps all its functions.
//
// Expects: normalized IR. Guarantees: the program computes the same values with the same
// effects; kept bindings and functions are unchanged and in order.
#include <sstream>
#include <unordered_set>

#include "purity.h"
#include "relax/ir/struct_info_analysis.h"
#include "relax/transform/core_passes.h"
#include "relax/sdk/plugin.h"

namespace relax::cleanup {

namespace {

using transform::PassContext;
using transform::PassOptions;

/// Decides which bindings go and which dataflow outputs become dataflow variables.
class DeadBindingFinder {
 public:
  DeadBindingFinder(const IRModule& mod) : mod_(mod) {}

  void run(const Function& func) {
    // Each sweep removes what is unused given the uses left by the previous sweeps.
    for (bool changed = true; changed;) {
      UseCounter counter(&removed_);
      counter.visit_expr(func.body);
      counts_ = std::move(counter.counts);
      changed = sweep(func.body);
    }
    UseCounter counter(&removed_);
    counter.visit_expr(func.body);
    find_local_outputs(func.body, counter.counts);
  }

  std::unordered_set<const BindingNode*> removed_;
  std::unordered_set<const BindingNode*> to_dataflow_;

 private:
  bool removable(const Binding& b) const {
    if (auto* mc = b.as<MatchCast>(); mc && !defined_symbolic_vars(mc->struct_info).empty())
      return false;
    return expr_is_pure(b->value, mod_);
  }

  /// Removes, last binding first, the unused removable bindings of every SeqExpr in `e`.
  bool sweep(const Expr& e) {
    auto* seq = e.as<SeqExpr>();
    if (auto* i = e.as<If>()) {
      bool then_changed = sweep(i->then_branch);  // both branches are swept
      bool else_changed = sweep(i->else_branch);
      return then_changed || else_changed;
    }
    if (seq == nullptr) return false;
    bool changed = false;
    for (auto bit = seq->blocks.rbegin(); bit != seq->blocks.rend(); ++bit) {
      const auto& bindings = (*bit)->bindings;
      for (auto it = bindings.rbegin(); it != bindings.rend(); ++it) {
        const Binding& b = *it;
        if (removed_.count(b.get())) continue;
        if (counts_[b->var.get()] == 0 && removable(b)) {
          removed_.insert(b.get());
          UseCounter uses(&removed_);
          uses.visit_expr(b->value);
          for (const auto& [v, n] : uses.counts) counts_[v] -= n;
          changed = true;
        } else {
          changed |= sweep(b->value);
        }
      }
    }
    return changed;
  }

  void find_local_outputs(const Expr& e, const std::unordered_map<const VarNode*, int>& total) {
    if (auto* i = e.as<If>()) {
      find_local_outputs(i->then_branch, total);
      find_local_outputs(i->else_branch, total);
    }
    auto* seq = e.as<SeqExpr>();
    if (seq == nullptr) return;
    for (const Block& block : seq->blocks) {
      UseCounter inside(&removed_);
      for (const Binding& b : block->bindings) inside.visit_binding(b);
      for (const Binding& b : block->bindings) {
        if (removed_.count(b.get())) continue;
        if (block->is_dataflow() && b->var.is<Var>()) {
          auto t = total.find(b->var.get());
          auto in = inside.counts.find(b->var.get());
          int outside = (t == total.end() ? 0 : t->second) -
                        (in == inside.counts.end() ? 0 : in->second);
          if (outside == 0) to_dataflow_.insert(b.get());
        }
        find_local_outputs(b->value, total);
      }
    }
  }

  const IRModule& mod_;
  std::unordered_map<const VarNode*, int> counts_;
};

/// Rebuilds a function without the removed bindings, with local outputs made dataflow vars.
class DeadBindingRemover : public ExprMutator {
 public:
  DeadBindingRemover(const DeadBindingFinder& found) : found_(found) {}
  using ExprMutator::visit_;

  Binding visit_binding(const Binding& b) override {
    if (found_.removed_.count(b.get())) return {};
    if (!found_.to_dataflow_.count(b.get())) return ExprMutator::visit_binding(b);
    Expr value = visit_expr(b->value);
    Ref<VarNode> var = make_dataflow_var(b->var->name, b->var->struct_info);
    var_remap_[b->var.get()] = var;
    if (auto* mc = b.as<MatchCast>())
      builder_.emit_binding(make_ref<MatchCast>(var, value, mc->struct_info));
    else
      builder_.emit_binding(make_ref<VarBinding>(var, value));
    return {};
  }

 private:
  const DeadBindingFinder& found_;
};

IRModule dead_code_elimination(const IRModule& mod, const PassOptions& options, PassContext&) {
  IRModule out = mod;
  for (const auto& e : mod.functions()) {
    auto func = e.func.as_ref<Function>();
    if (!func.defined()) continue;
    DeadBindingFinder finder(mod);
    finder.run(*func);
    if (finder.removed_.empty() && finder.to_dataflow_.empty()) continue;
    DeadBindingRemover remover(finder);
    out.update(e.gv, remover.visit_expr(func).as_ref<Function>());
  }
  return transform::remove_unreachable_functions(out, options.get_string("entry"),
                                                 /*prim_funcs_are_entries=*/false);
}

}  // namespace

void register_dead_code_elimination(transform::PluginRegistrar& r) {
  r.add_pass({"dead-code-elimination",
              "Remove unused pure bindings, unused dataflow outputs and unreachable functions",
              transform::Granularity::kModule,
              {{"entry", transform::OptionType::kString, std::string("main"),
                "comma-separated entry functions (Relax functions with a global_symbol are "
                "entries too)"}}},
             transform::ModuleTransform(dead_code_elimination));
}

}  // namespace relax::cleanup
