// ONNX RoiAlign (opsets 10 and 16), composed from core ops.
//
// For region r (x1, y1, x2, y2 scaled by spatial_scale, minus 0.5 with
// coordinate_transformation_mode=half_pixel, the opset-16 default; output_half_pixel keeps
// them and makes each region at least 1x1) and output bin (ph, pw), sampling_ratio^2 points at
// y = y1 + (ph + (iy + 0.5) / sr) * h / output_height (x likewise) are read from the image
// batch_indices[r] by bilinear interpolation, as ONNX Runtime does: a point outside
// [-1, size] contributes 0, coordinates are clamped at 0 and at size - 1. mode=avg averages
// the points of a bin; mode=max takes the largest weighted corner value over them (ONNX
// Runtime's definition). The points' coordinates are computed at run time from `rois`; the
// corner values are gathered from the image flattened to (C, H * W). sampling_ratio must be
// positive (0, adaptive, would make the number of points depend on the regions' sizes) and
// H, W static.
#include "importer.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"

namespace relax::onnx_frontend {

namespace {

using Node = onnx::NodeProto;

/// A constant rank-1 tensor of `dtype` (float32 or float64).
Expr float_vector(const std::vector<double>& values, DataType dtype) {
  runtime::NDArray a = runtime::NDArray::empty({int64_t(values.size())}, dtype);
  for (size_t k = 0; k < values.size(); ++k) {
    if (dtype == DataType::Float(32)) a.data_as<float>()[k] = float(values[k]);
    else a.data_as<double>()[k] = values[k];
  }
  return make_constant(a);
}

/// One axis's interpolation: the low and high integer positions and their weights (zero for a
/// point outside [-1, size]), each of the coordinates' shape.
struct Axis {
  Expr lo, hi, w_lo, w_hi;
};

Axis interpolate(BlockBuilder& bb, Expr v, int64_t size, DataType dt) {
  auto c = [dt](double x) { return scalar_constant(x, dt); };
  Expr inside = bb.emit(op::logical_and(bb.emit(op::greater_equal(v, c(-1))),
                                        bb.emit(op::less_equal(v, c(double(size))))));
  Expr valid = bb.emit(op::astype(inside, dt));
  v = bb.emit(op::maximum(v, c(0)));
  Expr lo = bb.emit(op::floor(v));
  Expr top = bb.emit(op::greater_equal(lo, c(double(size - 1))));
  lo = bb.emit(op::where(top, c(double(size - 1)), lo));
  Expr hi = bb.emit(op::where(top, lo, bb.emit(op::add(lo, c(1)))));
  v = bb.emit(op::where(top, lo, v));
  Expr l = bb.emit(op::subtract(v, lo));
  Expr h = bb.emit(op::subtract(c(1), l));
  DataType i64 = DataType::Int(64);
  return {bb.emit(op::astype(lo, i64)), bb.emit(op::astype(hi, i64)),
          bb.emit(op::multiply(h, valid)), bb.emit(op::multiply(l, valid))};
}

std::vector<OnnxValue> convert_roi_align(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0), rois = ctx.input(node, 1), batch = ctx.input(node, 2);
  DataType dt = float_dtype(ctx, node, x);
  std::vector<PrimExpr> xs = ctx.shape_of(node, x, "RoiAlign");
  RX_CHECK(xs.size() == 4) << ctx.where(node) << ": X must be (N, C, H, W), got "
                           << to_string(get_struct_info(x));
  const int64_t* hp = tir::as_const_int(xs[2]);
  const int64_t* wp = tir::as_const_int(xs[3]);
  RX_CHECK(hp && wp) << ctx.where(node) << ": needs static H and W, got "
                     << to_string(get_struct_info(x));
  int64_t H = *hp, W = *wp;
  std::vector<PrimExpr> rs = ctx.shape_of(node, rois, "RoiAlign");
  RX_CHECK(rs.size() == 2 && tir::is_const_int(rs[1], 4))
      << ctx.where(node) << ": rois must be (num_rois, 4), got " << to_string(get_struct_info(rois));
  RX_CHECK(ctx.tensor(node, rois).dtype == dt)
      << ctx.where(node) << ": rois must have X's dtype " << dt.to_string();
  int64_t PH = attr_int(node, "output_height", 1), PW = attr_int(node, "output_width", 1);
  int64_t sr = attr_int(node, "sampling_ratio", 0);
  RX_CHECK(PH > 0 && PW > 0) << ctx.where(node) << ": output_height and output_width must be "
                             << "positive";
  RX_CHECK(sr > 0) << ctx.where(node) << ": sampling_ratio " << sr << " (adaptive) is not "
                   << "supported: the number of sampling points would depend on the regions";
  double scale = attr_float(node, "spatial_scale", 1.0);
  std::string mode = attr_string(node, "mode", "avg");
  RX_CHECK(mode == "avg" || mode == "max")
      << ctx.where(node) << ": mode '" << mode << "' is not valid (expected avg or max)";
  std::string ctm = attr_string(node, "coordinate_transformation_mode",
                                ctx.opset() >= 16 ? "half_pixel" : "output_half_pixel");
  RX_CHECK(ctm == "half_pixel" || ctm == "output_half_pixel")
      << ctx.where(node) << ": coordinate_transformation_mode '" << ctm
      << "' is not valid (expected half_pixel or output_half_pixel)";
  bool half = ctm == "half_pixel";

  BlockBuilder& bb = ctx.bb();
  DataType i64 = DataType::Int(64);
  auto c = [dt](double v) { return scalar_constant(v, dt); };
  PrimExpr R = rs[0];
  // Column k of rois, scaled and shifted: (R, 1).
  auto coord = [&](int k) {
    Expr v = bb.emit(op::strided_slice(rois, {1}, {k}, {k + 1}));
    v = bb.emit(op::multiply(v, c(scale)));
    return half ? bb.emit(op::subtract(v, c(0.5))) : v;
  };
  Expr x1 = coord(0), y1 = coord(1), x2 = coord(2), y2 = coord(3);
  Expr rw = bb.emit(op::subtract(x2, x1)), rh = bb.emit(op::subtract(y2, y1));
  if (!half) {
    rw = bb.emit(op::maximum(rw, c(1)));
    rh = bb.emit(op::maximum(rh, c(1)));
  }
  // Sampling points: (R, PH * sr) rows and (R, PW * sr) columns.
  auto grid = [&](int64_t bins) {
    std::vector<double> g;
    for (int64_t b = 0; b < bins; ++b)
      for (int64_t i = 0; i < sr; ++i) g.push_back(double(b) + (double(i) + 0.5) / double(sr));
    return float_vector(g, dt);
  };
  Expr ys = bb.emit(op::add(y1, bb.emit(op::multiply(grid(PH),
                                                     bb.emit(op::divide(rh, c(double(PH))))))));
  Expr xs_ = bb.emit(op::add(x1, bb.emit(op::multiply(grid(PW),
                                                      bb.emit(op::divide(rw, c(double(PW))))))));
  Axis ay = interpolate(bb, ys, H, dt), ax = interpolate(bb, xs_, W, dt);

  // The regions' images, flattened: (R, C, H * W).
  PrimExpr C = xs[1];
  Expr img = bb.emit(op::take(x, bb.emit(op::astype(batch, i64)), 0));
  img = bb.emit(op::reshape(img, std::vector<PrimExpr>{R, C, tir::int_imm(H * W)}));
  int64_t KY = PH * sr, KX = PW * sr;
  std::vector<PrimExpr> flat_shape{R, C, tir::int_imm(KY * KX)};
  std::vector<PrimExpr> grid_shape{R, C, tir::int_imm(KY), tir::int_imm(KX)};
  Expr acc;
  for (int cy = 0; cy < 2; ++cy) {
    for (int cx = 0; cx < 2; ++cx) {
      Expr yi = bb.emit(op::expand_dims(cy ? ay.hi : ay.lo, {2}));   // (R, KY, 1)
      Expr xi = bb.emit(op::expand_dims(cx ? ax.hi : ax.lo, {1}));   // (R, 1, KX)
      Expr idx = bb.emit(op::add(bb.emit(op::multiply(yi, scalar_constant(double(W), i64))), xi));
      idx = bb.emit(op::reshape(idx, std::vector<PrimExpr>{R, tir::int_imm(1), tir::int_imm(KY * KX)}));
      idx = bb.emit(op::broadcast_to(idx, flat_shape));
      Expr v = bb.emit(op::gather_elements(img, idx, 2));
      v = bb.emit(op::reshape(v, grid_shape));
      Expr w = bb.emit(op::multiply(bb.emit(op::expand_dims(cy ? ay.w_hi : ay.w_lo, {2})),
                                    bb.emit(op::expand_dims(cx ? ax.w_hi : ax.w_lo, {1}))));
      v = bb.emit(op::multiply(v, bb.emit(op::expand_dims(w, {1}))));
      if (!acc.defined()) acc = v;
      else acc = bb.emit(mode == "avg" ? op::add(acc, v) : op::maximum(acc, v));
    }
  }
  acc = bb.emit(op::reshape(acc, std::vector<PrimExpr>{R, C, tir::int_imm(PH), tir::int_imm(sr),
                                                       tir::int_imm(PW), tir::int_imm(sr)}));
  Expr y = mode == "avg" ? op::mean(acc, std::vector<int64_t>{3, 5})
                         : op::max(acc, std::vector<int64_t>{3, 5});
  return {Context::tensor_value(ctx.emit(y, node))};
}

}  // namespace

void register_roi_ops(std::map<std::string, ConverterEntry>& t) {
  t["RoiAlign"] = {convert_roi_align, 10};
}

}  // namespace relax::onnx_frontend
