// merge_plain_blocks: a module as the text format spells it, for comparing a pass's output with
// a parsed module. Consecutive plain (non-dataflow) binding blocks print as one run of bindings
// (text/printer.h), so parsing gives one block where the IR may have several.
#pragma once

#include <utility>
#include <vector>

#include "relax/ir/expr_functor.h"
#include "relax/ir/module.h"

namespace relax::test {

/// `m` with consecutive plain (non-dataflow) binding blocks merged into one, in every SeqExpr:
/// the text format has one spelling for them, so a round trip merges them.
inline IRModule merge_plain_blocks(const IRModule& m) {
  struct Merger : ExprMutatorBase {
    using ExprMutatorBase::visit_;
    Expr visit_(const SeqExpr* op) override {
      Expr e = ExprMutatorBase::visit_(op);
      auto* seq = e.as<SeqExpr>();
      std::vector<Block> blocks;
      bool merged = false;
      for (const auto& b : seq->blocks) {
        if (!blocks.empty() && !b->is_dataflow() && !blocks.back()->is_dataflow()) {
          std::vector<Binding> bs = blocks.back()->bindings;
          bs.insert(bs.end(), b->bindings.begin(), b->bindings.end());
          blocks.back() = make_block(std::move(bs), false);
          merged = true;
        } else {
          blocks.push_back(b);
        }
      }
      if (!merged) return e;
      return make_ref<SeqExpr>(std::move(blocks), seq->body, seq->struct_info);
    }
  };
  IRModule out = m;
  for (const auto& entry : m.functions())
    if (entry.func.is<Function>())
      out.update(entry.gv, Merger().visit_expr(entry.func).as_ref<Function>());
  return out;
}

}  // namespace relax::test
