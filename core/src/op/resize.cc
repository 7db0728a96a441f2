// relax.image.resize2d(data, size): ONNX Resize over the two spatial axes of NCHW or NHWC data
// (TVM's attributes: roi, layout, method, coordinate_transformation_mode, rounding_method,
// cubic_alpha, cubic_exclude, extrapolation_value, out_dtype). `size` is a Shape argument
// with the output height and width (one value for both).
//
// Each output coordinate x maps to a source coordinate in float32 (float64 for float64 data),
// computed in this order so that a reference can reproduce it exactly (scale = in / out):
//   half_pixel            (x + 0.5) * scale - 0.5
//   pytorch_half_pixel    as half_pixel when out > 1, else 0
//   align_corners         x * ((in - 1) / (out - 1)) when out > 1, else 0
//   asymmetric            x * scale
//   tf_half_pixel_for_nn  (x + 0.5) * scale
//   tf_crop_and_resize    start * (in - 1) + x * ((end - start) * (in - 1) / (out - 1)) when
//                         out > 1, else 0.5 * (start + end) * (in - 1); roi = (start_h,
//                         start_w, end_h, end_w); a source outside [0, in - 1] gives
//                         extrapolation_value.
// nearest_neighbor rounds the source coordinate (round: half away from zero; floor; ceil;
// round_prefer_floor: ceil(c - 0.5); round_prefer_ceil: floor(c + 0.5)) and clamps it to the
// input. linear interpolates between floor(c) and floor(c) + 1, cubic over floor(c) - 1 ..
// floor(c) + 2 with the Keys kernel of parameter cubic_alpha; taps are clamped to the edge,
// or with cubic_exclude dropped and the remaining weights renormalised.
#include <algorithm>
#include <cmath>

#include "infer_utils.h"
#include "legalize_utils.h"
#include "relax/op/nn.h"
#include "relax/support/diagnostic.h"

namespace relax {
namespace op_detail {

namespace {

const std::vector<std::string> kMethods = {"nearest_neighbor", "linear", "cubic"};
const std::vector<std::string> kModes = {"half_pixel",           "align_corners",
                                         "asymmetric",           "pytorch_half_pixel",
                                         "tf_half_pixel_for_nn", "tf_crop_and_resize"};
const std::vector<std::string> kRoundings = {"round", "floor", "ceil", "round_prefer_floor",
                                             "round_prefer_ceil"};

std::string one_of(const Call& call, const std::string& key, const std::string& dflt,
                   const std::vector<std::string>& valid) {
  std::string v = get_string(call.attrs, key, dflt);
  if (std::find(valid.begin(), valid.end(), v) != valid.end()) return v;
  std::string list;
  for (const auto& s : valid) list += (list.empty() ? "" : ", ") + s;
  RX_THROW() << op_name(call) << ": " << key << " '" << v << "' is not supported; expected one of "
             << list;
  return v;
}

struct ResizeAttrs {
  bool nhwc = false;
  std::string method, mode, rounding;
  std::vector<double> roi{0, 0, 0, 0};
  double cubic_alpha = -0.5;
  bool cubic_exclude = false;
  double extrapolation = 0;
};

ResizeAttrs resize_attrs(const Call& call) {
  ResizeAttrs a;
  std::string layout = get_string(call.attrs, "layout", "NCHW");
  RX_CHECK(layout == "NCHW" || layout == "NHWC")
      << "relax.image.resize2d: layout '" << layout << "' is not supported; expected NCHW or NHWC";
  a.nhwc = layout == "NHWC";
  a.method = one_of(call, "method", "linear", kMethods);
  a.mode = one_of(call, "coordinate_transformation_mode", "half_pixel", kModes);
  a.rounding = one_of(call, "rounding_method", "round", kRoundings);
  if (const AttrValue* v = call.attrs.defined() ? call.attrs->find("roi") : nullptr) {
    if (auto* d = std::get_if<std::vector<double>>(v)) a.roi = *d;
    if (auto* i = std::get_if<std::vector<int64_t>>(v)) a.roi.assign(i->begin(), i->end());
  }
  RX_CHECK(a.roi.size() == 4) << "relax.image.resize2d: 'roi' takes 4 values (start_h, start_w, "
                                 "end_h, end_w), got "
                              << a.roi.size();
  a.cubic_alpha = get_float(call.attrs, "cubic_alpha", -0.5);
  a.cubic_exclude = get_int(call.attrs, "cubic_exclude", 0) != 0;
  a.extrapolation = get_float(call.attrs, "extrapolation_value", 0.0);
  return a;
}

/// The output height and width from the `size` argument (one value means both), or nullopt.
std::optional<std::vector<PrimExpr>> size_arg(const Call& call) {
  int ndim = -1;
  auto* ss = get_struct_info(call.args[1]).as<ShapeStructInfo>();
  RX_CHECK(ss != nullptr) << "relax.image.resize2d: 'size' should be a shape, got "
                          << to_string(get_struct_info(call.args[1]));
  auto values = shape_values(call.args[1], &ndim);
  RX_CHECK(ndim < 0 || ndim == 1 || ndim == 2)
      << "relax.image.resize2d: 'size' takes 1 or 2 values (height, width), got " << ndim;
  if (!values) return std::nullopt;
  if (values->size() == 1) values->push_back((*values)[0]);
  return values;
}

StructInfo infer_resize2d(const Call& call, BlockBuilder& ctx) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  ResizeAttrs a = resize_attrs(call);
  RX_CHECK(x.dtype.is_void() || x.dtype.is_float() || x.dtype.is_int() || x.dtype.is_uint())
      << "relax.image.resize2d: needs a numeric tensor, got " << x.dtype.to_string();
  RX_CHECK(a.method == "nearest_neighbor" || x.dtype.is_void() || x.dtype.is_float())
      << "relax.image.resize2d: method '" << a.method << "' needs floating-point data, got "
      << x.dtype.to_string();
  DataType dtype = get_dtype(call.attrs, "out_dtype", DataType::Void());
  if (dtype.is_void()) dtype = x.dtype;
  RX_CHECK(x.ndim < 0 || x.ndim == 4) << "relax.image.resize2d: data should have rank 4 ("
                                      << (a.nhwc ? "NHWC" : "NCHW") << "), got rank " << x.ndim;
  auto size = size_arg(call);
  if (size) {
    for (const PrimExpr& s : *size) {
      RX_CHECK(!ctx.analyzer().can_prove(tir::le(s, tir::int_imm(0))))
          << "relax.image.resize2d: output size " << tir::to_string(s) << " is not positive";
    }
  }
  if (!x.shape || !size) return tensor_sinfo(dtype, 4, x.vdevice);
  const auto& xs = *x.shape;
  std::vector<PrimExpr> out = a.nhwc ? std::vector<PrimExpr>{xs[0], (*size)[0], (*size)[1], xs[3]}
                                     : std::vector<PrimExpr>{xs[0], xs[1], (*size)[0], (*size)[1]};
  return tensor_sinfo(out, dtype, x.vdevice);
}

/// The source coordinate of output index `x` along a dim of extents in -> out.
PrimExpr source_coord(const ResizeAttrs& a, int dim, PrimExpr x, PrimExpr in, PrimExpr out,
                      DataType ct) {
  PrimExpr fx = tir::cast(ct, x), fin = tir::cast(ct, in), fout = tir::cast(ct, out);
  auto c = [&](double v) { return const_of(v, ct); };
  PrimExpr scale = tir::truncdiv(fin, fout);
  PrimExpr more_than_one = tir::gt(out, tir::int_imm(1));
  if (a.mode == "half_pixel") return (fx + c(0.5)) * scale - c(0.5);
  if (a.mode == "pytorch_half_pixel")
    return tir::select(more_than_one, (fx + c(0.5)) * scale - c(0.5), c(0));
  if (a.mode == "align_corners") {
    // max(out - 1, 1) keeps the unselected arm finite.
    PrimExpr step = tir::truncdiv(fin - c(1), tir::max(fout - c(1), c(1)));
    return tir::select(more_than_one, fx * step, c(0));
  }
  if (a.mode == "asymmetric") return fx * scale;
  if (a.mode == "tf_half_pixel_for_nn") return (fx + c(0.5)) * scale;
  double start = a.roi[size_t(dim)], end = a.roi[size_t(dim) + 2];
  PrimExpr step = tir::truncdiv(c(end - start) * (fin - c(1)), tir::max(fout - c(1), c(1)));
  return tir::select(more_than_one, c(start) * (fin - c(1)) + fx * step,
                     c(0.5 * (start + end)) * (fin - c(1)));
}

PrimExpr round_coord(const std::string& rounding, PrimExpr v) {
  DataType t = v->dtype;
  PrimExpr half = const_of(0.5, t);
  if (rounding == "floor") return tir::floor(v);
  if (rounding == "ceil") return tir::ceil(v);
  if (rounding == "round_prefer_floor") return tir::ceil(v - half);
  if (rounding == "round_prefer_ceil") return tir::floor(v + half);
  return tir::select(tir::ge(v, const_of(0, t)), tir::floor(v + half), tir::ceil(v - half));
}

PrimExpr in_range_of(const PrimExpr& i, const PrimExpr& extent) {
  return tir::logical_and(tir::ge(i, tir::int_imm(0)), tir::lt(i, extent));
}

PrimExpr clamp_index(PrimExpr i, PrimExpr extent) {
  return tir::min(tir::max(i, tir::int_imm(0)), extent - 1);
}

/// Keys' cubic kernel weights for the taps at offsets -1, 0, 1, 2 of fraction t.
std::vector<PrimExpr> cubic_weights(PrimExpr t, double alpha) {
  DataType ty = t->dtype;
  auto c = [&](double v) { return const_of(v, ty); };
  PrimExpr t2 = t * t, t3 = t2 * t, a = c(alpha);
  return {a * (t3 - c(2) * t2 + t), (a + c(2)) * t3 - (a + c(3)) * t2 + c(1),
          -(a + c(2)) * t3 + (c(2) * a + c(3)) * t2 - a * t, -a * t3 + a * t2};
}

Expr legalize_resize2d(BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& out = legal_out(call);
  legal_arg(call, 0);
  ResizeAttrs a = resize_attrs(call);
  size_t hd = a.nhwc ? 1 : 2;
  return te::call_te(
      bb, {call.args[0]},
      [&](const std::vector<te::Tensor>& args) {
        const te::Tensor& x = args[0];
        DataType t = x.dtype();
        DataType ct = t == DataType::Float(64) ? t : DataType::Float(32);
        DataType ot = out.dtype;
        return te::compute(
            *out.shape,
            [&](const std::vector<PrimExpr>& i) {
              PrimExpr inside = tir::bool_imm(true);
              PrimExpr coord[2];
              for (int d = 0; d < 2; ++d) {
                const PrimExpr& in = x.shape()[hd + size_t(d)];
                coord[d] =
                    source_coord(a, d, i[hd + size_t(d)], in, (*out.shape)[hd + size_t(d)], ct);
                inside = tir::logical_and(
                    inside, tir::logical_and(tir::ge(coord[d], const_of(0, ct)),
                                             tir::le(coord[d], tir::cast(ct, in - 1))));
              }
              auto load = [&](PrimExpr y, PrimExpr xx) {
                std::vector<PrimExpr> idx = i;
                idx[hd] = y;
                idx[hd + 1] = xx;
                return x(idx);
              };
              PrimExpr v;
              if (a.method == "nearest_neighbor") {
                PrimExpr at[2];
                for (int d = 0; d < 2; ++d) {
                  at[d] =
                      clamp_index(tir::cast(DataType::Int(64), round_coord(a.rounding, coord[d])),
                                  x.shape()[hd + size_t(d)]);
                }
                v = tir::cast(ot, load(at[0], at[1]));
              } else {
                // Taps and weights per dim: 2 (linear) or 4 (cubic) around floor(coord).
                std::vector<PrimExpr> taps[2], weights[2];
                for (int d = 0; d < 2; ++d) {
                  const PrimExpr& in = x.shape()[hd + size_t(d)];
                  PrimExpr fl = tir::floor(coord[d]);
                  PrimExpr frac = coord[d] - fl;
                  PrimExpr base = tir::cast(DataType::Int(64), fl);
                  if (a.method == "linear") {
                    taps[d] = {base, base + 1};
                    weights[d] = {const_of(1, ct) - frac, frac};
                  } else {
                    taps[d] = {base - 1, base, base + 1, base + 2};
                    weights[d] = cubic_weights(frac, a.cubic_alpha);
                  }
                  if (a.method == "cubic" && a.cubic_exclude) {
                    PrimExpr total = const_of(0, ct);
                    for (size_t k = 0; k < 4; ++k) {
                      weights[d][k] =
                          tir::select(in_range_of(taps[d][k], in), weights[d][k], const_of(0, ct));
                      total = total + weights[d][k];
                    }
                    for (auto& w : weights[d]) w = tir::truncdiv(w, total);
                  }
                  for (auto& tp : taps[d]) tp = clamp_index(tp, in);
                }
                PrimExpr acc = const_of(0, ct);
                for (size_t p = 0; p < taps[0].size(); ++p) {
                  PrimExpr row = const_of(0, ct);
                  for (size_t q = 0; q < taps[1].size(); ++q)
                    row = row + weights[1][q] * tir::cast(ct, load(taps[0][p], taps[1][q]));
                  acc = acc + weights[0][p] * row;
                }
                v = tir::cast(ot, acc);
              }
              if (a.mode == "tf_crop_and_resize")
                v = tir::select(inside, v, const_of(a.extrapolation, ot));
              return v;
            },
            "resize2d");
      },
      "resize2d");
}

}  // namespace

void register_resize_ops(OpRegistry& reg) {
  using K = AttrSpec::Kind;
  OpInfo& op = reg.register_op("relax.image.resize2d");
  op.summary = "ONNX Resize of the spatial axes of NCHW / NHWC data to `size`.";
  op.arg_names = {"data", "size"};
  op.attrs = {
      {"roi", K::kFloats, std::vector<double>{0, 0, 0, 0}, false,
       "(start_h, start_w, end_h, end_w), for tf_crop_and_resize"},
      {"layout", K::kString, std::string("NCHW"), false, "NCHW or NHWC"},
      {"method", K::kString, std::string("linear"), false, "nearest_neighbor, linear or cubic"},
      {"coordinate_transformation_mode", K::kString, std::string("half_pixel"), false,
       "how output coordinates map to the input"},
      {"rounding_method", K::kString, std::string("round"), false, "nearest_neighbor rounding"},
      {"cubic_alpha", K::kFloat, -0.5, false, "the cubic kernel's parameter (ONNX: -0.75)"},
      {"cubic_exclude", K::kInt, int64_t(0), false, "drop taps outside the input"},
      {"extrapolation_value", K::kFloat, 0.0, false, "tf_crop_and_resize: outside the input"},
      {"out_dtype", K::kDType, std::monostate{}, true, "result dtype"}};
  op.infer = infer_resize2d;
  op.pattern = OpPattern::kInjective;
  op.legalize = legalize_resize2d;
}

}  // namespace op_detail

namespace op {
Expr resize2d(Expr data, std::vector<PrimExpr> size, const Resize2DOptions& o) {
  std::vector<std::pair<std::string, AttrValue>> f = {
      {"roi", o.roi},
      {"layout", o.layout},
      {"method", o.method},
      {"coordinate_transformation_mode", o.coordinate_transformation_mode},
      {"rounding_method", o.rounding_method},
      {"cubic_alpha", o.cubic_alpha},
      {"cubic_exclude", o.cubic_exclude},
      {"extrapolation_value", o.extrapolation_value}};
  if (!o.out_dtype.is_void()) f.emplace_back("out_dtype", o.out_dtype);
  return call_op("relax.image.resize2d", {std::move(data), make_shape(std::move(size))},
                 make_attrs(std::move(f)));
}
}  // namespace op
}  // namespace relax
