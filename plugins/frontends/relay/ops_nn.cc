// Relay converters for nn.*: convolutions (1-3d, transposed, any layout, out_dtype), dense,
// matmul, batch_matmul, bias_add, the normalisations, pooling (max/avg/global/adaptive, 1-3d),
// softmax, the activations, pad, dropout and batch_flatten.
//
// Layouts and attributes keep TVM's names; Relax's nn ops take the same ones. Defaults are
// those of TVM's C++ attribute structs, not of its Python API: the printer omits attributes
// equal to the C++ default (batch_matmul's transpose_b is false there, leaky_relu's alpha 0.25,
// though the Python functions pass True and 0.01 explicitly, so they are printed). One legacy
// quirk: TVM before v0.10 printed kernel_layout="OIHW" for conv2d_transpose while its weights
// were (in, out/groups, kh, kw); a transposed conv's "OI..." kernel layout is read as "IO...".
#include "convert.h"
#include "relax/op/op.h"

namespace relax::relay_frontend {

namespace {

std::vector<int64_t> ints_or(const OpCall& c, const std::string& name, std::vector<int64_t> dflt) {
  std::optional<std::vector<int64_t>> v = c.attr_ints(name);
  return v ? *v : dflt;
}

Expr conv(OpCall& c, int dims, bool transpose) {
  op::ConvOptions o;
  o.strides = ints_or(c, "strides", {1});
  o.padding = ints_or(c, "padding", {0});
  o.dilation = ints_or(c, "dilation", {1});
  o.groups = c.attr_int("groups", 1);
  o.output_padding = ints_or(c, "output_padding", {0});
  o.data_layout = c.attr_str("data_layout", "");
  o.kernel_layout = c.attr_str("kernel_layout", "");
  o.out_layout = c.attr_str("out_layout", "");
  o.out_dtype = c.attr_dtype("out_dtype", DataType::Void());
  if (transpose && o.kernel_layout.size() >= 2 && o.kernel_layout.substr(0, 2) == "OI") {
    o.kernel_layout = "IO" + o.kernel_layout.substr(2);
  }
  if (dims == 2 && !transpose) {
    op::Conv2DOptions o2;
    o2.strides = o.strides;
    o2.padding = o.padding;
    o2.dilation = o.dilation;
    o2.groups = o.groups;
    o2.out_dtype = o.out_dtype;
    o2.data_layout = o.data_layout;
    o2.kernel_layout = o.kernel_layout;
    o2.out_layout = o.out_layout;
    return op::conv2d(c.arg(0), c.arg(1), o2);
  }
  if (transpose) {
    if (dims == 1) return op::conv1d_transpose(c.arg(0), c.arg(1), o);
    if (dims == 2) return op::conv2d_transpose(c.arg(0), c.arg(1), o);
    return op::conv3d_transpose(c.arg(0), c.arg(1), o);
  }
  return dims == 1 ? op::conv1d(c.arg(0), c.arg(1), o) : op::conv3d(c.arg(0), c.arg(1), o);
}

Expr pool(OpCall& c, int dims, bool is_max) {
  std::string layout = c.attr_str("layout", "");
  std::string out_layout = c.attr_str("out_layout", "");
  if (!out_layout.empty() && out_layout != layout) c.fail("out_layout '" + out_layout + "' differs from layout '" + layout + "'");
  if (dims == 2) {
    op::Pool2DOptions o;
    o.pool_size = ints_or(c, "pool_size", {1, 1});
    o.strides = ints_or(c, "strides", {1, 1});
    o.padding = ints_or(c, "padding", {0, 0, 0, 0});
    o.dilation = ints_or(c, "dilation", {1, 1});
    o.ceil_mode = c.attr_bool("ceil_mode", false);
    o.count_include_pad = c.attr_bool("count_include_pad", false);
    o.layout = layout;
    return is_max ? op::max_pool2d(c.arg(0), o) : op::avg_pool2d(c.arg(0), o);
  }
  op::PoolOptions o;
  o.pool_size = ints_or(c, "pool_size", {1});
  o.strides = ints_or(c, "strides", {1});
  o.padding = ints_or(c, "padding", {0});
  o.dilation = ints_or(c, "dilation", {1});
  o.ceil_mode = c.attr_bool("ceil_mode", false);
  o.count_include_pad = c.attr_bool("count_include_pad", false);
  o.layout = layout;
  if (dims == 1) return is_max ? op::max_pool1d(c.arg(0), o) : op::avg_pool1d(c.arg(0), o);
  return is_max ? op::max_pool3d(c.arg(0), o) : op::avg_pool3d(c.arg(0), o);
}

/// The spatial axes of `layout` (default NCW / NCHW / NCDHW): every letter but N and C.
std::vector<int64_t> spatial_axes(OpCall& c, int dims) {
  std::string layout = c.attr_str("layout", dims == 1 ? "NCW" : dims == 2 ? "NCHW" : "NCDHW");
  if (int(layout.size()) != dims + 2) c.fail("layout '" + layout + "' is not a plain " + std::to_string(dims + 2) + "-d layout");
  std::vector<int64_t> axes;
  for (size_t k = 0; k < layout.size(); ++k) {
    if (layout[k] != 'N' && layout[k] != 'C') axes.push_back(int64_t(k));
  }
  return axes;
}

Expr global_pool(OpCall& c, int dims, bool is_max) {
  std::vector<int64_t> axes = spatial_axes(c, dims);
  return is_max ? op::max(c.arg(0), axes, true) : op::mean(c.arg(0), axes, true);
}

Expr adaptive_pool(OpCall& c, int dims, bool is_max) {
  std::vector<int64_t> size = ints_or(c, "output_size", {});
  std::string layout = c.attr_str("layout", "");
  bool ones = !size.empty() && std::all_of(size.begin(), size.end(), [](int64_t s) { return s == 1; });
  if (is_max) {
    if (ones) return global_pool(c, dims, true);
    // Output sizes dividing the input: a max pool with window = stride = in / out.
    std::vector<int64_t> axes = spatial_axes(c, dims);
    std::vector<int64_t> shape = c.static_shape(0, "adaptive max pooling");
    std::vector<int64_t> window;
    for (size_t k = 0; k < axes.size(); ++k) {
      int64_t in = shape[size_t(axes[k])], out = size.size() == 1 ? size[0] : size[k];
      if (out <= 0 || in % out != 0) {
        c.fail("adaptive max pooling needs output sizes dividing the input (" + std::to_string(in) + " to " + std::to_string(out) + ")");
      }
      window.push_back(in / out);
    }
    if (dims == 2) {
      op::Pool2DOptions o;
      o.pool_size = o.strides = window;
      o.layout = layout;
      return op::max_pool2d(c.arg(0), o);
    }
    op::PoolOptions o;
    o.pool_size = o.strides = window;
    o.layout = layout;
    return dims == 1 ? op::max_pool1d(c.arg(0), o) : op::max_pool3d(c.arg(0), o);
  }
  if (dims == 1) return op::adaptive_avg_pool1d(c.arg(0), size, layout);
  if (dims == 2) return op::adaptive_avg_pool2d(c.arg(0), size, layout);
  return op::adaptive_avg_pool3d(c.arg(0), size, layout);
}

/// `b` (one value per channel) shaped to broadcast along `axis` of a rank-`ndim` tensor.
Expr along_axis(OpCall& c, const Expr& b, int64_t axis, int64_t ndim) {
  if (axis == ndim - 1) return b;
  std::vector<int64_t> extra;
  for (int64_t k = 1; k < ndim - axis; ++k) extra.push_back(k);
  return c.bb().emit(op::expand_dims(b, extra));
}

Expr matmul(OpCall& c, bool ta, bool tb) {
  Expr a = c.arg(0), b = c.arg(1);
  DataType out = c.attr_dtype("out_dtype", DataType::Void());
  auto swap_last = [&](const Expr& x, int64_t nd) {
    std::vector<int64_t> perm;
    for (int64_t k = 0; k < nd; ++k) perm.push_back(k);
    std::swap(perm[size_t(nd - 1)], perm[size_t(nd - 2)]);
    return Expr(c.bb().emit(op::permute_dims(x, perm)));
  };
  if (ta) a = swap_last(a, c.ndim(0));
  if (tb) b = swap_last(b, c.ndim(1));
  return op::matmul(a, b, out);
}

std::pair<Expr, Expr> scale_center(OpCall& c, size_t gamma, size_t beta) {
  Expr g = c.arg(gamma), b = c.arg(beta);
  if (!c.attr_bool("scale", true)) g = c.bb().emit(op::ones_like(g));
  if (!c.attr_bool("center", true)) b = c.bb().emit(op::zeros_like(b));
  return {g, b};
}

}  // namespace

void register_nn_ops(OpTable& t) {
  for (int d : {1, 2, 3}) {
    std::string s = std::to_string(d);
    t["nn.conv" + s + "d"] = [d](OpCall& c) { return conv(c, d, false); };
    t["nn.conv" + s + "d_transpose"] = [d](OpCall& c) { return conv(c, d, true); };
    t["nn.max_pool" + s + "d"] = [d](OpCall& c) { return pool(c, d, true); };
    t["nn.avg_pool" + s + "d"] = [d](OpCall& c) { return pool(c, d, false); };
    t["nn.adaptive_avg_pool" + s + "d"] = [d](OpCall& c) { return adaptive_pool(c, d, false); };
    t["nn.adaptive_max_pool" + s + "d"] = [d](OpCall& c) { return adaptive_pool(c, d, true); };
  }
  t["nn.global_avg_pool2d"] = [](OpCall& c) { return global_pool(c, 2, false); };
  t["nn.global_max_pool2d"] = [](OpCall& c) { return global_pool(c, 2, true); };
  t["nn.dense"] = [](OpCall& c) {
    if (c.ndim(1) != 2) c.fail("the weight must be 2-d (units, in), got " + to_string(get_struct_info(c.arg(1))));
    return matmul(c, false, true);
  };
  t["nn.matmul"] = [](OpCall& c) {
    return matmul(c, c.attr_bool("transpose_a", false), c.attr_bool("transpose_b", false));
  };
  t["nn.batch_matmul"] = [](OpCall& c) {
    return matmul(c, c.attr_bool("transpose_a", false), c.attr_bool("transpose_b", false));
  };
  t["nn.bias_add"] = [](OpCall& c) {
    int64_t nd = c.ndim(0);
    int64_t axis = c.axis(c.attr_int("axis", 1), nd);
    return op::add(c.arg(0), along_axis(c, c.arg(1), axis, nd));
  };
  t["nn.batch_norm"] = [](OpCall& c) {
    auto [g, b] = scale_center(c, 1, 2);
    return op::batch_norm(c.arg(0), g, b, c.arg(3), c.arg(4), c.axis(c.attr_int("axis", 1), c.ndim(0)),
                          c.attr_float("epsilon", 1e-5));
  };
  t["nn.layer_norm"] = [](OpCall& c) {
    auto [g, b] = scale_center(c, 1, 2);
    return op::layer_norm(c.arg(0), g, b, {c.axis(c.attr_int("axis", -1), c.ndim(0))}, c.attr_float("epsilon", 1e-5));
  };
  t["nn.group_norm"] = [](OpCall& c) {
    return op::group_norm(c.arg(0), c.arg(1), c.arg(2), c.attr_int("num_groups", 1),
                          c.axis(c.attr_int("axis", 1), c.ndim(0)), std::nullopt, c.attr_float("epsilon", 1e-5),
                          c.attr_bool("center", true), c.attr_bool("scale", true));
  };
  t["nn.instance_norm"] = [](OpCall& c) {
    return op::instance_norm(c.arg(0), c.arg(1), c.arg(2), c.axis(c.attr_int("axis", 1), c.ndim(0)), std::nullopt,
                             c.attr_float("epsilon", 1e-5), c.attr_bool("center", true), c.attr_bool("scale", true));
  };
  t["nn.softmax"] = [](OpCall& c) { return op::softmax(c.arg(0), c.attr_int("axis", -1)); };
  t["nn.fast_softmax"] = t["nn.softmax"];
  t["nn.log_softmax"] = [](OpCall& c) { return op::log_softmax(c.arg(0), c.attr_int("axis", -1)); };
  t["nn.leaky_relu"] = [](OpCall& c) { return op::leakyrelu(c.arg(0), c.attr_float("alpha", 0.25)); };
  t["nn.prelu"] = [](OpCall& c) { return op::prelu(c.arg(0), c.arg(1), c.axis(c.attr_int("axis", 1), c.ndim(0))); };
  t["nn.dropout"] = [](OpCall& c) { return op::dropout(c.arg(0), c.attr_float("rate", 0.5)); };
  t["nn.batch_flatten"] = [](OpCall& c) {
    std::vector<PrimExpr> s = c.shape(0, "batch_flatten");
    PrimExpr rest = tir::int_imm(1);
    for (size_t k = 1; k < s.size(); ++k) rest = rest * s[k];
    return op::reshape(c.arg(0), std::vector<PrimExpr>{s[0], rest});
  };
  t["nn.pad"] = [](OpCall& c) {
    std::optional<std::vector<int64_t>> pw = c.attr_ints("pad_width");
    int64_t nd = c.ndim(0);
    if (!pw || int64_t(pw->size()) != 2 * nd) c.fail("pad_width must hold a [before, after] pair per axis (" + std::to_string(nd) + ")");
    std::vector<int64_t> widths(size_t(2 * nd));
    for (int64_t k = 0; k < nd; ++k) {
      widths[size_t(k)] = (*pw)[size_t(2 * k)];
      widths[size_t(nd + k)] = (*pw)[size_t(2 * k + 1)];
    }
    double value = c.num_args() > 1 ? c.scalar(1, "pad_value") : c.attr_float("pad_value", 0);
    return op::pad(c.arg(0), widths, c.attr_str("pad_mode", "constant"), value);
  };
}

}  // namespace relax::relay_frontend
