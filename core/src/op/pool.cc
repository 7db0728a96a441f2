// Pooling of any spatial rank: max_pool1d/2d/3d and avg_pool1d/2d/3d (pool_size, strides,
// padding, dilation, ceil_mode, count_include_pad, layout, out_layout), and
// adaptive_avg_pool1d/2d/3d (output_size, layout, out_layout). One inference and one
// legalisation per family serve every rank; layouts are any permutation of N, C and the
// spatial letters (window_utils.h).
//
// Semantics follow TVM's topi (and PyTorch): padding never wins a max; an average divides by
// the taps inside the input, or with count_include_pad by the taps inside the padded input
// [-pad_before, in + pad_after) — which differs from the full window only where ceil_mode
// lets the last window run past the padding. Adaptive pooling averages, for output o of a dim
// of extents in -> out, the input range [floor(o * in / out), ceil((o + 1) * in / out)); the
// legalisation reduces over the largest such window (computed when the extents are
// constants, the whole input otherwise) under a condition.
#include <algorithm>

#include "infer_utils.h"
#include "legalize_utils.h"
#include "relax/op/nn.h"
#include "relax/support/diagnostic.h"
#include "window_utils.h"

namespace relax {
namespace op_detail {

namespace {

std::string default_layout(int dims) { return "NC" + spatial_letters(dims); }

/// Checks the data of a `dims`-d pool: numeric, of rank dims + 2 (when known) in `layout`.
void check_data(const Call& call, const TensorStructInfo& x, int dims, const AxisLayout& layout) {
  RX_CHECK(x.dtype.is_void() || x.dtype.is_float() || x.dtype.is_int() || x.dtype.is_uint())
      << op_name(call) << ": needs a numeric tensor, got " << x.dtype.to_string();
  int rank = dims + 2;
  RX_CHECK(x.ndim < 0 || x.ndim == rank) << op_name(call) << ": data should have rank " << rank
                                         << " (" << layout.name << "), got rank " << x.ndim;
}

/// The result of pooling `x` (of known shape, in layout `in`): its N and C extents and the
/// `spatial` ones, in layout `out`.
StructInfo result_sinfo(const TensorStructInfo& x, const AxisLayout& in, const AxisLayout& out,
                        const std::vector<PrimExpr>& spatial) {
  const auto& xs = *x.shape;
  return tensor_sinfo(layout_index(out, xs[size_t(in.first)], xs[size_t(in.second)], spatial),
                      x.dtype, x.vdevice);
}

struct PoolAttrs {
  std::vector<int64_t> k;
  Window win;
  bool ceil_mode = false;
  AxisLayout layout, out;
};

PoolAttrs pool_attrs(const Call& call, int dims) {
  PoolAttrs a;
  a.k = dims_attr(call, "pool_size", dims, 1, 1);
  a.win = window_attrs(call, dims);
  a.ceil_mode = get_bool(call.attrs, "ceil_mode", false);
  a.layout = layout_attr(call, "layout", default_layout(dims), 'N', 'C', dims);
  a.out = layout_attr(call, "out_layout", a.layout.name, 'N', 'C', dims);
  for (size_t d = 0; d < size_t(dims); ++d) {
    int64_t window = a.win.dilation[d] * (a.k[d] - 1) + 1;
    // Padding up to the window less one (ONNX allows more than half): every window that
    // starts in the padding still reaches the input.
    for (int64_t p : {a.win.pad_before[d], a.win.pad_after[d]}) {
      RX_CHECK(p < window) << op_name(call) << ": padding " << p
                           << " is not smaller than the window (" << window << ") of dim " << d;
    }
  }
  return a;
}

StructInfo infer_pool(int dims, const Call& call, BlockBuilder& ctx) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  PoolAttrs at = pool_attrs(call, dims);
  check_data(call, x, dims, at.layout);
  if (!x.shape) return tensor_sinfo(x.dtype, dims + 2, x.vdevice);
  const auto& xs = *x.shape;
  std::vector<PrimExpr> spatial;
  for (size_t d = 0; d < size_t(dims); ++d) {
    PrimExpr o = ctx.analyzer().simplify(window_out_extent(
        xs[size_t(at.layout.spatial[d])], at.win.pad_before[d] + at.win.pad_after[d],
        tir::int_imm(at.k[d]), at.win.strides[d], at.win.dilation[d], at.ceil_mode));
    if (auto* c = tir::as_const_int(o)) {
      RX_CHECK(*c > 0) << op_name(call) << ": the window of spatial dim " << d
                       << " is larger than the padded input";
    }
    spatial.push_back(o);
  }
  return result_sinfo(x, at.layout, at.out, spatial);
}

Expr legalize_pool(int dims, bool is_max, BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& out = legal_out(call);
  legal_arg(call, 0);
  PoolAttrs at = pool_attrs(call, dims);
  bool include_pad = get_bool(call.attrs, "count_include_pad", false);
  std::string name = kernel_name(call);
  size_t nd = size_t(dims);
  return te::call_te(
      bb, {call.args[0]},
      [&](const std::vector<te::Tensor>& a) -> te::TensorList {
        const te::Tensor& x = a[0];
        DataType t = x.dtype();
        // The window of output index `i`: its taps, the input index and the conditions that a
        // tap lies inside the input and inside the padded input.
        struct Tap {
          std::vector<te::Axis> axes;
          std::vector<PrimExpr> index;
          PrimExpr valid, in_padded;
        };
        auto tap = [&](const std::vector<PrimExpr>& i) {
          Tap w;
          w.valid = w.in_padded = tir::bool_imm(true);
          std::vector<PrimExpr> pos;
          for (size_t d = 0; d < nd; ++d) {
            w.axes.push_back(te::reduce_axis(at.k[d], "rk" + std::to_string(d)));
            PrimExpr p = i[size_t(at.out.spatial[d])] * at.win.strides[d] +
                         PrimExpr(w.axes.back()) * at.win.dilation[d] - at.win.pad_before[d];
            const PrimExpr& in = x.shape()[size_t(at.layout.spatial[d])];
            w.valid = tir::logical_and(w.valid, in_range(p, in));
            w.in_padded = tir::logical_and(w.in_padded, tir::lt(p, in + at.win.pad_after[d]));
            pos.push_back(p);
          }
          w.index = layout_index(at.layout, i[size_t(at.out.first)], i[size_t(at.out.second)], pos);
          return w;
        };
        if (is_max) {
          return te::compute(
              *out.shape,
              [&](const std::vector<PrimExpr>& i) {
                Tap w = tap(i);
                PrimExpr v = te::if_then_else(w.valid, x(w.index), te::min_value(t));
                return te::max(v, w.axes, w.valid);
              },
              name);
        }
        te::Tensor s = te::compute(
            *out.shape,
            [&](const std::vector<PrimExpr>& i) {
              Tap w = tap(i);
              PrimExpr v = te::if_then_else(w.valid, x(w.index), const_of(0, t));
              return te::sum(v, w.axes);
            },
            name + "_sum");
        // Without ceil_mode every tap of a window lies in the padded input.
        bool full_window = include_pad && !at.ceil_mode;
        int64_t window = 1;
        for (int64_t k : at.k) window *= k;
        te::Tensor cnt;
        if (!full_window) {
          cnt = te::compute(
              *out.shape,
              [&](const std::vector<PrimExpr>& i) {
                Tap w = tap(i);
                return te::sum(tir::int_imm(1), w.axes, include_pad ? w.in_padded : w.valid);
              },
              name + "_count");
        }
        return te::compute(
            *out.shape,
            [&](const std::vector<PrimExpr>& i) {
              PrimExpr n = full_window ? tir::int_imm(window) : tir::max(cnt(i), tir::int_imm(1));
              return tir::truncdiv(s(i), tir::cast(t, n));
            },
            name);
      },
      name);
}

void register_pool(OpRegistry& reg, int dims, bool is_max) {
  using K = AttrSpec::Kind;
  std::string rank = std::to_string(dims) + "d";
  OpInfo& op =
      reg.register_op(std::string("relax.nn.") + (is_max ? "max" : "avg") + "_pool" + rank);
  op.summary = std::to_string(dims) + "-D " + (is_max ? "max" : "average") + " pooling, " +
               default_layout(dims) + " data or any permutation" +
               (is_max ? " (padding never wins)." : ".");
  op.arg_names = {"data"};
  auto ones = std::vector<int64_t>(size_t(dims), 1);
  op.attrs = {
      {"pool_size", K::kInts, ones, false, "window size per spatial dim"},
      {"strides", K::kInts, ones, false, "window strides"},
      {"padding", K::kInts, std::vector<int64_t>(size_t(2 * dims), 0), false,
       "1, dims or 2 * dims values (all befores, then all afters)"},
      {"dilation", K::kInts, ones, false, "window dilation"},
      {"ceil_mode", K::kBool, false, false, "round the output size up"},
      {"count_include_pad", K::kBool, false, false, "average: count padding elements"},
      {"layout", K::kString, default_layout(dims), false, "data layout"},
      {"out_layout", K::kString, std::monostate{}, true, "output layout (default: layout)"}};
  op.infer = [dims](const Call& call, BlockBuilder& ctx) { return infer_pool(dims, call, ctx); };
  op.pattern = OpPattern::kOutEWiseFusable;
  op.legalize = [dims, is_max](BlockBuilder& bb, const Call& call) {
    return legalize_pool(dims, is_max, bb, call);
  };
}

// ---- adaptive_avg_pool

struct AdaptiveAttrs {
  std::optional<std::vector<int64_t>> output_size;
  AxisLayout layout, out;
};

AdaptiveAttrs adaptive_attrs(const Call& call, int dims) {
  AdaptiveAttrs a;
  if (auto s = get_opt_ints(call.attrs, "output_size"); s && !s->empty())
    a.output_size = dims_attr(call, "output_size", dims, 1, 1);
  a.layout = layout_attr(call, "layout", default_layout(dims), 'N', 'C', dims);
  a.out = layout_attr(call, "out_layout", a.layout.name, 'N', 'C', dims);
  return a;
}

StructInfo infer_adaptive(int dims, const Call& call, BlockBuilder&) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  AdaptiveAttrs at = adaptive_attrs(call, dims);
  check_data(call, x, dims, at.layout);
  if (!x.shape) return tensor_sinfo(x.dtype, dims + 2, x.vdevice);
  const auto& xs = *x.shape;
  std::vector<PrimExpr> spatial;
  for (size_t d = 0; d < size_t(dims); ++d) {
    spatial.push_back(at.output_size ? tir::int_imm((*at.output_size)[d])
                                     : xs[size_t(at.layout.spatial[d])]);
  }
  return result_sinfo(x, at.layout, at.out, spatial);
}

Expr legalize_adaptive(int dims, BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& out = legal_out(call);
  legal_arg(call, 0);
  AdaptiveAttrs at = adaptive_attrs(call, dims);
  std::string name = kernel_name(call);
  size_t nd = size_t(dims);
  return te::call_te(
      bb, {call.args[0]},
      [&](const std::vector<te::Tensor>& a) -> te::TensorList {
        const te::Tensor& x = a[0];
        DataType t = x.dtype();
        // The largest window of each dim: exact for constant extents, the input otherwise.
        std::vector<PrimExpr> bound;
        for (size_t d = 0; d < nd; ++d) {
          const PrimExpr& in = x.shape()[size_t(at.layout.spatial[d])];
          const PrimExpr& o = (*out.shape)[size_t(at.out.spatial[d])];
          auto* ci = tir::as_const_int(in);
          auto* co = tir::as_const_int(o);
          if (ci && co && *co > 0) {
            int64_t m = 1;
            for (int64_t k = 0; k < *co; ++k)
              m = std::max(m, ((k + 1) * *ci + *co - 1) / *co - (k * *ci) / *co);
            bound.push_back(tir::int_imm(std::min(m, std::max<int64_t>(*ci, 1))));
          } else {
            bound.push_back(in);
          }
        }
        auto window = [&](const std::vector<PrimExpr>& i, std::vector<PrimExpr>* start,
                          std::vector<PrimExpr>* size) {
          for (size_t d = 0; d < nd; ++d) {
            const PrimExpr& in = x.shape()[size_t(at.layout.spatial[d])];
            const PrimExpr& o = (*out.shape)[size_t(at.out.spatial[d])];
            PrimExpr od = i[size_t(at.out.spatial[d])];
            PrimExpr s = tir::floordiv(od * in, o);
            PrimExpr e = tir::floordiv((od + 1) * in + o - 1, o);
            start->push_back(s);
            size->push_back(e - s);
          }
        };
        te::Tensor s = te::compute(
            *out.shape,
            [&](const std::vector<PrimExpr>& i) {
              std::vector<PrimExpr> start, size, pos;
              window(i, &start, &size);
              std::vector<te::Axis> rs;
              PrimExpr cond = tir::bool_imm(true);
              for (size_t d = 0; d < nd; ++d) {
                rs.push_back(te::reduce_axis(bound[d], "rk" + std::to_string(d)));
                cond = tir::logical_and(cond, tir::lt(PrimExpr(rs.back()), size[d]));
                pos.push_back(start[d] + PrimExpr(rs.back()));
              }
              auto idx =
                  layout_index(at.layout, i[size_t(at.out.first)], i[size_t(at.out.second)], pos);
              return te::sum(te::if_then_else(cond, x(idx), const_of(0, t)), rs, cond);
            },
            name + "_sum");
        return te::compute(
            *out.shape,
            [&](const std::vector<PrimExpr>& i) {
              std::vector<PrimExpr> start, size;
              window(i, &start, &size);
              PrimExpr count = tir::int_imm(1);
              for (const PrimExpr& z : size) count = count * z;
              return tir::truncdiv(s(i), tir::cast(t, count));
            },
            name);
      },
      name);
}

void register_adaptive(OpRegistry& reg, int dims) {
  using K = AttrSpec::Kind;
  OpInfo& op = reg.register_op("relax.nn.adaptive_avg_pool" + std::to_string(dims) + "d");
  op.summary = std::to_string(dims) + "-D adaptive average pooling to `output_size`, " +
               default_layout(dims) + " data or any permutation.";
  op.arg_names = {"data"};
  op.attrs = {
      {"output_size", K::kInts, std::monostate{}, true,
       "1 or dims values (default: the input's spatial size)"},
      {"layout", K::kString, default_layout(dims), false, "data layout"},
      {"out_layout", K::kString, std::monostate{}, true, "output layout (default: layout)"}};
  op.infer = [dims](const Call& call, BlockBuilder& ctx) {
    return infer_adaptive(dims, call, ctx);
  };
  op.pattern = OpPattern::kOutEWiseFusable;
  op.legalize = [dims](BlockBuilder& bb, const Call& call) {
    return legalize_adaptive(dims, bb, call);
  };
}

}  // namespace

void register_pool_ops(OpRegistry& reg) {
  for (int dims : {1, 2, 3}) {
    register_pool(reg, dims, true);
    register_pool(reg, dims, false);
    register_adaptive(reg, dims);
  }
}

}  // namespace op_detail

namespace op {
namespace {
Attrs pool_attrs(const std::vector<int64_t>& pool_size, const std::vector<int64_t>& strides,
                 const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation,
                 bool ceil_mode, bool count_include_pad, const std::string& layout, bool avg) {
  std::vector<std::pair<std::string, AttrValue>> f = {{"pool_size", pool_size},
                                                      {"strides", strides},
                                                      {"padding", padding},
                                                      {"dilation", dilation},
                                                      {"ceil_mode", ceil_mode}};
  if (avg) f.emplace_back("count_include_pad", count_include_pad);
  if (!layout.empty()) f.emplace_back("layout", layout);
  return make_attrs(std::move(f));
}
/// The attributes of PoolOptions or Pool2DOptions (the same fields).
template <typename Options>
Attrs pool_attrs(const Options& o, bool avg) {
  return pool_attrs(o.pool_size, o.strides, o.padding, o.dilation, o.ceil_mode, o.count_include_pad,
                    o.layout, avg);
}
Expr adaptive(const std::string& name, Expr data, std::vector<int64_t> output_size,
              const std::string& layout) {
  std::vector<std::pair<std::string, AttrValue>> f;
  if (!output_size.empty()) f.emplace_back("output_size", std::move(output_size));
  if (!layout.empty()) f.emplace_back("layout", layout);
  return call_op(name, {std::move(data)}, make_attrs(std::move(f)));
}
}  // namespace
Expr max_pool2d(Expr data, const Pool2DOptions& o) {
  return call_op("relax.nn.max_pool2d", {std::move(data)}, pool_attrs(o, false));
}
Expr avg_pool2d(Expr data, const Pool2DOptions& o) {
  return call_op("relax.nn.avg_pool2d", {std::move(data)}, pool_attrs(o, true));
}
Expr max_pool1d(Expr data, const PoolOptions& o) {
  return call_op("relax.nn.max_pool1d", {std::move(data)}, pool_attrs(o, false));
}
Expr max_pool3d(Expr data, const PoolOptions& o) {
  return call_op("relax.nn.max_pool3d", {std::move(data)}, pool_attrs(o, false));
}
Expr avg_pool1d(Expr data, const PoolOptions& o) {
  return call_op("relax.nn.avg_pool1d", {std::move(data)}, pool_attrs(o, true));
}
Expr avg_pool3d(Expr data, const PoolOptions& o) {
  return call_op("relax.nn.avg_pool3d", {std::move(data)}, pool_attrs(o, true));
}
Expr adaptive_avg_pool1d(Expr data, std::vector<int64_t> output_size, const std::string& layout) {
  return adaptive("relax.nn.adaptive_avg_pool1d", std::move(data), std::move(output_size), layout);
}
Expr adaptive_avg_pool2d(Expr data, std::vector<int64_t> output_size, const std::string& layout) {
  return adaptive("relax.nn.adaptive_avg_pool2d", std::move(data), std::move(output_size), layout);
}
Expr adaptive_avg_pool3d(Expr data, std::vector<int64_t> output_size, const std::string& layout) {
  return adaptive("relax.nn.adaptive_avg_pool3d", std::move(data), std::move(output_size), layout);
}
}  // namespace op
}  // namespace relax
