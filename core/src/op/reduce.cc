// Reductions: sum, mean, max, min, prod, variance, std (over a list of axes, all when none is
// given) and argmax, argmin (over one axis, the flattened tensor when none is given), each
// with `keepdims`.
#include <algorithm>

#include "infer_utils.h"
#include "legalize_utils.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"

namespace relax {
namespace op_detail {

namespace {

/// The reduced axes of `call` for a tensor of rank `ndim`, normalised and sorted; all axes
/// when the attribute is absent. Throws on an out-of-range or repeated axis.
std::vector<int64_t> reduce_axes(const Call& call, int ndim) {
  auto axes = get_opt_ints(call.attrs, "axis");
  std::vector<int64_t> out;
  if (!axes) {
    for (int i = 0; i < ndim; ++i) out.push_back(i);
    return out;
  }
  for (int64_t a : *axes) {
    int64_t n = normalize_axis(call, a, ndim);
    RX_CHECK(std::find(out.begin(), out.end(), n) == out.end())
        << op_name(call) << ": axis " << a << " appears twice";
    out.push_back(n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

/// Struct info of a reduction of `x` over `axes` producing `dtype`.
StructInfo reduced_sinfo(const Call& call, const TensorStructInfo& x, DataType dtype) {
  bool keepdims = get_bool(call.attrs, "keepdims", false);
  if (x.ndim < 0) {
    return tensor_sinfo(dtype, keepdims ? -1 : (get_opt_ints(call.attrs, "axis") ? -1 : 0),
                        x.vdevice);
  }
  std::vector<int64_t> axes = reduce_axes(call, x.ndim);
  if (!x.shape)
    return tensor_sinfo(dtype, keepdims ? x.ndim : x.ndim - int(axes.size()), x.vdevice);
  std::vector<PrimExpr> out;
  for (int i = 0; i < x.ndim; ++i) {
    if (!contains(axes, i))
      out.push_back((*x.shape)[size_t(i)]);
    else if (keepdims)
      out.push_back(tir::int_imm(1));
  }
  return tensor_sinfo(out, dtype, x.vdevice);
}

enum class ReduceKind { kSum, kMean, kMax, kMin, kProd, kVariance, kStd };

InferStructInfo infer_reduce(ReduceKind kind) {
  return [kind](const Call& call, BlockBuilder&) -> StructInfo {
    const TensorStructInfo& x = expect_tensor(call, 0);
    bool needs_float =
        kind == ReduceKind::kMean || kind == ReduceKind::kVariance || kind == ReduceKind::kStd;
    RX_CHECK(!needs_float || x.dtype.is_void() || x.dtype.is_float())
        << op_name(call) << ": needs a floating-point tensor, got " << x.dtype.to_string();
    RX_CHECK(x.dtype.is_void() || !x.dtype.is_bool())
        << op_name(call) << ": needs a numeric tensor, got bool";
    return reduced_sinfo(call, x, x.dtype);
  };
}

/// The input indices for output indices `out_idx`, with reduced dims taken from `red`
/// (one per reduced axis, in order).
std::vector<PrimExpr> input_index(int ndim, const std::vector<int64_t>& axes, bool keepdims,
                                  const std::vector<PrimExpr>& out_idx,
                                  const std::vector<PrimExpr>& red) {
  std::vector<PrimExpr> idx;
  size_t o = 0, r = 0;
  for (int i = 0; i < ndim; ++i) {
    if (contains(axes, i)) {
      idx.push_back(red[r++]);
      if (keepdims) ++o;
    } else {
      idx.push_back(out_idx[o++]);
    }
  }
  return idx;
}

/// The reduction of `x` (a placeholder) over `axes` with `make` (te::sum, te::max, ...) of
/// `value(x at index)`.
te::Tensor reduce_stage(
    const te::Tensor& x, const std::vector<int64_t>& axes, bool keepdims,
    const std::vector<PrimExpr>& out_shape,
    const std::function<te::Reduction(PrimExpr, std::vector<te::Axis>)>& make,
    const std::function<PrimExpr(const std::vector<PrimExpr>&, PrimExpr)>& value,
    const std::string& name) {
  return te::compute(
      out_shape,
      [&](const std::vector<PrimExpr>& i) {
        std::vector<te::Axis> rs;
        std::vector<PrimExpr> rv;
        for (int64_t a : axes) {
          rs.push_back(te::reduce_axis(x.shape()[size_t(a)], "k" + std::to_string(a)));
          rv.push_back(rs.back());
        }
        return make(value(i, x(input_index(int(x.ndim()), axes, keepdims, i, rv))), rs);
      },
      name);
}

PrimExpr count_of(const te::Tensor& x, const std::vector<int64_t>& axes) {
  PrimExpr n = tir::int_imm(1);
  for (int64_t a : axes) n = n * x.shape()[size_t(a)];
  return tir::cast(x.dtype(), n);
}

Expr legalize_reduce(ReduceKind kind, BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& out = legal_out(call);
  const TensorStructInfo& xs = legal_arg(call, 0);
  std::vector<int64_t> axes = reduce_axes(call, xs.ndim);
  bool keepdims = get_bool(call.attrs, "keepdims", false);
  std::string name = kernel_name(call);
  auto plain = [](const std::vector<PrimExpr>&, PrimExpr v) { return v; };
  return te::call_te(
      bb, {call.args[0]},
      [&](const std::vector<te::Tensor>& a) -> te::TensorList {
        const te::Tensor& x = a[0];
        const std::vector<PrimExpr>& shape = *out.shape;
        auto sum = [](PrimExpr v, std::vector<te::Axis> r) { return te::sum(v, std::move(r)); };
        switch (kind) {
          case ReduceKind::kSum:
            return reduce_stage(x, axes, keepdims, shape, sum, plain, name);
          case ReduceKind::kMax:
            return reduce_stage(
                x, axes, keepdims, shape,
                [](PrimExpr v, std::vector<te::Axis> r) { return te::max(v, std::move(r)); }, plain,
                name);
          case ReduceKind::kMin:
            return reduce_stage(
                x, axes, keepdims, shape,
                [](PrimExpr v, std::vector<te::Axis> r) { return te::min(v, std::move(r)); }, plain,
                name);
          case ReduceKind::kProd:
            return reduce_stage(
                x, axes, keepdims, shape,
                [](PrimExpr v, std::vector<te::Axis> r) { return te::prod(v, std::move(r)); },
                plain, name);
          case ReduceKind::kMean: {
            te::Tensor s = reduce_stage(x, axes, keepdims, shape, sum, plain, name + "_sum");
            PrimExpr n = count_of(x, axes);
            return te::compute(
                shape, [&](const std::vector<PrimExpr>& i) { return tir::truncdiv(s(i), n); },
                name);
          }
          case ReduceKind::kVariance:
          case ReduceKind::kStd: {
            // Two passes (mean, then squared deviations) for accuracy. The mean keeps the
            // reduced dims so the deviation stage can index it.
            std::vector<PrimExpr> kept;
            for (size_t d = 0; d < x.ndim(); ++d)
              kept.push_back(contains(axes, int64_t(d)) ? tir::int_imm(1) : x.shape()[d]);
            PrimExpr n = count_of(x, axes);
            te::Tensor s = reduce_stage(x, axes, true, kept, sum, plain, name + "_sum");
            te::Tensor mean = te::compute(
                kept, [&](const std::vector<PrimExpr>& i) { return tir::truncdiv(s(i), n); },
                name + "_mean");
            auto dev = [&](const std::vector<PrimExpr>& xi) {
              std::vector<PrimExpr> mi;
              for (size_t d = 0; d < xi.size(); ++d)
                mi.push_back(contains(axes, int64_t(d)) ? tir::int_imm(0) : xi[d]);
              PrimExpr diff = x(xi) - mean(mi);
              return diff * diff;
            };
            te::Tensor sq = te::compute(
                shape,
                [&](const std::vector<PrimExpr>& i) {
                  std::vector<te::Axis> rs;
                  std::vector<PrimExpr> rv;
                  for (int64_t ax : axes) {
                    rs.push_back(te::reduce_axis(x.shape()[size_t(ax)], "k" + std::to_string(ax)));
                    rv.push_back(rs.back());
                  }
                  return te::sum(dev(input_index(int(x.ndim()), axes, keepdims, i, rv)), rs);
                },
                name + "_sq");
            return te::compute(
                shape,
                [&](const std::vector<PrimExpr>& i) {
                  PrimExpr v = tir::truncdiv(sq(i), n);
                  return kind == ReduceKind::kStd ? tir::sqrt(v) : v;
                },
                name);
          }
        }
        RX_ICHECK(false) << "unknown reduction";
        return x;
      },
      name);
}

void register_reduce(OpRegistry& reg, const std::string& name, const std::string& summary,
                     ReduceKind kind) {
  OpInfo& op = reg.register_op(name);
  op.summary = summary;
  op.arg_names = {"x"};
  op.attrs = {
      {"axis", AttrSpec::Kind::kInts, std::monostate{}, true, "axes to reduce (all when absent)"},
      {"keepdims", AttrSpec::Kind::kBool, false, false, "keep reduced axes with size 1"}};
  op.infer = infer_reduce(kind);
  op.pattern = OpPattern::kCommReduce;
  op.legalize = [kind](BlockBuilder& bb, const Call& call) {
    return legalize_reduce(kind, bb, call);
  };
}

// ---- argmax / argmin: one axis (an int) or the flattened tensor.

StructInfo infer_arg_reduce(const Call& call, BlockBuilder&) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  RX_CHECK(x.dtype.is_void() || !x.dtype.is_bool())
      << op_name(call) << ": needs a numeric tensor, got bool";
  auto axis = get_opt_ints(call.attrs, "axis");
  RX_CHECK(!axis || axis->size() == 1)
      << op_name(call) << ": 'axis' is one integer, got " << axis->size();
  return reduced_sinfo(call, x, DataType::Int(64));
}

Expr legalize_arg_reduce(bool is_max, BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& out = legal_out(call);
  const TensorStructInfo& xs = legal_arg(call, 0);
  std::vector<int64_t> axes = reduce_axes(call, xs.ndim);
  bool keepdims = get_bool(call.attrs, "keepdims", false);
  std::string name = kernel_name(call);
  return te::call_te(
      bb, {call.args[0]},
      [&](const std::vector<te::Tensor>& a) -> te::TensorList {
        const te::Tensor& x = a[0];
        std::vector<PrimExpr> red_shape;
        for (int64_t ax : axes) red_shape.push_back(x.shape()[size_t(ax)]);
        std::vector<te::Tensor> outs = te::compute_multi(
            *out.shape,
            [&](const std::vector<PrimExpr>& i) {
              // One reduce axis over the reduced dims flattened: its value is the result index.
              PrimExpr extent = tir::int_imm(1);
              for (const auto& d : red_shape) extent = extent * d;
              te::Axis k = te::reduce_axis(extent, "k");
              std::vector<PrimExpr> rv = unflatten_index(k, red_shape);
              PrimExpr v = x(input_index(int(x.ndim()), axes, keepdims, i, rv));
              return is_max ? te::argmax(v, k) : te::argmin(v, k);
            },
            name);
        return outs[0];
      },
      name);
}

}  // namespace

void register_reduce_ops(OpRegistry& reg) {
  register_reduce(reg, "relax.sum", "Sum over axes.", ReduceKind::kSum);
  register_reduce(reg, "relax.mean", "Mean over axes (floats).", ReduceKind::kMean);
  register_reduce(reg, "relax.max", "Maximum over axes.", ReduceKind::kMax);
  register_reduce(reg, "relax.min", "Minimum over axes.", ReduceKind::kMin);
  register_reduce(reg, "relax.prod", "Product over axes.", ReduceKind::kProd);
  register_reduce(reg, "relax.variance", "Population variance over axes (floats).",
                  ReduceKind::kVariance);
  register_reduce(reg, "relax.std", "Population standard deviation over axes (floats).",
                  ReduceKind::kStd);
  for (bool is_max : {true, false}) {
    OpInfo& op = reg.register_op(is_max ? "relax.argmax" : "relax.argmin");
    op.summary =
        is_max ? "Index (int64) of the first maximum along an axis, or of the flattened tensor."
               : "Index (int64) of the first minimum along an axis, or of the flattened tensor.";
    op.arg_names = {"x"};
    op.attrs = {
        {"axis", AttrSpec::Kind::kInts, std::monostate{}, true,
         "the axis (the flattened tensor when absent)"},
        {"keepdims", AttrSpec::Kind::kBool, false, false, "keep the reduced axis with size 1"}};
    op.infer = infer_arg_reduce;
    op.pattern = OpPattern::kCommReduce;
    op.legalize = [is_max](BlockBuilder& bb, const Call& call) {
      return legalize_arg_reduce(is_max, bb, call);
    };
  }
}

}  // namespace op_detail

namespace op {
namespace {
Attrs reduce_attrs(const std::optional<std::vector<int64_t>>& axis, bool keepdims) {
  std::vector<std::pair<std::string, AttrValue>> f;
  if (axis) f.emplace_back("axis", *axis);
  f.emplace_back("keepdims", keepdims);
  return make_attrs(std::move(f));
}
}  // namespace
#define RELAX_REDUCE_BUILDER(name)                                                \
  Expr name(Expr x, std::optional<std::vector<int64_t>> axis, bool keepdims) {    \
    return call_op("relax." #name, {std::move(x)}, reduce_attrs(axis, keepdims)); \
  }
RELAX_REDUCE_BUILDER(sum)
RELAX_REDUCE_BUILDER(mean)
RELAX_REDUCE_BUILDER(max)
RELAX_REDUCE_BUILDER(min)
RELAX_REDUCE_BUILDER(prod)
RELAX_REDUCE_BUILDER(variance)
#undef RELAX_REDUCE_BUILDER
Expr stddev(Expr x, std::optional<std::vector<int64_t>> axis, bool keepdims) {
  return call_op("relax.std", {std::move(x)}, reduce_attrs(axis, keepdims));
}
Expr argmax(Expr x, std::optional<int64_t> axis, bool keepdims) {
  std::optional<std::vector<int64_t>> a;
  if (axis) a = std::vector<int64_t>{*axis};
  return call_op("relax.argmax", {std::move(x)}, reduce_attrs(a, keepdims));
}
Expr argmin(Expr x, std::optional<int64_t> axis, bool keepdims) {
  std::optional<std::vector<int64_t>> a;
  if (axis) a = std::vector<int64_t>{*axis};
  return call_op("relax.argmin", {std::move(x)}, reduce_attrs(a, keepdims));
}
}  // namespace op
}  // namespace relax
