// ONNX converters: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (opsets 12 and 13;
// 13 only widens the types), composed from core ops.
//
// For input (N, C, d1..dk) and target (N, d1..dk), the per-element loss is
//   loss[n, d] = -input[n, target[n, d], d] * weight[target[n, d]]
// (weight 1 without a weight input), and 0 where target == ignore_index. The target is made
// safe for the gather first (ignored positions read class 0, so a negative or out-of-range
// ignore_index never indexes out of bounds), the class picked with gather_elements along axis
// 1, and the ignored positions zeroed through the gathered weight. Reductions: "none" keeps
// (N, d1..dk); "sum" adds everything; "mean" divides the sum by the sum of the gathered
// weights (the count of non-ignored elements when there is no weight input), exactly as the
// ONNX reference does, so a batch that ignores everything gives 0/0. SoftmaxCrossEntropyLoss
// is the same on log_softmax(scores, axis=1), which is also its optional second output.
#include "importer.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"

namespace relax::onnx_frontend {

namespace {

using Node = onnx::NodeProto;

/// The loss of `log_prob` (N, C, d...) against `target` (N, d...), reduced per the node's
/// `reduction` attribute; input 2 of `node` is the optional class weight (C).
Expr nll_loss(Context& ctx, const Node& node, const Expr& log_prob, const Expr& target) {
  std::string reduction = attr_string(node, "reduction", "mean");
  RX_CHECK(reduction == "none" || reduction == "sum" || reduction == "mean")
      << ctx.where(node) << ": reduction '" << reduction << "' is not one of none, sum, mean";
  const TensorStructInfo& x = ctx.tensor(node, log_prob);
  const TensorStructInfo& t = ctx.tensor(node, target);
  int rank = ctx.ndim(node, log_prob);
  RX_CHECK(rank >= 2) << ctx.where(node) << ": the input must have shape (N, C, d1, ..., dk); got "
                      << to_string(get_struct_info(log_prob));
  RX_CHECK(ctx.ndim(node, target) == rank - 1)
      << ctx.where(node) << ": the target must have shape (N, d1, ..., dk), rank " << rank - 1
      << " for input " << to_string(get_struct_info(log_prob)) << "; got "
      << to_string(get_struct_info(target));
  RX_CHECK(t.dtype.is_int() || t.dtype.is_uint())
      << ctx.where(node) << ": the target must hold integer class indices; got "
      << t.dtype.to_string();
  DataType dt = x.dtype;
  RX_CHECK(dt.is_float()) << ctx.where(node) << ": the input must be a floating-point tensor; got "
                          << dt.to_string();
  BlockBuilder& bb = ctx.bb();

  const onnx::AttributeProto* ii = find_attr(node, "ignore_index");
  Expr safe = target;
  Expr ignored;
  if (ii) {
    ignored = bb.emit(op::equal(target, scalar_constant(double(ii->i()), t.dtype)));
    safe = bb.emit(op::where(ignored, scalar_constant(0, t.dtype), target));
  }
  Expr picked = bb.emit(op::gather_elements(log_prob, bb.emit(op::expand_dims(safe, {1})), 1));
  Expr loss = bb.emit(op::negative(op::squeeze(picked, std::vector<int64_t>{1})));

  // The gathered weight, zero at ignored positions; undefined when every weight is 1.
  Expr weight;
  if (Context::has_input(node, 2)) {
    Expr w = ctx.input(node, 2);
    RX_CHECK(ctx.ndim(node, w) == 1) << ctx.where(node) << ": the weight must have shape (C); got "
                                     << to_string(get_struct_info(w));
    weight = bb.emit(op::take(w, safe, 0));
    if (ii) weight = bb.emit(op::where(ignored, scalar_constant(0, dt), weight));
  } else if (ii) {
    weight = bb.emit(op::where(ignored, scalar_constant(0, dt), scalar_constant(1, dt)));
  }
  if (weight.defined()) loss = bb.emit(op::multiply(loss, weight));

  if (reduction == "none") return loss;
  if (reduction == "sum") return op::sum(loss);
  if (!weight.defined()) return op::mean(loss);
  return op::divide(bb.emit(op::sum(loss)), bb.emit(op::sum(weight)));
}

std::vector<OnnxValue> convert_nll_loss(Context& ctx, const Node& node) {
  Expr loss = nll_loss(ctx, node, ctx.input(node, 0), ctx.input(node, 1));
  return {Context::tensor_value(ctx.emit(loss, node))};
}

std::vector<OnnxValue> convert_softmax_cross_entropy(Context& ctx, const Node& node) {
  Expr scores = ctx.input(node, 0);
  RX_CHECK(ctx.ndim(node, scores) >= 2)
      << ctx.where(node) << ": the scores must have shape (N, C, d1, ..., dk); got "
      << to_string(get_struct_info(scores));
  bool want_log_prob = node.output_size() > 1 && !node.output(1).empty();
  Expr log_prob = want_log_prob ? ctx.emit(op::log_softmax(scores, 1), node, 1)
                                : ctx.bb().emit(op::log_softmax(scores, 1));
  Expr loss = nll_loss(ctx, node, log_prob, ctx.input(node, 1));
  std::vector<OnnxValue> outs{Context::tensor_value(ctx.emit(loss, node))};
  if (want_log_prob) outs.push_back(Context::tensor_value(log_prob));
  return outs;
}

}  // namespace

void register_loss_ops(std::map<std::string, ConverterEntry>& t) {
  t["NegativeLogLikelihoodLoss"] = {convert_nll_loss, 12};
  t["SoftmaxCrossEntropyLoss"] = {convert_softmax_cross_entropy, 12};
}

}  // namespace relax::onnx_frontend
