// Elementwise unary ops and broadcasting binary ops.
#include "infer_utils.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"

namespace relax {
namespace op_detail {

namespace {

StructInfo infer_unary(const Call& call, BlockBuilder&) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  RX_CHECK(x.dtype.is_void() || x.dtype.is_float() || call.op.as<Op>()->name == "relax.nn.relu")
      << op_name(call) << ": needs a floating-point tensor, got " << x.dtype.to_string();
  return StructInfo(&x);
}

StructInfo infer_binary(const Call& call, BlockBuilder& ctx) {
  const TensorStructInfo& a = expect_tensor(call, 0);
  const TensorStructInfo& b = expect_tensor(call, 1);
  DataType dtype = unify_dtype(call, a.dtype, b.dtype);
  std::string vdevice = a.vdevice.empty() ? b.vdevice : a.vdevice;
  if (a.shape && b.shape) {
    if (auto out = broadcast_shapes(call, *a.shape, *b.shape, ctx.analyzer())) return tensor_sinfo(*out, dtype, vdevice);
    return tensor_sinfo(dtype, int(std::max(a.shape->size(), b.shape->size())), vdevice);
  }
  int ndim = (a.ndim < 0 || b.ndim < 0) ? -1 : std::max(a.ndim, b.ndim);
  return tensor_sinfo(dtype, ndim, vdevice);
}

void register_unary(OpRegistry& reg, const std::string& name, const std::string& summary) {
  OpInfo& op = reg.register_op(name);
  op.summary = summary;
  op.arg_names = {"x"};
  op.infer = infer_unary;
  op.pattern = OpPattern::kElemWise;
}

void register_binary(OpRegistry& reg, const std::string& name, const std::string& summary) {
  OpInfo& op = reg.register_op(name);
  op.summary = summary;
  op.arg_names = {"x1", "x2"};
  op.infer = infer_binary;
  op.pattern = OpPattern::kBroadcast;
}

}  // namespace

void register_elementwise_ops(OpRegistry& reg) {
  register_unary(reg, "relax.exp", "Elementwise e^x.");
  register_unary(reg, "relax.nn.relu", "Elementwise max(x, 0).");
  register_binary(reg, "relax.add", "Elementwise sum with broadcasting.");
  register_binary(reg, "relax.subtract", "Elementwise difference with broadcasting.");
  register_binary(reg, "relax.multiply", "Elementwise product with broadcasting.");
  register_binary(reg, "relax.divide", "Elementwise quotient with broadcasting.");
}

}  // namespace op_detail

namespace op {
Expr add(Expr a, Expr b) { return call_op("relax.add", {std::move(a), std::move(b)}); }
Expr subtract(Expr a, Expr b) { return call_op("relax.subtract", {std::move(a), std::move(b)}); }
Expr multiply(Expr a, Expr b) { return call_op("relax.multiply", {std::move(a), std::move(b)}); }
Expr divide(Expr a, Expr b) { return call_op("relax.divide", {std::move(a), std::move(b)}); }
Expr exp(Expr x) { return call_op("relax.exp", {std::move(x)}); }
Expr relu(Expr x) { return call_op("relax.nn.relu", {std::move(x)}); }
}  // namespace op
}  // namespace relax
