// More activations (TVM's relax.nn names, ONNX semantics): selu, elu, softplus, hardsigmoid,
// hardswish (elementwise, float only) and prelu (a per-channel slope tensor along `axis`).
// Each legalises to one elementwise kernel; the formulas are written so that no branch
// computes a value that overflows for the inputs it does not select (exp is only taken of
// min(x, 0) or of a value below softplus's threshold).
#include <cmath>

#include "infer_utils.h"
#include "legalize_utils.h"
#include "relax/op/nn.h"
#include "relax/support/diagnostic.h"

namespace relax {
namespace op_detail {

namespace {

// SELU's constants (Klambauer et al.), as ONNX and PyTorch define them.
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

/// alpha * (exp(x) - 1) for x <= 0, x otherwise (exp of min(x, 0) so large x cannot overflow).
PrimExpr elu_of(PrimExpr x, double alpha) {
  DataType t = x->dtype;
  PrimExpr neg = const_of(alpha, t) * (tir::exp(tir::min(x, const_of(0, t))) - const_of(1, t));
  return tir::select(tir::gt(x, const_of(0, t)), x, neg);
}

/// clamp(alpha * x + beta, 0, 1).
PrimExpr hardsigmoid_of(PrimExpr x, double alpha, double beta) {
  DataType t = x->dtype;
  PrimExpr v = const_of(alpha, t) * x + const_of(beta, t);
  return tir::min(tir::max(v, const_of(0, t)), const_of(1, t));
}

/// A float-only activation: register_activation with infer_float_unary.
void register_float_act(OpRegistry& reg, const std::string& name, const std::string& summary,
                        std::vector<AttrSpec> attrs,
                        std::function<PrimExpr(PrimExpr, const Call&)> f) {
  register_activation(reg, name, summary, infer_float_unary, std::move(f), std::move(attrs));
}

// ---- prelu: x if x > 0 else alpha[c] * x, c the index along `axis`.

StructInfo infer_prelu(const Call& call, BlockBuilder& ctx) {
  const TensorStructInfo& x = expect_float_tensor(call, 0);
  const TensorStructInfo& alpha = expect_tensor(call, 1);
  unify_dtype(call, x.dtype, alpha.dtype);
  RX_CHECK(alpha.ndim < 0 || alpha.ndim == 1)
      << "relax.nn.prelu: 'alpha' should have rank 1 (one slope per channel), got rank "
      << alpha.ndim;
  if (x.ndim < 0) return StructInfo(&x);
  RX_CHECK(x.ndim >= 1) << "relax.nn.prelu: 'data' needs rank at least 1, got a scalar";
  int64_t axis = normalize_axis(call, get_int(call.attrs, "axis", 1), x.ndim);
  if (x.shape && alpha.shape) {
    const PrimExpr& c = (*x.shape)[size_t(axis)];
    const PrimExpr& a = (*alpha.shape)[0];
    RX_CHECK(tir::is_const_int(a, 1) || !ctx.analyzer().can_prove(tir::ne(a, c)))
        << "relax.nn.prelu: 'alpha' has " << tir::to_string(a) << " elements but data axis " << axis
        << " has " << tir::to_string(c) << " (alpha needs one per channel, or one)";
  }
  return StructInfo(&x);
}

Expr legalize_prelu(BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& out = legal_out(call);
  legal_arg(call, 0);
  legal_arg(call, 1);
  size_t axis = size_t(normalize_axis(call, get_int(call.attrs, "axis", 1), out.ndim));
  return te::call_te(
      bb, {call.args[0], call.args[1]},
      [&](const std::vector<te::Tensor>& a) {
        const te::Tensor &x = a[0], &alpha = a[1];
        return te::compute(
            *out.shape,
            [&](const std::vector<PrimExpr>& i) {
              PrimExpr c = tir::is_const_int(alpha.shape()[0], 1) ? tir::int_imm(0) : i[axis];
              PrimExpr v = x(i);
              return tir::select(tir::gt(v, const_of(0, v->dtype)), v, alpha(c) * v);
            },
            "prelu");
      },
      "prelu");
}

}  // namespace

void register_activation_ops(OpRegistry& reg) {
  using K = AttrSpec::Kind;
  register_float_act(reg, "relax.nn.selu",
                     "Elementwise scale * (x if x > 0 else alpha * (exp(x) - 1)), SELU's "
                     "constants.",
                     {}, [](PrimExpr x, const Call&) {
                       return const_of(kSeluScale, x->dtype) * elu_of(x, kSeluAlpha);
                     });
  register_float_act(
      reg, "relax.nn.elu", "Elementwise x if x > 0 else alpha * (exp(x) - 1).",
      {{"alpha", K::kFloat, 1.0, false, "the scale of the negative part"}},
      [](PrimExpr x, const Call& call) { return elu_of(x, get_float(call.attrs, "alpha", 1.0)); });
  register_float_act(
      reg, "relax.nn.softplus",
      "Elementwise log(1 + exp(beta * x)) / beta; x itself where beta * x > threshold.",
      {{"beta", K::kFloat, 1.0, false, "the sharpness"},
       {"threshold", K::kFloat, 20.0, false, "above beta * x > threshold the result is x"}},
      [](PrimExpr x, const Call& call) {
        double beta = get_float(call.attrs, "beta", 1.0);
        double threshold = get_float(call.attrs, "threshold", 20.0);
        RX_CHECK(beta != 0) << "relax.nn.softplus: beta must be non-zero";
        DataType t = x->dtype;
        PrimExpr bx = const_of(beta, t) * x;
        // exp of min(bx, threshold): the branch not taken must not overflow to inf * 0.
        PrimExpr soft =
            tir::truncdiv(tir::log(const_of(1, t) + tir::exp(tir::min(bx, const_of(threshold, t)))),
                          const_of(beta, t));
        return tir::select(tir::gt(bx, const_of(threshold, t)), x, soft);
      });
  register_float_act(reg, "relax.nn.hardsigmoid",
                     "Elementwise clamp(alpha * x + beta, 0, 1) (ONNX HardSigmoid).",
                     {{"alpha", K::kFloat, 0.2, false, "the slope"},
                      {"beta", K::kFloat, 0.5, false, "the offset"}},
                     [](PrimExpr x, const Call& call) {
                       return hardsigmoid_of(x, get_float(call.attrs, "alpha", 0.2),
                                             get_float(call.attrs, "beta", 0.5));
                     });
  register_float_act(reg, "relax.nn.hardswish",
                     "Elementwise x * clamp(x / 6 + 1/2, 0, 1) (ONNX HardSwish).", {},
                     [](PrimExpr x, const Call&) { return x * hardsigmoid_of(x, 1.0 / 6, 0.5); });
  {
    OpInfo& op = reg.register_op("relax.nn.prelu");
    op.summary = "Elementwise x if x > 0 else alpha[c] * x, c the index along `axis`.";
    op.arg_names = {"data", "alpha"};
    op.attrs = {{"axis", K::kInt, int64_t(1), false, "the channel axis alpha runs along"}};
    op.infer = infer_prelu;
    op.pattern = OpPattern::kBroadcast;
    op.legalize = legalize_prelu;
  }
}

}  // namespace op_detail

namespace op {
Expr selu(Expr x) { return call_op("relax.nn.selu", {std::move(x)}); }
Expr elu(Expr x, double alpha) {
  return call_op("relax.nn.elu", {std::move(x)}, make_attrs({{"alpha", alpha}}));
}
Expr softplus(Expr x, double beta, double threshold) {
  return call_op("relax.nn.softplus", {std::move(x)},
                 make_attrs({{"beta", beta}, {"threshold", threshold}}));
}
Expr hardsigmoid(Expr x, double alpha, double beta) {
  return call_op("relax.nn.hardsigmoid", {std::move(x)},
                 make_attrs({{"alpha", alpha}, {"beta", beta}}));
}
Expr hardswish(Expr x) { return call_op("relax.nn.hardswish", {std::move(x)}); }
Expr prelu(Expr data, Expr alpha, int64_t axis) {
  return call_op("relax.nn.prelu", {std::move(data), std::move(alpha)},
                 make_attrs({{"axis", axis}}));
}
}  // namespace op
}  // namespace relax
