// ONNX converters: convolutions, pooling, normalisations, dropout.
//
// Conv and the pools share the padding logic: explicit `pads` (all begins, then all ends, the
// order Relax uses too) or `auto_pad` SAME_UPPER / SAME_LOWER (computed from the static
// spatial sizes; the odd unit of padding goes to the end / the beginning) or VALID. 1-D, 2-D
// and 3-D map onto the core's rank-specific ops (pool padding may exceed half the window, as
// ONNX allows); ConvTranspose derives its padding from output_shape or auto_pad SAME_* (ONNX's
// split rule, a negative total becoming output_padding). BatchNormalization's training_mode
// (opset 14) normalises with the batch statistics and updates the running ones; Dropout is the
// identity with an all-true mask.
// LayerNormalization also yields Mean and InvStdDev when asked. Resize maps 4-D NCHW data
// with scales/sizes onto relax.image.resize2d (output size floor(in * scale); the coordinate
// mapping uses in/out, so a scale that does not divide evenly differs from ONNX); scales or
// sizes known only at run time give an output size named by a match_cast.
#include <algorithm>
#include <cmath>
#include <iterator>

#include "importer.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"

namespace relax::onnx_frontend {

namespace {

using Node = onnx::NodeProto;

std::vector<int64_t> static_dims(Context& ctx, const Node& node, const Expr& e, const std::string& why) {
  std::vector<int64_t> out;
  for (const PrimExpr& d : ctx.shape_of(node, e, why)) {
    const int64_t* c = tir::as_const_int(d);
    RX_CHECK(c) << ctx.where(node) << ": " << why << " needs static sizes, but " << describe(e)
                << " has shape dimension " << tir::to_string(d);
    out.push_back(*c);
  }
  return out;
}

/// The spatial attribute `name` (one value per spatial dim), or `fill` repeated.
std::vector<int64_t> spatial_attr(const Node& node, const std::string& name, size_t dims, int64_t fill) {
  std::optional<std::vector<int64_t>> v = attr_ints(node, name);
  if (v && !v->empty()) return *v;
  return std::vector<int64_t>(dims, fill);
}

std::vector<OnnxValue> convert_conv(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  Expr w = ctx.input(node, 1);
  int rank = ctx.ndim(node, x);
  RX_CHECK(rank >= 3 && rank <= 5) << ctx.where(node) << ": 1-D, 2-D or 3-D convolution expected; "
                                   << "the input has rank " << rank;
  size_t dims = size_t(rank - 2);
  std::vector<int64_t> wshape = static_dims(ctx, node, w, "Conv's weight");
  RX_CHECK(wshape.size() == size_t(rank))
      << ctx.where(node) << ": the weight has rank " << wshape.size() << "; expected " << rank
      << " like the input (out channels, in channels / group, kernel...)";
  std::vector<int64_t> kernel(wshape.begin() + 2, wshape.end());
  if (auto k = attr_ints(node, "kernel_shape"); k && !k->empty()) {
    RX_CHECK(*k == kernel) << ctx.where(node) << ": kernel_shape disagrees with the weight's shape";
  }
  std::vector<int64_t> strides = spatial_attr(node, "strides", dims, 1);
  std::vector<int64_t> dilations = spatial_attr(node, "dilations", dims, 1);
  std::vector<int64_t> pads = resolve_pads(ctx, node, x, kernel, strides, dilations);
  int64_t groups = attr_int(node, "group", 1);
  Expr y;
  if (dims == 2) {
    op::Conv2DOptions o;
    o.strides = strides;
    o.dilation = dilations;
    o.padding = pads;
    o.groups = groups;
    y = op::conv2d(x, w, o);
  } else {
    op::ConvOptions o;
    o.strides = strides;
    o.dilation = dilations;
    o.padding = pads;
    o.groups = groups;
    y = dims == 1 ? op::conv1d(x, w, o) : op::conv3d(x, w, o);
  }
  if (Context::has_input(node, 2)) {
    std::vector<int64_t> axes;
    for (size_t i = 0; i < dims; ++i) axes.push_back(int64_t(i) + 1);
    Expr bias = ctx.bb().emit(op::expand_dims(ctx.input(node, 2), axes));
    y = op::add(ctx.bb().emit(y), bias);
  }
  return {Context::tensor_value(ctx.emit(y, node))};
}

/// ConvTranspose of 1-D, 2-D or 3-D data. `output_shape` or auto_pad SAME_* fix the padding
/// from the static input size: total = stride * (in - 1) + output_padding + (k - 1) * dilation
/// + 1 - out, split with the odd unit at the end for SAME_UPPER and at the beginning otherwise
/// (ONNX's rule); a negative total (an output larger than the full one) becomes extra
/// output_padding at the end.
std::vector<OnnxValue> convert_conv_transpose(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  Expr w = ctx.input(node, 1);
  int rank = ctx.ndim(node, x);
  RX_CHECK(rank >= 3 && rank <= 5) << ctx.where(node) << ": 1-D, 2-D or 3-D transposed "
                                   << "convolution expected; the input has rank " << rank;
  size_t dims = size_t(rank - 2);
  op::ConvOptions o;
  o.strides = spatial_attr(node, "strides", dims, 1);
  o.dilation = spatial_attr(node, "dilations", dims, 1);
  o.output_padding = spatial_attr(node, "output_padding", dims, 0);
  o.groups = attr_int(node, "group", 1);
  std::string auto_pad = attr_string(node, "auto_pad", "NOTSET");
  RX_CHECK(auto_pad == "NOTSET" || auto_pad == "VALID" || auto_pad == "SAME_UPPER" ||
           auto_pad == "SAME_LOWER")
      << ctx.where(node) << ": auto_pad '" << auto_pad
      << "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID";
  for (const auto* name : {"strides", "dilations", "output_padding"}) {
    RX_CHECK(spatial_attr(node, name, dims, 0).size() == dims)
        << ctx.where(node) << ": " << name << " needs " << dims << " values";
  }
  std::optional<std::vector<int64_t>> out_shape = attr_ints(node, "output_shape");
  if (out_shape && out_shape->size() == dims + 2) out_shape->erase(out_shape->begin(), out_shape->begin() + 2);
  if ((out_shape && !out_shape->empty()) || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    RX_CHECK(!out_shape || out_shape->empty() || out_shape->size() == dims)
        << ctx.where(node) << ": output_shape needs " << dims << " spatial values, got "
        << out_shape->size();
    std::vector<int64_t> in = static_dims(ctx, node, x, "output_shape or auto_pad SAME_*");
    std::vector<int64_t> ws = static_dims(ctx, node, w, "output_shape or auto_pad SAME_*");
    o.padding.assign(2 * dims, 0);
    for (size_t i = 0; i < dims; ++i) {
      int64_t target = out_shape && !out_shape->empty() ? (*out_shape)[i] : in[2 + i] * o.strides[i];
      int64_t total = o.strides[i] * (in[2 + i] - 1) + o.output_padding[i] +
                      (ws[2 + i] - 1) * o.dilation[i] + 1 - target;
      if (total < 0) {
        o.output_padding[i] -= total;
        continue;
      }
      int64_t small = total / 2, large = total - small;
      o.padding[i] = auto_pad == "SAME_UPPER" ? small : large;
      o.padding[dims + i] = auto_pad == "SAME_UPPER" ? large : small;
    }
  } else if (auto_pad == "VALID") {
    o.padding.assign(2 * dims, 0);
  } else {
    o.padding = spatial_attr(node, "pads", 2 * dims, 0);
    RX_CHECK(o.padding.size() == 2 * dims) << ctx.where(node) << ": pads has " << o.padding.size()
                                           << " values; expected " << 2 * dims;
  }
  Expr y = dims == 1   ? op::conv1d_transpose(x, w, o)
           : dims == 2 ? op::conv2d_transpose(x, w, o)
                       : op::conv3d_transpose(x, w, o);
  if (Context::has_input(node, 2)) {
    std::vector<int64_t> axes;
    for (size_t i = 0; i < dims; ++i) axes.push_back(int64_t(i) + 1);
    Expr bias = ctx.bb().emit(op::expand_dims(ctx.input(node, 2), axes));
    y = op::add(ctx.bb().emit(y), bias);
  }
  return {Context::tensor_value(ctx.emit(y, node))};
}

Converter pool(bool is_max) {
  return [is_max](Context& ctx, const Node& node) -> std::vector<OnnxValue> {
    if (is_max && node.output_size() >= 2 && !node.output(1).empty())
      return convert_maxpool_indices(ctx, node);
    Expr x = ctx.input(node, 0);
    int rank = ctx.ndim(node, x);
    RX_CHECK(rank >= 3 && rank <= 5) << ctx.where(node) << ": 1-D, 2-D or 3-D pooling expected; "
                                     << "the input has rank " << rank;
    size_t dims = size_t(rank - 2);
    std::optional<std::vector<int64_t>> kernel = attr_ints(node, "kernel_shape");
    RX_CHECK(kernel && kernel->size() == dims)
        << ctx.where(node) << ": kernel_shape with " << dims << " values is required";
    std::vector<int64_t> strides = spatial_attr(node, "strides", dims, 1);
    std::vector<int64_t> dilations = spatial_attr(node, "dilations", dims, 1);
    std::vector<int64_t> pads = resolve_pads(ctx, node, x, *kernel, strides, dilations);
    bool ceil_mode = attr_int(node, "ceil_mode", 0) != 0;
    bool include_pad = attr_int(node, "count_include_pad", 0) != 0;
    Expr y;
    if (dims == 2) {
      op::Pool2DOptions o;
      o.pool_size = *kernel;
      o.strides = strides;
      o.dilation = dilations;
      o.padding = pads;
      o.ceil_mode = ceil_mode;
      o.count_include_pad = include_pad;
      y = is_max ? op::max_pool2d(x, o) : op::avg_pool2d(x, o);
    } else {
      op::PoolOptions o;
      o.pool_size = *kernel;
      o.strides = strides;
      o.dilation = dilations;
      o.padding = pads;
      o.ceil_mode = ceil_mode;
      o.count_include_pad = include_pad;
      if (dims == 1) y = is_max ? op::max_pool1d(x, o) : op::avg_pool1d(x, o);
      else y = is_max ? op::max_pool3d(x, o) : op::avg_pool3d(x, o);
    }
    return {Context::tensor_value(ctx.emit(y, node))};
  };
}

Converter global_pool(bool is_max) {
  return [is_max](Context& ctx, const Node& node) -> std::vector<OnnxValue> {
    Expr x = ctx.input(node, 0);
    int rank = ctx.ndim(node, x);
    RX_CHECK(rank >= 3) << ctx.where(node) << ": the input needs spatial axes; it has rank " << rank;
    std::vector<int64_t> axes;
    for (int i = 2; i < rank; ++i) axes.push_back(i);
    return {Context::tensor_value(
        ctx.emit(is_max ? op::max(x, axes, true) : op::mean(x, axes, true), node))};
  };
}

/// BatchNormalization. Inference: the given running statistics. training_mode=1 (opset 14+):
/// normalises with the batch's own mean and (population) variance over every axis but the
/// channel one, and outputs the running statistics updated with `momentum`:
/// running = running * momentum + batch * (1 - momentum). Before opset 14 the training
/// outputs (saved mean/variance, is_test=0) are not supported; nor is spatial=0 (opsets < 9).
std::vector<OnnxValue> convert_batch_norm(Context& ctx, const Node& node) {
  RX_CHECK(ctx.opset() >= 9 || attr_int(node, "spatial", 1) != 0)
      << ctx.where(node) << ": spatial=0 (per-activation statistics) is not supported";
  bool training = ctx.opset() >= 14 && attr_int(node, "training_mode", 0) != 0;
  RX_CHECK(attr_int(node, "training_mode", 0) == 0 || training)
      << ctx.where(node) << ": training_mode is an attribute of opset 14 and later";
  if (!training) {
    for (int k = 1; k < node.output_size(); ++k) {
      RX_CHECK(node.output(k).empty())
          << ctx.where(node) << ": training-mode outputs (running statistics) need "
          << "training_mode=1 (opset 14 and later)";
    }
  }
  Expr x = ctx.input(node, 0);
  double eps = attr_float(node, "epsilon", 1e-5);
  if (!training) {
    Expr bn = ctx.bb().emit(op::batch_norm(x, ctx.input(node, 1), ctx.input(node, 2),
                                           ctx.input(node, 3), ctx.input(node, 4), 1, eps));
    return {Context::tensor_value(ctx.emit(make_ref<TupleGetItem>(bn, 0), node))};
  }
  BlockBuilder& bb = ctx.bb();
  int rank = ctx.ndim(node, x);
  RX_CHECK(rank >= 2) << ctx.where(node) << ": the input must be (N, C, ...), got rank " << rank;
  const TensorStructInfo& xi = ctx.tensor(node, x);
  DataType dt = xi.dtype;
  std::vector<int64_t> axes{0};
  for (int a = 2; a < rank; ++a) axes.push_back(a);
  Expr mean = bb.emit(op::mean(x, axes));
  Expr var = bb.emit(op::variance(x, axes));
  Expr bn = bb.emit(op::batch_norm(x, ctx.input(node, 1), ctx.input(node, 2), mean, var, 1, eps));
  std::vector<OnnxValue> outs{Context::tensor_value(ctx.emit(make_ref<TupleGetItem>(bn, 0), node))};
  double momentum = attr_float(node, "momentum", 0.9);
  Expr old_share = scalar_constant(momentum, dt), new_share = scalar_constant(1 - momentum, dt);
  for (int k : {1, 2}) {
    if (k >= node.output_size() || node.output(k).empty()) {
      outs.push_back(OnnxValue{});
      continue;
    }
    Expr running = bb.emit(op::multiply(ctx.input(node, k + 2), old_share));
    Expr batch = bb.emit(op::multiply(k == 1 ? mean : var, new_share));
    outs.push_back(Context::tensor_value(ctx.emit(op::add(running, batch), node, k)));
  }
  return outs;
}

std::vector<OnnxValue> convert_layer_norm(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  int64_t rank = ctx.ndim(node, x);
  int64_t axis = normalize_axis(attr_int(node, "axis", -1), rank, ctx.where(node));
  std::vector<int64_t> axes;
  for (int64_t a = axis; a < rank; ++a) axes.push_back(a);
  Expr scale = ctx.input(node, 1);
  Expr bias = Context::has_input(node, 2) ? ctx.input(node, 2)
                                          : ctx.bb().emit(op::zeros_like(scale));
  double eps = attr_float(node, "epsilon", 1e-5);
  std::vector<OnnxValue> outs{Context::tensor_value(
      ctx.emit(op::layer_norm(x, scale, bias, axes, eps), node))};
  bool want_mean = node.output_size() > 1 && !node.output(1).empty();
  bool want_inv = node.output_size() > 2 && !node.output(2).empty();
  if (want_mean || want_inv) {
    // Mean and InvStdDev over the normalised axes (kept), in the stash type (float32 by
    // default, else the input's type).
    Expr xs = x;
    DataType dt = ctx.tensor(node, x).dtype;
    if (attr_int(node, "stash_type", 1) == 1 && dt != DataType::Float(32)) {
      xs = ctx.bb().emit(op::astype(x, DataType::Float(32)));
      dt = DataType::Float(32);
    }
    outs.push_back(want_mean ? Context::tensor_value(ctx.emit(op::mean(xs, axes, true), node, 1))
                             : OnnxValue{});
    if (want_inv) {
      Expr var = ctx.bb().emit(op::variance(xs, axes, true));
      outs.push_back(Context::tensor_value(
          ctx.emit(op::rsqrt(op::add(var, scalar_constant(eps, dt))), node, 2)));
    }
  }
  return outs;
}

/// Resize to `sizes` (N, C, H, W) known only at run time: one match_cast names H and W and
/// checks that N and C are the input's.
OnnxValue resize_to_runtime_shape(Context& ctx, const Node& node, const Expr& x,
                                  const std::vector<PrimExpr>& in,
                                  const std::vector<PrimExpr>& sizes,
                                  const op::Resize2DOptions& o) {
  RX_CHECK(sizes.size() == 4) << ctx.where(node) << ": sizes must have 4 values, got "
                              << sizes.size();
  for (int a = 0; a < 2; ++a) {
    RX_CHECK(tir::as_const_int(in[size_t(a)]) || in[size_t(a)].is<tir::Var>())
        << ctx.where(node) << ": sizes computed at run time need the input's N and C to be "
        << "numbers or named dims";
  }
  std::string name = binding_name(node.output(0));
  PrimExpr h = tir::var(name + "_h"), w = tir::var(name + "_w");
  ctx.bb().emit_match_cast(make_shape(sizes), shape_sinfo({in[0], in[1], h, w}), name + "_size");
  return Context::tensor_value(ctx.emit(op::resize2d(x, {h, w}, o), node));
}

/// Resize by `scales` known only at run time: the output size floor(in * scale) is computed on
/// tensors (in float64) and becomes a run-time shape (the input's shape must be static).
OnnxValue resize_by_runtime_scales(Context& ctx, const Node& node, const Expr& x,
                                   const std::vector<PrimExpr>& in, const op::Resize2DOptions& o) {
  int scales_in = ctx.opset() < 11 ? 1 : 2;
  runtime::NDArray dims = runtime::NDArray::empty({4}, DataType::Float(64));
  for (int a = 0; a < 4; ++a) {
    const int64_t* d = tir::as_const_int(in[size_t(a)]);
    RX_CHECK(d) << ctx.where(node) << ": scales (input '" << node.input(scales_in)
                << "') computed at run time need the input's shape to be static";
    dims.data_as<double>()[a] = double(*d);
  }
  BlockBuilder& bb = ctx.bb();
  Expr given = ctx.input(node, scales_in);
  const TensorStructInfo& st = ctx.tensor(node, given);
  RX_CHECK(st.ndim == 1 && st.shape && tir::is_const_int((*st.shape)[0], 4))
      << ctx.where(node) << ": scales (input '" << node.input(scales_in)
      << "') must have 4 values, got " << to_string(get_struct_info(given));
  Expr scales = bb.emit(op::astype(given, DataType::Float(64)));
  Expr out = bb.emit(op::floor(bb.emit(op::multiply(make_constant(dims), scales))));
  out = bb.emit(op::astype(out, DataType::Int(64)));
  std::vector<PrimExpr> sizes = ctx.runtime_shape(out, binding_name(node.output(0)) + "_out");
  return resize_to_runtime_shape(ctx, node, x, in, sizes, o);
}

/// Resize (opsets 10+) on 4-D NCHW data with constant scales or sizes -> relax.image.resize2d.
std::vector<OnnxValue> convert_resize(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  RX_CHECK(ctx.ndim(node, x) == 4)
      << ctx.where(node) << ": only 4-D (NCHW) inputs are supported";
  std::vector<PrimExpr> shape = ctx.shape_of(node, x, "Resize");
  RX_CHECK(attr_int(node, "antialias", 0) == 0)
      << ctx.where(node) << ": antialias=1 is not supported";
  RX_CHECK(!find_attr(node, "axes")) << ctx.where(node) << ": the axes attribute is not supported";
  RX_CHECK(attr_string(node, "keep_aspect_ratio_policy", "stretch") == "stretch")
      << ctx.where(node) << ": keep_aspect_ratio_policy other than stretch is not supported";
  bool v10 = ctx.opset() < 11;
  int scales_in = v10 ? 1 : 2, sizes_in = 3;
  op::Resize2DOptions o;
  std::string mode = attr_string(node, "mode", "nearest");
  if (mode == "nearest") {
    o.method = "nearest_neighbor";
  } else if (mode == "linear" || mode == "cubic") {
    o.method = mode;
  } else {
    RX_THROW() << ctx.where(node) << ": mode '" << mode << "' is not supported";
  }
  std::string ctm =
      v10 ? "asymmetric" : attr_string(node, "coordinate_transformation_mode", "half_pixel");
  static const char* const kModes[] = {"half_pixel",         "align_corners",
                                       "asymmetric",         "pytorch_half_pixel",
                                       "tf_half_pixel_for_nn", "tf_crop_and_resize"};
  RX_CHECK(std::find(std::begin(kModes), std::end(kModes), ctm) != std::end(kModes))
      << ctx.where(node) << ": coordinate_transformation_mode '" << ctm << "' is not supported";
  o.coordinate_transformation_mode = ctm;
  std::string nearest = v10 ? "round_prefer_floor" : attr_string(node, "nearest_mode", "round_prefer_floor");
  o.rounding_method = nearest;
  o.cubic_alpha = attr_float(node, "cubic_coeff_a", -0.75);
  o.cubic_exclude = attr_int(node, "exclude_outside", 0);
  o.extrapolation_value = attr_float(node, "extrapolation_value", 0.0);
  if (ctm == "tf_crop_and_resize") {
    std::optional<std::vector<double>> roi = ctx.const_floats(node, 1);
    RX_CHECK(roi && roi->size() == 8)
        << ctx.where(node) << ": tf_crop_and_resize needs a constant roi of 8 values";
    o.roi = {(*roi)[2], (*roi)[3], (*roi)[6], (*roi)[7]};
  }
  std::vector<PrimExpr> out_hw;
  std::optional<std::vector<double>> sizes;
  if (!v10 && Context::has_input(node, sizes_in)) {
    sizes = ctx.const_floats(node, sizes_in);
    // Sizes computed at run time: named by a match_cast that also checks N and C are kept.
    if (!sizes) {
      std::vector<PrimExpr> given = ctx.shape_ints(node, sizes_in, "sizes");
      return {resize_to_runtime_shape(ctx, node, x, shape, given, o)};
    }
  }
  if (sizes && !sizes->empty()) {
    RX_CHECK(sizes->size() == 4) << ctx.where(node) << ": sizes must have 4 values";
    for (int a = 0; a < 2; ++a) {
      const int64_t* d = tir::as_const_int(shape[size_t(a)]);
      RX_CHECK(d && *d == int64_t((*sizes)[size_t(a)]))
          << ctx.where(node) << ": resizing the N or C axis is not supported";
    }
    out_hw = {tir::int_imm(int64_t((*sizes)[2])), tir::int_imm(int64_t((*sizes)[3]))};
  } else {
    RX_CHECK(Context::has_input(node, scales_in))
        << ctx.where(node) << ": neither scales nor sizes is given";
    std::optional<std::vector<double>> scales = ctx.const_floats(node, scales_in);
    if (!scales) return {resize_by_runtime_scales(ctx, node, x, shape, o)};
    RX_CHECK(scales->size() == 4) << ctx.where(node) << ": scales must have 4 values";
    RX_CHECK((*scales)[0] == 1.0 && (*scales)[1] == 1.0)
        << ctx.where(node) << ": resizing the N or C axis is not supported";
    for (int a = 2; a < 4; ++a) {
      double scale = (*scales)[size_t(a)];
      RX_CHECK(std::isfinite(scale) && scale > 0)
          << ctx.where(node) << ": scale " << scale << " of axis " << a << " is not positive";
      const PrimExpr& dim = shape[size_t(a)];
      if (const int64_t* d = tir::as_const_int(dim)) {
        out_hw.push_back(tir::int_imm(int64_t(std::floor(double(*d) * scale))));
        continue;
      }
      // A symbolic dimension: floor(d * p / q) with the scale written as a ratio of small
      // integers (2.0 -> d * 2, 0.5 -> d // 2), exact as the static case is.
      int64_t p = 0, q = 1;
      for (; q <= 64; ++q) {
        double num = scale * double(q);
        if (std::fabs(num - std::round(num)) < 1e-9 * std::max(1.0, num)) {
          p = int64_t(std::round(num));
          break;
        }
      }
      RX_CHECK(p > 0 && q <= 64) << ctx.where(node) << ": scale " << scale << " of symbolic axis "
                                 << a << " is not a ratio of integers up to 64";
      PrimExpr scaled = p == 1 ? dim : dim * tir::int_imm(p);
      out_hw.push_back(q == 1 ? scaled : tir::floordiv(scaled, tir::int_imm(q)));
    }
  }
  return {Context::tensor_value(ctx.emit(op::resize2d(x, out_hw, o), node))};
}

std::vector<OnnxValue> convert_instance_norm(Context& ctx, const Node& node) {
  return {Context::tensor_value(ctx.emit(
      op::instance_norm(ctx.input(node, 0), ctx.input(node, 1), ctx.input(node, 2), 1,
                        std::nullopt, attr_float(node, "epsilon", 1e-5)),
      node))};
}

std::vector<OnnxValue> convert_dropout(Context& ctx, const Node& node) {
  // Inference: the output is the input; the mask (when asked for) is all true.
  Expr x = ctx.input(node, 0);
  std::vector<OnnxValue> outs{Context::tensor_value(x)};
  if (node.output_size() > 1 && !node.output(1).empty()) {
    outs.push_back(Context::tensor_value(
        ctx.emit(op::ones_like(x, DataType::Bool()), node, 1)));
  }
  return outs;
}

}  // namespace

std::vector<int64_t> resolve_pads(Context& ctx, const Node& node, const Expr& data,
                                  const std::vector<int64_t>& kernel,
                                  const std::vector<int64_t>& strides,
                                  const std::vector<int64_t>& dilations) {
  size_t dims = kernel.size();
  std::string auto_pad = attr_string(node, "auto_pad", "NOTSET");
  if (auto_pad == "NOTSET") {
    std::vector<int64_t> pads = spatial_attr(node, "pads", 2 * dims, 0);
    RX_CHECK(pads.size() == 2 * dims) << ctx.where(node) << ": pads has " << pads.size()
                                      << " values; expected " << 2 * dims;
    return pads;
  }
  if (auto_pad == "VALID") return std::vector<int64_t>(2 * dims, 0);
  RX_CHECK(auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER")
      << ctx.where(node) << ": auto_pad '" << auto_pad
      << "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID";
  std::vector<int64_t> shape = static_dims(ctx, node, data, "auto_pad " + auto_pad);
  std::vector<int64_t> pads(2 * dims, 0);
  for (size_t i = 0; i < dims; ++i) {
    int64_t in = shape[2 + i];
    int64_t out = (in + strides[i] - 1) / strides[i];
    int64_t total = std::max<int64_t>((out - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - in, 0);
    int64_t small = total / 2, large = total - small;
    pads[i] = auto_pad == "SAME_UPPER" ? small : large;
    pads[dims + i] = auto_pad == "SAME_UPPER" ? large : small;
  }
  return pads;
}

void register_nn_ops(std::map<std::string, ConverterEntry>& t) {
  t["Conv"] = {convert_conv};
  t["ConvTranspose"] = {convert_conv_transpose};
  t["MaxPool"] = {pool(true)};
  t["AveragePool"] = {pool(false)};
  t["GlobalAveragePool"] = {global_pool(false)};
  t["GlobalMaxPool"] = {global_pool(true)};
  t["BatchNormalization"] = {convert_batch_norm};
  t["LayerNormalization"] = {convert_layer_norm, 17};
  t["Resize"] = {convert_resize, 10};
  t["InstanceNormalization"] = {convert_instance_norm};
  t["Dropout"] = {convert_dropout};
}

}  // namespace relax::onnx_frontend
