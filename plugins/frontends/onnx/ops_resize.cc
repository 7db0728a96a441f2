// ONNX Resize (opsets 10+) and Upsample (opsets 7-9; deprecated in 10) on 4-D NCHW data, onto
// relax.image.resize2d. The output size is floor(in * scale) for scales (a symbolic dim times
// a scale that is a ratio of small integers p/q stays symbolic: floor(d * p / q)), or the given
// sizes: constants, symbolic dims computed from shapes at import (Shape -> Slice -> Concat),
// or values known only at run time, named by a match_cast. resize2d maps coordinates with
// out / in; where ONNX's mapping differs (scales or sizes known only at run time, a scale whose
// product with a static input size is not whole, tf_crop_and_resize with a roi known only at
// run time) the resize is composed from core ops instead (resize_composed.cc). Upsample is
// Resize with asymmetric coordinates and (nearest) rounding down; its scales are an attribute
// before opset 9 and an input from 9.
#include <algorithm>
#include <cmath>
#include <iterator>

#include "importer.h"
#include "relax/arith/analyzer.h"
#include "relax/op/nn.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"

namespace relax::onnx_frontend {

namespace {

using Node = onnx::NodeProto;

/// A float32 [1] tensor holding the dim `d` (a number or symbolic).
Expr dim_tensor(BlockBuilder& bb, const PrimExpr& d, DataType dt) {
  return bb.emit(op::astype(bb.emit(op::arange(d, d + 1, tir::int_imm(1), DataType::Int(64))), dt));
}

/// Resize to `sizes` (N, C, H, W) known only at run time: one match_cast names H and W and
/// checks that N and C are the input's; the scales are out / in (composed resize).
OnnxValue resize_to_runtime_shape(Context& ctx, const Node& node, const Expr& x,
                                  const std::vector<PrimExpr>& in,
                                  const std::vector<PrimExpr>& sizes,
                                  const op::Resize2DOptions& o, const Expr& roi = Expr()) {
  RX_CHECK(sizes.size() == 4) << ctx.where(node) << ": sizes must have 4 values, got "
                              << sizes.size();
  for (int a = 0; a < 2; ++a) {
    RX_CHECK(tir::as_const_int(in[size_t(a)]) || in[size_t(a)].is<tir::Var>())
        << ctx.where(node) << ": sizes computed at run time need the input's N and C to be "
        << "numbers or named dims";
  }
  std::string name = binding_name(node.output(0));
  PrimExpr h = tir::var(name + "_h"), w = tir::var(name + "_w");
  BlockBuilder& bb = ctx.bb();
  bb.emit_match_cast(make_shape(sizes), shape_sinfo({in[0], in[1], h, w}), name + "_size");
  if (o.coordinate_transformation_mode == "tf_crop_and_resize" && !roi.defined())
    return Context::tensor_value(ctx.emit(op::resize2d(x, {h, w}, o), node));
  DataType f32 = DataType::Float(32);
  Expr scales = bb.emit(op::concat({bb.emit(op::divide(dim_tensor(bb, h, f32), dim_tensor(bb, in[2], f32))),
                                    bb.emit(op::divide(dim_tensor(bb, w, f32), dim_tensor(bb, in[3], f32)))},
                                   0));
  Expr y = resize_composed(ctx, node, x, {h, w}, scales, o, roi);
  return Context::tensor_value(ctx.emit(op::reshape(y, {in[0], in[1], h, w}), node));
}

/// Resize by `scales` known only at run time: the output size floor(in * scale) is computed on
/// tensors (in float64) and bound to symbolic dims at run time; the resize is composed with the
/// scales themselves.
OnnxValue resize_by_runtime_scales(Context& ctx, const Node& node, const Expr& x,
                                   const std::vector<PrimExpr>& in, const op::Resize2DOptions& o) {
  int scales_in = ctx.opset() < 11 ? 1 : 2;
  BlockBuilder& bb = ctx.bb();
  Expr given = ctx.input(node, scales_in);
  const TensorStructInfo& st = ctx.tensor(node, given);
  RX_CHECK(st.ndim == 1 && st.shape && tir::is_const_int((*st.shape)[0], 4) && st.dtype.is_float())
      << ctx.where(node) << ": scales (input '" << node.input(scales_in)
      << "') must be 4 floats, got " << to_string(get_struct_info(given));
  DataType f64 = DataType::Float(64), f32 = DataType::Float(32);
  Expr hw = bb.emit(op::strided_slice(given, {0}, {2}, {4}));
  Expr in_hw = bb.emit(op::concat({dim_tensor(bb, in[2], f64), dim_tensor(bb, in[3], f64)}, 0));
  Expr out = bb.emit(op::floor(bb.emit(op::multiply(in_hw, bb.emit(op::astype(hw, f64))))));
  out = bb.emit(op::astype(out, DataType::Int(64)));
  std::vector<PrimExpr> sizes = ctx.runtime_shape(out, binding_name(node.output(0)) + "_out");
  if (st.dtype != f32) hw = bb.emit(op::astype(hw, f32));
  Expr y = resize_composed(ctx, node, x, sizes, hw, o);
  return Context::tensor_value(ctx.emit(op::reshape(y, {in[0], in[1], sizes[0], sizes[1]}), node));
}

/// Resize (opsets 10+) and Upsample on 4-D NCHW data -> relax.image.resize2d. `upsample`:
/// Upsample's semantics (asymmetric coordinates, nearest rounding down, scales as an attribute
/// before opset 9).
std::vector<OnnxValue> resize(Context& ctx, const Node& node, bool upsample) {
  Expr x = ctx.input(node, 0);
  RX_CHECK(ctx.ndim(node, x) == 4)
      << ctx.where(node) << ": only 4-D (NCHW) inputs are supported";
  std::vector<PrimExpr> shape = ctx.shape_of(node, x, "Resize");
  RX_CHECK(attr_int(node, "antialias", 0) == 0)
      << ctx.where(node) << ": antialias=1 is not supported";
  RX_CHECK(!find_attr(node, "axes")) << ctx.where(node) << ": the axes attribute is not supported";
  RX_CHECK(attr_string(node, "keep_aspect_ratio_policy", "stretch") == "stretch")
      << ctx.where(node) << ": keep_aspect_ratio_policy other than stretch is not supported";
  bool v10 = ctx.opset() < 11 || upsample;
  int scales_in = v10 ? 1 : 2, sizes_in = 3;
  op::Resize2DOptions o;
  std::string mode = attr_string(node, "mode", "nearest");
  if (upsample && mode == "bilinear") mode = "linear";  // Upsample-7's spelling
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
  std::string nearest = upsample ? "floor"
                        : v10  ? "round_prefer_floor"
                               : attr_string(node, "nearest_mode", "round_prefer_floor");
  o.rounding_method = nearest;
  o.cubic_alpha = attr_float(node, "cubic_coeff_a", -0.75);
  o.cubic_exclude = attr_int(node, "exclude_outside", 0);
  o.extrapolation_value = attr_float(node, "extrapolation_value", 0.0);
  Expr roi_at_run_time;  // tf_crop_and_resize's roi, when not a constant
  if (ctm == "tf_crop_and_resize") {
    std::optional<std::vector<double>> roi = ctx.const_floats(node, 1);
    if (roi) {
      RX_CHECK(roi->size() == 8)
          << ctx.where(node) << ": tf_crop_and_resize needs a roi of 8 values, got " << roi->size();
      o.roi = {(*roi)[2], (*roi)[3], (*roi)[6], (*roi)[7]};
    } else {
      roi_at_run_time = ctx.input(node, 1);
      const TensorStructInfo& rt = ctx.tensor(node, roi_at_run_time);
      RX_CHECK(rt.ndim == 1 && rt.shape && tir::is_const_int((*rt.shape)[0], 8) &&
               rt.dtype.is_float())
          << ctx.where(node) << ": tf_crop_and_resize needs a roi of 8 floats, got "
          << to_string(get_struct_info(roi_at_run_time));
      if (rt.dtype != DataType::Float(32))
        roi_at_run_time = ctx.bb().emit(op::astype(roi_at_run_time, DataType::Float(32)));
      RX_CHECK(Context::has_input(node, sizes_in))
          << ctx.where(node) << ": tf_crop_and_resize with a roi known only at run time needs "
          << "sizes";
    }
  }
  std::vector<PrimExpr> out_hw;
  std::optional<std::vector<double>> sizes;
  if (!v10 && Context::has_input(node, sizes_in)) {
    sizes = ctx.const_floats(node, sizes_in);
    // Sizes computed at run time: named by a match_cast that also checks N and C are kept.
    if (!sizes) {
      std::vector<PrimExpr> given = ctx.shape_ints(node, sizes_in, "sizes");
      if (ctx.known_ints(node, sizes_in) && given.size() == 4) {
        // Sizes computed from shapes at import: the symbolic dims themselves.
        arith::Analyzer ana;
        for (int a = 0; a < 2; ++a) {
          RX_CHECK(ana.can_prove(tir::eq(given[size_t(a)], shape[size_t(a)])))
              << ctx.where(node) << ": resizing the N or C axis is not supported (sizes "
              << tir::to_string(given[size_t(a)]) << " for " << tir::to_string(shape[size_t(a)])
              << ")";
        }
        return {Context::tensor_value(ctx.emit(op::resize2d(x, {given[2], given[3]}, o), node))};
      }
      return {resize_to_runtime_shape(ctx, node, x, shape, given, o, roi_at_run_time)};
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
    if (roi_at_run_time.defined()) {
      BlockBuilder& bb = ctx.bb();
      DataType f32 = DataType::Float(32);
      Expr scales = bb.emit(op::concat(
          {bb.emit(op::divide(dim_tensor(bb, out_hw[0], f32), dim_tensor(bb, shape[2], f32))),
           bb.emit(op::divide(dim_tensor(bb, out_hw[1], f32), dim_tensor(bb, shape[3], f32)))},
          0));
      Expr y = resize_composed(ctx, node, x, out_hw, scales, o, roi_at_run_time);
      return {Context::tensor_value(
          ctx.emit(op::reshape(y, {shape[0], shape[1], out_hw[0], out_hw[1]}), node))};
    }
  } else {
    RX_CHECK(Context::has_input(node, scales_in) || (upsample && ctx.opset() < 9))
        << ctx.where(node) << ": neither scales nor sizes is given";
    RX_CHECK(!roi_at_run_time.defined())
        << ctx.where(node) << ": tf_crop_and_resize with a roi known only at run time needs "
        << "sizes";
    std::optional<std::vector<double>> scales =
        upsample && ctx.opset() < 9 ? attr_floats(node, "scales") : ctx.const_floats(node, scales_in);
    if (!scales) return {resize_by_runtime_scales(ctx, node, x, shape, o)};
    RX_CHECK(scales->size() == 4) << ctx.where(node) << ": scales must have 4 values";
    RX_CHECK((*scales)[0] == 1.0 && (*scales)[1] == 1.0)
        << ctx.where(node) << ": resizing the N or C axis is not supported";
    bool compose = false;
    for (int a = 2; a < 4; ++a) {
      double scale = (*scales)[size_t(a)];
      RX_CHECK(std::isfinite(scale) && scale > 0)
          << ctx.where(node) << ": scale " << scale << " of axis " << a << " is not positive";
      const PrimExpr& dim = shape[size_t(a)];
      if (const int64_t* d = tir::as_const_int(dim)) {
        double exact = double(*d) * scale;
        out_hw.push_back(tir::int_imm(int64_t(std::floor(exact))));
        // resize2d maps with out / in; ONNX maps with the scale: they differ here.
        compose |= exact != std::floor(exact) && ctm != "tf_crop_and_resize";
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
    if (compose) {
      runtime::NDArray hw = runtime::NDArray::empty({2}, DataType::Float(32));
      hw.data_as<float>()[0] = float((*scales)[2]);
      hw.data_as<float>()[1] = float((*scales)[3]);
      Expr y = resize_composed(ctx, node, x, out_hw, make_constant(hw), o);
      return {Context::tensor_value(
          ctx.emit(op::reshape(y, {shape[0], shape[1], out_hw[0], out_hw[1]}), node))};
    }
  }
  return {Context::tensor_value(ctx.emit(op::resize2d(x, out_hw, o), node))};
}

std::vector<OnnxValue> convert_resize(Context& ctx, const Node& node) {
  return resize(ctx, node, false);
}

std::vector<OnnxValue> convert_upsample(Context& ctx, const Node& node) {
  std::string mode = attr_string(node, "mode", "nearest");
  RX_CHECK(mode == "nearest" || mode == "linear" || mode == "bilinear")
      << ctx.where(node) << ": mode '" << mode << "' is not one of nearest, linear, bilinear";
  return resize(ctx, node, true);
}

}  // namespace

void register_resize_ops(std::map<std::string, ConverterEntry>& t) {
  t["Resize"] = {convert_resize, 10};
  t["Upsample"] = {convert_upsample, 7};
}

}  // namespace relax::onnx_frontend
