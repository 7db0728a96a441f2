// ONNX converters for image resampling: GridSample (bilinear, nearest and bicubic, with the
// zeros / border / reflection padding modes) and MaxUnpool (MaxPool's values scattered back to
// their indices in a zero tensor of the default or the given output shape). Both are exact
// against the ONNX reference implementation, composed from core ops: GridSample gathers its
// taps with gather_elements, MaxUnpool scatters with scatter_elements.
#include "importer.h"
#include "relax/arith/analyzer.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"

namespace relax::onnx_frontend {

namespace {

using Node = onnx::NodeProto;

/// GridSample (opset 16) of 4-D X (N, C, H, W) at Grid (N, Ho, Wo, 2), as PyTorch's
/// grid_sample (the ONNX reference): grid values in [-1, 1] unnormalised to pixel coordinates
/// (align_corners: -1 and 1 are the corner pixels' centres; else the image's outer edges);
/// padding_mode zeros reads 0 outside, border clamps, reflection mirrors at the edges (the
/// source coordinate before interpolation; each tap for bicubic). Taps are gathered from X
/// flattened to (N, C, H * W) with gather_elements; bicubic uses A = -0.75.
class GridSampler {
 public:
  GridSampler(Context& ctx, const Node& node) : ctx_(ctx), node_(node), bb_(ctx.bb()) {}

  Expr run() {
    Expr x = ctx_.input(node_, 0), grid = ctx_.input(node_, 1);
    std::vector<PrimExpr> xs = ctx_.shape_of(node_, x, "GridSample");
    std::vector<PrimExpr> gs = ctx_.shape_of(node_, grid, "GridSample");
    RX_CHECK(xs.size() == 4) << ctx_.where(node_) << ": only 4-D inputs (N, C, H, W) are "
                             << "supported, got " << to_string(get_struct_info(x));
    RX_CHECK(gs.size() == 4 && tir::is_const_int(gs[3], 2))
        << ctx_.where(node_) << ": the grid must be (N, H_out, W_out, 2), got "
        << to_string(get_struct_info(grid));
    const int64_t* h = tir::as_const_int(xs[2]);
    const int64_t* w = tir::as_const_int(xs[3]);
    RX_CHECK(h && w) << ctx_.where(node_) << ": needs static spatial sizes, got "
                     << to_string(get_struct_info(x));
    height_ = *h;
    width_ = *w;
    dt_ = float_dtype(ctx_, node_, x);
    mode_ = attr_string(node_, "mode", "bilinear");
    RX_CHECK(mode_ == "bilinear" || mode_ == "nearest" || mode_ == "bicubic")
        << ctx_.where(node_) << ": mode '" << mode_ << "' is not one of bilinear, nearest, bicubic";
    padding_ = attr_string(node_, "padding_mode", "zeros");
    RX_CHECK(padding_ == "zeros" || padding_ == "border" || padding_ == "reflection")
        << ctx_.where(node_) << ": padding_mode '" << padding_
        << "' is not one of zeros, border, reflection";
    align_ = attr_int(node_, "align_corners", 0) != 0;
    out_ = {xs[0], xs[1], gs[1], gs[2]};
    flat_ = bb_.emit(op::reshape(x, std::vector<PrimExpr>{xs[0], xs[1], xs[2] * xs[3]}));
    if (ctx_.tensor(node_, grid).dtype != dt_) grid = bb_.emit(op::astype(grid, dt_));
    DataType i64 = DataType::Int(64);
    Expr ix = unnormalize(bb_.emit(op::take(grid, scalar_constant(0, i64), 3)), width_);
    Expr iy = unnormalize(bb_.emit(op::take(grid, scalar_constant(1, i64), 3)), height_);
    if (mode_ == "nearest") {
      return read(emit(op::round(pad(ix, width_))), emit(op::round(pad(iy, height_))));
    }
    if (mode_ == "bilinear") {
      ix = pad(ix, width_);
      iy = pad(iy, height_);
      Expr x0 = emit(op::floor(ix)), y0 = emit(op::floor(iy));
      Expr x1 = emit(op::add(x0, c(1))), y1 = emit(op::add(y0, c(1)));
      Expr wx1 = emit(op::subtract(ix, x0)), wy1 = emit(op::subtract(iy, y0));
      Expr wx0 = emit(op::subtract(c(1), wx1)), wy0 = emit(op::subtract(c(1), wy1));
      Expr acc;
      for (auto [xa, wxa] : {std::pair{x0, wx0}, std::pair{x1, wx1}}) {
        for (auto [ya, wya] : {std::pair{y0, wy0}, std::pair{y1, wy1}}) {
          acc = accumulate(acc, read(xa, ya), emit(op::multiply(wxa, wya)));
        }
      }
      return acc;
    }
    // Bicubic: 4 x 4 taps around floor(i), each padded on its own.
    Expr x0 = emit(op::floor(ix)), y0 = emit(op::floor(iy));
    std::vector<Expr> wx = cubic_weights(emit(op::subtract(ix, x0)));
    std::vector<Expr> wy = cubic_weights(emit(op::subtract(iy, y0)));
    Expr acc;
    for (int i = 0; i < 4; ++i) {
      Expr ya = emit(op::trunc(pad(emit(op::add(y0, c(i - 1))), height_)));
      for (int j = 0; j < 4; ++j) {
        Expr xa = emit(op::trunc(pad(emit(op::add(x0, c(j - 1))), width_)));
        acc = accumulate(acc, read(xa, ya), emit(op::multiply(wx[size_t(j)], wy[size_t(i)])));
      }
    }
    return acc;
  }

 private:
  Expr emit(const Expr& e) { return bb_.emit(e); }
  Expr c(double v) const { return scalar_constant(v, dt_); }

  Expr unnormalize(const Expr& g, int64_t size) {
    Expr g1 = emit(op::add(g, c(1)));
    if (align_) return emit(op::multiply(g1, c(double(size - 1) / 2)));
    return emit(
        op::divide(emit(op::subtract(emit(op::multiply(g1, c(double(size)))), c(1))), c(2)));
  }

  /// The padding mode applied to a source coordinate (zeros: unchanged).
  Expr pad(Expr v, int64_t size) {
    if (padding_ == "zeros") return v;
    if (padding_ == "reflection") {
      double lo2 = align_ ? 0 : -1, hi2 = align_ ? 2.0 * double(size - 1) : 2.0 * double(size) - 1;
      if (lo2 == hi2) {
        v = emit(op::zeros_like(v));
      } else {
        double lo = lo2 / 2, span = (hi2 - lo2) / 2;
        Expr a = emit(op::abs(emit(op::subtract(v, c(lo)))));
        Expr extra = emit(op::floor_mod(a, c(span)));
        Expr flips = emit(op::floor(emit(op::divide(a, c(span)))));
        Expr odd = emit(op::equal(emit(op::floor_mod(flips, c(2))), c(1)));
        v = emit(op::where(odd, emit(op::add(emit(op::subtract(c(span), extra)), c(lo))),
                           emit(op::add(extra, c(lo)))));
      }
    }
    return emit(op::clip(v, tir::float_imm(0, dt_), tir::float_imm(double(size - 1), dt_)));
  }

  /// X at integer-valued coordinates (N, Ho, Wo): (N, C, Ho, Wo), 0 outside the image.
  Expr read(const Expr& ix, const Expr& iy) {
    Expr valid = emit(
        op::logical_and(emit(op::logical_and(emit(op::greater_equal(ix, c(0))),
                                             emit(op::less_equal(ix, c(double(width_ - 1)))))),
                        emit(op::logical_and(emit(op::greater_equal(iy, c(0))),
                                             emit(op::less_equal(iy, c(double(height_ - 1))))))));
    Expr cx = emit(op::clip(ix, tir::float_imm(0, dt_), tir::float_imm(double(width_ - 1), dt_)));
    Expr cy = emit(op::clip(iy, tir::float_imm(0, dt_), tir::float_imm(double(height_ - 1), dt_)));
    Expr pos = emit(op::astype(emit(op::add(emit(op::multiply(cy, c(double(width_)))), cx)),
                               DataType::Int(64)));
    PrimExpr taps = out_[2] * out_[3];
    pos = emit(op::reshape(pos, std::vector<PrimExpr>{out_[0], tir::int_imm(1), taps}));
    pos = emit(op::broadcast_to(pos, {out_[0], out_[1], taps}));
    Expr v = emit(op::reshape(emit(op::gather_elements(flat_, pos, 2)), out_));
    Expr mask = emit(op::expand_dims(emit(op::astype(valid, dt_)), {1}));
    return emit(op::multiply(v, mask));
  }

  Expr accumulate(const Expr& acc, const Expr& value, const Expr& weight) {
    Expr term = emit(op::multiply(value, emit(op::expand_dims(weight, {1}))));
    return acc.defined() ? emit(op::add(acc, term)) : term;
  }

  /// The cubic convolution weights of taps -1, 0, 1, 2 at fraction t (A = -0.75).
  std::vector<Expr> cubic_weights(const Expr& t) {
    const double a = -0.75;
    auto near = [&](const Expr& x) {  // ((A + 2) x - (A + 3)) x^2 + 1
      Expr p = emit(op::subtract(emit(op::multiply(x, c(a + 2))), c(a + 3)));
      return emit(op::add(emit(op::multiply(emit(op::multiply(p, x)), x)), c(1)));
    };
    auto far = [&](const Expr& x) {  // ((A x - 5A) x + 8A) x - 4A
      Expr p = emit(op::subtract(emit(op::multiply(x, c(a))), c(5 * a)));
      Expr q = emit(op::add(emit(op::multiply(p, x)), c(8 * a)));
      return emit(op::subtract(emit(op::multiply(q, x)), c(4 * a)));
    };
    Expr one_minus = emit(op::subtract(c(1), t));
    return {far(emit(op::add(t, c(1)))), near(t), near(one_minus),
            far(emit(op::subtract(c(2), t)))};
  }

  Context& ctx_;
  const Node& node_;
  BlockBuilder& bb_;
  int64_t height_ = 0, width_ = 0;
  DataType dt_;
  std::string mode_, padding_;
  bool align_ = false;
  std::vector<PrimExpr> out_;
  Expr flat_;
};

std::vector<OnnxValue> convert_grid_sample(Context& ctx, const Node& node) {
  return {Context::tensor_value(ctx.emit(GridSampler(ctx, node).run(), node))};
}

// ---- MaxUnpool.

/// MaxUnpool: zeros of the output shape with X scattered to the positions I (MaxPool's
/// Indices, flat over the whole default-shaped tensor, whose spatial dims are
/// (in - 1) * stride + kernel - pads). With an output_shape input (possibly computed at run
/// time) the default tensor sits at the start of each axis of the larger output, as the ONNX
/// reference does: each index is unravelled against the default shape and ravelled again
/// against output_shape.
std::vector<OnnxValue> convert_max_unpool(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  Expr idx = ctx.input(node, 1);
  std::vector<PrimExpr> shape = ctx.shape_of(node, x, "MaxUnpool");
  RX_CHECK(shape.size() >= 3) << ctx.where(node) << ": the input must be (N, C, D1, ...), got "
                              << to_string(get_struct_info(x));
  size_t dims = shape.size() - 2;
  std::optional<std::vector<int64_t>> kernel = attr_ints(node, "kernel_shape");
  RX_CHECK(kernel && kernel->size() == dims)
      << ctx.where(node) << ": kernel_shape with " << dims << " values is required";
  std::vector<int64_t> strides = attr_ints(node, "strides").value_or(std::vector<int64_t>(dims, 1));
  std::vector<int64_t> pads = attr_ints(node, "pads").value_or(std::vector<int64_t>(2 * dims, 0));
  RX_CHECK(strides.size() == dims && pads.size() == 2 * dims)
      << ctx.where(node) << ": strides needs " << dims << " values and pads " << 2 * dims;
  std::vector<PrimExpr> def = {shape[0], shape[1]};
  for (size_t d = 0; d < dims; ++d) {
    def.push_back(
        arith::simplify((shape[2 + d] - 1) * strides[d] + (*kernel)[d] - pads[d] - pads[dims + d]));
  }
  BlockBuilder& bb = ctx.bb();
  DataType i64 = DataType::Int(64);
  PrimExpr count = tir::int_imm(1);
  for (const PrimExpr& d : shape) count = count * d;
  count = arith::simplify(count);
  Expr flat_x = bb.emit(op::reshape(x, std::vector<PrimExpr>{count}));
  Expr flat_i = bb.emit(op::reshape(idx, std::vector<PrimExpr>{count}));
  if (ctx.tensor(node, idx).dtype != i64) flat_i = bb.emit(op::astype(flat_i, i64));
  std::vector<PrimExpr> out = def;
  if (Context::has_input(node, 2)) {
    out = ctx.shape_ints(node, 2, "output_shape");
    RX_CHECK(out.size() == shape.size()) << ctx.where(node) << ": output_shape needs "
                                         << shape.size() << " values, got " << out.size();
    // Unravel against the default shape (static), ravel against output_shape (a tensor).
    Expr out_t = ctx.input(node, 2);
    if (ctx.tensor(node, out_t).dtype != i64) out_t = bb.emit(op::astype(out_t, i64));
    Expr rest = flat_i, pos, stride;
    for (size_t k = def.size(); k-- > 0;) {
      const int64_t* dk = tir::as_const_int(def[k]);
      RX_CHECK(dk) << ctx.where(node) << ": output_shape needs a static input shape, got "
                   << to_string(get_struct_info(x));
      Expr extent = scalar_constant(double(*dk), i64);
      Expr coord = bb.emit(op::floor_mod(rest, extent));
      rest = bb.emit(op::floor_divide(rest, extent));
      Expr term = stride.defined() ? bb.emit(op::multiply(coord, stride)) : coord;
      pos = pos.defined() ? bb.emit(op::add(pos, term)) : term;
      Expr dim = bb.emit(op::take(out_t, scalar_constant(double(k), i64), 0));
      stride = stride.defined() ? bb.emit(op::multiply(stride, dim)) : dim;
    }
    flat_i = pos;
  }
  PrimExpr total = tir::int_imm(1);
  for (const PrimExpr& d : out) total = total * d;
  DataType dt = ctx.tensor(node, x).dtype;
  Expr zeros = bb.emit(op::zeros({arith::simplify(total)}, dt));
  Expr y = bb.emit(op::scatter_elements(zeros, flat_i, flat_x, 0));
  return {Context::tensor_value(ctx.emit(op::reshape(y, out), node))};
}

}  // namespace

void register_image_ops(std::map<std::string, ConverterEntry>& t) {
  t["GridSample"] = {convert_grid_sample, 16};
  t["MaxUnpool"] = {convert_max_unpool, 9};
}

}  // namespace relax::onnx_frontend
