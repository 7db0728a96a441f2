// emit_te (RFC §4.4): a compute-DSL function over Relax tensors becomes a PrimFunc of the
// module being built and a call_tir of it.
//
//   Expr y = te::call_te(bb, {x, w}, [](const std::vector<te::Tensor>& a) {
//     te::Axis k = te::reduce_axis(a[0].shape()[1], "k");
//     return te::compute({a[0].shape()[0], a[1].shape()[1]}, [&](const auto& i) {
//       return te::sum(a[0](i[0], k) * a[1](k, i[1]), {k});
//     }, "matmul");
//   }, "matmul");
//
// Each argument becomes a placeholder with the argument's shape (its symbolic variables
// included) and dtype, named like the argument's variable. The PrimFunc is made by
// create_prim_func over the placeholders and the outputs, then given variables of its own:
// every symbolic variable it takes from the Relax side is replaced by a fresh one of the same
// name, so the PrimFunc shares no variable with the Relax function. The call's out_sinfo is the
// outputs' shapes in the Relax variables; the PrimFunc's scalar parameters (variables not
// bound by a whole dimension of an argument or output) are passed as tir_vars.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "relax/ir/block_builder.h"
#include "relax/op/compute.h"

namespace relax::te {

/// One tensor or several: what a te function returns.
struct TensorList {
  std::vector<Tensor> tensors;
  TensorList(Tensor t) : tensors{std::move(t)} {}  // NOLINT(google-explicit-constructor)
  TensorList(std::vector<Tensor> ts)
      : tensors(std::move(ts)) {}  // NOLINT(google-explicit-constructor)
};

/// A compute-DSL function of placeholders (one per Relax argument).
using TeFunction = std::function<TensorList(const std::vector<Tensor>& args)>;

/// Adds the PrimFunc of `f` over `args` to `bb`'s module (under a fresh name from
/// `name_hint`) and returns the call_tir of it, not yet emitted. Arguments must be tensors of
/// known shape and dtype (a relax::Error names the argument otherwise).
Expr call_te(BlockBuilder& bb, const std::vector<Expr>& args, const TeFunction& f,
             const std::string& name_hint = "te_func");

/// call_te, emitted: binds the call to a new variable and returns it.
Ref<VarNode> emit_te(BlockBuilder& bb, const std::vector<Expr>& args, const TeFunction& f,
                     const std::string& name_hint = "te_func");

}  // namespace relax::te
