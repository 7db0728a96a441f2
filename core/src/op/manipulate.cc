// Shape manipulation: reshape, flatten, permute_dims, squeeze, expand_dims, broadcast_to,
// shape_of, tensor_to_shape, and the data-dependent unique. The data-moving ops legalise to
// one copy kernel each; shape_of, tensor_to_shape and unique are computed by the runtime.
#include <algorithm>

#include "infer_utils.h"
#include "legalize_utils.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"

namespace relax {
namespace op_detail {

namespace {

StructInfo infer_reshape(const Call& call, BlockBuilder& ctx) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  const StructInfo& shape_sinfo_arg = get_struct_info(call.args[1]);
  RX_CHECK(shape_sinfo_arg.is<ShapeStructInfo>())
      << "relax.reshape: 'shape' should be a shape, got " << to_string(shape_sinfo_arg);
  int ndim = -1;
  auto values = shape_values(call.args[1], &ndim);
  if (!values) return tensor_sinfo(x.dtype, ndim, x.vdevice);
  arith::Analyzer& ana = ctx.analyzer();
  std::vector<PrimExpr> dims = *values;
  int infer_at = -1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (tir::is_const_int(dims[i], -1)) {
      RX_CHECK(infer_at < 0) << "relax.reshape: at most one dimension may be -1";
      infer_at = int(i);
    } else if (auto* c = tir::as_const_int(dims[i])) {
      RX_CHECK(*c >= 0) << "relax.reshape: dimension " << i << " is " << *c
                        << "; dims must be >= 0 or -1";
    }
  }
  if (!x.shape) {
    if (infer_at >= 0) return tensor_sinfo(x.dtype, int(dims.size()), x.vdevice);
    return tensor_sinfo(dims, x.dtype, x.vdevice);
  }
  PrimExpr total = product(*x.shape, ana);
  if (infer_at >= 0) {
    std::vector<PrimExpr> known;
    for (size_t i = 0; i < dims.size(); ++i)
      if (int(i) != infer_at) known.push_back(dims[i]);
    PrimExpr known_total = product(known, ana);
    if (tir::is_const_int(known_total, 0)) {
      std::string spelled;
      for (const PrimExpr& d : dims) spelled += (spelled.empty() ? "" : ", ") + tir::to_string(d);
      RX_THROW() << "relax.reshape: cannot infer the -1 of (" << spelled << ") for "
                 << to_string(StructInfo(&x)) << ": the other dimensions multiply to 0";
    }
    dims[infer_at] = ana.simplify(tir::floordiv(total, known_total));
  } else {
    PrimExpr out_total = product(dims, ana);
    auto* a = tir::as_const_int(total);
    auto* b = tir::as_const_int(out_total);
    RX_CHECK(!(a && b && *a != *b)) << "relax.reshape: cannot reshape " << to_string(StructInfo(&x))
                                    << " (" << *a << " elements) to " << *b << " elements";
    RX_CHECK(!ana.can_prove(tir::ne(total, out_total)))
        << "relax.reshape: the element counts differ: " << tir::to_string(total) << " vs "
        << tir::to_string(out_total);
  }
  return tensor_sinfo(dims, x.dtype, x.vdevice);
}

StructInfo infer_flatten(const Call& call, BlockBuilder& ctx) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  if (x.shape) return tensor_sinfo({product(*x.shape, ctx.analyzer())}, x.dtype, x.vdevice);
  return tensor_sinfo(x.dtype, x.ndim == 0 ? 0 : 1, x.vdevice);
}

StructInfo infer_permute_dims(const Call& call, BlockBuilder&) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  auto axes = get_opt_ints(call.attrs, "axes");
  if (x.ndim < 0) {
    return tensor_sinfo(x.dtype, axes ? int(axes->size()) : -1, x.vdevice);
  }
  std::vector<int64_t> perm;
  if (axes) {
    RX_CHECK(int(axes->size()) == x.ndim)
        << "relax.permute_dims: " << axes->size() << " axes given for a tensor of rank " << x.ndim;
    std::vector<bool> seen(size_t(x.ndim), false);
    for (int64_t a : *axes) {
      int64_t n = normalize_axis(call, a, x.ndim);
      RX_CHECK(!seen[size_t(n)]) << "relax.permute_dims: axis " << a << " appears twice";
      seen[size_t(n)] = true;
      perm.push_back(n);
    }
  } else {
    for (int i = x.ndim - 1; i >= 0; --i) perm.push_back(i);
  }
  if (!x.shape) return tensor_sinfo(x.dtype, x.ndim, x.vdevice);
  std::vector<PrimExpr> out;
  for (int64_t p : perm) out.push_back((*x.shape)[size_t(p)]);
  return tensor_sinfo(out, x.dtype, x.vdevice);
}

StructInfo infer_shape_of(const Call& call, BlockBuilder&) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  if (x.shape) return shape_sinfo(*x.shape);
  return shape_sinfo(x.ndim);
}

/// A rank-1 integer tensor of static length n -> a Shape of n values, unknown until run time
/// (R.match_cast names them).
StructInfo infer_tensor_to_shape(const Call& call, BlockBuilder&) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  RX_CHECK(x.is_unknown_dtype() || (x.dtype.is_int() || x.dtype.is_uint()))
      << "relax.tensor_to_shape: expected an integer tensor, got " << to_string(StructInfo(&x));
  RX_CHECK(x.ndim == 1) << "relax.tensor_to_shape: expected a rank-1 tensor, got "
                        << to_string(StructInfo(&x));
  const int64_t* n = x.shape ? tir::as_const_int((*x.shape)[0]) : nullptr;
  RX_CHECK(n) << "relax.tensor_to_shape: the length of the tensor must be a constant (it is the "
              << "rank of the shape), got " << to_string(StructInfo(&x));
  return shape_sinfo(int(*n));
}

StructInfo infer_unique(const Call& call, BlockBuilder&) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  // The number of distinct elements is known only at run time: one dimension of unknown size.
  return tensor_sinfo(x.dtype, 1, x.vdevice);
}

StructInfo infer_squeeze(const Call& call, BlockBuilder& ctx) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  auto axes = get_opt_ints(call.attrs, "axis");
  if (x.ndim < 0) return tensor_sinfo(x.dtype, -1, x.vdevice);
  std::vector<bool> drop(size_t(x.ndim), false);
  if (axes) {
    for (int64_t a : *axes) {
      int64_t n = normalize_axis(call, a, x.ndim);
      RX_CHECK(!drop[size_t(n)]) << "relax.squeeze: axis " << a << " appears twice";
      if (x.shape) {
        const PrimExpr& d = (*x.shape)[size_t(n)];
        RX_CHECK(!ctx.analyzer().can_prove(tir::ne(d, tir::int_imm(1))))
            << "relax.squeeze: axis " << a << " has size " << tir::to_string(d) << ", not 1";
      }
      drop[size_t(n)] = true;
    }
  } else {
    if (!x.shape) return tensor_sinfo(x.dtype, -1, x.vdevice);
    for (size_t i = 0; i < drop.size(); ++i) drop[i] = tir::is_const_int((*x.shape)[i], 1);
  }
  if (!x.shape)
    return tensor_sinfo(x.dtype, x.ndim - int(std::count(drop.begin(), drop.end(), true)),
                        x.vdevice);
  std::vector<PrimExpr> out;
  for (size_t i = 0; i < drop.size(); ++i)
    if (!drop[i]) out.push_back((*x.shape)[i]);
  return tensor_sinfo(out, x.dtype, x.vdevice);
}

StructInfo infer_expand_dims(const Call& call, BlockBuilder&) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  std::vector<int64_t> axes = get_ints(call.attrs, "axis", {});
  if (x.ndim < 0) return tensor_sinfo(x.dtype, -1, x.vdevice);
  int out_ndim = x.ndim + int(axes.size());
  std::vector<bool> added(size_t(out_ndim), false);
  for (int64_t a : axes) {
    int64_t n = normalize_axis(call, a, out_ndim);
    RX_CHECK(!added[size_t(n)]) << "relax.expand_dims: axis " << a << " appears twice";
    added[size_t(n)] = true;
  }
  if (!x.shape) return tensor_sinfo(x.dtype, out_ndim, x.vdevice);
  std::vector<PrimExpr> out;
  size_t k = 0;
  for (int i = 0; i < out_ndim; ++i)
    out.push_back(added[size_t(i)] ? tir::int_imm(1) : (*x.shape)[k++]);
  return tensor_sinfo(out, x.dtype, x.vdevice);
}

StructInfo infer_broadcast_to(const Call& call, BlockBuilder& ctx) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  const StructInfo& ss = get_struct_info(call.args[1]);
  RX_CHECK(ss.is<ShapeStructInfo>())
      << "relax.broadcast_to: 'shape' should be a shape, got " << to_string(ss);
  int ndim = -1;
  auto values = shape_values(call.args[1], &ndim);
  RX_CHECK(x.ndim < 0 || ndim < 0 || x.ndim <= ndim)
      << "relax.broadcast_to: cannot broadcast a tensor of rank " << x.ndim << " to rank " << ndim;
  if (!values) return tensor_sinfo(x.dtype, ndim, x.vdevice);
  if (x.shape) {
    for (size_t k = 0; k < x.shape->size(); ++k) {
      const PrimExpr& d = (*x.shape)[k];
      const PrimExpr& t = (*values)[values->size() - x.shape->size() + k];
      RX_CHECK(tir::is_const_int(d, 1) || !ctx.analyzer().can_prove(tir::ne(d, t)))
          << "relax.broadcast_to: dimension " << k << " of the input is " << tir::to_string(d)
          << " and cannot broadcast to " << tir::to_string(t);
    }
  }
  return tensor_sinfo(*values, x.dtype, x.vdevice);
}

// ---- Legalisations: one copy kernel, out[i] = x[index(i)].

Expr copy_kernel(BlockBuilder& bb, const Call& call,
                 const std::function<std::vector<PrimExpr>(const te::Tensor&,
                                                           const std::vector<PrimExpr>&)>& index) {
  const TensorStructInfo& out = legal_out(call);
  legal_arg(call, 0);
  std::string name = kernel_name(call);
  return te::call_te(
      bb, {call.args[0]},
      [&](const std::vector<te::Tensor>& a) {
        return te::compute(
            *out.shape, [&](const std::vector<PrimExpr>& i) { return a[0](index(a[0], i)); }, name);
      },
      name);
}

Expr legalize_reshape(BlockBuilder& bb, const Call& call) {
  const std::vector<PrimExpr> out_shape = *legal_out(call).shape;
  return copy_kernel(bb, call, [&](const te::Tensor& x, const std::vector<PrimExpr>& i) {
    return unflatten_index(flat_index(i, out_shape), x.shape());
  });
}

Expr legalize_permute_dims(BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& xs = legal_arg(call, 0);
  std::vector<int64_t> perm;
  if (auto axes = get_opt_ints(call.attrs, "axes")) {
    for (int64_t a : *axes) perm.push_back(normalize_axis(call, a, xs.ndim));
  } else {
    for (int i = xs.ndim - 1; i >= 0; --i) perm.push_back(i);
  }
  return copy_kernel(bb, call, [&](const te::Tensor& x, const std::vector<PrimExpr>& i) {
    std::vector<PrimExpr> idx(x.ndim());
    for (size_t k = 0; k < perm.size(); ++k) idx[size_t(perm[k])] = i[k];
    return idx;
  });
}

Expr legalize_squeeze(BlockBuilder& bb, const Call& call) {
  // Output dims are the input's minus size-1 ones: read 0 on dropped axes.
  const TensorStructInfo& xs = legal_arg(call, 0);
  std::vector<bool> drop(size_t(xs.ndim), false);
  if (auto axes = get_opt_ints(call.attrs, "axis")) {
    for (int64_t a : *axes) drop[size_t(normalize_axis(call, a, xs.ndim))] = true;
  } else {
    for (size_t k = 0; k < drop.size(); ++k) drop[k] = tir::is_const_int((*xs.shape)[k], 1);
  }
  return copy_kernel(bb, call, [&](const te::Tensor& x, const std::vector<PrimExpr>& i) {
    std::vector<PrimExpr> idx;
    size_t o = 0;
    for (size_t k = 0; k < x.ndim(); ++k) idx.push_back(drop[k] ? tir::int_imm(0) : i[o++]);
    return idx;
  });
}

Expr legalize_expand_dims(BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& out = legal_out(call);
  std::vector<bool> added(size_t(out.ndim), false);
  for (int64_t a : get_ints(call.attrs, "axis", {}))
    added[size_t(normalize_axis(call, a, out.ndim))] = true;
  return copy_kernel(bb, call, [&](const te::Tensor&, const std::vector<PrimExpr>& i) {
    std::vector<PrimExpr> idx;
    for (size_t k = 0; k < i.size(); ++k)
      if (!added[k]) idx.push_back(i[k]);
    return idx;
  });
}

Expr legalize_broadcast_to(BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& out = legal_out(call);
  legal_arg(call, 0);
  return te::call_te(
      bb, {call.args[0]},
      [&](const std::vector<te::Tensor>& a) {
        return te::compute(
            *out.shape, [&](const std::vector<PrimExpr>& i) { return broadcast_load(a[0], i); },
            "broadcast_to");
      },
      "broadcast_to");
}

}  // namespace

void register_manipulate_ops(OpRegistry& reg) {
  {
    OpInfo& op = reg.register_op("relax.reshape");
    op.summary = "Reshape to a new shape with the same number of elements (one dim may be -1).";
    op.arg_names = {"x", "shape"};
    op.infer = infer_reshape;
    op.pattern = OpPattern::kInjective;
    op.legalize = legalize_reshape;
  }
  {
    OpInfo& op = reg.register_op("relax.flatten");
    op.summary = "Flatten to one dimension.";
    op.arg_names = {"x"};
    op.infer = infer_flatten;
    op.pattern = OpPattern::kInjective;
    op.legalize = legalize_reshape;
  }
  {
    OpInfo& op = reg.register_op("relax.permute_dims");
    op.summary = "Permute the dimensions (reverse them when no axes are given).";
    op.arg_names = {"x"};
    op.attrs = {{"axes", AttrSpec::Kind::kInts, std::monostate{}, true, "the permutation"}};
    op.infer = infer_permute_dims;
    op.pattern = OpPattern::kInjective;
    op.legalize = legalize_permute_dims;
  }
  {
    OpInfo& op = reg.register_op("relax.squeeze");
    op.summary = "Remove axes of size 1 (the given ones, or all).";
    op.arg_names = {"x"};
    op.attrs = {{"axis", AttrSpec::Kind::kInts, std::monostate{}, true,
                 "axes to remove (all of size 1 when absent)"}};
    op.infer = infer_squeeze;
    op.pattern = OpPattern::kInjective;
    op.legalize = legalize_squeeze;
  }
  {
    OpInfo& op = reg.register_op("relax.expand_dims");
    op.summary = "Insert axes of size 1 at the given positions of the result.";
    op.arg_names = {"x"};
    op.attrs = {
        {"axis", AttrSpec::Kind::kInts, std::monostate{}, false, "positions in the result"}};
    op.infer = infer_expand_dims;
    op.pattern = OpPattern::kInjective;
    op.legalize = legalize_expand_dims;
  }
  {
    OpInfo& op = reg.register_op("relax.broadcast_to");
    op.summary = "Broadcast to a shape (NumPy rules).";
    op.arg_names = {"x", "shape"};
    op.infer = infer_broadcast_to;
    op.pattern = OpPattern::kBroadcast;
    op.legalize = legalize_broadcast_to;
  }
  {
    OpInfo& op = reg.register_op("relax.shape_of");
    op.summary = "The shape of a tensor, as a Shape value.";
    op.arg_names = {"x"};
    op.infer = infer_shape_of;
    op.pattern = OpPattern::kOpaque;
  }
  {
    OpInfo& op = reg.register_op("relax.tensor_to_shape");
    op.summary = "A rank-1 integer tensor of static length as a Shape value (known at run time).";
    op.arg_names = {"x"};
    op.infer = infer_tensor_to_shape;
    op.pattern = OpPattern::kOpaque;
    op.legalize = [](BlockBuilder&, const Call& call) -> Expr {
      return op::call_pure_packed("vm.builtin.tensor_to_shape", {call.args[0]},
                                  {call.struct_info});
    };
  }
  {
    OpInfo& op = reg.register_op("relax.unique");
    op.summary =
        "The distinct elements of a tensor, flattened (sorted by default); data-dependent shape.";
    op.arg_names = {"x"};
    op.attrs = {{"sorted", AttrSpec::Kind::kBool, true, false, "sort the result"}};
    op.infer = infer_unique;
    op.pattern = OpPattern::kOpaque;
    // Data-dependent: computed by the runtime builtin, its length known only at run time.
    op.legalize = [](BlockBuilder&, const Call& call) -> Expr {
      bool sorted = get_bool(call.attrs, "sorted", true);
      return op::call_pure_packed(
          "vm.builtin.unique",
          {call.args[0], make_ref<PrimValue>(tir::bool_imm(sorted))},
          {call.struct_info});
    };
  }
}

}  // namespace op_detail

namespace op {
Expr reshape(Expr x, Expr shape) {
  return call_op("relax.reshape", {std::move(x), std::move(shape)});
}
Expr reshape(Expr x, std::vector<PrimExpr> shape) {
  return reshape(std::move(x), make_shape(std::move(shape)));
}
Expr flatten(Expr x) { return call_op("relax.flatten", {std::move(x)}); }
Expr permute_dims(Expr x, std::optional<std::vector<int64_t>> axes) {
  Attrs attrs;
  if (axes) attrs = make_attrs({{"axes", *axes}});
  return call_op("relax.permute_dims", {std::move(x)}, attrs);
}
Expr squeeze(Expr x, std::optional<std::vector<int64_t>> axis) {
  Attrs attrs;
  if (axis) attrs = make_attrs({{"axis", *axis}});
  return call_op("relax.squeeze", {std::move(x)}, attrs);
}
Expr expand_dims(Expr x, std::vector<int64_t> axis) {
  return call_op("relax.expand_dims", {std::move(x)}, make_attrs({{"axis", std::move(axis)}}));
}
Expr broadcast_to(Expr x, std::vector<PrimExpr> shape) {
  return call_op("relax.broadcast_to", {std::move(x), make_shape(std::move(shape))});
}
Expr shape_of(Expr x) { return call_op("relax.shape_of", {std::move(x)}); }
Expr tensor_to_shape(Expr x) { return call_op("relax.tensor_to_shape", {std::move(x)}); }
Expr unique(Expr x, bool sorted) {
  return call_op("relax.unique", {std::move(x)}, make_attrs({{"sorted", sorted}}));
}
}  // namespace op
}  // namespace relax
