// Relay converters written out in other ops: depth_to_space / space_to_depth, l2_normalize,
// mirror_pad, trilu, and the shape queries shape_of / ndarray_size (static shapes, folded to
// constants).
#include "convert.h"
#include "relax/op/op.h"

namespace relax::relay_frontend {

namespace {

Expr depth_to_space(OpCall& c, bool to_space) {
  if (c.attr_str("layout", "NCHW") != "NCHW") c.fail("only layout NCHW is supported");
  std::vector<int64_t> s = c.static_shape(0, "the block rearrangement");
  if (s.size() != 4) c.fail("expects a 4-d NCHW tensor");
  int64_t b = c.attr_int("block_size", 1), n = s[0], ch = s[1], h = s[2], w = s[3];
  if (b < 1) c.fail("block_size must be positive");
  auto emit = [&](Expr e) { return Expr(c.bb().emit(std::move(e))); };
  if (to_space) {
    if (ch % (b * b) != 0) c.fail("channels " + std::to_string(ch) + " are not divisible by block_size^2");
    bool crd = c.attr_str("mode", "DCR") == "CRD";
    Expr r = emit(op::reshape(c.arg(0), crd ? const_shape({n, ch / (b * b), b, b, h, w}) : const_shape({n, b, b, ch / (b * b), h, w})));
    Expr t = emit(op::permute_dims(r, crd ? std::vector<int64_t>{0, 1, 4, 2, 5, 3} : std::vector<int64_t>{0, 3, 4, 1, 5, 2}));
    return op::reshape(t, const_shape({n, ch / (b * b), h * b, w * b}));
  }
  if (h % b != 0 || w % b != 0) c.fail("spatial dims are not divisible by block_size");
  Expr r = emit(op::reshape(c.arg(0), const_shape({n, ch, h / b, b, w / b, b})));
  Expr t = emit(op::permute_dims(r, std::vector<int64_t>{0, 3, 5, 1, 2, 4}));
  return op::reshape(t, const_shape({n, ch * b * b, h / b, w / b}));
}

/// A constant int tensor of `values` (rank 1, or rank 0 when `scalar`).
Expr int_tensor(const std::vector<int64_t>& values, DataType dt, bool scalar) {
  runtime::NDArray a = runtime::NDArray::empty(scalar ? std::vector<int64_t>{} : std::vector<int64_t>{int64_t(values.size())}, dt);
  for (size_t k = 0; k < values.size(); ++k) {
    if (dt == DataType::Int(64)) a.data_as<int64_t>()[k] = values[k];
    else a.data_as<int32_t>()[k] = int32_t(values[k]);
  }
  return make_constant(a);
}

}  // namespace

void register_extra_ops(OpTable& t) {
  t["nn.depth_to_space"] = [](OpCall& c) { return depth_to_space(c, true); };
  t["nn.space_to_depth"] = [](OpCall& c) { return depth_to_space(c, false); };
  t["nn.l2_normalize"] = [](OpCall& c) {
    std::optional<std::vector<int64_t>> axes = c.attr_ints("axis");
    Expr sq = c.bb().emit(op::multiply(c.arg(0), c.arg(0)));
    Expr s = c.bb().emit(op::sum(sq, axes, true));
    Expr m = c.bb().emit(op::maximum(s, scalar_const(c.attr_float("eps", 0), c.dtype(0))));
    return op::multiply(c.arg(0), c.bb().emit(op::rsqrt(m)));
  };
  t["nn.mirror_pad"] = [](OpCall& c) {
    std::string mode = c.attr_str("mode", "SYMMETRIC");
    if (mode != "REFLECT") c.fail("mode '" + mode + "' is not supported (REFLECT only)");
    std::optional<std::vector<int64_t>> pw = c.attr_ints("pad_width");
    int64_t nd = c.ndim(0);
    if (!pw || int64_t(pw->size()) != 2 * nd) c.fail("pad_width must hold a [before, after] pair per axis");
    std::vector<int64_t> widths(size_t(2 * nd));
    for (int64_t k = 0; k < nd; ++k) {
      widths[size_t(k)] = (*pw)[size_t(2 * k)];
      widths[size_t(nd + k)] = (*pw)[size_t(2 * k + 1)];
    }
    return op::pad(c.arg(0), widths, "reflect");
  };
  t["trilu"] = [](OpCall& c) {
    int64_t k = c.num_args() > 1 ? int64_t(c.scalar(1, "k")) : 0;
    return c.attr_bool("upper", true) ? op::triu(c.arg(0), k) : op::tril(c.arg(0), k);
  };
  t["shape_of"] = [](OpCall& c) {
    return int_tensor(c.static_shape(0, "shape_of is folded to a constant"), c.attr_dtype("dtype", DataType::Int(32)), false);
  };
  t["ndarray_size"] = [](OpCall& c) {
    int64_t n = 1;
    for (int64_t d : c.static_shape(0, "ndarray_size is folded to a constant")) n *= d;
    return int_tensor({n}, c.attr_dtype("dtype", DataType::Int(32)), true);
  };
}

}  // namespace relax::relay_frontend
