// More normalisations (TVM's relax.nn names): group_norm, instance_norm, rms_norm, and
// dropout's inference form.
//
// group_norm and instance_norm share one legalisation. The statistics live in a small tensor
// of x's rank whose reduced axes have extent 1 and whose channel axis has one entry per group
// (instance_norm is group_norm with one group per channel); mean and variance are two
// reductions over the group's channels and the reduced axes (the two-pass variance, as
// layer_norm), then one elementwise stage normalises and applies gamma[c] and beta[c].
// rms_norm divides by sqrt(mean(x^2 over axes) + eps) and multiplies by a weight shaped like
// the normalised axes.
//
// dropout follows TVM: relax.nn.dropout(x, rate) returns the tuple (output, mask), both
// shaped and typed like x. Legalisation gives the inference form: the output is x unchanged
// and the mask is all ones (every element kept), since nothing is dropped and no rescaling
// is needed when dropout is off.
#include <algorithm>

#include "infer_utils.h"
#include "legalize_utils.h"
#include "relax/op/nn.h"
#include "relax/support/diagnostic.h"

namespace relax {
namespace op_detail {

namespace {

double epsilon_attr(const Call& call) {
  double eps = get_float(call.attrs, "epsilon", 1e-5);
  RX_CHECK(eps >= 0) << op_name(call) << ": epsilon must be non-negative, got " << eps;
  return eps;
}

bool contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

/// `values` normalised against `ndim`, sorted; an error on a repeated axis.
std::vector<int64_t> axes_of(const Call& call, const std::vector<int64_t>& values, int ndim) {
  std::vector<int64_t> axes;
  for (int64_t a : values) {
    int64_t n = normalize_axis(call, a, ndim);
    RX_CHECK(!contains(axes, n)) << op_name(call) << ": axis " << a << " appears twice";
    axes.push_back(n);
  }
  std::sort(axes.begin(), axes.end());
  return axes;
}

/// How a grouped normalisation (group_norm, instance_norm) reduces a tensor of rank `ndim`.
struct GroupPlan {
  int64_t channel = 1;
  /// The reduced axes besides the channel axis, sorted.
  std::vector<int64_t> axes;
};

GroupPlan group_plan(const Call& call, int ndim) {
  GroupPlan p;
  RX_CHECK(ndim >= 2) << op_name(call) << ": data needs rank at least 2 (batch and channel), got "
                      << ndim;
  p.channel = normalize_axis(call, get_int(call.attrs, "channel_axis", 1), ndim);
  if (auto axes = get_opt_ints(call.attrs, "axes")) {
    p.axes = axes_of(call, *axes, ndim);
  } else {
    // Default: every axis after the leading batch axis except the channel axis.
    for (int64_t d = 1; d < ndim; ++d)
      if (d != p.channel) p.axes.push_back(d);
  }
  RX_CHECK(!contains(p.axes, p.channel))
      << op_name(call) << ": 'axes' must not contain the channel axis " << p.channel;
  return p;
}

int64_t num_groups(const Call& call) {
  if (op_name(call) == "relax.nn.instance_norm") return 0;  // one per channel
  int64_t g = get_int(call.attrs, "num_groups", 1);
  RX_CHECK(g > 0) << "relax.nn.group_norm: num_groups must be positive, got " << g;
  return g;
}

StructInfo infer_group_norm(const Call& call, BlockBuilder& ctx) {
  const TensorStructInfo& x = expect_float_tensor(call, 0);
  DataType dtype = x.dtype;
  for (size_t i = 1; i < 3; ++i) {
    const TensorStructInfo& p = expect_tensor(call, i);
    dtype = unify_dtype(call, dtype, p.dtype);
    RX_CHECK(p.ndim < 0 || p.ndim == 1) << op_name(call) << ": '" << arg_name(call, i)
                                        << "' should have rank 1 (one value per channel), got "
                                        << "rank " << p.ndim;
  }
  epsilon_attr(call);
  int64_t groups = num_groups(call);
  if (x.ndim < 0) return StructInfo(&x);
  GroupPlan plan = group_plan(call, x.ndim);
  if (!x.shape) return StructInfo(&x);
  const PrimExpr& c = (*x.shape)[size_t(plan.channel)];
  arith::Analyzer& ana = ctx.analyzer();
  if (groups > 0) {
    RX_CHECK(!ana.can_prove(tir::ne(tir::floormod(c, groups), tir::int_imm(0))))
        << "relax.nn.group_norm: the " << tir::to_string(c) << " channels on axis " << plan.channel
        << " are not divisible by num_groups " << groups;
  }
  for (size_t i = 1; i < 3; ++i) {
    const TensorStructInfo& p = expect_tensor(call, i);
    if (!p.shape) continue;
    const PrimExpr& n = (*p.shape)[0];
    RX_CHECK(!ana.can_prove(tir::ne(n, c)))
        << op_name(call) << ": '" << arg_name(call, i) << "' has " << tir::to_string(n)
        << " elements but the data has " << tir::to_string(c) << " channels on axis "
        << plan.channel;
  }
  return StructInfo(&x);
}

Expr legalize_group_norm(BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& xs = legal_arg(call, 0);
  legal_arg(call, 1);
  legal_arg(call, 2);
  GroupPlan plan = group_plan(call, xs.ndim);
  int64_t groups = num_groups(call);
  double eps = epsilon_attr(call);
  bool center = get_bool(call.attrs, "center", true), scale = get_bool(call.attrs, "scale", true);
  size_t ch = size_t(plan.channel);
  std::string name = kernel_name(call);
  return te::call_te(
      bb, {call.args[0], call.args[1], call.args[2]},
      [&](const std::vector<te::Tensor>& a) -> te::TensorList {
        const te::Tensor &x = a[0], &gamma = a[1], &beta = a[2];
        DataType t = x.dtype();
        const PrimExpr& channels = x.shape()[ch];
        PrimExpr g = groups > 0 ? tir::int_imm(groups) : channels;
        PrimExpr per_group = groups > 0 ? tir::floordiv(channels, groups) : tir::int_imm(1);
        std::vector<PrimExpr> stats_shape;
        PrimExpr count = per_group;
        for (size_t d = 0; d < x.ndim(); ++d) {
          if (d == ch) {
            stats_shape.push_back(g);
          } else if (contains(plan.axes, int64_t(d))) {
            stats_shape.push_back(tir::int_imm(1));
            count = count * x.shape()[d];
          } else {
            stats_shape.push_back(x.shape()[d]);
          }
        }
        PrimExpr n = tir::cast(t, count);
        // The reduction over one group: x at stats index `i`, with the group's channel and the
        // reduced axes taken from fresh reduce variables.
        auto reduce_over = [&](const std::vector<PrimExpr>& i,
                               const std::function<PrimExpr(PrimExpr)>& value) {
          std::vector<te::Axis> rs{te::reduce_axis(per_group, "rc")};
          std::vector<PrimExpr> idx = i;
          idx[ch] = i[ch] * per_group + PrimExpr(rs[0]);
          for (int64_t d : plan.axes) {
            rs.push_back(te::reduce_axis(x.shape()[size_t(d)], "k" + std::to_string(d)));
            idx[size_t(d)] = rs.back();
          }
          return te::sum(tir::truncdiv(value(x(idx)), n), rs);
        };
        auto stats_of = [&](const std::vector<PrimExpr>& i) {
          std::vector<PrimExpr> s = i;
          for (int64_t d : plan.axes) s[size_t(d)] = tir::int_imm(0);
          s[ch] = tir::floordiv(i[ch], per_group);
          return s;
        };
        te::Tensor mean = te::compute(
            stats_shape,
            [&](const std::vector<PrimExpr>& i) {
              return reduce_over(i, [](PrimExpr v) { return v; });
            },
            name + "_mean");
        te::Tensor var = te::compute(
            stats_shape,
            [&](const std::vector<PrimExpr>& i) {
              return reduce_over(i, [&](PrimExpr v) {
                PrimExpr d = v - mean(i);
                return d * d;
              });
            },
            name + "_var");
        return te::compute(
            x.shape(),
            [&](const std::vector<PrimExpr>& i) {
              std::vector<PrimExpr> s = stats_of(i);
              PrimExpr v = (x(i) - mean(s)) * tir::rsqrt(var(s) + const_of(eps, t));
              if (scale) v = v * gamma(i[ch]);
              if (center) v = v + beta(i[ch]);
              return v;
            },
            name);
      },
      name);
}

// ---- rms_norm

StructInfo infer_rms_norm(const Call& call, BlockBuilder& ctx) {
  const TensorStructInfo& x = expect_float_tensor(call, 0);
  const TensorStructInfo& w = expect_tensor(call, 1);
  unify_dtype(call, x.dtype, w.dtype);
  epsilon_attr(call);
  if (x.ndim < 0) return StructInfo(&x);
  std::vector<int64_t> axes = axes_of(call, get_ints(call.attrs, "axes", {-1}), x.ndim);
  RX_CHECK(w.ndim < 0 || w.ndim == int(axes.size()))
      << "relax.nn.rms_norm: 'weight' should have rank " << axes.size()
      << " (one dim per normalised axis), got rank " << w.ndim;
  if (w.shape && x.shape) {
    for (size_t k = 0; k < axes.size(); ++k) {
      const PrimExpr& d = (*w.shape)[k];
      const PrimExpr& e = (*x.shape)[size_t(axes[k])];
      RX_CHECK(!ctx.analyzer().can_prove(tir::ne(d, e)))
          << "relax.nn.rms_norm: 'weight' dim " << k << " is " << tir::to_string(d)
          << " but data axis " << axes[k] << " is " << tir::to_string(e);
    }
  }
  return StructInfo(&x);
}

Expr legalize_rms_norm(BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& xs = legal_arg(call, 0);
  legal_arg(call, 1);
  std::vector<int64_t> axes = axes_of(call, get_ints(call.attrs, "axes", {-1}), xs.ndim);
  double eps = epsilon_attr(call);
  return te::call_te(
      bb, {call.args[0], call.args[1]},
      [&](const std::vector<te::Tensor>& a) -> te::TensorList {
        const te::Tensor &x = a[0], &w = a[1];
        DataType t = x.dtype();
        std::vector<PrimExpr> kept;
        PrimExpr count = tir::int_imm(1);
        for (size_t d = 0; d < x.ndim(); ++d) {
          bool red = contains(axes, int64_t(d));
          kept.push_back(red ? tir::int_imm(1) : x.shape()[d]);
          if (red) count = count * x.shape()[d];
        }
        PrimExpr n = tir::cast(t, count);
        te::Tensor ms = te::compute(
            kept,
            [&](const std::vector<PrimExpr>& i) {
              std::vector<te::Axis> rs;
              std::vector<PrimExpr> idx = i;
              for (int64_t d : axes) {
                rs.push_back(te::reduce_axis(x.shape()[size_t(d)], "k" + std::to_string(d)));
                idx[size_t(d)] = rs.back();
              }
              PrimExpr v = x(idx);
              return te::sum(tir::truncdiv(v * v, n), rs);
            },
            "rms_norm_meansq");
        return te::compute(
            x.shape(),
            [&](const std::vector<PrimExpr>& i) {
              std::vector<PrimExpr> k = i, widx;
              for (int64_t d : axes) {
                k[size_t(d)] = tir::int_imm(0);
                widx.push_back(i[size_t(d)]);
              }
              return x(i) * tir::rsqrt(ms(k) + const_of(eps, t)) * w(widx);
            },
            "rms_norm");
      },
      "rms_norm");
}

// ---- dropout

StructInfo infer_dropout(const Call& call, BlockBuilder&) {
  const TensorStructInfo& x = expect_float_tensor(call, 0);
  double rate = get_float(call.attrs, "rate", 0.5);
  RX_CHECK(rate >= 0 && rate < 1) << "relax.nn.dropout: rate must be in [0, 1), got " << rate;
  return tuple_sinfo({StructInfo(&x), StructInfo(&x)});
}

Expr legalize_dropout(BlockBuilder& bb, const Call& call) {
  legal_arg(call, 0);
  return te::call_te(
      bb, {call.args[0]},
      [&](const std::vector<te::Tensor>& a) -> te::TensorList {
        const te::Tensor& x = a[0];
        return te::compute_multi(
            x.shape(),
            [&](const std::vector<PrimExpr>& i) {
              return std::vector<PrimExpr>{x(i), const_of(1, x.dtype())};
            },
            "dropout");
      },
      "dropout");
}

}  // namespace

void register_norm_ops(OpRegistry& reg) {
  using K = AttrSpec::Kind;
  for (bool instance : {false, true}) {
    OpInfo& op = reg.register_op(instance ? "relax.nn.instance_norm" : "relax.nn.group_norm");
    op.summary = instance ? "Instance normalisation: per sample and channel over `axes`."
                          : "Group normalisation: per sample and channel group over `axes`.";
    op.arg_names = {"data", "gamma", "beta"};
    if (!instance) op.attrs.push_back({"num_groups", K::kInt, int64_t(1), false, "channel groups"});
    op.attrs.push_back({"channel_axis", K::kInt, int64_t(1), false, "the channel axis"});
    op.attrs.push_back({"axes", K::kInts, std::monostate{}, true,
                        "the other reduced axes (default: all but axis 0 and the channel)"});
    op.attrs.push_back({"epsilon", K::kFloat, 1e-5, false, "added to the variance"});
    op.attrs.push_back({"center", K::kBool, true, false, "add beta"});
    op.attrs.push_back({"scale", K::kBool, true, false, "multiply by gamma"});
    op.infer = infer_group_norm;
    op.pattern = OpPattern::kOutEWiseFusable;
    op.legalize = legalize_group_norm;
  }
  {
    OpInfo& op = reg.register_op("relax.nn.rms_norm");
    op.summary = "x / sqrt(mean(x^2 over axes) + epsilon) * weight (weight shaped like axes).";
    op.arg_names = {"data", "weight"};
    op.attrs = {{"axes", K::kInts, std::vector<int64_t>{-1}, false, "the normalised axes"},
                {"epsilon", K::kFloat, 1e-5, false, "added to the mean square"}};
    op.infer = infer_rms_norm;
    op.pattern = OpPattern::kOutEWiseFusable;
    op.legalize = legalize_rms_norm;
  }
  {
    OpInfo& op = reg.register_op("relax.nn.dropout");
    op.summary = "Dropout; returns (output, mask). Legalised as inference: x and a mask of ones.";
    op.arg_names = {"data"};
    op.attrs = {{"rate", K::kFloat, 0.5, false, "the probability of dropping an element"}};
    op.infer = infer_dropout;
    op.pattern = OpPattern::kOpaque;  // a tuple result, as in TVM
    op.legalize = legalize_dropout;
  }
}

}  // namespace op_detail

namespace op {
namespace {
Attrs norm_attrs(std::optional<int64_t> num_groups, int64_t channel_axis,
                 std::optional<std::vector<int64_t>> axes, double epsilon, bool center,
                 bool scale) {
  std::vector<std::pair<std::string, AttrValue>> f;
  if (num_groups) f.emplace_back("num_groups", *num_groups);
  f.emplace_back("channel_axis", channel_axis);
  if (axes) f.emplace_back("axes", std::move(*axes));
  f.emplace_back("epsilon", epsilon);
  f.emplace_back("center", center);
  f.emplace_back("scale", scale);
  return make_attrs(std::move(f));
}
}  // namespace
Expr group_norm(Expr data, Expr gamma, Expr beta, int64_t num_groups, int64_t channel_axis,
                std::optional<std::vector<int64_t>> axes, double epsilon, bool center, bool scale) {
  return call_op("relax.nn.group_norm", {std::move(data), std::move(gamma), std::move(beta)},
                 norm_attrs(num_groups, channel_axis, std::move(axes), epsilon, center, scale));
}
Expr instance_norm(Expr data, Expr gamma, Expr beta, int64_t channel_axis,
                   std::optional<std::vector<int64_t>> axes, double epsilon, bool center,
                   bool scale) {
  return call_op("relax.nn.instance_norm", {std::move(data), std::move(gamma), std::move(beta)},
                 norm_attrs(std::nullopt, channel_axis, std::move(axes), epsilon, center, scale));
}
Expr rms_norm(Expr data, Expr weight, std::vector<int64_t> axes, double epsilon) {
  return call_op("relax.nn.rms_norm", {std::move(data), std::move(weight)},
                 make_attrs({{"axes", std::move(axes)}, {"epsilon", epsilon}}));
}
Expr dropout(Expr data, double rate) {
  return call_op("relax.nn.dropout", {std::move(data)}, make_attrs({{"rate", rate}}));
}
}  // namespace op
}  // namespace relax
