// ONNX converters: convolutions, pooling, normalisations, dropout.
//
// Conv and the pools share the padding logic: explicit `pads` (all begins, then all ends, the
// order Relax uses too) or `auto_pad` SAME_UPPER / SAME_LOWER (computed from the static
// spatial sizes; the odd unit of padding goes to the end / the beginning) or VALID. 1-D, 2-D
// and 3-D map onto the core's rank-specific ops. BatchNormalization is the inference form
// (training-mode outputs are refused); Dropout is the identity with an all-true mask.
// LayerNormalization also yields Mean and InvStdDev when asked. Resize maps 4-D NCHW data
// with constant scales/sizes onto relax.image.resize2d (output size floor(in * scale); the
// coordinate mapping uses in/out, so a scale that does not divide evenly differs from ONNX).
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

/// Begin-then-end pads for a conv or pool with `kernel`, `strides`, `dilations`, from `pads`
/// or auto_pad.
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

std::vector<OnnxValue> convert_conv(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  Expr w = ctx.input(node, 1);
  int rank = ctx.ndim(node, x);
  RX_CHECK(rank >= 3 && rank <= 5) << ctx.where(node) << ": 1-D, 2-D or 3-D convolution expected; "
                                   << "the input has rank " << rank;
  size_t dims = size_t(rank - 2);
  std::vector<int64_t> wshape = static_dims(ctx, node, w, "Conv's weight");
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

std::vector<OnnxValue> convert_conv_transpose(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  Expr w = ctx.input(node, 1);
  int rank = ctx.ndim(node, x);
  RX_CHECK(rank == 3 || rank == 4) << ctx.where(node) << ": 1-D or 2-D transposed convolution "
                                   << "expected; the input has rank " << rank;
  RX_CHECK(!find_attr(node, "output_shape"))
      << ctx.where(node) << ": the output_shape attribute is not supported; give pads instead";
  RX_CHECK(attr_string(node, "auto_pad", "NOTSET") == "NOTSET" ||
           attr_string(node, "auto_pad", "NOTSET") == "VALID")
      << ctx.where(node) << ": auto_pad SAME_* is not supported for ConvTranspose";
  size_t dims = size_t(rank - 2);
  op::ConvOptions o;
  o.strides = spatial_attr(node, "strides", dims, 1);
  o.dilation = spatial_attr(node, "dilations", dims, 1);
  o.padding = spatial_attr(node, "pads", 2 * dims, 0);
  o.output_padding = spatial_attr(node, "output_padding", dims, 0);
  o.groups = attr_int(node, "group", 1);
  Expr y = dims == 1 ? op::conv1d_transpose(x, w, o) : op::conv2d_transpose(x, w, o);
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
    RX_CHECK(!is_max || node.output_size() < 2 || node.output(1).empty())
        << ctx.where(node) << ": the Indices output of MaxPool is not supported";
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

std::vector<OnnxValue> convert_batch_norm(Context& ctx, const Node& node) {
  for (int k = 1; k < node.output_size(); ++k) {
    RX_CHECK(node.output(k).empty())
        << ctx.where(node) << ": training-mode outputs (running statistics) are not supported";
  }
  RX_CHECK(attr_int(node, "training_mode", 0) == 0)
      << ctx.where(node) << ": training_mode=1 is not supported (inference only)";
  Expr bn = ctx.bb().emit(op::batch_norm(ctx.input(node, 0), ctx.input(node, 1), ctx.input(node, 2),
                                         ctx.input(node, 3), ctx.input(node, 4), 1,
                                         attr_float(node, "epsilon", 1e-5)));
  return {Context::tensor_value(ctx.emit(make_ref<TupleGetItem>(bn, 0), node))};
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
    RX_CHECK(sizes) << ctx.where(node) << ": sizes (input '" << node.input(sizes_in)
                    << "') must be a constant initializer known at import time";
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
    RX_CHECK(scales) << ctx.where(node)
                     << ": scales (input '" << node.input(scales_in)
                     << "') must be a constant initializer known at import time";
    RX_CHECK(scales->size() == 4) << ctx.where(node) << ": scales must have 4 values";
    RX_CHECK((*scales)[0] == 1.0 && (*scales)[1] == 1.0)
        << ctx.where(node) << ": resizing the N or C axis is not supported";
    for (int a = 2; a < 4; ++a) {
      const int64_t* d = tir::as_const_int(shape[size_t(a)]);
      RX_CHECK(d) << ctx.where(node) << ": scales need static spatial dimensions";
      out_hw.push_back(tir::int_imm(int64_t(std::floor(double(*d) * (*scales)[size_t(a)]))));
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
