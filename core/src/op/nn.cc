// Neural-network ops: activations (relu, leakyrelu, gelu, gelu_tanh, silu), softmax and
// log_softmax, and the inference forms of batch_norm and layer_norm.
#include "relax/op/nn.h"

#include <algorithm>
#include <cmath>

#include "infer_utils.h"
#include "legalize_utils.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"

namespace relax {
namespace op_detail {

namespace {

StructInfo infer_relu(const Call& call, BlockBuilder&) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  RX_CHECK(x.dtype.is_void() || x.dtype.is_float() || x.dtype.is_int())
      << "relax.nn.relu: needs a float or signed integer tensor, got " << x.dtype.to_string();
  return StructInfo(&x);
}

PrimExpr gelu(PrimExpr x) {
  DataType t = x->dtype;
  return const_of(0.5, t) * x * (const_of(1, t) + tir::erf(x * const_of(M_SQRT1_2, t)));
}

PrimExpr gelu_tanh(PrimExpr x) {
  DataType t = x->dtype;
  PrimExpr inner = const_of(std::sqrt(2.0 / M_PI), t) * (x + const_of(0.044715, t) * x * x * x);
  return const_of(0.5, t) * x * (const_of(1, t) + tir::tanh(inner));
}

// ---- softmax / log_softmax

StructInfo infer_softmax(const Call& call, BlockBuilder&) {
  const TensorStructInfo& x = expect_float_tensor(call, 0);
  if (x.ndim >= 0) {
    RX_CHECK(x.ndim > 0) << op_name(call) << ": needs a tensor of rank at least 1";
    normalize_axis(call, get_int(call.attrs, "axis", -1), x.ndim);
  }
  return StructInfo(&x);
}

Expr legalize_softmax(bool log, BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& out = legal_out(call);
  size_t axis = size_t(normalize_axis(call, get_int(call.attrs, "axis", -1), out.ndim));
  std::string name = kernel_name(call);
  return te::call_te(
      bb, {call.args[0]},
      [&](const std::vector<te::Tensor>& a) -> te::TensorList {
        const te::Tensor& x = a[0];
        std::vector<PrimExpr> red = x.shape();
        red.erase(red.begin() + std::ptrdiff_t(axis));
        auto at = [&](const std::vector<PrimExpr>& i, PrimExpr k) {
          std::vector<PrimExpr> idx = i;
          idx.insert(idx.begin() + std::ptrdiff_t(axis), k);
          return idx;
        };
        auto drop = [&](const std::vector<PrimExpr>& i) {
          std::vector<PrimExpr> idx = i;
          idx.erase(idx.begin() + std::ptrdiff_t(axis));
          return idx;
        };
        te::Tensor mx = te::compute(
            red,
            [&](const std::vector<PrimExpr>& i) {
              te::Axis k = te::reduce_axis(x.shape()[axis], "k");
              return te::max(x(at(i, k)), {k});
            },
            name + "_maxelem");
        te::Tensor se = te::compute(
            red,
            [&](const std::vector<PrimExpr>& i) {
              te::Axis k = te::reduce_axis(x.shape()[axis], "k");
              return te::sum(tir::exp(x(at(i, k)) - mx(i)), {k});
            },
            name + "_expsum");
        return te::compute(
            x.shape(),
            [&](const std::vector<PrimExpr>& i) {
              std::vector<PrimExpr> r = drop(i);
              PrimExpr shifted = x(i) - mx(r);
              return log ? shifted - tir::log(se(r)) : tir::truncdiv(tir::exp(shifted), se(r));
            },
            name);
      },
      name);
}

// ---- batch_norm (inference): (x - mean) / sqrt(var + eps) * gamma + beta along `axis`.

StructInfo infer_batch_norm(const Call& call, BlockBuilder& ctx) {
  const TensorStructInfo& x = expect_float_tensor(call, 0);
  int64_t axis = get_int(call.attrs, "axis", 1);
  double eps = get_float(call.attrs, "epsilon", 1e-5);
  RX_CHECK(eps >= 0) << "relax.nn.batch_norm: epsilon must be non-negative, got " << eps;
  std::optional<PrimExpr> channels;
  if (x.ndim >= 0) {
    axis = normalize_axis(call, axis, x.ndim);
    if (x.shape) channels = (*x.shape)[size_t(axis)];
  }
  DataType dtype = x.dtype;
  for (size_t i = 1; i < 5; ++i) {
    const TensorStructInfo& p = expect_tensor(call, i);
    dtype = unify_dtype(call, dtype, p.dtype);
    RX_CHECK(p.ndim < 0 || p.ndim == 1) << "relax.nn.batch_norm: '" << arg_name(call, i)
                                        << "' should have rank 1, got rank " << p.ndim;
    if (channels && p.shape) {
      const PrimExpr& c = (*p.shape)[0];
      RX_CHECK(!ctx.analyzer().can_prove(tir::ne(c, *channels)))
          << "relax.nn.batch_norm: '" << arg_name(call, i) << "' has " << tir::to_string(c)
          << " elements but the data has " << tir::to_string(*channels) << " channels on axis "
          << axis;
    }
  }
  const TensorStructInfo& mean = expect_tensor(call, 3);
  const TensorStructInfo& var = expect_tensor(call, 4);
  return tuple_sinfo({StructInfo(&x), StructInfo(&mean), StructInfo(&var)});
}

Expr legalize_batch_norm(BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& x = legal_arg(call, 0);
  for (size_t i = 1; i < 5; ++i) legal_arg(call, i);
  size_t axis = size_t(normalize_axis(call, get_int(call.attrs, "axis", 1), x.ndim));
  double eps = get_float(call.attrs, "epsilon", 1e-5);
  bool center = get_bool(call.attrs, "center", true), scale = get_bool(call.attrs, "scale", true);
  return te::call_te(
      bb, {call.args[0], call.args[1], call.args[2], call.args[3], call.args[4]},
      [&](const std::vector<te::Tensor>& a) -> te::TensorList {
        const te::Tensor &data = a[0], &gamma = a[1], &beta = a[2], &mean = a[3], &var = a[4];
        DataType t = data.dtype();
        te::Tensor y = te::compute(
            data.shape(),
            [&](const std::vector<PrimExpr>& i) {
              PrimExpr c = i[axis];
              PrimExpr v = (data(i) - mean(c)) * tir::rsqrt(var(c) + const_of(eps, t));
              if (scale) v = v * gamma(c);
              if (center) v = v + beta(c);
              return v;
            },
            "batch_norm");
        te::Tensor m = te::compute(
            mean.shape(), [&](const std::vector<PrimExpr>& i) { return mean(i); }, "moving_mean");
        te::Tensor s = te::compute(
            var.shape(), [&](const std::vector<PrimExpr>& i) { return var(i); }, "moving_var");
        return std::vector<te::Tensor>{y, m, s};
      },
      "batch_norm");
}

// ---- layer_norm: normalise over `axes` (the trailing ones), then gamma/beta of their shape.

std::vector<int64_t> norm_axes(const Call& call, int ndim) {
  std::vector<int64_t> axes;
  for (int64_t a : get_ints(call.attrs, "axes", {-1})) {
    int64_t n = normalize_axis(call, a, ndim);
    RX_CHECK(std::find(axes.begin(), axes.end(), n) == axes.end())
        << op_name(call) << ": axis " << a << " appears twice";
    axes.push_back(n);
  }
  std::sort(axes.begin(), axes.end());
  return axes;
}

StructInfo infer_layer_norm(const Call& call, BlockBuilder& ctx) {
  const TensorStructInfo& x = expect_float_tensor(call, 0);
  const TensorStructInfo& gamma = expect_tensor(call, 1);
  const TensorStructInfo& beta = expect_tensor(call, 2);
  unify_dtype(call, unify_dtype(call, x.dtype, gamma.dtype), beta.dtype);
  double eps = get_float(call.attrs, "epsilon", 1e-5);
  RX_CHECK(eps >= 0) << "relax.nn.layer_norm: epsilon must be non-negative, got " << eps;
  if (x.ndim < 0) return StructInfo(&x);
  std::vector<int64_t> axes = norm_axes(call, x.ndim);
  for (const TensorStructInfo* p : {&gamma, &beta}) {
    RX_CHECK(p->ndim < 0 || p->ndim == int(axes.size()))
        << "relax.nn.layer_norm: '" << (p == &gamma ? "gamma" : "beta") << "' should have rank "
        << axes.size() << " (one dim per normalised axis), got rank " << p->ndim;
    if (p->shape && x.shape) {
      for (size_t k = 0; k < axes.size(); ++k) {
        const PrimExpr& d = (*p->shape)[k];
        const PrimExpr& e = (*x.shape)[size_t(axes[k])];
        RX_CHECK(!ctx.analyzer().can_prove(tir::ne(d, e)))
            << "relax.nn.layer_norm: '" << (p == &gamma ? "gamma" : "beta") << "' dim " << k
            << " is " << tir::to_string(d) << " but data axis " << axes[k] << " is "
            << tir::to_string(e);
      }
    }
  }
  return StructInfo(&x);
}

Expr legalize_layer_norm(BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& xs = legal_arg(call, 0);
  legal_arg(call, 1);
  legal_arg(call, 2);
  std::vector<int64_t> axes = norm_axes(call, xs.ndim);
  double eps = get_float(call.attrs, "epsilon", 1e-5);
  bool center = get_bool(call.attrs, "center", true), scale = get_bool(call.attrs, "scale", true);
  auto is_red = [&](size_t d) {
    return std::find(axes.begin(), axes.end(), int64_t(d)) != axes.end();
  };
  return te::call_te(
      bb, {call.args[0], call.args[1], call.args[2]},
      [&](const std::vector<te::Tensor>& a) -> te::TensorList {
        const te::Tensor &x = a[0], &gamma = a[1], &beta = a[2];
        DataType t = x.dtype();
        std::vector<PrimExpr> kept;
        PrimExpr count = tir::int_imm(1);
        for (size_t d = 0; d < x.ndim(); ++d) {
          kept.push_back(is_red(d) ? tir::int_imm(1) : x.shape()[d]);
          if (is_red(d)) count = count * x.shape()[d];
        }
        PrimExpr n = tir::cast(t, count);
        // Index of x for kept-shape indices `i` and reduce variables `r`.
        auto x_at = [&](const std::vector<PrimExpr>& i, const std::vector<PrimExpr>& r) {
          std::vector<PrimExpr> idx;
          size_t k = 0;
          for (size_t d = 0; d < x.ndim(); ++d) idx.push_back(is_red(d) ? r[k++] : i[d]);
          return idx;
        };
        auto reduce_vars = [&](std::vector<te::Axis>* rs, std::vector<PrimExpr>* rv) {
          for (int64_t ax : axes) {
            rs->push_back(te::reduce_axis(x.shape()[size_t(ax)], "k" + std::to_string(ax)));
            rv->push_back(rs->back());
          }
        };
        te::Tensor mean = te::compute(
            kept,
            [&](const std::vector<PrimExpr>& i) {
              std::vector<te::Axis> rs;
              std::vector<PrimExpr> rv;
              reduce_vars(&rs, &rv);
              return te::sum(tir::truncdiv(x(x_at(i, rv)), n), rs);
            },
            "layer_norm_mean");
        auto kept_of = [&](const std::vector<PrimExpr>& i) {
          std::vector<PrimExpr> idx;
          for (size_t d = 0; d < i.size(); ++d) idx.push_back(is_red(d) ? tir::int_imm(0) : i[d]);
          return idx;
        };
        te::Tensor var = te::compute(
            kept,
            [&](const std::vector<PrimExpr>& i) {
              std::vector<te::Axis> rs;
              std::vector<PrimExpr> rv;
              reduce_vars(&rs, &rv);
              PrimExpr diff = x(x_at(i, rv)) - mean(i);
              return te::sum(tir::truncdiv(diff * diff, n), rs);
            },
            "layer_norm_var");
        return te::compute(
            x.shape(),
            [&](const std::vector<PrimExpr>& i) {
              std::vector<PrimExpr> k = kept_of(i), g;
              for (int64_t ax : axes) g.push_back(i[size_t(ax)]);
              PrimExpr v = (x(i) - mean(k)) * tir::rsqrt(var(k) + const_of(eps, t));
              if (scale) v = v * gamma(g);
              if (center) v = v + beta(g);
              return v;
            },
            "layer_norm");
      },
      "layer_norm");
}

}  // namespace

void register_nn_ops(OpRegistry& reg) {
  register_activation(reg, "relax.nn.relu", "Elementwise max(x, 0).", infer_relu,
                      [](PrimExpr x, const Call&) { return tir::max(x, const_of(0, x->dtype)); });
  register_activation(reg, "relax.nn.leakyrelu", "Elementwise x if x > 0 else alpha * x.",
                      infer_float_unary,
                      [](PrimExpr x, const Call& call) {
                        PrimExpr alpha = const_of(get_float(call.attrs, "alpha", 0.01), x->dtype);
                        return tir::select(tir::gt(x, const_of(0, x->dtype)), x, alpha * x);
                      },
                      {{"alpha", AttrSpec::Kind::kFloat, 0.01, false, "the slope for x < 0"}});
  register_activation(reg, "relax.nn.gelu", "Elementwise x * Phi(x) (the erf form).",
                      infer_float_unary, [](PrimExpr x, const Call&) { return gelu(x); });
  register_activation(reg, "relax.nn.gelu_tanh", "Elementwise GELU, tanh approximation.",
                      infer_float_unary, [](PrimExpr x, const Call&) { return gelu_tanh(x); });
  register_activation(reg, "relax.nn.silu", "Elementwise x * sigmoid(x).", infer_float_unary,
                      [](PrimExpr x, const Call&) { return x * tir::sigmoid(x); });
  for (bool log : {false, true}) {
    OpInfo& op = reg.register_op(log ? "relax.nn.log_softmax" : "relax.nn.softmax");
    op.summary = log ? "log(softmax(x)) along an axis, computed stably."
                     : "Softmax along an axis (max-shifted).";
    op.arg_names = {"x"};
    op.attrs = {{"axis", AttrSpec::Kind::kInt, int64_t(-1), false, "the axis to normalise"}};
    op.infer = infer_softmax;
    op.pattern = OpPattern::kOutEWiseFusable;
    op.legalize = [log](BlockBuilder& bb, const Call& call) {
      return legalize_softmax(log, bb, call);
    };
  }
  {
    OpInfo& op = reg.register_op("relax.nn.batch_norm");
    op.summary = "Batch normalisation, inference form; returns (out, moving_mean, moving_var).";
    op.arg_names = {"data", "gamma", "beta", "moving_mean", "moving_var"};
    op.attrs = {{"axis", AttrSpec::Kind::kInt, int64_t(1), false, "the channel axis"},
                {"epsilon", AttrSpec::Kind::kFloat, 1e-5, false, "added to the variance"},
                {"center", AttrSpec::Kind::kBool, true, false, "add beta"},
                {"scale", AttrSpec::Kind::kBool, true, false, "multiply by gamma"},
                {"momentum", AttrSpec::Kind::kFloat, 0.1, false, "unused at inference"}};
    op.infer = infer_batch_norm;
    op.pattern = OpPattern::kOutEWiseFusable;
    op.legalize = legalize_batch_norm;
  }
  {
    OpInfo& op = reg.register_op("relax.nn.layer_norm");
    op.summary = "Layer normalisation over `axes`, with gamma and beta of those axes' shape.";
    op.arg_names = {"data", "gamma", "beta"};
    op.attrs = {
        {"axes", AttrSpec::Kind::kInts, std::vector<int64_t>{-1}, false, "the normalised axes"},
        {"epsilon", AttrSpec::Kind::kFloat, 1e-5, false, "added to the variance"},
        {"center", AttrSpec::Kind::kBool, true, false, "add beta"},
        {"scale", AttrSpec::Kind::kBool, true, false, "multiply by gamma"}};
    op.infer = infer_layer_norm;
    op.pattern = OpPattern::kOutEWiseFusable;
    op.legalize = legalize_layer_norm;
  }
}

}  // namespace op_detail

namespace op {
Expr relu(Expr x) { return call_op("relax.nn.relu", {std::move(x)}); }
Expr leakyrelu(Expr x, double alpha) {
  return call_op("relax.nn.leakyrelu", {std::move(x)}, make_attrs({{"alpha", alpha}}));
}
Expr gelu(Expr x) { return call_op("relax.nn.gelu", {std::move(x)}); }
Expr gelu_tanh(Expr x) { return call_op("relax.nn.gelu_tanh", {std::move(x)}); }
Expr silu(Expr x) { return call_op("relax.nn.silu", {std::move(x)}); }
Expr softmax(Expr x, int64_t axis) {
  return call_op("relax.nn.softmax", {std::move(x)}, make_attrs({{"axis", axis}}));
}
Expr log_softmax(Expr x, int64_t axis) {
  return call_op("relax.nn.log_softmax", {std::move(x)}, make_attrs({{"axis", axis}}));
}
Expr batch_norm(Expr data, Expr gamma, Expr beta, Expr mean, Expr var, int64_t axis,
                double epsilon) {
  return call_op(
      "relax.nn.batch_norm",
      {std::move(data), std::move(gamma), std::move(beta), std::move(mean), std::move(var)},
      make_attrs({{"axis", axis}, {"epsilon", epsilon}}));
}
Expr layer_norm(Expr data, Expr gamma, Expr beta, std::vector<int64_t> axes, double epsilon) {
  return call_op("relax.nn.layer_norm", {std::move(data), std::move(gamma), std::move(beta)},
                 make_attrs({{"axes", std::move(axes)}, {"epsilon", epsilon}}));
}
}  // namespace op
}  // namespace relax
