// Helpers shared by the ops' struct-info inference (internal to core/src/op).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "relax/arith/analyzer.h"
#include "relax/ir/block_builder.h"
#include "relax/ir/op.h"

namespace relax::op_detail {

/// The name of argument `i` of `call` (from the registry), for messages.
std::string arg_name(const Call& call, size_t i);
/// The op's name.
std::string op_name(const Call& call);

/// When argument `i` of `call` (the indices of a gather) is a constant integer tensor and `x`'s
/// axis `axis` has a static size d, checks every index lies in [-d, d); throws relax::Error
/// naming the op, the index and its position otherwise.
void check_constant_indices(const Call& call, size_t i, const TensorStructInfo& x, int64_t axis);

/// Argument `i` as a tensor; throws relax::Error naming the op and argument otherwise.
const TensorStructInfo& expect_tensor(const Call& call, size_t i);

/// Argument `i` as a floating-point tensor (or one of unknown dtype); throws otherwise.
const TensorStructInfo& expect_float_tensor(const Call& call, size_t i);
/// The inference of a float-only elementwise op: the result is typed like argument 0.
StructInfo infer_float_unary(const Call& call, BlockBuilder& ctx);

/// NumPy broadcasting of two shapes. Throws when two dims are provably incompatible; returns
/// nullopt when compatibility cannot be decided statically (the result then has only a rank).
std::optional<std::vector<PrimExpr>> broadcast_shapes(const Call& call, const std::vector<PrimExpr>& a,
                                                      const std::vector<PrimExpr>& b, arith::Analyzer& ana);

/// The common dtype of two operands: equal, or one unknown. Throws on a mismatch.
DataType unify_dtype(const Call& call, DataType a, DataType b);

/// Normalises a possibly negative axis against `ndim`; throws when out of range.
int64_t normalize_axis(const Call& call, int64_t axis, int ndim);

/// The product of dims, simplified.
PrimExpr product(const std::vector<PrimExpr>& dims, arith::Analyzer& ana);

/// Shape values of a shape argument (ShapeExpr, or a var with ShapeStructInfo values); nullopt
/// when only the rank (or nothing) is known; sets *ndim to the rank (or -1).
std::optional<std::vector<PrimExpr>> shape_values(const Expr& shape, int* ndim);

// Registration of each group of core ops.
void register_bridge_ops(OpRegistry& reg);
void register_unary_ops(OpRegistry& reg);
void register_binary_ops(OpRegistry& reg);
void register_linear_algebra_ops(OpRegistry& reg);
void register_manipulate_ops(OpRegistry& reg);
void register_index_ops(OpRegistry& reg);
void register_reduce_ops(OpRegistry& reg);
void register_create_ops(OpRegistry& reg);
void register_nn_ops(OpRegistry& reg);
void register_conv_ops(OpRegistry& reg);
void register_tensor_ops(OpRegistry& reg);  // tensor_ops.h: the ops-tensor groups
void register_activation_ops(OpRegistry& reg);
void register_norm_ops(OpRegistry& reg);
void register_pool_ops(OpRegistry& reg);
void register_resize_ops(OpRegistry& reg);
void register_attention_ops(OpRegistry& reg);
void register_device_ops(OpRegistry& reg);  // to_vdevice.cc
void register_script_ops(OpRegistry& reg);  // script_ops.cc: print, assert_op, call_tir_inplace

}  // namespace relax::op_detail
