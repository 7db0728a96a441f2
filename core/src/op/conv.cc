// Convolutions of any spatial rank: conv1d, conv2d, conv3d and the transposed conv1d_transpose,
// conv2d_transpose, conv3d_transpose (TVM's attributes: strides, padding, dilation, groups,
// output_padding for the transposed ones, data_layout / kernel_layout / out_layout, out_dtype).
//
// One inference and one legalisation serve every rank; the rank comes from the op's
// registration and the layouts say where the batch, channel and spatial axes sit (any
// permutation, see window_utils.h). Kernels: O (output channels) and I (input channels per
// group) for convolution, default OIW / OIHW / OIDHW; I (all input channels) and O (output
// channels per group) for transposed convolution, default IOW / IOHW / IODHW as in TVM.
//
// Transposed convolution is the gradient of convolution with respect to its input: output
// position o receives x[i] * w[k] wherever o = i * stride + k * dilation - pad_before, so
// each output element is a reduction over the input channels of its group and the kernel
// taps, reading x at (o + pad_before - k * dilation) / stride when that is an exact, in-range
// division. Its output extent is (in - 1) * stride - pad_before - pad_after
// + dilation * (k - 1) + 1 + output_padding.
//
// A padded convolution legalises to two stages, as TVM's topi does: `<name>_pad`, the input
// with its padding materialised (zeros outside the input), then the reduction reading it
// unconditionally. annotate-op-pattern still classifies the pair as out-elemwise-fusable,
// and the LLVM schedule keeps the pad a block of its own (parallel, vectorised), where a
// guard inside the reduction would be a select per multiply-add.
#include "infer_utils.h"
#include "legalize_utils.h"
#include "relax/op/nn.h"
#include "relax/support/diagnostic.h"
#include "window_utils.h"

namespace relax {
namespace op_detail {

namespace {

/// Which convolution an op is.
struct ConvKind {
  int dims;
  bool transpose;
};

std::string default_data_layout(int dims) { return "NC" + spatial_letters(dims); }
std::string default_kernel_layout(const ConvKind& k) {
  return (k.transpose ? "IO" : "OI") + spatial_letters(k.dims);
}

/// The attributes of a convolution call, validated.
struct ConvAttrs {
  Window win;
  std::vector<int64_t> output_padding;
  int64_t groups = 1;
  AxisLayout data, kernel, out;
};

ConvAttrs conv_attrs(const Call& call, const ConvKind& kind) {
  ConvAttrs a;
  a.win = window_attrs(call, kind.dims);
  a.groups = get_int(call.attrs, "groups", 1);
  RX_CHECK(a.groups > 0) << op_name(call) << ": groups must be positive, got " << a.groups;
  std::string dl = default_data_layout(kind.dims);
  a.data = layout_attr(call, "data_layout", dl, 'N', 'C', kind.dims);
  a.kernel = layout_attr(call, "kernel_layout", default_kernel_layout(kind), 'O', 'I', kind.dims);
  a.out = layout_attr(call, "out_layout", a.data.name, 'N', 'C', kind.dims);
  a.output_padding.assign(size_t(kind.dims), 0);
  if (kind.transpose) {
    a.output_padding = dims_attr(call, "output_padding", kind.dims, 0, 0);
    for (size_t d = 0; d < size_t(kind.dims); ++d) {
      int64_t bound = std::max(a.win.strides[d], a.win.dilation[d]);
      RX_CHECK(a.output_padding[d] < bound)
          << op_name(call) << ": output_padding " << a.output_padding[d]
          << " must be smaller than the stride or the dilation (" << bound << ")";
    }
  }
  return a;
}

StructInfo infer_conv(const ConvKind& kind, const Call& call, BlockBuilder& ctx) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  const TensorStructInfo& w = expect_tensor(call, 1);
  ConvAttrs at = conv_attrs(call, kind);
  std::string name = op_name(call);
  DataType out_dtype = get_dtype(call.attrs, "out_dtype", DataType::Void());
  DataType dtype = unify_dtype(call, x.dtype, w.dtype);
  if (!out_dtype.is_void()) dtype = out_dtype;
  int rank = kind.dims + 2;
  RX_CHECK(x.ndim < 0 || x.ndim == rank) << name << ": data should have rank " << rank << " ("
                                         << at.data.name << "), got rank " << x.ndim;
  RX_CHECK(w.ndim < 0 || w.ndim == rank) << name << ": weight should have rank " << rank << " ("
                                         << at.kernel.name << "), got rank " << w.ndim;
  if (!x.shape || !w.shape) return tensor_sinfo(dtype, rank, x.vdevice);
  const auto& xs = *x.shape;
  const auto& ws = *w.shape;
  arith::Analyzer& ana = ctx.analyzer();
  auto provably_not = [&](const PrimExpr& cond) { return ana.can_prove(tir::logical_not(cond)); };
  auto divisible = [&](const PrimExpr& e) {
    return !provably_not(tir::eq(tir::floormod(e, at.groups), tir::int_imm(0)));
  };
  const PrimExpr& in_c = xs[size_t(at.data.second)];
  const PrimExpr& w_o = ws[size_t(at.kernel.first)];
  const PrimExpr& w_i = ws[size_t(at.kernel.second)];
  RX_CHECK(divisible(in_c)) << name << ": input channels " << tir::to_string(in_c)
                            << " are not divisible by groups " << at.groups;
  PrimExpr out_c;
  if (kind.transpose) {
    RX_CHECK(!provably_not(tir::eq(w_i, in_c)))
        << name << ": weight has " << tir::to_string(w_i) << " input channels (axis I of "
        << at.kernel.name << "), but data has " << tir::to_string(in_c) << " channels";
    out_c = ana.simplify(w_o * at.groups);
  } else {
    RX_CHECK(divisible(w_o)) << name << ": output channels " << tir::to_string(w_o)
                             << " are not divisible by groups " << at.groups;
    RX_CHECK(!provably_not(tir::eq(w_i * at.groups, in_c)))
        << name << ": weight has " << tir::to_string(w_i)
        << " input channels per group, but data has " << tir::to_string(in_c) << " channels in "
        << at.groups << " group(s)";
    out_c = w_o;
  }
  std::vector<PrimExpr> spatial;
  for (size_t d = 0; d < size_t(kind.dims); ++d) {
    const PrimExpr& in = xs[size_t(at.data.spatial[d])];
    const PrimExpr& k = ws[size_t(at.kernel.spatial[d])];
    int64_t s = at.win.strides[d], dil = at.win.dilation[d];
    int64_t pad = at.win.pad_before[d] + at.win.pad_after[d];
    PrimExpr o = kind.transpose ? (in - 1) * s - pad + dil * (k - 1) + 1 + at.output_padding[d]
                                : window_out_extent(in, pad, k, s, dil, false);
    o = ana.simplify(o);
    if (auto* c = tir::as_const_int(o)) {
      RX_CHECK(*c > 0) << name << ": spatial dim " << d << " of the output would be " << *c
                       << (kind.transpose ? " (the padding removes more than the output)"
                                          : " (the kernel with dilation is larger than the "
                                            "padded input)");
    }
    spatial.push_back(o);
  }
  return tensor_sinfo(layout_index(at.out, xs[size_t(at.data.first)], out_c, spatial), dtype,
                      x.vdevice);
}

Expr legalize_conv(const ConvKind& kind, BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& out = legal_out(call);
  legal_arg(call, 0);
  legal_arg(call, 1);
  ConvAttrs at = conv_attrs(call, kind);
  std::string name = kernel_name(call);
  size_t dims = size_t(kind.dims);
  return te::call_te(
      bb, {call.args[0], call.args[1]},
      [&](const std::vector<te::Tensor>& a) {
        const te::Tensor &x = a[0], &w = a[1];
        DataType t = out.dtype;
        const PrimExpr& w_o = w.shape()[size_t(at.kernel.first)];
        const PrimExpr& w_i = w.shape()[size_t(at.kernel.second)];
        const PrimExpr& in_c = x.shape()[size_t(at.data.second)];
        // Padding as a stage of its own, as TVM's pad: the reduction then reads every tap
        // unconditionally, where a select inside it costs one per multiply-add and keeps the
        // loads of the input from being plain vector loads or broadcasts.
        te::Tensor xp = x;
        bool pad_stage = false;
        for (size_t d = 0; !kind.transpose && d < dims; ++d)
          pad_stage |= at.win.pad_before[d] > 0 || at.win.pad_after[d] > 0;
        if (pad_stage) {
          std::vector<PrimExpr> shape = x.shape();
          for (size_t d = 0; d < dims; ++d) {
            PrimExpr& e = shape[size_t(at.data.spatial[d])];
            e = bb.analyzer().simplify(e + (at.win.pad_before[d] + at.win.pad_after[d]));
          }
          xp = te::compute(
              shape,
              [&](const std::vector<PrimExpr>& i) {
                std::vector<PrimExpr> src = i;
                PrimExpr valid = tir::bool_imm(true);
                for (size_t d = 0; d < dims; ++d) {
                  size_t axis = size_t(at.data.spatial[d]);
                  if (at.win.pad_before[d] == 0 && at.win.pad_after[d] == 0) continue;
                  src[axis] = i[axis] - at.win.pad_before[d];
                  valid = tir::logical_and(valid, in_range(src[axis], x.shape()[axis]));
                }
                return te::if_then_else(valid, x(src), const_of(0, x.dtype()));
              },
              name + "_pad");
        }
        // Grouped transposed convolution reads the weight as (group, out channel in group, in
        // channel in group, taps...): indexing the original weight by oc // O and oc % O
        // gives an index whose bounds the lowering's verifier cannot establish.
        te::Tensor wg;
        if (kind.transpose && at.groups > 1) {
          std::vector<PrimExpr> shape = {tir::int_imm(at.groups), w_o,
                                         tir::floordiv(in_c, at.groups)};
          for (size_t d = 0; d < dims; ++d)
            shape.push_back(w.shape()[size_t(at.kernel.spatial[d])]);
          wg = te::compute(
              shape,
              [&](const std::vector<PrimExpr>& i) {
                std::vector<PrimExpr> taps(i.begin() + 3, i.end());
                return w(layout_index(at.kernel, i[1], i[0] * shape[2] + i[2], taps));
              },
              name + "_weight");
        }
        return te::compute(
            *out.shape,
            [&](const std::vector<PrimExpr>& i) {
              const PrimExpr& n = i[size_t(at.out.first)];
              const PrimExpr& oc = i[size_t(at.out.second)];
              // Reduce over the input channels of the group, then the kernel taps.
              PrimExpr per_group_in = kind.transpose ? tir::floordiv(in_c, at.groups) : w_i;
              std::vector<te::Axis> rs{te::reduce_axis(per_group_in, "rc")};
              std::vector<PrimExpr> taps, pos;
              PrimExpr valid = tir::bool_imm(true);
              for (size_t d = 0; d < dims; ++d) {
                rs.push_back(te::reduce_axis(w.shape()[size_t(at.kernel.spatial[d])],
                                             "rk" + std::to_string(d)));
                taps.push_back(rs.back());
                const PrimExpr& o = i[size_t(at.out.spatial[d])];
                const PrimExpr& in = x.shape()[size_t(at.data.spatial[d])];
                int64_t s = at.win.strides[d], dil = at.win.dilation[d];
                if (kind.transpose) {
                  PrimExpr num = o + at.win.pad_before[d] - taps[d] * dil;
                  PrimExpr q = s == 1 ? num : tir::floordiv(num, s);
                  valid = tir::logical_and(valid, tir::ge(num, tir::int_imm(0)));
                  if (s != 1)
                    valid =
                        tir::logical_and(valid, tir::eq(tir::floormod(num, s), tir::int_imm(0)));
                  valid = tir::logical_and(valid, tir::lt(q, in));
                  pos.push_back(q);
                } else {
                  // Always in range: the padding, if any, is in xp.
                  pos.push_back(o * s + taps[d] * dil);
                }
              }
              PrimExpr rc = rs[0];
              PrimExpr xc, wo, wi;
              if (kind.transpose) {
                PrimExpr g = at.groups == 1 ? tir::int_imm(0) : tir::floordiv(oc, w_o);
                xc = g * per_group_in + rc;
                wi = xc;
                wo = at.groups == 1 ? oc : tir::floormod(oc, w_o);
              } else {
                PrimExpr g = at.groups == 1 ? tir::int_imm(0)
                                            : tir::floordiv(oc, tir::floordiv(w_o, at.groups));
                xc = g * w_i + rc;
                wo = oc;
                wi = rc;
              }
              PrimExpr xv = tir::cast(t, xp(layout_index(at.data, n, xc, pos)));
              PrimExpr v = kind.transpose ? te::if_then_else(valid, xv, const_of(0, t)) : xv;
              PrimExpr wv;
              if (wg.defined()) {
                std::vector<PrimExpr> idx = {tir::floordiv(oc, w_o), wo, rc};
                idx.insert(idx.end(), taps.begin(), taps.end());
                wv = wg(idx);
              } else {
                wv = w(layout_index(at.kernel, wo, wi, taps));
              }
              return te::sum(v * tir::cast(t, wv), rs);
            },
            name);
      },
      name);
}

void register_conv(OpRegistry& reg, ConvKind kind) {
  using K = AttrSpec::Kind;
  std::string rank = std::to_string(kind.dims) + "d";
  std::string spatial = spatial_letters(kind.dims);
  OpInfo& op = reg.register_op("relax.nn.conv" + rank + (kind.transpose ? "_transpose" : ""));
  op.summary = std::to_string(kind.dims) + "-D " + (kind.transpose ? "transposed " : "") +
               "convolution; data " + default_data_layout(kind.dims) + " or any permutation, " +
               "weight " + default_kernel_layout(kind) + " or any permutation.";
  op.arg_names = {"data", "weight"};
  op.attrs = {{"strides", K::kInts, std::vector<int64_t>(size_t(kind.dims), 1), false,
               "one per spatial dim (or one for all)"},
              {"padding", K::kInts, std::vector<int64_t>(size_t(2 * kind.dims), 0), false,
               "1, dims or 2 * dims values (all befores, then all afters)"},
              {"dilation", K::kInts, std::vector<int64_t>(size_t(kind.dims), 1), false,
               "one per spatial dim (or one for all)"},
              {"groups", K::kInt, int64_t(1), false, "channel groups"}};
  if (kind.transpose) {
    op.attrs.push_back({"output_padding", K::kInts, std::vector<int64_t>(size_t(kind.dims), 0),
                        false, "extra output rows at the end of each spatial dim"});
  }
  op.attrs.push_back({"data_layout", K::kString, default_data_layout(kind.dims), false,
                      "data layout (N, C, " + spatial + ")"});
  op.attrs.push_back({"kernel_layout", K::kString, default_kernel_layout(kind), false,
                      "weight layout (O, I, " + spatial + ")"});
  op.attrs.push_back(
      {"out_layout", K::kString, std::monostate{}, true, "output layout (default: data_layout)"});
  op.attrs.push_back({"out_dtype", K::kDType, std::monostate{}, true, "result dtype"});
  op.infer = [kind](const Call& call, BlockBuilder& ctx) { return infer_conv(kind, call, ctx); };
  op.pattern = OpPattern::kOutEWiseFusable;
  op.legalize = [kind](BlockBuilder& bb, const Call& call) {
    return legalize_conv(kind, bb, call);
  };
}

}  // namespace

void register_conv_ops(OpRegistry& reg) {
  for (int dims : {1, 2, 3}) register_conv(reg, {dims, false});
  for (int dims : {1, 2, 3}) register_conv(reg, {dims, true});
}

}  // namespace op_detail

namespace op {
namespace {
Attrs conv_attrs(const ConvOptions& o, bool transpose) {
  std::vector<std::pair<std::string, AttrValue>> f = {{"strides", o.strides},
                                                      {"padding", o.padding},
                                                      {"dilation", o.dilation},
                                                      {"groups", o.groups}};
  if (transpose) f.emplace_back("output_padding", o.output_padding);
  if (!o.data_layout.empty()) f.emplace_back("data_layout", o.data_layout);
  if (!o.kernel_layout.empty()) f.emplace_back("kernel_layout", o.kernel_layout);
  if (!o.out_layout.empty()) f.emplace_back("out_layout", o.out_layout);
  if (!o.out_dtype.is_void()) f.emplace_back("out_dtype", o.out_dtype);
  return make_attrs(std::move(f));
}
}  // namespace
Expr conv2d(Expr data, Expr weight, const Conv2DOptions& o) {
  std::vector<std::pair<std::string, AttrValue>> f = {{"strides", o.strides},
                                                      {"padding", o.padding},
                                                      {"dilation", o.dilation},
                                                      {"groups", o.groups}};
  if (!o.data_layout.empty()) f.emplace_back("data_layout", o.data_layout);
  if (!o.kernel_layout.empty()) f.emplace_back("kernel_layout", o.kernel_layout);
  if (!o.out_layout.empty()) f.emplace_back("out_layout", o.out_layout);
  if (!o.out_dtype.is_void()) f.emplace_back("out_dtype", o.out_dtype);
  return call_op("relax.nn.conv2d", {std::move(data), std::move(weight)}, make_attrs(std::move(f)));
}
Expr conv1d(Expr data, Expr weight, const ConvOptions& o) {
  return call_op("relax.nn.conv1d", {std::move(data), std::move(weight)}, conv_attrs(o, false));
}
Expr conv3d(Expr data, Expr weight, const ConvOptions& o) {
  return call_op("relax.nn.conv3d", {std::move(data), std::move(weight)}, conv_attrs(o, false));
}
Expr conv1d_transpose(Expr data, Expr weight, const ConvOptions& o) {
  return call_op("relax.nn.conv1d_transpose", {std::move(data), std::move(weight)},
                 conv_attrs(o, true));
}
Expr conv2d_transpose(Expr data, Expr weight, const ConvOptions& o) {
  return call_op("relax.nn.conv2d_transpose", {std::move(data), std::move(weight)},
                 conv_attrs(o, true));
}
Expr conv3d_transpose(Expr data, Expr weight, const ConvOptions& o) {
  return call_op("relax.nn.conv3d_transpose", {std::move(data), std::move(weight)},
                 conv_attrs(o, true));
}
}  // namespace op
}  // namespace relax
