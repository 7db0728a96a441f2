// Builders for calls of the core's ops. Each returns an unnormalised Call; emit it through a
// BlockBuilder to get struct info (ir/block_builder.h).
//
// Op names follow TVM: "relax.add", "relax.nn.relu", "relax.call_tir", ...
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "relax/ir/expr.h"

namespace relax::op {

// ---- Bridges to tensor programs and libraries (RFC D0).

/// R.call_tir(gv, args, out_sinfo, tir_vars): calls the PrimFunc `gv` in destination-passing
/// style; `out_sinfo` is one TensorStructInfo, or several for a tuple of outputs. `tir_vars`
/// (a ShapeExpr) passes extra symbolic values to the PrimFunc's scalar parameters.
Expr call_tir(const Expr& gv, std::vector<Expr> args, std::vector<StructInfo> out_sinfo,
              std::optional<std::vector<PrimExpr>> tir_vars = std::nullopt);
/// R.call_dps_packed(func, args, out_sinfo): a packed function in destination-passing style.
Expr call_dps_packed(const std::string& func, std::vector<Expr> args, std::vector<StructInfo> out_sinfo);
/// R.call_packed(func, args..., sinfo_args): a packed function that returns its result; impure.
Expr call_packed(const std::string& func, std::vector<Expr> args, std::vector<StructInfo> sinfo_args = {});
/// R.call_pure_packed(func, args..., sinfo_args): like call_packed, promised pure (allowed in
/// dataflow blocks).
Expr call_pure_packed(const std::string& func, std::vector<Expr> args, std::vector<StructInfo> sinfo_args = {});

// ---- Tensor ops.

Expr add(Expr a, Expr b);
Expr subtract(Expr a, Expr b);
Expr multiply(Expr a, Expr b);
Expr divide(Expr a, Expr b);
Expr exp(Expr x);
Expr relu(Expr x);
/// Batched matrix product with broadcasting over batch dims (NumPy matmul).
Expr matmul(Expr a, Expr b, DataType out_dtype = DataType::Void());
/// Reshape to `shape` (a ShapeExpr or a Shape-valued var); one dim may be -1.
Expr reshape(Expr x, Expr shape);
Expr reshape(Expr x, std::vector<PrimExpr> shape);
/// Flattens to one dimension.
Expr flatten(Expr x);
/// Permutes dimensions; no axes reverses them.
Expr permute_dims(Expr x, std::optional<std::vector<int64_t>> axes = std::nullopt);
/// The shape of a tensor as a Shape value.
Expr shape_of(Expr x);
/// Unique elements (data-dependent output shape: one dimension of unknown size).
Expr unique(Expr x, bool sorted = true);

}  // namespace relax::op
