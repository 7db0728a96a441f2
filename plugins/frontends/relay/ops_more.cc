// Relay converters: where, gather / gather_nd, the scatter family, topk, sort, argsort,
// cumsum/cumprod, one_hot, the creation ops (zeros/ones/full and their _like, arange),
// einsum, image.resize2d and nn.upsampling.
//
// Relay's gather_nd and scatter_nd index with (M, Y...) tensors (the index tuple first); the
// Relax ops follow ONNX, (Y..., M), so the indices are transposed first.
#include "convert.h"
#include "relax/op/op.h"

namespace relax::relay_frontend {

namespace {

/// Relay's (M, Y...) index tensor as ONNX's (Y..., M).
Expr index_last(OpCall& c, size_t i) {
  int64_t nd = c.ndim(i);
  std::vector<int64_t> perm;
  for (int64_t k = 1; k < nd; ++k) perm.push_back(k);
  perm.push_back(0);
  return c.bb().emit(op::permute_dims(c.arg(i), perm));
}

PrimExpr prim(double v, DataType dt) {
  return dt.is_float() ? tir::float_imm(v, dt) : tir::int_imm(int64_t(v), dt);
}

std::vector<PrimExpr> shape_attr(OpCall& c) {
  std::optional<std::vector<int64_t>> s = c.attr_ints("shape");
  if (!s) c.fail("needs the attribute shape");
  return const_shape(*s);
}

Expr scatter_elements(OpCall& c, const std::string& reduction) {
  std::string r = reduction == "update" ? "none" : reduction;
  if (r == "mean") c.fail("reduction 'mean' is not supported");
  return op::scatter_elements(c.arg(0), c.arg(1), c.arg(2), c.axis(c.attr_int("axis", 0), c.ndim(0)), r);
}

Expr resize(OpCall& c, std::vector<PrimExpr> size, op::Resize2DOptions o) {
  if (o.method == "bilinear") o.method = "linear";
  if (o.method == "bicubic") o.method = "cubic";
  if (o.rounding_method.empty()) {
    o.rounding_method = o.coordinate_transformation_mode == "tf_half_pixel_for_nn" ? "round_prefer_ceil"
                        : o.coordinate_transformation_mode == "align_corners"   ? "round"
                                                                                : "floor";
  }
  return op::resize2d(c.arg(0), std::move(size), o);
}

}  // namespace

void register_more_ops(OpTable& t) {
  t["where"] = [](OpCall& c) { return op::where(c.arg(0), c.arg(1), c.arg(2)); };
  t["gather"] = [](OpCall& c) {
    return op::gather_elements(c.arg(0), c.arg(1), c.axis(c.attr_int("axis", 0), c.ndim(0)));
  };
  t["gather_nd"] = [](OpCall& c) {
    if (c.attr_int("batch_dims", 0) != 0) c.fail("batch_dims other than 0 is not supported");
    return op::gather_nd(c.arg(0), index_last(c, 1), 0);
  };
  t["scatter"] = [](OpCall& c) { return scatter_elements(c, "update"); };
  t["scatter_add"] = [](OpCall& c) { return scatter_elements(c, "add"); };
  t["scatter_elements"] = [](OpCall& c) { return scatter_elements(c, c.attr_str("reduction", "update")); };
  t["scatter_nd"] = [](OpCall& c) {
    std::string mode = c.attr_str("mode", "update");
    if (mode != "update" && mode != "add") c.fail("mode '" + mode + "' is not supported (update or add)");
    return op::scatter_nd(c.arg(0), index_last(c, 1), c.arg(2), mode == "update" ? "none" : "add");
  };
  t["topk"] = [](OpCall& c) {
    int64_t k = c.num_args() > 1 ? int64_t(c.scalar(1, "k")) : c.attr_int("k", 1);
    if (k < 1) c.fail("k = " + std::to_string(k) + " is not supported (k < 1 means all elements in TVM; give k)");
    return op::topk(c.arg(0), k, c.attr_int("axis", -1), c.attr_str("ret_type", "both"), !c.attr_bool("is_ascend", false),
                    c.attr_dtype("dtype", DataType::Int(32)));
  };
  t["sort"] = [](OpCall& c) { return op::sort(c.arg(0), c.attr_int("axis", -1), !c.attr_bool("is_ascend", true)); };
  t["argsort"] = [](OpCall& c) {
    return op::argsort(c.arg(0), c.attr_int("axis", -1), !c.attr_bool("is_ascend", true), c.attr_dtype("dtype", DataType::Int(32)));
  };
  t["cumsum"] = [](OpCall& c) {
    std::optional<int64_t> axis;
    if (c.has("axis")) axis = c.attr_int("axis", 0);
    return op::cumsum(c.arg(0), axis, c.attr_dtype("dtype", DataType::Void()), c.attr_bool("exclusive", false));
  };
  t["cumprod"] = [](OpCall& c) {
    std::optional<int64_t> axis;
    if (c.has("axis")) axis = c.attr_int("axis", 0);
    return op::cumprod(c.arg(0), axis, c.attr_dtype("dtype", DataType::Void()), c.attr_bool("exclusive", false));
  };
  t["one_hot"] = [](OpCall& c) {
    DataType dt = c.attr_dtype("dtype", c.dtype(1));
    Expr r = c.bb().emit(op::one_hot(c.arg(0), prim(c.scalar(1, "on_value"), dt), prim(c.scalar(2, "off_value"), dt),
                                     c.attr_int("depth", 1), c.attr_int("axis", -1)));
    return tensor_info(r) && tensor_info(r)->dtype == dt ? r : op::astype(r, dt);
  };
  t["zeros"] = [](OpCall& c) { return op::zeros(shape_attr(c), c.attr_dtype("dtype", DataType::Float(32))); };
  t["ones"] = [](OpCall& c) { return op::ones(shape_attr(c), c.attr_dtype("dtype", DataType::Float(32))); };
  t["full"] = [](OpCall& c) {
    return op::full(shape_attr(c), c.arg(0), c.attr_dtype("dtype", c.dtype(0)));
  };
  t["zeros_like"] = [](OpCall& c) { return op::zeros_like(c.arg(0)); };
  t["ones_like"] = [](OpCall& c) { return op::ones_like(c.arg(0)); };
  t["full_like"] = [](OpCall& c) { return op::full_like(c.arg(0), c.arg(1)); };
  t["arange"] = [](OpCall& c) {
    DataType dt = c.attr_dtype("dtype", DataType::Float(32));
    double start = c.scalar(0, "start");
    double stop = c.num_args() > 1 ? c.scalar(1, "stop") : start;
    double step = c.num_args() > 2 ? c.scalar(2, "step") : 1;
    if (c.num_args() == 1) start = 0;
    if (step == 0) c.fail("step must not be 0");
    return op::arange(prim(start, dt), prim(stop, dt), prim(step, dt), dt);
  };
  t["einsum"] = [](OpCall& c) { return op::einsum(c.tuple_fields(0), c.attr_str("equation", "")); };
  t["image.resize2d"] = [](OpCall& c) {
    op::Resize2DOptions o;
    std::optional<std::vector<int64_t>> size = c.attr_ints("size");
    if (!size) c.fail("needs the attribute size (a run-time size is not supported)");
    if (std::optional<std::vector<double>> roi = c.attr_floats("roi")) o.roi = *roi;
    o.layout = c.attr_str("layout", "NCHW");
    o.method = c.attr_str("method", "linear");
    o.coordinate_transformation_mode = c.attr_str("coordinate_transformation_mode", "half_pixel");
    o.rounding_method = c.attr_str("rounding_method", "round");
    o.cubic_alpha = c.attr_float("cubic_alpha", -0.5);
    o.cubic_exclude = c.attr_int("cubic_exclude", 0);
    o.extrapolation_value = c.attr_float("extrapolation_value", 0);
    o.out_dtype = c.attr_dtype("out_dtype", DataType::Void());
    return resize(c, const_shape(*size), o);
  };
  t["nn.upsampling"] = [](OpCall& c) {
    op::Resize2DOptions o;
    o.layout = c.attr_str("layout", "NCHW");
    size_t h = o.layout.find('H'), w = o.layout.find('W');
    if (h == std::string::npos || w == std::string::npos || o.layout.size() != 4) c.fail("layout '" + o.layout + "' is not a 4-d layout with H and W");
    std::vector<int64_t> s = c.static_shape(0, "upsampling");
    double sh = c.attr_float("scale_h", 1), sw = c.attr_float("scale_w", 1);
    o.method = c.attr_str("method", "nearest_neighbor");
    bool align = c.attr_bool("align_corners", false);
    o.coordinate_transformation_mode = align ? "align_corners" : o.method == "nearest_neighbor" ? "asymmetric" : "half_pixel";
    o.rounding_method = "";
    return resize(c, const_shape({int64_t(double(s[h]) * sh), int64_t(double(s[w]) * sw)}), o);
  };
}

}  // namespace relax::relay_frontend
