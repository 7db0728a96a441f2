// ONNX converters: inverse trigonometry and float classification, CastLike, triangular masks,
// running sums, element and N-d gathers and scatters (Scatter: ScatterElements' opset 9-10
// name; their indices checked by checked_indices), and TopK — each a direct map onto one core op
// (op/op.h), the attributes checked here so that an unsupported variant fails at import with
// the node named rather than computing something else.
#include "importer.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"

namespace relax::onnx_frontend {

namespace {

using Node = onnx::NodeProto;

Converter unary(Expr (*build)(Expr)) {
  return [build](Context& ctx, const Node& node) -> std::vector<OnnxValue> {
    return {Context::tensor_value(ctx.emit(build(ctx.input(node, 0)), node))};
  };
}

std::vector<OnnxValue> convert_isinf(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  bool pos = attr_int(node, "detect_positive", 1) != 0;
  bool neg = attr_int(node, "detect_negative", 1) != 0;
  Expr inf = ctx.bb().emit(op::isinf(x));
  if (pos && neg) return {Context::tensor_value(ctx.emit(inf, node))};
  DataType dt = ctx.tensor(node, x).dtype;
  Expr zero = scalar_constant(0.0, dt);
  Expr side = ctx.bb().emit(pos ? op::greater(x, zero) : op::less(x, zero));
  Expr out = (pos || neg) ? op::logical_and(inf, side) : op::logical_and(inf, op::logical_not(inf));
  return {Context::tensor_value(ctx.emit(out, node))};
}

std::vector<OnnxValue> convert_trilu(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  int64_t k = 0;
  if (Context::has_input(node, 1)) {
    std::vector<int64_t> ks = ctx.const_ints(node, 1, "k");
    RX_CHECK(ks.size() == 1) << ctx.where(node) << ": k must hold one value, got " << ks.size();
    k = ks[0];
  }
  bool upper = attr_int(node, "upper", 1) != 0;
  return {Context::tensor_value(ctx.emit(upper ? op::triu(x, k) : op::tril(x, k), node))};
}

std::vector<OnnxValue> convert_cumsum(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  std::vector<int64_t> axes = ctx.const_ints(node, 1, "axis");
  RX_CHECK(axes.size() == 1) << ctx.where(node) << ": axis must hold one value, got "
                             << axes.size();
  int64_t axis = normalize_axis(axes[0], ctx.ndim(node, x), ctx.where(node));
  bool exclusive = attr_int(node, "exclusive", 0) != 0;
  if (attr_int(node, "reverse", 0) == 0)
    return {Context::tensor_value(ctx.emit(op::cumsum(x, axis, DataType::Void(), exclusive), node))};
  // reverse: flip, sum forwards, flip back.
  Expr flipped = ctx.bb().emit(op::flip(x, axis));
  Expr sum = ctx.bb().emit(op::cumsum(flipped, axis, DataType::Void(), exclusive));
  return {Context::tensor_value(ctx.emit(op::flip(sum, axis), node))};
}

std::string reduction_of(Context& ctx, const Node& node, std::initializer_list<const char*> allowed) {
  std::string r = attr_string(node, "reduction", "none");
  for (const char* a : allowed)
    if (r == a) return r;
  RX_THROW() << ctx.where(node) << ": reduction '" << r << "' is not supported";
}

std::vector<OnnxValue> convert_topk(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  std::vector<int64_t> ks = ctx.const_ints(node, 1, "K");
  RX_CHECK(ks.size() == 1) << ctx.where(node) << ": K must hold one value, got " << ks.size();
  int64_t axis = normalize_axis(attr_int(node, "axis", -1), ctx.ndim(node, x), ctx.where(node));
  bool largest = attr_int(node, "largest", 1) != 0;
  Expr both = ctx.bb().emit(op::topk(x, ks[0], axis, "both", largest, DataType::Int(64)));
  return {Context::tensor_value(ctx.emit(make_ref<TupleGetItem>(both, 0), node, 0)),
          Context::tensor_value(ctx.emit(make_ref<TupleGetItem>(both, 1), node, 1))};
}

}  // namespace

void register_index_ops(std::map<std::string, ConverterEntry>& t) {
  t["Asin"] = {unary(op::asin)};
  t["Acos"] = {unary(op::acos)};
  t["Atan"] = {unary(op::atan)};
  t["Sinh"] = {unary(op::sinh), 9};
  t["Cosh"] = {unary(op::cosh), 9};
  t["Asinh"] = {unary(op::asinh), 9};
  t["Acosh"] = {unary(op::acosh), 9};
  t["Atanh"] = {unary(op::atanh), 9};
  t["IsNaN"] = {unary(op::isnan), 9};
  t["IsInf"] = {convert_isinf, 10};
  t["CastLike"] = {[](Context& ctx, const Node& node) -> std::vector<OnnxValue> {
    Expr like = ctx.input(node, 1);
    DataType dt = ctx.tensor(node, like).dtype;
    return {Context::tensor_value(ctx.emit(op::astype(ctx.input(node, 0), dt), node))};
  }, 15};
  t["Trilu"] = {convert_trilu, 14};
  t["CumSum"] = {convert_cumsum, 11};
  t["TopK"] = {convert_topk, 10};
  t["GatherElements"] = {[](Context& ctx, const Node& node) -> std::vector<OnnxValue> {
    Expr x = ctx.input(node, 0);
    int64_t axis = normalize_axis(attr_int(node, "axis", 0), ctx.ndim(node, x), ctx.where(node));
    Expr ind = checked_indices(ctx, node, 1, x, axis);
    return {Context::tensor_value(ctx.emit(op::gather_elements(x, ind, axis), node))};
  }, 11};
  t["GatherND"] = {[](Context& ctx, const Node& node) -> std::vector<OnnxValue> {
    Expr x = ctx.input(node, 0);
    int64_t b = attr_int(node, "batch_dims", 0);
    Expr ind = checked_indices(ctx, node, 1, x, b, /*nd=*/true);
    return {Context::tensor_value(ctx.emit(op::gather_nd(x, ind, b), node))};
  }, 11};
  Converter scatter_elements = [](Context& ctx, const Node& node) -> std::vector<OnnxValue> {
    Expr x = ctx.input(node, 0);
    int64_t axis = normalize_axis(attr_int(node, "axis", 0), ctx.ndim(node, x), ctx.where(node));
    std::string r = reduction_of(ctx, node, {"none", "add", "mul", "min", "max"});
    Expr ind = checked_indices(ctx, node, 1, x, axis);
    return {Context::tensor_value(ctx.emit(
        op::scatter_elements(x, ind, ctx.input(node, 2), axis, r), node))};
  };
  t["ScatterElements"] = {scatter_elements, 11};
  t["Scatter"] = {scatter_elements, 9};  // opsets 9-10: ScatterElements under its old name
  t["ScatterND"] = {[](Context& ctx, const Node& node) -> std::vector<OnnxValue> {
    std::string r = reduction_of(ctx, node, {"none", "add", "mul"});
    Expr x = ctx.input(node, 0);
    Expr ind = checked_indices(ctx, node, 1, x, 0, /*nd=*/true);
    return {Context::tensor_value(ctx.emit(op::scatter_nd(x, ind, ctx.input(node, 2), r), node))};
  }, 11};
}

}  // namespace relax::onnx_frontend
