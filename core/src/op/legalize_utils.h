// Helpers shared by the ops' legalisations to TIR (internal to core/src/op).
//
// A legalisation turns a normalised call into a call_tir of a PrimFunc written in the compute
// DSL (te::call_te). The result shape comes from the call's struct info, whose symbolic
// variables are those of the arguments, so the DSL bodies can use it directly.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "relax/ir/block_builder.h"
#include "relax/ir/op.h"
#include "relax/op/compute.h"
#include "relax/op/emit_te.h"
#include "relax/tir/intrin.h"

namespace relax::op_detail {

using tir::PrimExpr;

/// The name a legalised PrimFunc takes: the op name without "relax." and "nn." ("add", "conv2d").
std::string kernel_name(const Call& call);

/// The call's result as a tensor of known shape and dtype; a relax::Error saying that the op
/// cannot be legalised (and how to give it a shape) otherwise.
const TensorStructInfo& legal_out(const Call& call);

/// Argument `i` as a tensor of known shape and dtype, for legalisation (a relax::Error otherwise).
const TensorStructInfo& legal_arg(const Call& call, size_t i);

/// `t` read at output indices `idx` under NumPy broadcasting: `t` is aligned to the right of
/// `idx`, and a dimension that is the constant 1 reads index 0.
PrimExpr broadcast_load(const te::Tensor& t, const std::vector<PrimExpr>& idx);

/// A constant `value` of `dtype` (float, integer or bool).
PrimExpr const_of(double value, DataType dtype);

/// Row-major flat index of `idx` in `shape`.
PrimExpr flat_index(const std::vector<PrimExpr>& idx, const std::vector<PrimExpr>& shape);
/// The multi-index in `shape` of the row-major flat index `flat`.
std::vector<PrimExpr> unflatten_index(PrimExpr flat, const std::vector<PrimExpr>& shape);

/// The tensors of a tuple argument: its fields when it is a Tuple expression, else one
/// TupleGetItem per field of its struct info.
std::vector<Expr> tuple_fields_of(const Expr& e);

/// Elementwise `f(x)` over the first argument, producing the call's result.
Expr legalize_elementwise(BlockBuilder& bb, const Call& call,
                          const std::function<PrimExpr(PrimExpr)>& f);
/// Broadcasting `f(a, b)` over the first two arguments, producing the call's result.
Expr legalize_broadcast(BlockBuilder& bb, const Call& call,
                        const std::function<PrimExpr(PrimExpr, PrimExpr)>& f);

/// Registers the elementwise op `name` of one tensor argument "x": inference `infer`, and a
/// legalisation computing `f(x, call)` per element.
void register_activation(OpRegistry& reg, const std::string& name, const std::string& summary,
                         InferStructInfo infer, std::function<PrimExpr(PrimExpr, const Call&)> f,
                         std::vector<AttrSpec> attrs = {});

/// The constant value of a PrimValue argument (an int or float immediate); a relax::Error
/// naming the argument otherwise.
double prim_value_arg(const Call& call, size_t i);

}  // namespace relax::op_detail
