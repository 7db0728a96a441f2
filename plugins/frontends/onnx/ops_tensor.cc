// ONNX converters: constants, casts, shapes and data movement.
//
// The shape-computation ops (Shape, Size, Gather, Unsqueeze, Squeeze, Concat, Slice, Cast,
// Identity) fold when their inputs are known at import time, so `Reshape(x, Concat(...
// Gather(Shape(x), 0) ...))` becomes a reshape to symbolic dims with no run-time work.
// Per-version differences handled here: Unsqueeze/Squeeze/Split take axes/split as attributes
// before opset 13 and as inputs from 13; Slice takes attributes before opset 10; Pad takes
// attributes before opset 11; Reshape's `allowzero` (opset 14); Shape's start/end (opset 15).
// Shape-valued inputs known only at run time (Reshape, Expand, ConstantOfShape, Tile, Range)
// become symbolic dims bound at run time (Context::shape_ints, importer.h); Pad's
// constant_value may be a run-time scalar.
#include <cstring>
#include <filesystem>

#include "importer.h"
#include "relax/arith/analyzer.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"

namespace relax::onnx_frontend {

namespace {

using Node = onnx::NodeProto;

std::vector<OnnxValue> convert_constant(Context& ctx, const Node& node) {
  RX_CHECK(node.attribute_size() == 1)
      << ctx.where(node) << ": exactly one value attribute expected, got " << node.attribute_size();
  const onnx::AttributeProto& a = node.attribute(0);
  runtime::NDArray data;
  if (a.name() == "value") {
    data = tensor_from_proto(a.t(), ctx.where(node),
                             std::filesystem::path(ctx.file()).parent_path().string());
  } else if (a.name() == "value_float" || a.name() == "value_int") {
    bool f = a.name() == "value_float";
    data = runtime::NDArray::empty({}, f ? DataType::Float(32) : DataType::Int(64));
    if (f) *data.data_as<float>() = a.f();
    else *data.data_as<int64_t>() = a.i();
  } else if (a.name() == "value_floats") {
    data = runtime::NDArray::empty({int64_t(a.floats_size())}, DataType::Float(32));
    std::copy(a.floats().begin(), a.floats().end(), data.data_as<float>());
  } else if (a.name() == "value_ints") {
    data = runtime::NDArray::empty({int64_t(a.ints_size())}, DataType::Int(64));
    std::copy(a.ints().begin(), a.ints().end(), data.data_as<int64_t>());
  } else {
    RX_THROW() << ctx.where(node) << ": the " << a.name() << " attribute is not supported";
  }
  OnnxValue v = Context::tensor_value(make_constant(data));
  attach_known(v, data);
  return {v};
}

std::vector<OnnxValue> convert_identity(Context& ctx, const Node& node) {
  return {ctx.value(node.input(0))};
}

std::vector<OnnxValue> convert_cast(Context& ctx, const Node& node) {
  const auto* to = find_attr(node, "to");
  RX_CHECK(to) << ctx.where(node) << ": the 'to' attribute is required";
  DataType dt = dtype_of(int32_t(to->i()), ctx.where(node));
  const OnnxValue& in = ctx.value(node.input(0));
  if (in.known && dt.is_integer_like() && !dt.is_bool()) {
    return {Context::folded(*in.known, in.known_scalar, dt)};
  }
  Expr x = ctx.input(node, 0);
  if (ctx.tensor(node, x).dtype == dt) return {Context::tensor_value(x)};
  return {Context::tensor_value(ctx.emit(op::astype(x, dt), node))};
}

std::vector<OnnxValue> convert_shape(Context& ctx, const Node& node) {
  std::vector<PrimExpr> shape = ctx.shape_of(node, ctx.input(node, 0), "Shape");
  int64_t rank = int64_t(shape.size());
  int64_t start = attr_int(node, "start", 0), end = attr_int(node, "end", rank);
  auto clamp = [rank](int64_t v) { return std::clamp(v < 0 ? v + rank : v, int64_t(0), rank); };
  start = clamp(start);
  end = clamp(end);
  std::vector<PrimExpr> dims;
  for (int64_t i = start; i < end; ++i) dims.push_back(shape[size_t(i)]);
  return {Context::folded(dims, false)};
}

std::vector<OnnxValue> convert_size(Context& ctx, const Node& node) {
  PrimExpr n = tir::int_imm(1);
  for (const PrimExpr& d : ctx.shape_of(node, ctx.input(node, 0), "Size")) n = n * d;
  return {Context::folded({n}, true)};
}

/// A constant int64 tensor of rank 1.
Expr int64_vector(const std::vector<int64_t>& v) {
  runtime::NDArray a = runtime::NDArray::empty({int64_t(v.size())}, DataType::Int(64));
  std::copy(v.begin(), v.end(), a.data_as<int64_t>());
  return make_constant(a);
}

/// Reshape to a target computed at run time. Its 0 and -1 entries are resolved on the tensor
/// (0 copies the input's dim unless allowzero; -1 is total / product of the others), then
/// tensor_to_shape + match_cast name the dims, and a second match_cast checks at run time
/// that their product is the input's element count (a kernel must never read out of bounds).
/// Needs the input's shape to be static.
Expr runtime_reshape(Context& ctx, const Node& node, const Expr& x) {
  std::vector<PrimExpr> in = ctx.shape_of(node, x, "Reshape to a shape computed at run time");
  std::vector<int64_t> dims;
  for (const PrimExpr& d : in) {
    const int64_t* c = tir::as_const_int(d);
    RX_CHECK(c) << ctx.where(node) << ": the target shape (input '" << node.input(1)
                << "') is computed at run time; that needs the input's shape to be static, got "
                << to_string(get_struct_info(x));
    dims.push_back(*c);
  }
  int64_t total = 1;
  for (int64_t d : dims) total *= d;
  Expr s = ctx.input(node, 1);
  const TensorStructInfo& st = ctx.tensor(node, s);
  const int64_t* len = st.ndim == 1 && st.shape ? tir::as_const_int((*st.shape)[0]) : nullptr;
  RX_CHECK(len && st.dtype == DataType::Int(64))
      << ctx.where(node) << ": the target shape (input '" << node.input(1)
      << "') must be an int64 tensor of rank 1 and static length, got "
      << to_string(get_struct_info(s));
  BlockBuilder& bb = ctx.bb();
  auto i64 = [](int64_t v) { return scalar_constant(double(v), DataType::Int(64)); };
  if (attr_int(node, "allowzero", 0) == 0) {
    std::vector<int64_t> copy(size_t(*len), 0);  // 0 beyond the input's rank stays 0
    for (size_t i = 0; i < copy.size() && i < dims.size(); ++i) copy[i] = dims[i];
    s = bb.emit(op::where(bb.emit(op::equal(s, i64(0))), int64_vector(copy), s));
  }
  Expr inferred = bb.emit(op::equal(s, i64(-1)));
  Expr known_product = bb.emit(op::prod(bb.emit(op::where(inferred, i64(1), s))));
  Expr rest = bb.emit(op::floor_divide(i64(total), bb.emit(op::maximum(known_product, i64(1)))));
  s = bb.emit(op::where(inferred, rest, s));
  std::string name = binding_name(node.output(0));
  std::vector<PrimExpr> target = ctx.runtime_shape(s, name);
  // Check the element count: match (dims..., product) against (fresh dims..., total).
  PrimExpr product = tir::int_imm(1);
  std::vector<PrimExpr> values = target, pattern;
  for (const PrimExpr& d : target) product = product * d;
  values.push_back(product);
  for (size_t k = 0; k < target.size(); ++k)
    pattern.push_back(tir::var(name + "_d" + std::to_string(k)));
  std::vector<PrimExpr> out = pattern;
  pattern.push_back(tir::int_imm(total));
  bb.emit_match_cast(make_shape(values), shape_sinfo(pattern), name + "_checked");
  return op::reshape(x, out);
}

/// The target dims of a reshape: 0 copies the input dim (unless allowzero), -1 is inferred.
std::vector<OnnxValue> convert_reshape(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  std::vector<PrimExpr> target;
  if (ctx.opset() < 5) {
    for (int64_t d : attr_ints(node, "shape").value_or(std::vector<int64_t>{})) target.push_back(tir::int_imm(d));
  } else if (auto known = ctx.known_ints(node, 1)) {
    target = *known;
  } else {
    RX_CHECK(Context::has_input(node, 1))
        << ctx.where(node) << ": Reshape (opset 5 and later) needs its shape input (input 1)";
    return {Context::tensor_value(ctx.emit(runtime_reshape(ctx, node, x), node))};
  }
  bool allowzero = attr_int(node, "allowzero", 0) != 0;
  const TensorStructInfo& t = ctx.tensor(node, x);
  int infer = -1;
  for (size_t i = 0; i < target.size(); ++i) {
    const int64_t* c = tir::as_const_int(target[i]);
    if (c && *c == 0 && !allowzero) {
      RX_CHECK(t.shape && i < t.shape->size())
          << ctx.where(node) << ": dim " << i << " copies the input's, which is unknown";
      target[i] = (*t.shape)[i];
    } else if (c && *c == -1) {
      RX_CHECK(infer < 0) << ctx.where(node) << ": more than one dim of the target shape is -1";
      infer = int(i);
    }
  }
  if (infer >= 0 && t.shape) {
    PrimExpr total = tir::int_imm(1), rest = tir::int_imm(1);
    for (const PrimExpr& d : *t.shape) total = total * d;
    for (size_t i = 0; i < target.size(); ++i) {
      if (int(i) != infer) rest = rest * target[i];
    }
    target[size_t(infer)] = arith::simplify(tir::floordiv(total, rest));
  }
  if (!t.shape && infer >= 0) {
    return {Context::tensor_value(ctx.emit(op::reshape(x, target), node))};
  }
  for (PrimExpr& d : target) d = arith::simplify(d);
  return {Context::tensor_value(ctx.emit(op::reshape(x, target), node))};
}

std::vector<OnnxValue> convert_flatten(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  std::vector<PrimExpr> shape = ctx.shape_of(node, x, "Flatten");
  int64_t rank = int64_t(shape.size());
  int64_t axis = attr_int(node, "axis", 1);
  if (axis < 0) axis += rank;
  RX_CHECK(axis >= 0 && axis <= rank) << ctx.where(node) << ": axis " << attr_int(node, "axis", 1)
                                      << " is out of range for rank " << rank;
  PrimExpr outer = tir::int_imm(1), inner = tir::int_imm(1);
  for (int64_t i = 0; i < rank; ++i) {
    if (i < axis) outer = outer * shape[size_t(i)];
    else inner = inner * shape[size_t(i)];
  }
  return {Context::tensor_value(ctx.emit(
      op::reshape(x, std::vector<PrimExpr>{arith::simplify(outer), arith::simplify(inner)}), node))};
}

std::vector<OnnxValue> convert_transpose(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  std::optional<std::vector<int64_t>> perm = attr_ints(node, "perm");
  if (perm && perm->empty()) perm.reset();
  return {Context::tensor_value(ctx.emit(op::permute_dims(x, perm), node))};
}

std::vector<OnnxValue> convert_concat(Context& ctx, const Node& node) {
  const auto* axis_attr = find_attr(node, "axis");
  RX_CHECK(axis_attr || ctx.opset() < 4) << ctx.where(node) << ": the 'axis' attribute is required";
  int64_t axis = axis_attr ? axis_attr->i() : 1;
  // Fold rank-1 known values (shape vectors).
  bool all_known = true;
  std::vector<PrimExpr> joined;
  DataType dt = DataType::Int(64);
  for (int i = 0; i < node.input_size(); ++i) {
    if (!Context::has_input(node, i)) continue;
    const OnnxValue& v = ctx.value(node.input(i));
    if (!v.known || v.known_scalar) {
      all_known = false;
      break;
    }
    dt = v.known_dtype;
    joined.insert(joined.end(), v.known->begin(), v.known->end());
  }
  if (all_known && (axis == 0 || axis == -1)) return {Context::folded(joined, false, dt)};
  std::vector<Expr> parts;
  for (int i = 0; i < node.input_size(); ++i) {
    if (Context::has_input(node, i)) parts.push_back(ctx.input(node, i));
  }
  return {Context::tensor_value(ctx.emit(op::concat(parts, axis), node))};
}

std::vector<OnnxValue> convert_split(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  int64_t rank = ctx.ndim(node, x);
  int64_t axis = normalize_axis(attr_int(node, "axis", 0), rank, ctx.where(node));
  std::optional<std::vector<int64_t>> sizes;
  if (ctx.opset() < 13) {
    sizes = attr_ints(node, "split");
    if (sizes && sizes->empty()) sizes.reset();
  } else if (Context::has_input(node, 1)) {
    sizes = ctx.const_ints(node, 1, "split");
  }
  int outputs = node.output_size();
  Expr parts;
  if (sizes) {
    RX_CHECK(int(sizes->size()) == outputs) << ctx.where(node) << ": split has " << sizes->size()
                                            << " sizes for " << outputs << " outputs";
    std::vector<int64_t> indices;
    int64_t at = 0;
    for (size_t i = 0; i + 1 < sizes->size(); ++i) indices.push_back(at += (*sizes)[i]);
    parts = ctx.bb().emit(op::split(x, indices, axis));
  } else {
    parts = ctx.bb().emit(op::split(x, int64_t(outputs), axis));
  }
  std::vector<OnnxValue> outs;
  for (int i = 0; i < outputs; ++i) {
    outs.push_back(Context::tensor_value(ctx.emit(make_ref<TupleGetItem>(parts, i), node, i)));
  }
  return outs;
}

std::vector<OnnxValue> convert_slice(Context& ctx, const Node& node) {
  std::vector<int64_t> starts, ends, axes, steps;
  if (ctx.opset() < 10) {
    starts = attr_ints(node, "starts").value_or(std::vector<int64_t>{});
    ends = attr_ints(node, "ends").value_or(std::vector<int64_t>{});
    axes = attr_ints(node, "axes").value_or(std::vector<int64_t>{});
  } else {
    starts = ctx.const_ints(node, 1, "starts");
    ends = ctx.const_ints(node, 2, "ends");
    if (Context::has_input(node, 3)) axes = ctx.const_ints(node, 3, "axes");
    if (Context::has_input(node, 4)) steps = ctx.const_ints(node, 4, "steps");
  }
  RX_CHECK(starts.size() == ends.size()) << ctx.where(node) << ": starts has " << starts.size()
                                         << " values but ends " << ends.size();
  if (axes.empty()) {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(int64_t(i));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  RX_CHECK(axes.size() == starts.size() && steps.size() == starts.size())
      << ctx.where(node) << ": starts, ends, axes and steps must have the same length";
  for (int64_t s : steps) RX_CHECK(s != 0) << ctx.where(node) << ": a step is 0";

  const OnnxValue& in = ctx.value(node.input(0));
  if (in.known && !in.known_scalar && axes.size() == 1 && (axes[0] == 0 || axes[0] == -1)) {
    // Python slicing of a known vector.
    int64_t n = int64_t(in.known->size()), step = steps[0];
    auto clamp_index = [&](int64_t v) {
      if (v < 0) v += n;
      if (step > 0) return std::clamp(v, int64_t(0), n);
      return std::clamp(v, int64_t(-1), n - 1);
    };
    int64_t b = clamp_index(starts[0]), e = clamp_index(ends[0]);
    std::vector<PrimExpr> out;
    for (int64_t i = b; step > 0 ? i < e : i > e; i += step) out.push_back((*in.known)[size_t(i)]);
    return {Context::folded(out, false, in.known_dtype)};
  }
  Expr x = ctx.input(node, 0);
  return {Context::tensor_value(ctx.emit(op::strided_slice(x, axes, starts, ends, steps), node))};
}

std::vector<OnnxValue> convert_gather(Context& ctx, const Node& node) {
  RX_CHECK(Context::has_input(node, 0) && Context::has_input(node, 1))
      << ctx.where(node) << ": Gather needs its data and indices (inputs 0 and 1)";
  const OnnxValue& data = ctx.value(node.input(0));
  int64_t axis = attr_int(node, "axis", 0);
  std::optional<std::vector<PrimExpr>> idx = ctx.known_ints(node, 1);
  const OnnxValue& indices = ctx.value(node.input(1));
  if (data.known && !data.known_scalar && idx && (axis == 0 || axis == -1)) {
    int64_t n = int64_t(data.known->size());
    std::vector<PrimExpr> out;
    for (const PrimExpr& e : *idx) {
      const int64_t* c = tir::as_const_int(e);
      RX_CHECK(c) << ctx.where(node) << ": a symbolic index into a shape is not supported";
      int64_t k = *c < 0 ? *c + n : *c;
      RX_CHECK(k >= 0 && k < n) << ctx.where(node) << ": index " << *c
                                << " is out of range for a dimension of size " << n;
      out.push_back((*data.known)[size_t(k)]);
    }
    return {Context::folded(out, indices.known_scalar, data.known_dtype)};
  }
  Expr x = ctx.input(node, 0);
  int64_t rank = ctx.ndim(node, x);
  axis = normalize_axis(axis, rank, ctx.where(node));
  // The indices are checked to lie in [-d, d) (index_checks.cc); take's "fast" mode then
  // counts the negative ones from the end.
  Expr ind = checked_indices(ctx, node, 1, x, axis);
  return {Context::tensor_value(ctx.emit(op::take(x, ind, axis, "fast"), node))};
}

std::vector<int64_t> axes_of(Context& ctx, const Node& node, bool required) {
  if (ctx.opset() < 13) {
    std::optional<std::vector<int64_t>> a = attr_ints(node, "axes");
    RX_CHECK(a || !required) << ctx.where(node) << ": the 'axes' attribute is required";
    return a.value_or(std::vector<int64_t>{});
  }
  if (!Context::has_input(node, 1)) {
    RX_CHECK(!required) << ctx.where(node) << ": the axes input is required";
    return {};
  }
  return ctx.const_ints(node, 1, "axes");
}

std::vector<OnnxValue> convert_unsqueeze(Context& ctx, const Node& node) {
  std::vector<int64_t> axes = axes_of(ctx, node, true);
  const OnnxValue& in = ctx.value(node.input(0));
  if (in.known && in.known_scalar && axes.size() == 1 && (axes[0] == 0 || axes[0] == -1)) {
    return {Context::folded(*in.known, false, in.known_dtype)};
  }
  Expr x = ctx.input(node, 0);
  int64_t out_rank = ctx.ndim(node, x) + int64_t(axes.size());
  for (int64_t& a : axes) a = normalize_axis(a, out_rank, ctx.where(node));
  std::sort(axes.begin(), axes.end());
  return {Context::tensor_value(ctx.emit(op::expand_dims(x, axes), node))};
}

std::vector<OnnxValue> convert_squeeze(Context& ctx, const Node& node) {
  std::vector<int64_t> axes = axes_of(ctx, node, false);
  const OnnxValue& in = ctx.value(node.input(0));
  if (in.known && !in.known_scalar && in.known->size() == 1 &&
      (axes.empty() || (axes.size() == 1 && (axes[0] == 0 || axes[0] == -1)))) {
    return {Context::folded(*in.known, true, in.known_dtype)};
  }
  Expr x = ctx.input(node, 0);
  std::optional<std::vector<int64_t>> ax;
  if (!axes.empty()) {
    int64_t rank = ctx.ndim(node, x);
    for (int64_t& a : axes) a = normalize_axis(a, rank, ctx.where(node));
    ax = axes;
  }
  return {Context::tensor_value(ctx.emit(op::squeeze(x, ax), node))};
}

bool product_is_one(const std::vector<PrimExpr>& shape) {
  return std::all_of(shape.begin(), shape.end(),
                     [](const PrimExpr& d) { return tir::is_const_int(d, 1); });
}

std::vector<OnnxValue> convert_pad(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  std::string mode = attr_string(node, "mode", "constant");
  RX_CHECK(mode == "constant" || mode == "reflect" || mode == "edge")
      << ctx.where(node) << ": mode '" << mode << "' is not one of constant, reflect, edge";
  std::vector<int64_t> pads;
  double value = 0;
  Expr runtime_value;  // a constant_value known only at run time
  if (ctx.opset() < 11) {
    pads = attr_ints(node, "pads").value_or(attr_ints(node, "paddings").value_or(std::vector<int64_t>{}));
    value = attr_float(node, "value", 0.0);
  } else {
    pads = ctx.const_ints(node, 1, "pads");
    if (Context::has_input(node, 2)) {
      if (auto v = ctx.const_floats(node, 2)) {
        RX_CHECK(v->size() == 1) << ctx.where(node) << ": constant_value must be a scalar";
        value = (*v)[0];
      } else {
        runtime_value = ctx.input(node, 2);
        RX_CHECK(ctx.tensor(node, runtime_value).shape &&
                 product_is_one(*ctx.tensor(node, runtime_value).shape))
            << ctx.where(node) << ": constant_value must hold one element";
      }
    }
  }
  int64_t rank = ctx.ndim(node, x);
  RX_CHECK(int64_t(pads.size()) == 2 * rank)
      << ctx.where(node) << ": pads has " << pads.size() << " values; the input of rank " << rank
      << " needs " << 2 * rank;
  for (int64_t p : pads) {
    RX_CHECK(p >= 0) << ctx.where(node) << ": negative pads (cropping) are not supported";
  }
  bool all_zero = std::all_of(pads.begin(), pads.end(), [](int64_t p) { return p == 0; });
  if (all_zero) return {Context::tensor_value(x)};
  if (runtime_value.defined() && mode == "constant") {
    // Pad with 0, then select the run-time value where a padded mask of ones is 0.
    BlockBuilder& bb = ctx.bb();
    Expr padded = bb.emit(op::pad(x, pads, mode, 0.0));
    Expr mask = bb.emit(op::pad(bb.emit(op::ones_like(x)), pads, mode, 0.0));
    Expr inside = bb.emit(op::not_equal(mask, scalar_constant(0.0, ctx.tensor(node, x).dtype)));
    Expr fill = bb.emit(op::reshape(runtime_value, std::vector<PrimExpr>{}));
    return {Context::tensor_value(ctx.emit(op::where(inside, padded, fill), node))};
  }
  return {Context::tensor_value(ctx.emit(op::pad(x, pads, mode, value), node))};
}

/// ONNX Expand broadcasts both ways: each output dim is the larger of the two.
std::vector<OnnxValue> convert_expand(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  bool at_run_time = !ctx.known_ints(node, 1);
  std::vector<PrimExpr> target = ctx.shape_ints(node, 1, "the shape");
  std::vector<PrimExpr> in = ctx.shape_of(node, x, "Expand");
  size_t rank = std::max(in.size(), target.size());
  std::vector<PrimExpr> out(rank);
  // Dims known only at run time: the output dim is b unless b is 1, and b must be 1 or a.
  // One match_cast names the output dims (fresh variables) and checks (ok ? a : -1) == a for
  // each such a that is a number or a variable.
  std::vector<PrimExpr> values, pattern, checks, checked;
  std::string name = binding_name(node.output(0));
  for (size_t i = 0; i < rank; ++i) {
    PrimExpr a = i + in.size() >= rank ? in[i + in.size() - rank] : tir::int_imm(1);
    PrimExpr b = i + target.size() >= rank ? target[i + target.size() - rank] : tir::int_imm(1);
    if (!at_run_time || tir::as_const_int(b)) {
      out[i] = tir::is_const_int(b, 1) ? a : b;
      continue;
    }
    PrimExpr one = tir::int_imm(1);
    values.push_back(tir::is_const_int(a, 1) ? b
                                             : arith::simplify(tir::select(tir::eq(b, one), a, b)));
    out[i] = tir::var(name + "_" + std::to_string(i));
    pattern.push_back(out[i]);
    if (!tir::is_const_int(a, 1) && (tir::as_const_int(a) || a.is<tir::Var>())) {
      checks.push_back(tir::select(tir::logical_or(tir::eq(b, one), tir::eq(b, a)), a,
                                   tir::int_imm(-1)));
      checked.push_back(a);
    }
  }
  if (!values.empty()) {
    values.insert(values.end(), checks.begin(), checks.end());
    pattern.insert(pattern.end(), checked.begin(), checked.end());
    ctx.bb().emit_match_cast(make_shape(values), shape_sinfo(pattern), name + "_dims");
  }
  return {Context::tensor_value(ctx.emit(op::broadcast_to(x, out), node))};
}

std::vector<OnnxValue> convert_constant_of_shape(Context& ctx, const Node& node) {
  std::vector<PrimExpr> shape = ctx.shape_ints(node, 0, "the shape");
  Expr fill;
  if (const auto* a = find_attr(node, "value")) {
    runtime::NDArray v = tensor_from_proto(a->t(), ctx.where(node));
    RX_CHECK(v.numel() == 1) << ctx.where(node) << ": value must hold one element";
    fill = make_constant(runtime::NDArray::from_bytes({}, v.dtype(), v.data()));
  } else {
    fill = scalar_constant(0.0, DataType::Float(32));
  }
  // A short integer vector (a shape suffix of ones, say) folds, so Concat/Reshape chains over it
  // stay known at import time.
  const runtime::NDArray& f = fill.as<Constant>()->data;
  const int64_t* n = shape.size() == 1 ? tir::as_const_int(shape[0]) : nullptr;
  if (n && *n <= 64 && f.dtype().is_integer_like() && !f.dtype().is_bool()) {
    runtime::NDArray a = runtime::NDArray::empty({*n}, f.dtype());
    size_t width = size_t(f.dtype().bytes());
    for (int64_t k = 0; k < *n; ++k)
      std::memcpy(static_cast<char*>(a.data()) + size_t(k) * width, f.data(), width);
    OnnxValue v = Context::tensor_value(make_constant(a));
    attach_known(v, a);
    return {v};
  }
  return {Context::tensor_value(ctx.emit(op::full(shape, fill), node))};
}

/// Range with bounds known only at run time: its length max(ceil((limit - start) / delta), 0)
/// is computed on tensors (in float64) and becomes a symbolic dim through tensor_to_shape;
/// the result is start + arange(length) * delta.
OnnxValue runtime_range(Context& ctx, const Node& node, DataType dt) {
  BlockBuilder& bb = ctx.bb();
  std::vector<Expr> b;
  for (int i = 0; i < 3; ++i) {
    Expr e = ctx.input(node, i);
    RX_CHECK(ctx.ndim(node, e) == 0) << ctx.where(node) << ": input " << i << " ('"
                                     << node.input(i) << "') must be a scalar";
    b.push_back(e);
  }
  auto f64 = [&](const Expr& e) { return bb.emit(op::astype(e, DataType::Float(64))); };
  Expr span = bb.emit(op::subtract(f64(b[1]), f64(b[0])));
  Expr count = bb.emit(op::ceil(bb.emit(op::divide(span, f64(b[2])))));
  count = bb.emit(op::maximum(count, scalar_constant(0.0, DataType::Float(64))));
  count = bb.emit(op::reshape(bb.emit(op::astype(count, DataType::Int(64))),
                              std::vector<PrimExpr>{tir::int_imm(1)}));
  PrimExpr n = ctx.runtime_shape(count, binding_name(node.output(0)) + "_len")[0];
  Expr steps = bb.emit(op::arange(tir::int_imm(0), n, tir::int_imm(1), dt));
  return Context::tensor_value(
      ctx.emit(op::add(bb.emit(op::multiply(steps, b[2])), b[0]), node));
}

std::vector<OnnxValue> convert_range(Context& ctx, const Node& node) {
  Expr start = ctx.input(node, 0);
  DataType dt = ctx.tensor(node, start).dtype;
  std::vector<PrimExpr> bounds;
  for (int i = 0; i < 3; ++i) {
    if (auto k = ctx.known_ints(node, i); k && k->size() == 1) {
      bounds.push_back((*k)[0]);
    } else if (auto f = ctx.const_floats(node, i); f && f->size() == 1) {
      bounds.push_back(dt.is_float() ? tir::float_imm((*f)[0], dt) : tir::int_imm(int64_t((*f)[0])));
    } else {
      return {runtime_range(ctx, node, dt)};
    }
  }
  return {Context::tensor_value(ctx.emit(op::arange(bounds[0], bounds[1], bounds[2], dt), node))};
}

/// Tile; with repeats r known only at run time, x of shape (a0, a1, ...) is reshaped to
/// (1, a0, 1, a1, ...), broadcast to (r0, a0, r1, a1, ...) and reshaped to (r0 * a0, ...).
std::vector<OnnxValue> convert_tile(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  if (ctx.known_ints(node, 1)) {
    return {Context::tensor_value(ctx.emit(op::tile(x, ctx.const_ints(node, 1, "repeats")), node))};
  }
  std::vector<PrimExpr> in = ctx.shape_of(node, x, "Tile with repeats computed at run time");
  std::vector<PrimExpr> repeats = ctx.shape_ints(node, 1, "repeats");
  RX_CHECK(repeats.size() == in.size())
      << ctx.where(node) << ": repeats has " << repeats.size() << " values for an input of rank "
      << in.size();
  std::vector<PrimExpr> spread, broadcast, out;
  for (size_t i = 0; i < in.size(); ++i) {
    spread.insert(spread.end(), {tir::int_imm(1), in[i]});
    broadcast.insert(broadcast.end(), {repeats[i], in[i]});
    out.push_back(arith::simplify(repeats[i] * in[i]));
  }
  Expr y = ctx.bb().emit(op::broadcast_to(ctx.bb().emit(op::reshape(x, spread)), broadcast));
  return {Context::tensor_value(ctx.emit(op::reshape(y, out), node))};
}

}  // namespace

void register_tensor_ops(std::map<std::string, ConverterEntry>& t) {
  t["Constant"] = {convert_constant};
  t["Identity"] = {convert_identity};
  t["Cast"] = {convert_cast, 6};  // Cast-1 names the type as a string
  t["Shape"] = {convert_shape};
  t["Size"] = {convert_size};
  t["Reshape"] = {convert_reshape};
  t["Flatten"] = {convert_flatten};
  t["Transpose"] = {convert_transpose};
  t["Concat"] = {convert_concat};
  t["Split"] = {convert_split};
  t["Slice"] = {convert_slice};
  t["Gather"] = {convert_gather};
  t["Unsqueeze"] = {convert_unsqueeze};
  t["Squeeze"] = {convert_squeeze};
  t["Pad"] = {convert_pad};
  t["Expand"] = {convert_expand, 8};
  t["ConstantOfShape"] = {convert_constant_of_shape, 9};
  t["Range"] = {convert_range, 11};
  t["Tile"] = {convert_tile, 6};  // Tile-1 takes (input, tiles, axis)
}

}  // namespace relax::onnx_frontend
