// to-non-dataflow: turns every dataflow block into a plain binding block.
//
// Expects: well-formed IR. Guarantees: no DataflowBlock and no DataflowVar remain; each
// DataflowVar becomes a Var of the same name and struct info, and the bindings keep their
// order and values. A dataflow-block-level pass: DataflowVars are local to their block, so
// each block is rewritten on its own.
#include <unordered_map>

#include "relax/ir/var_rename_mutator.h"
#include "relax/transform/core_passes.h"

namespace relax::transform {

namespace {

/// Rewrites the uses of the block's DataflowVars; keeps struct info on rebuilt expressions
/// (it does not change, since each replacement has the struct info of what it replaces).
class DataflowVarRewriter : public VarRenameMutator {
 public:
  using VarRenameMutator::visit_;

  Block rewrite(const Block& block) {
    std::vector<Binding> bindings;
    for (const Binding& b : block->bindings) {
      Expr value = visit_expr(b->value);
      Ref<VarNode> var = b->var;
      if (var.is<DataflowVar>()) {
        Ref<Var> plain = make_var(var->name, var->struct_info, var->span);
        var_remap_[var.get()] = plain;
        var = plain;
      }
      if (auto* mc = b.as<MatchCast>()) {
        bindings.push_back(make_ref<MatchCast>(var, value, mc->struct_info, b->span));
      } else {
        bindings.push_back(make_ref<VarBinding>(var, value, b->span));
      }
    }
    return make_ref<BindingBlock>(std::move(bindings));
  }

};

Block to_non_dataflow(const Block& block, const PassArgs&) {
  return DataflowVarRewriter().rewrite(block);
}

}  // namespace

void register_to_non_dataflow(PassRegistry& registry) {
  registry.add({"to-non-dataflow",
                "Turn dataflow blocks into binding blocks and DataflowVars into Vars",
                Granularity::kDataflowBlock,
                {}},
               BlockTransform(to_non_dataflow));
}

}  // namespace relax::transform
