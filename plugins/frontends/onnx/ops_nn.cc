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
// LayerNormalization also yields Mean and InvStdDev when asked. Resize: ops_resize.cc.
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
    RX_CHECK(ws.size() == size_t(rank))
        << ctx.where(node) << ": the weight needs rank " << rank << " (as the input), got rank "
        << ws.size();
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
    // A 2-D average is the adaptive pool to 1 x 1 (as TVM imports it): an op with a layout,
    // which the layout planner can run NHWC after NHWC convolutions (a mean over axes 2 and 3
    // would read them transposed).
    if (!is_max && rank == 4)
      return {Context::tensor_value(ctx.emit(op::adaptive_avg_pool2d(x, {1, 1}, "NCHW"), node))};
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
  RX_CHECK(strides.size() == dims && dilations.size() == dims)
      << ctx.where(node) << ": strides and dilations need " << dims << " values (one per spatial "
      << "axis), got " << strides.size() << " and " << dilations.size();
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
  RX_CHECK(shape.size() == dims + 2) << ctx.where(node) << ": the input needs rank " << dims + 2
                                     << " for " << dims << " spatial axes, got rank " << shape.size();
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
  t["InstanceNormalization"] = {convert_instance_norm};
  t["Dropout"] = {convert_dropout};
}

}  // namespace relax::onnx_frontend
