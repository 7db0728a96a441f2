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
Expr call_dps_packed(const std::string& func, std::vector<Expr> args,
                     std::vector<StructInfo> out_sinfo);
/// R.call_packed(func, args..., sinfo_args): a packed function that returns its result; impure.
Expr call_packed(const std::string& func, std::vector<Expr> args,
                 std::vector<StructInfo> sinfo_args = {});
/// R.call_pure_packed(func, args..., sinfo_args): like call_packed, promised pure (allowed in
/// dataflow blocks).
Expr call_pure_packed(const std::string& func, std::vector<Expr> args,
                      std::vector<StructInfo> sinfo_args = {});
/// R.to_vdevice(x, dst_vdevice): x copied to the module's vdevice `dst_vdevice` ("kind:i";
/// op/to_vdevice.cc).
Expr to_vdevice(Expr x, const std::string& dst_vdevice);

// ---- Elementwise unary ops (op/unary.cc): float math needs a float tensor; rounding, abs,
// negative, square and sign also take integers; isnan/isinf/isfinite give bool.

Expr exp(Expr x);
Expr log(Expr x);
Expr sqrt(Expr x);
Expr rsqrt(Expr x);
Expr sin(Expr x);
Expr cos(Expr x);
Expr tan(Expr x);
Expr asin(Expr x);
Expr acos(Expr x);
Expr atan(Expr x);
Expr sinh(Expr x);
Expr cosh(Expr x);
Expr tanh(Expr x);
Expr asinh(Expr x);
Expr acosh(Expr x);
Expr atanh(Expr x);
Expr sigmoid(Expr x);
Expr erf(Expr x);
Expr floor(Expr x);
Expr ceil(Expr x);
/// Round half to even.
Expr round(Expr x);
Expr trunc(Expr x);
Expr abs(Expr x);
Expr negative(Expr x);
Expr square(Expr x);
Expr sign(Expr x);
Expr isnan(Expr x);
Expr isinf(Expr x);
Expr isfinite(Expr x);
Expr logical_not(Expr x);
Expr bitwise_not(Expr x);
/// Clamp to [min, max] (constant PrimValues of the operand's kind).
Expr clip(Expr x, PrimExpr min, PrimExpr max);
/// Conversion to `dtype`.
Expr astype(Expr x, DataType dtype);

// ---- Binary ops with NumPy broadcasting (op/binary.cc). Operands share a dtype.

Expr add(Expr a, Expr b);
Expr subtract(Expr a, Expr b);
Expr multiply(Expr a, Expr b);
/// Integers truncate.
Expr divide(Expr a, Expr b);
Expr floor_divide(Expr a, Expr b);
/// Floats only.
Expr power(Expr a, Expr b);
/// Remainder with the sign of a (C fmod / truncating).
Expr mod(Expr a, Expr b);
/// Remainder with the sign of b (Python %).
Expr floor_mod(Expr a, Expr b);
Expr maximum(Expr a, Expr b);
Expr minimum(Expr a, Expr b);
// Comparisons give bool tensors.
Expr equal(Expr a, Expr b);
Expr not_equal(Expr a, Expr b);
Expr less(Expr a, Expr b);
Expr less_equal(Expr a, Expr b);
Expr greater(Expr a, Expr b);
Expr greater_equal(Expr a, Expr b);
// Bool operands.
Expr logical_and(Expr a, Expr b);
Expr logical_or(Expr a, Expr b);
Expr logical_xor(Expr a, Expr b);
// Integer operands.
Expr bitwise_and(Expr a, Expr b);
Expr bitwise_or(Expr a, Expr b);
Expr bitwise_xor(Expr a, Expr b);
Expr left_shift(Expr a, Expr b);
Expr right_shift(Expr a, Expr b);
/// cond ? a : b elementwise, all three broadcast.
Expr where(Expr cond, Expr a, Expr b);

// ---- Reductions (op/reduce.cc): over `axis` (all axes when absent).

Expr sum(Expr x, std::optional<std::vector<int64_t>> axis = std::nullopt, bool keepdims = false);
Expr mean(Expr x, std::optional<std::vector<int64_t>> axis = std::nullopt, bool keepdims = false);
Expr max(Expr x, std::optional<std::vector<int64_t>> axis = std::nullopt, bool keepdims = false);
Expr min(Expr x, std::optional<std::vector<int64_t>> axis = std::nullopt, bool keepdims = false);
Expr prod(Expr x, std::optional<std::vector<int64_t>> axis = std::nullopt, bool keepdims = false);
/// Population variance / standard deviation ("relax.std"; not named std, which would hide ::std).
Expr variance(Expr x, std::optional<std::vector<int64_t>> axis = std::nullopt,
              bool keepdims = false);
Expr stddev(Expr x, std::optional<std::vector<int64_t>> axis = std::nullopt, bool keepdims = false);
/// Index (int64) of the first extremum along `axis`, or in the flattened tensor.
Expr argmax(Expr x, std::optional<int64_t> axis = std::nullopt, bool keepdims = false);
Expr argmin(Expr x, std::optional<int64_t> axis = std::nullopt, bool keepdims = false);

// ---- Linear algebra.

/// Batched matrix product with broadcasting over batch dims (NumPy matmul).
Expr matmul(Expr a, Expr b, DataType out_dtype = DataType::Void());

// ---- Creation (op/create.cc). A void dtype means "the fill value's" (full) or "x's" (_like).

Expr full(std::vector<PrimExpr> shape, Expr fill_value, DataType dtype = DataType::Void());
Expr zeros(std::vector<PrimExpr> shape, DataType dtype);
Expr ones(std::vector<PrimExpr> shape, DataType dtype);
Expr full_like(Expr x, Expr fill_value, DataType dtype = DataType::Void());
Expr zeros_like(Expr x, DataType dtype = DataType::Void());
Expr ones_like(Expr x, DataType dtype = DataType::Void());
/// Keep the lower (tril) / upper (triu) triangle from diagonal k of the last two axes.
Expr tril(Expr x, int64_t k = 0);
Expr triu(Expr x, int64_t k = 0);

// ---- Shape manipulation and indexing (op/manipulate.cc, op/index.cc).

/// Reshape to `shape` (a ShapeExpr or a Shape-valued var); one dim may be -1.
Expr reshape(Expr x, Expr shape);
Expr reshape(Expr x, std::vector<PrimExpr> shape);
/// Flattens to one dimension.
Expr flatten(Expr x);
/// Permutes dimensions; no axes reverses them.
Expr permute_dims(Expr x, std::optional<std::vector<int64_t>> axes = std::nullopt);
/// Removes the given axes (each of size 1), or every axis of constant size 1.
Expr squeeze(Expr x, std::optional<std::vector<int64_t>> axis = std::nullopt);
/// Inserts axes of size 1 at the given positions of the result.
Expr expand_dims(Expr x, std::vector<int64_t> axis);
/// Broadcasts to `shape` (NumPy rules).
Expr broadcast_to(Expr x, std::vector<PrimExpr> shape);
/// Joins tensors along `axis`.
Expr concat(std::vector<Expr> tensors, int64_t axis = 0);
/// Splits into `sections` equal parts, or at `indices`, along `axis`; a tuple.
Expr split(Expr x, int64_t sections, int64_t axis = 0);
Expr split(Expr x, std::vector<int64_t> indices, int64_t axis = 0);
/// NumPy slicing x[begin:end:stride] on `axes` (clamped; negative values count from the end).
Expr strided_slice(Expr x, std::vector<int64_t> axes, std::vector<int64_t> begin,
                   std::vector<int64_t> end,
                   std::optional<std::vector<int64_t>> strides = std::nullopt);
/// Gathers along `axis` (the flattened tensor when absent); mode "fast", "clip" or "wrap".
Expr take(Expr x, Expr indices, std::optional<int64_t> axis = std::nullopt,
          const std::string& mode = "fast");
/// The shape of a tensor as a Shape value.
Expr shape_of(Expr x);
/// A rank-1 integer tensor of static length n as a Shape value of n dims, computed at run time
/// (vm.builtin.tensor_to_shape); R.match_cast the result to give the dims symbolic names.
Expr tensor_to_shape(Expr x);
/// Unique elements (data-dependent output shape: one dimension of unknown size).
Expr unique(Expr x, bool sorted = true);

// ---- Tensor manipulation, indexing, scans, sorting, einsum (op/manipulate2.cc,
// op/gather_scatter.cc, op/scan_sort.cc, op/einsum.cc, op/layout_transform.cc). Negative axes
// count from the end.

/// relax.nn.pad: pads every axis; `pad_width` holds 2 * ndim amounts, all befores then all afters
/// (TVM/ONNX order). `pad_mode` is "constant" (with `pad_value`), "reflect" or "edge".
Expr pad(Expr x, std::vector<int64_t> pad_width, const std::string& pad_mode = "constant",
         double pad_value = 0);
/// Values start, start + step, ... below `end` (above it for a negative step). Bounds may be
/// symbolic integers (with a constant step). A void dtype: float32 if an operand is a float, else
/// int64.
Expr arange(PrimExpr start, PrimExpr end, PrimExpr step = tir::int_imm(1),
            DataType dtype = DataType::Void());
/// An n x m matrix with ones on diagonal k (k > 0 above the main diagonal).
Expr eye(PrimExpr n, PrimExpr m, int64_t k = 0, DataType dtype = DataType::Float(32));
/// Joins same-shaped tensors along a new axis `axis` of the result.
Expr stack(std::vector<Expr> tensors, int64_t axis = 0);
/// NumPy tile: the tensor repeated `repeats[k]` times along each axis.
Expr tile(Expr x, std::vector<int64_t> repeats);
/// NumPy repeat: each element repeated along `axis` (of the flattened tensor when absent).
Expr repeat(Expr x, int64_t repeats, std::optional<int64_t> axis = std::nullopt);
/// Reverses the elements along `axis`.
Expr flip(Expr x, int64_t axis);
/// ONNX GatherElements: out[i] = x[i with i[axis] replaced by indices[i]].
Expr gather_elements(Expr x, Expr indices, int64_t axis = 0);
/// ONNX GatherND with `batch_dims` leading batch dimensions.
Expr gather_nd(Expr x, Expr indices, int64_t batch_dims = 0);
/// ONNX ScatterElements; `reduction` is "none" (the last update wins), "add", "mul", "min" or "max".
Expr scatter_elements(Expr x, Expr indices, Expr updates, int64_t axis = 0,
                      const std::string& reduction = "none");
/// ONNX ScatterND; `reduction` is "none" (the last update wins), "add" or "mul".
Expr scatter_nd(Expr x, Expr indices, Expr updates, const std::string& reduction = "none");
/// One-hot encoding of integer `indices` along a new axis of size `depth` (-1: last).
Expr one_hot(Expr indices, PrimExpr on_value, PrimExpr off_value, int64_t depth,
             int64_t axis = -1);
/// Inclusive (or exclusive) running sum / product along `axis` (of the flattened tensor when
/// absent), accumulated in `dtype` (the input's when void).
Expr cumsum(Expr x, std::optional<int64_t> axis = std::nullopt, DataType dtype = DataType::Void(),
            bool exclusive = false);
Expr cumprod(Expr x, std::optional<int64_t> axis = std::nullopt, DataType dtype = DataType::Void(),
             bool exclusive = false);
/// Stable sort along `axis`.
Expr sort(Expr x, int64_t axis = -1, bool descending = false);
/// The indices that stably sort `x` along `axis`.
Expr argsort(Expr x, int64_t axis = -1, bool descending = false, DataType dtype = DataType::Int(32));
/// The k largest (or smallest) elements along `axis`, in order; `ret_type` "both" gives the tuple
/// (values, indices), "values" or "indices" one tensor.
Expr topk(Expr x, int64_t k = 1, int64_t axis = -1, const std::string& ret_type = "both",
          bool largest = true, DataType dtype = DataType::Int(32));
/// Indices of the non-zero elements as an int64 [ndim, count] tensor (ONNX NonZero);
/// data-dependent shape, computed by the runtime builtin vm.builtin.nonzero.
Expr nonzero(Expr x);
/// Einstein summation over `operands` with NumPy subscripts ("ij,jk->ik", "ii", "...ij->...ji").
Expr einsum(std::vector<Expr> operands, const std::string& subscripts);
/// Relayout through an index map: out[map(i)] = x[i]. `index_vars` are the map's parameters (one
/// per input axis), `index_map` its results; positions of the result no input maps to hold
/// `pad_value` (0 when absent).
Expr layout_transform(Expr x, std::vector<Ref<tir::Var>> index_vars,
                      std::vector<PrimExpr> index_map,
                      std::optional<double> pad_value = std::nullopt);
/// relax.pad (op/pad_crop.cc), the layout design's compact pad: `pad_width` holds a (before,
/// after) pair per axis, [b0, a0, b1, a1, ...]; the new positions hold `pad_value`.
Expr rx_pad(Expr x, std::vector<int64_t> pad_width, double pad_value = 0);
/// relax.crop (op/pad_crop.cc): keeps x[start : start + size] of each axis. `cropped_value`,
/// when given, promises that every element cut away equals it (lets a following pad cancel).
Expr crop(Expr x, std::vector<int64_t> start_indices, std::vector<int64_t> slice_sizes,
          std::optional<double> cropped_value = std::nullopt);
// ---- end of the tensor-manipulation section.

}  // namespace relax::op

#include "relax/op/nn.h"  // IWYU pragma: export
