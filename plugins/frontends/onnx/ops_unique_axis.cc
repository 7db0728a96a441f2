// ONNX Unique with `axis`: the distinct slices along the axis (the flattened form, without
// `axis`, is in ops_dynamic.cc; register_unique_axis wraps that converter and must run after
// register_dynamic_ops).
//
// The input is viewed as A slices of K elements (the axis moved first). Slices are compared all
// against all: equal when no element differs; a slice's first occurrence is the first equal
// slice (argmax of the equality row), and the distinct slices are those that are their own first
// occurrence, found by NonZero (a fresh symbolic count, as the flattened form does). sorted=1
// (the default) orders them lexicographically: slice i precedes j when, at the first element where
// they differ, i's is smaller; a distinct slice's rank is the number of distinct slices before
// it. Outputs: Y (the slices, in order, along `axis`), indices (each one's first occurrence),
// inverse_indices (for every input slice, its slice's position in Y) and counts. The comparison
// costs A * A * K element operations.
#include "importer.h"
#include "relax/arith/analyzer.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"

namespace relax::onnx_frontend {

namespace {

using Node = onnx::NodeProto;

std::vector<OnnxValue> convert_unique_axis(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  std::vector<PrimExpr> shape = ctx.shape_of(node, x, "Unique");
  int64_t rank = int64_t(shape.size());
  RX_CHECK(rank >= 1) << ctx.where(node) << ": Unique along an axis needs rank >= 1";
  int64_t axis = normalize_axis(find_attr(node, "axis")->i(), rank, ctx.where(node));
  bool sorted = attr_int(node, "sorted", 1) != 0;
  BlockBuilder& bb = ctx.bb();
  DataType i64 = DataType::Int(64);
  auto c64 = [&](int64_t v) { return scalar_constant(double(v), i64); };

  // (A, K): the slices as rows.
  std::vector<int64_t> perm{axis};
  PrimExpr K = tir::int_imm(1);
  for (int64_t a = 0; a < rank; ++a) {
    if (a == axis) continue;
    perm.push_back(a);
    K = K * shape[size_t(a)];
  }
  PrimExpr A = shape[size_t(axis)];
  Expr rows = bb.emit(op::permute_dims(x, perm));
  rows = bb.emit(op::reshape(rows, std::vector<PrimExpr>{A, arith::simplify(K)}));
  // differ[i, j, k]: slices i and j differ at element k.
  Expr differ = bb.emit(op::not_equal(bb.emit(op::expand_dims(rows, {1})),
                                      bb.emit(op::expand_dims(rows, {0}))));
  Expr differ_n = bb.emit(op::astype(differ, i64));  // argmax needs numbers
  Expr ndiff = bb.emit(op::sum(differ_n, std::vector<int64_t>{2}));
  Expr same = bb.emit(op::astype(bb.emit(op::equal(ndiff, c64(0))), i64));  // (A, A)
  Expr first = bb.emit(op::astype(bb.emit(op::argmax(same, 1)), i64));     // (A,)
  Expr positions = bb.emit(op::arange(tir::int_imm(0), A, tir::int_imm(1), i64));
  Expr is_first = bb.emit(op::equal(first, positions));
  Expr nz = bb.emit(op::nonzero(is_first));
  PrimExpr groups = tir::var(binding_name(node.output(0)) + "_groups");
  nz = bb.emit_match_cast(nz, tensor_sinfo({tir::int_imm(1), groups}, i64),
                          binding_name(node.output(0)) + "_firsts");
  Expr firsts = bb.emit(op::reshape(nz, std::vector<PrimExpr>{groups}));  // by first occurrence
  // position[i]: where slice i's group sits in Y (for group leaders; others read their leader's).
  Expr position;
  if (sorted) {
    // at[i, j]: the first element where slices i and j differ (0 when equal); before[i, j]: slice
    // i sorts before slice j.
    Expr at = bb.emit(op::astype(bb.emit(op::argmax(differ_n, 2, /*keepdims=*/true)), i64));
    Expr rows_i = bb.emit(op::broadcast_to(bb.emit(op::expand_dims(rows, {1})),
                                           {A, A, arith::simplify(K)}));
    Expr rows_j = bb.emit(op::broadcast_to(bb.emit(op::expand_dims(rows, {0})),
                                           {A, A, arith::simplify(K)}));
    Expr vi = bb.emit(op::gather_elements(rows_i, at, 2));
    Expr vj = bb.emit(op::gather_elements(rows_j, at, 2));
    Expr before = bb.emit(op::squeeze(bb.emit(op::less(vi, vj)), std::vector<int64_t>{2}));
    // rank[j] = number of group leaders i before slice j.
    Expr leaders = bb.emit(op::astype(bb.emit(op::expand_dims(is_first, {1})), i64));
    Expr counted = bb.emit(op::multiply(bb.emit(op::astype(before, i64)), leaders));
    position = bb.emit(op::sum(counted, std::vector<int64_t>{0}));  // (A,)
    Expr order = bb.emit(op::argsort(bb.emit(op::take(position, firsts, 0)), 0, false, i64));
    firsts = bb.emit(op::take(firsts, order, 0));
  } else {
    position = bb.emit(op::subtract(
        bb.emit(op::cumsum(bb.emit(op::astype(is_first, i64)), 0)), c64(1)));
  }
  Expr inverse = bb.emit(op::take(position, first, 0));
  Expr member = bb.emit(op::equal(bb.emit(op::expand_dims(first, {0})),
                                  bb.emit(op::expand_dims(firsts, {1}))));  // (G, A)
  Expr counts = bb.emit(op::sum(bb.emit(op::astype(member, i64)), std::vector<int64_t>{1}));
  Expr values = bb.emit(op::take(x, firsts, axis));
  Expr results[] = {values, firsts, inverse, counts};
  std::vector<OnnxValue> outs;
  for (int k = 0; k < 4; ++k) {
    bool wanted = k < node.output_size() && !node.output(k).empty();
    outs.push_back(wanted ? Context::tensor_value(ctx.emit(
                                op::reshape(results[k], ctx.shape_of(node, results[k], "Unique")),
                                node, k))
                          : OnnxValue{});
  }
  return outs;
}

}  // namespace

void register_unique_axis(std::map<std::string, ConverterEntry>& t) {
  auto it = t.find("Unique");
  RX_ICHECK(it != t.end()) << "register_unique_axis must run after register_dynamic_ops";
  Converter flattened = it->second.convert;
  it->second.convert = [flattened](Context& ctx, const Node& node) {
    return find_attr(node, "axis") ? convert_unique_axis(ctx, node) : flattened(ctx, node);
  };
}

}  // namespace relax::onnx_frontend
