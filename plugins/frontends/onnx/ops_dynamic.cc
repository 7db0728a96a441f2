// ONNX converters whose output size depends on the data: NonZero, Compress and Unique (of the
// flattened input). The count (nonzero elements, kept slices, distinct values) becomes a fresh
// symbolic dim through a match_cast of relax.nonzero's result, so the program compiles once for
// every input.
#include "importer.h"
#include "relax/arith/analyzer.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"

namespace relax::onnx_frontend {

namespace {

using Node = onnx::NodeProto;

/// NonZero's [ndim, count] indices with the count a fresh symbolic dim.
Expr nonzero_indices(Context& ctx, const Node& node, const Expr& x, const std::string& name) {
  int64_t rank = ctx.ndim(node, x);
  Expr nz = ctx.bb().emit(op::nonzero(x));
  PrimExpr count = tir::var(name + "_count");
  return ctx.bb().emit_match_cast(nz, tensor_sinfo({tir::int_imm(rank), count}, DataType::Int(64)),
                                  name);
}

std::vector<OnnxValue> convert_nonzero(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  RX_CHECK(ctx.ndim(node, x) > 0) << ctx.where(node) << ": the input must not be a scalar";
  Expr nz = nonzero_indices(ctx, node, x, binding_name(node.output(0)) + "_nz");
  // A reshape to its own shape binds the result under the output's name (Context::emit).
  return {
      Context::tensor_value(ctx.emit(op::reshape(nz, ctx.shape_of(node, nz, "NonZero")), node))};
}

/// Compress: the slices along `axis` (of the flattened input without one) where the 1-D
/// condition is true; a condition shorter than the axis drops the rest.
std::vector<OnnxValue> convert_compress(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  Expr cond = ctx.input(node, 1);
  RX_CHECK(ctx.ndim(node, cond) == 1)
      << ctx.where(node) << ": the condition must be 1-D, got " << to_string(get_struct_info(cond));
  Expr nz = nonzero_indices(ctx, node, cond, binding_name(node.output(0)) + "_kept");
  std::vector<PrimExpr> nz_shape = ctx.shape_of(node, nz, "Compress");
  Expr idx = ctx.bb().emit(op::reshape(nz, std::vector<PrimExpr>{nz_shape[1]}));
  const auto* axis_attr = find_attr(node, "axis");
  if (!axis_attr) {
    Expr flat = ctx.bb().emit(op::flatten(x));
    return {Context::tensor_value(ctx.emit(op::take(flat, idx, 0), node))};
  }
  int64_t axis = normalize_axis(axis_attr->i(), ctx.ndim(node, x), ctx.where(node));
  return {Context::tensor_value(ctx.emit(op::take(x, idx, axis), node))};
}

/// Unique of the flattened input (no `axis`): Y, the first-occurrence indices, the inverse
/// indices and the counts. A stable argsort groups equal values (the first of each group is
/// its first occurrence); the group starts come from NonZero (a symbolic count), the group of
/// each sorted element from a running sum; inverse and counts are scatters. Unsorted (sorted=0)
/// orders the groups by first occurrence.
std::vector<OnnxValue> convert_unique(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  bool sorted = attr_int(node, "sorted", 1) != 0;
  BlockBuilder& bb = ctx.bb();
  DataType i64 = DataType::Int(64);
  PrimExpr n = tir::int_imm(1);
  for (const PrimExpr& d : ctx.shape_of(node, x, "Unique")) n = n * d;
  n = arith::simplify(n);
  Expr flat = bb.emit(op::reshape(x, std::vector<PrimExpr>{n}));
  Expr order = bb.emit(op::argsort(flat, 0, false, i64));
  Expr sv = bb.emit(op::take(flat, order, 0));
  Expr changed = bb.emit(op::not_equal(bb.emit(op::strided_slice(sv, {0}, {1}, {INT64_MAX})),
                                       bb.emit(op::strided_slice(sv, {0}, {0}, {-1}))));
  Expr is_new =
      bb.emit(op::concat({bb.emit(op::ones({tir::int_imm(1)}, DataType::Bool())), changed}, 0));
  std::string name = binding_name(node.output(0));
  Expr nz = nonzero_indices(ctx, node, is_new, name + "_starts");
  PrimExpr groups = ctx.shape_of(node, nz, "Unique")[1];
  Expr starts = bb.emit(op::reshape(nz, std::vector<PrimExpr>{groups}));
  Expr values = bb.emit(op::take(sv, starts, 0));
  Expr firsts = bb.emit(op::take(order, starts, 0));
  Expr group = bb.emit(op::subtract(bb.emit(op::cumsum(bb.emit(op::astype(is_new, i64)), 0)),
                                    scalar_constant(1, i64)));
  Expr counts = bb.emit(op::scatter_elements(bb.emit(op::zeros({groups}, i64)), group,
                                             bb.emit(op::ones_like(group)), 0, "add"));
  Expr inverse = bb.emit(op::scatter_elements(bb.emit(op::zeros({n}, i64)), order, group, 0));
  if (!sorted) {
    Expr perm = bb.emit(op::argsort(firsts, 0, false, i64));
    values = bb.emit(op::take(values, perm, 0));
    firsts = bb.emit(op::take(firsts, perm, 0));
    counts = bb.emit(op::take(counts, perm, 0));
    Expr positions = bb.emit(op::arange(tir::int_imm(0), groups, tir::int_imm(1), i64));
    Expr rank =
        bb.emit(op::scatter_elements(bb.emit(op::zeros({groups}, i64)), perm, positions, 0));
    inverse = bb.emit(op::take(rank, inverse, 0));
  }
  std::vector<OnnxValue> outs;
  Expr results[] = {values, firsts, inverse, counts};
  for (int k = 0; k < 4; ++k) {
    bool wanted = k < node.output_size() && !node.output(k).empty();
    outs.push_back(
        wanted ? Context::tensor_value(ctx.emit(
                     op::reshape(results[k], ctx.shape_of(node, results[k], "Unique")), node, k))
               : OnnxValue{});
  }
  return outs;
}

}  // namespace

void register_dynamic_ops(std::map<std::string, ConverterEntry>& t) {
  t["NonZero"] = {convert_nonzero, 9};
  t["Compress"] = {convert_compress, 9};
  t["Unique"] = {convert_unique, 11};
}

}  // namespace relax::onnx_frontend
