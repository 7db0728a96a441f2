// librelax-fusion.so: operator fusion as in TVM Relax (DESIGN.md §5).
//
//   annotate-op-pattern  classifies each PrimFunc from its TIR and records the kind in the
//                        PrimFunc attribute `op_pattern` (TVM's numbering, relax::OpPattern)
//   fuse-ops             groups call_tir bindings of each dataflow block into private
//                        `Primitive` Relax functions (TVM's post-dominator rules)
//   fuse-tir             turns each primitive function into one PrimFunc and its calls into
//                        one call_tir
//   fuse-ops-by-pattern  groups op calls matching named patterns (pattern.h) into private
//                        `Composite` functions, before legalize-ops
//
// The pipeline runs them in that order, after legalize-ops and before call-tir-rewrite.
// This header is internal to the plugin: each pass file exports its registration.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "relax/ir/expr_functor.h"
#include "relax/ir/op.h"
#include "relax/ir/prim_func.h"
#include "relax/transform/plugin.h"

namespace relax::fusion {

/// The PrimFunc attribute annotate-op-pattern sets (an int, relax::OpPattern's value).
inline constexpr const char* kAttrOpPattern = "op_pattern";
/// The Relax function attribute marking a fused group (int 1), as in TVM.
inline constexpr const char* kAttrPrimitive = "Primitive";

/// The pattern kind of `func` read from its blocks (see annotate_op_pattern.cc).
OpPattern classify_prim_func(const Ref<tir::PrimFunc>& func);

void register_annotate_op_pattern(transform::PluginRegistrar& r);
void register_fuse_ops(transform::PluginRegistrar& r);
void register_fuse_tir(transform::PluginRegistrar& r);
void register_fuse_ops_by_pattern(transform::PluginRegistrar& r);

/// The mutator base of the block-rewriting fusion passes: an If whose branches were rewritten
/// keeps its struct info (grouping bindings inside a branch does not change its type).
class BranchKeepingMutator : public ExprMutatorBase {
 public:
  using ExprMutatorBase::visit_;
  Expr visit_(const If* op) override {
    Expr out = ExprMutatorBase::visit_(op);
    if (out.get() == op) return out;
    auto* i = out.as<If>();
    return make_ref<If>(i->cond, i->then_branch, i->else_branch, op->struct_info);
  }
};

/// The tensor arguments of a call_tir (the fields of its argument tuple).
const std::vector<Expr>& call_tir_args(const Expr& value);

/// fuse-ops' first step (prune_outputs.cc): `block` with each call_tir of several outputs that
/// it reads one of, through a single `x = lv[k]`, replaced by `x = call_tir(f_out<k>, ...)` of a
/// PrimFunc computing that output only (added to `mod`; `reduced` maps "f/k" to it, once).
Block prune_unused_outputs(const Block& block, IRModule* mod,
                           std::map<std::string, Ref<GlobalVar>>* reduced);

/// `mod` with the constants of each Primitive function's call_tirs made parameters of it and
/// passed by its callers (composites keep their constants; fuse-tir wants parameters).
IRModule lift_primitive_constants(const IRModule& mod);

}  // namespace relax::fusion
