// Convolution and pooling over NCHW data: conv2d (weights OIHW; strides, padding, dilation,
// groups), max_pool2d and avg_pool2d (strides, padding, dilation, ceil_mode,
// count_include_pad). Padding is 1, 2 or 4 values: all sides; (top/bottom, left/right); or
// (top, left, bottom, right) as in TVM.
#include "infer_utils.h"
#include "legalize_utils.h"
#include "relax/op/nn.h"
#include "relax/support/diagnostic.h"

namespace relax {
namespace op_detail {

namespace {

/// A pair attribute (strides, dilation, pool_size): 1 or 2 positive values.
std::vector<int64_t> pair_attr(const Call& call, const std::string& key,
                               std::vector<int64_t> dflt) {
  std::vector<int64_t> v = get_ints(call.attrs, key, dflt);
  RX_CHECK(v.size() == 1 || v.size() == 2)
      << op_name(call) << ": '" << key << "' takes 1 or 2 values, got " << v.size();
  if (v.size() == 1) v.push_back(v[0]);
  for (int64_t x : v)
    RX_CHECK(x > 0) << op_name(call) << ": '" << key << "' values must be positive, got " << x;
  return v;
}

/// (top, left, bottom, right).
std::vector<int64_t> padding_attr(const Call& call) {
  std::vector<int64_t> p = get_ints(call.attrs, "padding", {0, 0, 0, 0});
  RX_CHECK(p.size() == 1 || p.size() == 2 || p.size() == 4)
      << op_name(call) << ": 'padding' takes 1, 2 or 4 values, got " << p.size();
  if (p.size() == 1) p = {p[0], p[0], p[0], p[0]};
  if (p.size() == 2) p = {p[0], p[1], p[0], p[1]};
  for (int64_t x : p)
    RX_CHECK(x >= 0) << op_name(call) << ": 'padding' values must be non-negative, got " << x;
  return p;
}

void check_layout(const Call& call, const std::string& key, const std::string& supported) {
  std::string v = get_string(call.attrs, key, supported);
  RX_CHECK(v == supported) << op_name(call) << ": " << key << " '" << v
                           << "' is not supported; only " << supported;
}

/// The output extent of a sliding window.
PrimExpr out_extent(const PrimExpr& in, int64_t pad, int64_t k, int64_t stride, int64_t dil,
                    bool ceil_mode) {
  PrimExpr span = in + (pad) - (dil * (k - 1) + 1);
  if (ceil_mode) span = span + (stride - 1);
  return tir::floordiv(span, stride) + 1;
}

struct Window {
  std::vector<int64_t> strides, dilation, padding;
};

Window window_attrs(const Call& call) {
  return {pair_attr(call, "strides", {1, 1}), pair_attr(call, "dilation", {1, 1}),
          padding_attr(call)};
}

// ---- conv2d

StructInfo infer_conv2d(const Call& call, BlockBuilder& ctx) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  const TensorStructInfo& w = expect_tensor(call, 1);
  check_layout(call, "data_layout", "NCHW");
  check_layout(call, "kernel_layout", "OIHW");
  check_layout(call, "out_layout", "NCHW");
  Window win = window_attrs(call);
  int64_t groups = get_int(call.attrs, "groups", 1);
  RX_CHECK(groups > 0) << "relax.nn.conv2d: groups must be positive, got " << groups;
  DataType out_dtype = get_dtype(call.attrs, "out_dtype", DataType::Void());
  DataType dtype = unify_dtype(call, x.dtype, w.dtype);
  if (!out_dtype.is_void()) dtype = out_dtype;
  RX_CHECK(x.ndim < 0 || x.ndim == 4)
      << "relax.nn.conv2d: data should have rank 4 (NCHW), got rank " << x.ndim;
  RX_CHECK(w.ndim < 0 || w.ndim == 4)
      << "relax.nn.conv2d: weight should have rank 4 (OIHW), got rank " << w.ndim;
  if (!x.shape || !w.shape) return tensor_sinfo(dtype, 4, x.vdevice);
  const auto& xs = *x.shape;
  const auto& ws = *w.shape;
  arith::Analyzer& ana = ctx.analyzer();
  auto provably_not = [&](const PrimExpr& cond) { return ana.can_prove(tir::logical_not(cond)); };
  RX_CHECK(!provably_not(tir::eq(tir::floormod(xs[1], groups), tir::int_imm(0))))
      << "relax.nn.conv2d: input channels " << tir::to_string(xs[1])
      << " are not divisible by groups " << groups;
  RX_CHECK(!provably_not(tir::eq(tir::floormod(ws[0], groups), tir::int_imm(0))))
      << "relax.nn.conv2d: output channels " << tir::to_string(ws[0])
      << " are not divisible by groups " << groups;
  RX_CHECK(!provably_not(tir::eq(ws[1] * groups, xs[1])))
      << "relax.nn.conv2d: weight has " << tir::to_string(ws[1])
      << " input channels per group, but data has " << tir::to_string(xs[1]) << " channels in "
      << groups << " group(s)";
  auto* kh = tir::as_const_int(ws[2]);
  auto* kw = tir::as_const_int(ws[3]);
  if (!kh || !kw) return tensor_sinfo(dtype, 4, x.vdevice);
  PrimExpr oh = ana.simplify(out_extent(xs[2], win.padding[0] + win.padding[2], *kh, win.strides[0],
                                        win.dilation[0], false));
  PrimExpr ow = ana.simplify(out_extent(xs[3], win.padding[1] + win.padding[3], *kw, win.strides[1],
                                        win.dilation[1], false));
  for (const PrimExpr* e : {&oh, &ow}) {
    auto* c = tir::as_const_int(*e);
    RX_CHECK(!c || *c > 0)
        << "relax.nn.conv2d: the kernel (with dilation) is larger than the padded input";
  }
  return tensor_sinfo({xs[0], ws[0], oh, ow}, dtype, x.vdevice);
}

/// `cond` of in-bounds and the padded read position for output position `o` and kernel tap `k`.
PrimExpr in_pos(PrimExpr o, PrimExpr k, int64_t stride, int64_t dil, int64_t pad) {
  return o * stride + k * dil - pad;
}

PrimExpr in_range(const PrimExpr& p, const PrimExpr& extent) {
  return tir::logical_and(tir::ge(p, tir::int_imm(0)), tir::lt(p, extent));
}

Expr legalize_conv2d(BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& out = legal_out(call);
  legal_arg(call, 0);
  const TensorStructInfo& ws = legal_arg(call, 1);
  Window win = window_attrs(call);
  int64_t groups = get_int(call.attrs, "groups", 1);
  RX_CHECK(tir::as_const_int((*ws.shape)[2]) && tir::as_const_int((*ws.shape)[3]))
      << "relax.nn.conv2d: cannot legalise a kernel of symbolic size";
  return te::call_te(
      bb, {call.args[0], call.args[1]},
      [&](const std::vector<te::Tensor>& a) {
        const te::Tensor &x = a[0], &w = a[1];
        DataType t = out.dtype;
        return te::compute(
            *out.shape,
            [&](const std::vector<PrimExpr>& i) {
              const PrimExpr &n = i[0], &o = i[1], &oy = i[2], &ox = i[3];
              te::Axis rc = te::reduce_axis(w.shape()[1], "rc");
              te::Axis ry = te::reduce_axis(w.shape()[2], "ry");
              te::Axis rx = te::reduce_axis(w.shape()[3], "rx");
              PrimExpr per_group_out = tir::floordiv(w.shape()[0], groups);
              PrimExpr c = tir::floordiv(o, per_group_out) * w.shape()[1] + rc;
              PrimExpr y = in_pos(oy, ry, win.strides[0], win.dilation[0], win.padding[0]);
              PrimExpr xx = in_pos(ox, rx, win.strides[1], win.dilation[1], win.padding[1]);
              PrimExpr valid =
                  tir::logical_and(in_range(y, x.shape()[2]), in_range(xx, x.shape()[3]));
              PrimExpr v = te::if_then_else(valid, tir::cast(t, x(n, c, y, xx)), const_of(0, t));
              return te::sum(v * tir::cast(t, w(o, rc, ry, rx)), {rc, ry, rx});
            },
            "conv2d");
      },
      "conv2d");
}

// ---- max_pool2d / avg_pool2d

StructInfo infer_pool2d(const Call& call, BlockBuilder& ctx) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  check_layout(call, "layout", "NCHW");
  check_layout(call, "out_layout", "NCHW");
  std::vector<int64_t> k = pair_attr(call, "pool_size", {1, 1});
  Window win = window_attrs(call);
  bool ceil_mode = get_bool(call.attrs, "ceil_mode", false);
  RX_CHECK(x.dtype.is_void() || x.dtype.is_float() || x.dtype.is_int() || x.dtype.is_uint())
      << op_name(call) << ": needs a numeric tensor, got " << x.dtype.to_string();
  RX_CHECK(x.ndim < 0 || x.ndim == 4)
      << op_name(call) << ": data should have rank 4 (NCHW), got rank " << x.ndim;
  for (int d = 0; d < 2; ++d) {
    RX_CHECK(win.padding[size_t(d)] * 2 <= win.dilation[size_t(d)] * (k[size_t(d)] - 1) + 1)
        << op_name(call) << ": padding " << win.padding[size_t(d)]
        << " is more than half the window";
  }
  if (!x.shape) return tensor_sinfo(x.dtype, 4, x.vdevice);
  const auto& xs = *x.shape;
  arith::Analyzer& ana = ctx.analyzer();
  PrimExpr oh = ana.simplify(out_extent(xs[2], win.padding[0] + win.padding[2], k[0],
                                        win.strides[0], win.dilation[0], ceil_mode));
  PrimExpr ow = ana.simplify(out_extent(xs[3], win.padding[1] + win.padding[3], k[1],
                                        win.strides[1], win.dilation[1], ceil_mode));
  return tensor_sinfo({xs[0], xs[1], oh, ow}, x.dtype, x.vdevice);
}

Expr legalize_pool2d(bool is_max, BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& out = legal_out(call);
  legal_arg(call, 0);
  std::vector<int64_t> k = pair_attr(call, "pool_size", {1, 1});
  Window win = window_attrs(call);
  bool include_pad = get_bool(call.attrs, "count_include_pad", false);
  std::string name = kernel_name(call);
  return te::call_te(
      bb, {call.args[0]},
      [&](const std::vector<te::Tensor>& a) -> te::TensorList {
        const te::Tensor& x = a[0];
        DataType t = x.dtype();
        // The window of output (oy, ox): taps, positions, and whether they are inside the input.
        struct Tap {
          te::Axis ry, rx;
          PrimExpr y, xx, valid;
        };
        auto tap = [&](const std::vector<PrimExpr>& i) {
          Tap w{te::reduce_axis(k[0], "ry"), te::reduce_axis(k[1], "rx"), {}, {}, {}};
          w.y = in_pos(i[2], w.ry, win.strides[0], win.dilation[0], win.padding[0]);
          w.xx = in_pos(i[3], w.rx, win.strides[1], win.dilation[1], win.padding[1]);
          w.valid = tir::logical_and(in_range(w.y, x.shape()[2]), in_range(w.xx, x.shape()[3]));
          return w;
        };
        if (is_max) {
          return te::compute(
              *out.shape,
              [&](const std::vector<PrimExpr>& i) {
                Tap w = tap(i);
                PrimExpr v = te::if_then_else(w.valid, x(i[0], i[1], w.y, w.xx), te::min_value(t));
                return te::max(v, {w.ry, w.rx}, w.valid);
              },
              name);
        }
        te::Tensor s = te::compute(
            *out.shape,
            [&](const std::vector<PrimExpr>& i) {
              Tap w = tap(i);
              PrimExpr v = te::if_then_else(w.valid, x(i[0], i[1], w.y, w.xx), const_of(0, t));
              return te::sum(v, {w.ry, w.rx});
            },
            name + "_sum");
        te::Tensor cnt;
        if (!include_pad) {
          cnt = te::compute(
              *out.shape,
              [&](const std::vector<PrimExpr>& i) {
                Tap w = tap(i);
                return te::sum(tir::int_imm(1), {w.ry, w.rx}, w.valid);
              },
              name + "_count");
        }
        return te::compute(
            *out.shape,
            [&](const std::vector<PrimExpr>& i) {
              PrimExpr n =
                  include_pad ? tir::int_imm(k[0] * k[1]) : tir::max(cnt(i), tir::int_imm(1));
              return tir::truncdiv(s(i), tir::cast(t, n));
            },
            name);
      },
      name);
}

void register_pool(OpRegistry& reg, bool is_max) {
  OpInfo& op = reg.register_op(is_max ? "relax.nn.max_pool2d" : "relax.nn.avg_pool2d");
  op.summary = is_max ? "2-D max pooling over NCHW data (padding never wins)."
                      : "2-D average pooling over NCHW data.";
  op.arg_names = {"data"};
  op.attrs = {
      {"pool_size", AttrSpec::Kind::kInts, std::vector<int64_t>{1, 1}, false, "window (kh, kw)"},
      {"strides", AttrSpec::Kind::kInts, std::vector<int64_t>{1, 1}, false, "window strides"},
      {"padding", AttrSpec::Kind::kInts, std::vector<int64_t>{0, 0, 0, 0}, false,
       "(top, left, bottom, right)"},
      {"dilation", AttrSpec::Kind::kInts, std::vector<int64_t>{1, 1}, false, "window dilation"},
      {"ceil_mode", AttrSpec::Kind::kBool, false, false, "round the output size up"},
      {"count_include_pad", AttrSpec::Kind::kBool, false, false, "average: count padding elements"},
      {"layout", AttrSpec::Kind::kString, std::string("NCHW"), false, "data layout"},
      {"out_layout", AttrSpec::Kind::kString, std::string("NCHW"), false, "output layout"}};
  op.infer = infer_pool2d;
  op.pattern = OpPattern::kOutEWiseFusable;
  op.legalize = [is_max](BlockBuilder& bb, const Call& call) {
    return legalize_pool2d(is_max, bb, call);
  };
}

}  // namespace

void register_conv_ops(OpRegistry& reg) {
  {
    OpInfo& op = reg.register_op("relax.nn.conv2d");
    op.summary = "2-D convolution, NCHW data and OIHW weights.";
    op.arg_names = {"data", "weight"};
    op.attrs = {
        {"strides", AttrSpec::Kind::kInts, std::vector<int64_t>{1, 1}, false, "(sh, sw)"},
        {"padding", AttrSpec::Kind::kInts, std::vector<int64_t>{0, 0, 0, 0}, false,
         "(top, left, bottom, right)"},
        {"dilation", AttrSpec::Kind::kInts, std::vector<int64_t>{1, 1}, false, "(dh, dw)"},
        {"groups", AttrSpec::Kind::kInt, int64_t(1), false, "channel groups"},
        {"data_layout", AttrSpec::Kind::kString, std::string("NCHW"), false, "data layout"},
        {"kernel_layout", AttrSpec::Kind::kString, std::string("OIHW"), false, "weight layout"},
        {"out_layout", AttrSpec::Kind::kString, std::string("NCHW"), false, "output layout"},
        {"out_dtype", AttrSpec::Kind::kDType, std::monostate{}, true, "result dtype"}};
    op.infer = infer_conv2d;
    op.pattern = OpPattern::kOutEWiseFusable;
    op.legalize = legalize_conv2d;
  }
  register_pool(reg, true);
  register_pool(reg, false);
}

}  // namespace op_detail

namespace op {
Expr conv2d(Expr data, Expr weight, const Conv2DOptions& o) {
  std::vector<std::pair<std::string, AttrValue>> f = {{"strides", o.strides},
                                                      {"padding", o.padding},
                                                      {"dilation", o.dilation},
                                                      {"groups", o.groups}};
  if (!o.out_dtype.is_void()) f.emplace_back("out_dtype", o.out_dtype);
  return call_op("relax.nn.conv2d", {std::move(data), std::move(weight)}, make_attrs(std::move(f)));
}
namespace {
Attrs pool_attrs(const Pool2DOptions& o, bool avg) {
  std::vector<std::pair<std::string, AttrValue>> f = {{"pool_size", o.pool_size},
                                                      {"strides", o.strides},
                                                      {"padding", o.padding},
                                                      {"dilation", o.dilation},
                                                      {"ceil_mode", o.ceil_mode}};
  if (avg) f.emplace_back("count_include_pad", o.count_include_pad);
  return make_attrs(std::move(f));
}
}  // namespace
Expr max_pool2d(Expr data, const Pool2DOptions& o) {
  return call_op("relax.nn.max_pool2d", {std::move(data)}, pool_attrs(o, false));
}
Expr avg_pool2d(Expr data, const Pool2DOptions& o) {
  return call_op("relax.nn.avg_pool2d", {std::move(data)}, pool_attrs(o, true));
}
}  // namespace op
}  // namespace relax
