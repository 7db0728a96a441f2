// Resize composed from core ops with the ONNX reference's coordinate mapping (importer.h:
// resize_composed), for what relax.image.resize2d cannot express: its mapping uses the ratio
// out / in, while ONNX maps with the scale itself (given, or out / in as a float for sizes), and
// uses the unrounded in * scale for align_corners. The two differ when in * scale is not whole
// (downsampling by 0.6 or 0.8) and by rounding when a ratio is not exact in binary (2 -> 7 with
// sizes), and scales known only at run time have no static ratio at all.
//
// Per spatial axis (H, then W), with s the axis' scale (a float32 scalar tensor, known at import
// or at run time) and in the input size: x_orig is computed for every output index x as the
// coordinate transformation mode says (half_pixel: (x + 0.5) / s - 0.5; pytorch_half_pixel: the
// same, -0.5 when in * s is 1; align_corners: x * (in - 1) / (in * s - 1), 0 when in * s is 1;
// asymmetric: x / s; tf_half_pixel_for_nn: (x + 0.5) / s; tf_crop_and_resize with a roi known
// at run time: start (in - 1) + x (end - start) (in - 1) / (in * s - 1), outputs mapped outside
// the input being extrapolation_value). nearest takes the rounded index
// (round_prefer_floor: ceil(x - 0.5), round_prefer_ceil: floor(x + 0.5), floor, ceil); linear
// weighs floor(x_orig) and the next index by 1 - r and r (r the fraction); cubic weighs the 4
// indices around it with the cubic convolution coefficients of parameter A (cubic_coeff_a),
// and with exclude_outside those falling outside the input are dropped and the rest
// renormalised. Indices are clamped into the input (the reference pads with edge values).
// Each tap is a take along the axis, weighted and summed.
#include "importer.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"

namespace relax::onnx_frontend {

namespace {

using Node = onnx::NodeProto;

class ComposedResize {
 public:
  ComposedResize(Context& ctx, const Node& node, const op::Resize2DOptions& o, const Expr& roi)
      : ctx_(ctx), node_(node), bb_(ctx.bb()), o_(o), roi_(roi) {}

  /// x resized on `axis` to `out` elements with scale `s` (float32, rank 0).
  Expr axis(const Expr& x, int64_t axis, const PrimExpr& in, const PrimExpr& out, const Expr& s) {
    Expr y = resample(x, axis, in, out, s);
    if (!inside_.defined()) return y;
    // tf_crop_and_resize: outputs mapped outside the input are the extrapolation value.
    Expr mask = inside_;
    if (axis == 2) mask = emit(op::reshape(mask, std::vector<PrimExpr>{out, tir::int_imm(1)}));
    DataType dt = ctx_.tensor(node_, x).dtype;
    return emit(op::where(mask, y, scalar_constant(o_.extrapolation_value, dt)));
  }

 private:
  Expr resample(const Expr& x, int64_t axis, const PrimExpr& in, const PrimExpr& out,
                const Expr& s) {
    Expr in_i = emit(op::arange(in, in + 1, tir::int_imm(1), i64_));  // [in]
    Expr in_f = emit(op::reshape(emit(op::astype(in_i, f32_)), std::vector<PrimExpr>{}));
    Expr last = emit(op::subtract(in_i, ci(1)));                        // [in - 1]
    Expr xo = emit(op::astype(emit(op::arange(tir::int_imm(0), out, tir::int_imm(1), i64_)), f32_));
    Expr len = emit(op::multiply(in_f, s));  // the reference's output width, unrounded
    const std::string& ctm = o_.coordinate_transformation_mode;
    Expr half = emit(op::add(xo, cf(0.5)));
    Expr xr;
    if (ctm == "half_pixel" || ctm == "pytorch_half_pixel") {
      xr = emit(op::subtract(emit(op::divide(half, s)), cf(0.5)));
      if (ctm == "pytorch_half_pixel")
        xr = emit(op::where(emit(op::equal(len, cf(1))), cf(-0.5), xr));
    } else if (ctm == "align_corners") {
      Expr denom = emit(op::subtract(len, cf(1)));
      Expr scaled = emit(op::divide(emit(op::multiply(xo, emit(op::subtract(in_f, cf(1))))), denom));
      xr = emit(op::where(emit(op::equal(denom, cf(0))), cf(0), scaled));
    } else if (ctm == "asymmetric") {
      xr = emit(op::divide(xo, s));
    } else if (ctm == "tf_half_pixel_for_nn") {
      xr = emit(op::divide(half, s));
    } else if (ctm == "tf_crop_and_resize" && roi_.defined()) {
      // x_orig = start (in - 1) + x (end - start) (in - 1) / (len - 1); the centre of the
      // crop when len is 1. roi is (starts..., ends...) over the 4 axes.
      auto roi = [&](int64_t k) {
        return emit(op::reshape(emit(op::strided_slice(roi_, {0}, {k}, {k + 1})),
                                std::vector<PrimExpr>{}));
      };
      Expr start = roi(axis), end = roi(axis + 4);
      Expr extent = emit(op::multiply(emit(op::subtract(end, start)), emit(op::subtract(in_f, cf(1)))));
      Expr denom = emit(op::subtract(len, cf(1)));
      Expr spread = emit(op::divide(emit(op::multiply(xo, extent)), denom));
      Expr offset = emit(op::multiply(start, emit(op::subtract(in_f, cf(1)))));
      xr = emit(op::add(emit(op::where(emit(op::equal(denom, cf(0))),
                                       emit(op::divide(extent, cf(2))), spread)),
                        offset));
      inside_ = emit(op::logical_and(emit(op::greater_equal(xr, cf(0))),
                                     emit(op::less_equal(xr, emit(op::subtract(in_f, cf(1)))))));
    } else {
      RX_THROW() << ctx_.where(node_) << ": coordinate_transformation_mode '" << ctm
                 << "' is not supported with this scale";
    }
    auto clamp = [&](const Expr& idx) {
      return emit(op::minimum(emit(op::maximum(idx, ci(0))), last));
    };
    auto take = [&](const Expr& idx) { return emit(op::take(x, clamp(idx), axis)); };
    if (o_.method == "nearest_neighbor") {
      const std::string& r = o_.rounding_method;
      Expr idx = r == "floor"                ? emit(op::floor(xr))
                 : r == "ceil"               ? emit(op::ceil(xr))
                 : r == "round_prefer_ceil"  ? emit(op::floor(emit(op::add(xr, cf(0.5)))))
                                             : emit(op::ceil(emit(op::subtract(xr, cf(0.5)))));
      return take(emit(op::astype(idx, i64_)));
    }
    Expr x0 = emit(op::floor(xr));
    Expr r = emit(op::subtract(xr, x0));
    Expr i0 = emit(op::astype(x0, i64_));
    std::vector<Expr> weights;
    int64_t first = 0;  // the first tap's offset from floor(x_orig)
    if (o_.method == "linear") {
      weights = {emit(op::subtract(cf(1), r)), r};
    } else {
      first = -1;
      double a = o_.cubic_alpha;
      // The cubic convolution kernel at distance d: |d| <= 1 and 1 < |d| < 2.
      auto near = [&](const Expr& d) {  // ((A + 2) d - (A + 3)) d^2 + 1
        Expr t = emit(op::subtract(emit(op::multiply(cf(a + 2), d)), cf(a + 3)));
        return emit(op::add(emit(op::multiply(emit(op::multiply(t, d)), d)), cf(1)));
      };
      auto far = [&](const Expr& d) {  // ((A d - 5A) d + 8A) d - 4A
        Expr t = emit(op::subtract(emit(op::multiply(cf(a), d)), cf(5 * a)));
        t = emit(op::add(emit(op::multiply(t, d)), cf(8 * a)));
        return emit(op::subtract(emit(op::multiply(t, d)), cf(4 * a)));
      };
      Expr one_minus = emit(op::subtract(cf(1), r));
      weights = {far(emit(op::add(r, cf(1)))), near(r), near(one_minus),
                 far(emit(op::add(one_minus, cf(1))))};
      if (o_.cubic_exclude) {
        Expr total;
        for (size_t k = 0; k < weights.size(); ++k) {
          Expr idx = emit(op::add(i0, ci(first + int64_t(k))));
          Expr inside = emit(op::logical_and(emit(op::greater_equal(idx, ci(0))),
                                             emit(op::less_equal(idx, last))));
          weights[k] = emit(op::where(inside, weights[k], cf(0)));
          total = total.defined() ? emit(op::add(total, weights[k])) : weights[k];
        }
        for (Expr& w : weights) w = emit(op::divide(w, total));
      }
    }
    DataType dt = ctx_.tensor(node_, x).dtype;
    Expr acc;
    for (size_t k = 0; k < weights.size(); ++k) {
      Expr w = weights[k];
      if (dt != f32_) w = emit(op::astype(w, dt));
      if (axis == 2) w = emit(op::reshape(w, std::vector<PrimExpr>{out, tir::int_imm(1)}));
      Expr term = emit(op::multiply(take(emit(op::add(i0, ci(first + int64_t(k))))), w));
      acc = acc.defined() ? emit(op::add(acc, term)) : term;
    }
    return acc;
  }

  Expr emit(const Expr& e) { return bb_.emit(e); }
  Expr cf(double v) { return scalar_constant(v, f32_); }
  Expr ci(int64_t v) { return scalar_constant(double(v), i64_); }

  Context& ctx_;
  const Node& node_;
  BlockBuilder& bb_;
  const op::Resize2DOptions& o_;
  DataType f32_ = DataType::Float(32), i64_ = DataType::Int(64);
  Expr roi_;     ///< tf_crop_and_resize's roi (float32 [8]), known at run time
  Expr inside_;  ///< per output index of the axis being resized: mapped inside the input
};

}  // namespace

Expr resize_composed(Context& ctx, const onnx::NodeProto& node, const Expr& x,
                     const std::vector<PrimExpr>& out_hw, const Expr& scales_hw,
                     const op::Resize2DOptions& o, const Expr& roi) {
  RX_CHECK(o.coordinate_transformation_mode != "tf_crop_and_resize" || roi.defined())
      << ctx.where(node) << ": tf_crop_and_resize needs a constant roi of 8 values here";
  std::vector<PrimExpr> shape = ctx.shape_of(node, x, "Resize");
  BlockBuilder& bb = ctx.bb();
  ComposedResize r(ctx, node, o, roi);
  Expr y = x;
  for (int64_t a = 2; a < 4; ++a) {
    Expr s = bb.emit(op::reshape(bb.emit(op::strided_slice(scales_hw, {0}, {a - 2}, {a - 1})),
                                 std::vector<PrimExpr>{}));
    y = r.axis(y, a, shape[size_t(a)], out_hw[size_t(a - 2)], s);
  }
  return y;
}

}  // namespace relax::onnx_frontend
