// kill-after-last-use: drops the VM's reference to each value right after its last use, so
// that tensors are freed as early as possible.
//
// After the binding that uses a variable for the last time (in its scope), a binding
// `_ = R.vm.kill_object(v)` is inserted; vm-codegen turns it into a null written to v's
// register. Aliases (`y = x`, which vm-codegen compiles to one register) form one group: the
// group's first variable is killed after the last use of any member. Variables used by the
// scope's result, parameters (the caller keeps its own reference) and variables defined in an
// enclosing scope are not killed inside a branch; a use inside an If counts as a use by the
// whole If binding.
//
// Expects: no dataflow blocks (after to-non-dataflow and vm-shape-lower); the last pass
// before vm-codegen. Guarantees: the program computes the same values.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "relax/ir/expr_functor.h"
#include "relax/vm/vm_ops.h"
#include "relax/vm/passes.h"

namespace relax::vm {

using namespace relax::transform;

namespace {

/// The variables an expression uses (including inside nested SeqExprs and If branches).
std::vector<const VarNode*> uses_of(const Expr& e) {
  std::vector<const VarNode*> uses;
  post_order_visit(e, [&](const Expr& x) {
    if (auto* v = x.as<VarNode>()) uses.push_back(v);
  });
  return uses;
}

class Killer {
 public:
  Expr rewrite_seq(const SeqExpr& seq) {
    // Definitions of this scope and, per alias root, the binding index of the last use.
    std::vector<std::pair<const BlockNode*, const BindingNode*>> order;
    for (const Block& block : seq.blocks)
      for (const Binding& b : block->bindings) order.emplace_back(block.get(), b.get());
    std::unordered_map<const VarNode*, size_t> defined_here;  // var -> binding index
    std::unordered_map<const VarNode*, size_t> last_use;
    std::unordered_set<const VarNode*> keep;
    for (size_t i = 0; i < order.size(); ++i) {
      const BindingNode* b = order[i].second;
      if (auto* src = b->value.as<VarNode>()) root_[b->var.get()] = root(src);
      defined_here.emplace(b->var.get(), i);
      for (const VarNode* v : uses_of(b->value)) last_use[root(v)] = i;
    }
    for (const VarNode* v : uses_of(seq.body)) keep.insert(root(v));

    // Kills after binding i, for roots defined in this scope and not kept.
    std::unordered_map<size_t, std::vector<const VarNode*>> kills_after;
    for (const auto& [r, i] : last_use) {
      if (keep.count(r) || !defined_here.count(r) || !killable_.count(r)) continue;
      kills_after[i].push_back(r);
    }
    // Deterministic output: kills after one binding in definition order.
    for (auto& [i, vars] : kills_after) {
      std::sort(vars.begin(), vars.end(), [&](const VarNode* a, const VarNode* b) {
        return defined_here.at(a) < defined_here.at(b);
      });
    }
    std::vector<Block> blocks;
    size_t i = 0;
    for (const Block& block : seq.blocks) {
      std::vector<Binding> bindings;
      for (const Binding& b : block->bindings) {
        bindings.push_back(rewrite_binding(b));
        auto it = kills_after.find(i++);
        if (it == kills_after.end()) continue;
        for (const VarNode* v : it->second) {
          Expr kill = vm::kill_object(Expr(v));
          auto* c = kill.as<Call>();
          Expr typed = make_ref<Call>(c->op, c->args, c->attrs, c->sinfo_args, tuple_sinfo({}));
          bindings.push_back(make_ref<VarBinding>(make_var("_", tuple_sinfo({})), typed));
        }
      }
      blocks.push_back(make_block(std::move(bindings), block->is_dataflow()));
    }
    return make_ref<SeqExpr>(std::move(blocks), seq.body, seq.struct_info);
  }

  void add_killable(const Binding& b) { killable_.insert(b->var.get()); }
  void collect_killable(const Expr& e) {
    post_order_visit(e, [&](const Expr& x) {
      auto* s = x.as<SeqExpr>();
      if (s == nullptr) return;
      for (const Block& block : s->blocks)
        for (const Binding& b : block->bindings) add_killable(b);
    });
  }

 private:
  const VarNode* root(const VarNode* v) {
    auto it = root_.find(v);
    return it == root_.end() ? v : it->second;
  }

  Binding rewrite_binding(const Binding& b) {
    auto* i = b->value.as<If>();
    if (i == nullptr) return b;
    Expr then_branch = rewrite_branch(i->then_branch);
    Expr else_branch = rewrite_branch(i->else_branch);
    Expr value = make_ref<If>(i->cond, then_branch, else_branch, i->struct_info);
    return make_ref<VarBinding>(b->var, value);
  }

  Expr rewrite_branch(const Expr& e) {
    auto* s = e.as<SeqExpr>();
    return s ? rewrite_seq(*s) : e;
  }

  std::unordered_map<const VarNode*, const VarNode*> root_;
  /// Variables defined by bindings (not parameters).
  std::unordered_set<const VarNode*> killable_;
};

IRModule kill_after_last_use(const IRModule& mod, const PassOptions&, PassContext&) {
  vm::register_vm_ops();
  IRModule result = mod;
  for (const auto& entry : mod.functions()) {
    auto func = entry.func.as_ref<Function>();
    if (!func.defined()) continue;
    auto* seq = func->body.as<SeqExpr>();
    if (seq == nullptr) continue;
    Killer killer;
    killer.collect_killable(func->body);
    Expr body = killer.rewrite_seq(*seq);
    result.update(entry.gv, make_ref<Function>(func->params, body, func->ret_struct_info,
                                               func->is_pure, func->attrs));
  }
  return result;
}

}  // namespace

void register_kill_after_last_use(PassRegistry& registry) {
  vm::register_vm_ops();
  registry.add({"kill-after-last-use",
                "Null each variable's register right after its last use (frees memory early)",
                Granularity::kModule,
                {}},
               ModuleTransform(kill_after_last_use));
}

}  // namespace relax::vm
