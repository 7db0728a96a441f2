// Shape manipulation: reshape, flatten, permute_dims, shape_of, and the data-dependent unique.
#include <algorithm>

#include "infer_utils.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"

namespace relax {
namespace op_detail {

namespace {

StructInfo infer_reshape(const Call& call, BlockBuilder& ctx) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  const StructInfo& shape_sinfo_arg = get_struct_info(call.args[1]);
  RX_CHECK(shape_sinfo_arg.is<ShapeStructInfo>()) << "relax.reshape: 'shape' should be a shape, got "
                                                  << to_string(shape_sinfo_arg);
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
      RX_CHECK(*c >= 0) << "relax.reshape: dimension " << i << " is " << *c << "; dims must be >= 0 or -1";
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
    dims[infer_at] = ana.simplify(tir::floordiv(total, product(known, ana)));
  } else {
    PrimExpr out_total = product(dims, ana);
    auto* a = tir::as_const_int(total);
    auto* b = tir::as_const_int(out_total);
    RX_CHECK(!(a && b && *a != *b)) << "relax.reshape: cannot reshape " << to_string(StructInfo(&x)) << " ("
                                    << *a << " elements) to " << *b << " elements";
    RX_CHECK(!ana.can_prove(tir::ne(total, out_total)))
        << "relax.reshape: the element counts differ: " << tir::to_string(total) << " vs " << tir::to_string(out_total);
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
    RX_CHECK(int(axes->size()) == x.ndim) << "relax.permute_dims: " << axes->size() << " axes given for a tensor of rank "
                                          << x.ndim;
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

StructInfo infer_unique(const Call& call, BlockBuilder&) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  // The number of distinct elements is known only at run time: one dimension of unknown size.
  return tensor_sinfo(x.dtype, 1, x.vdevice);
}

}  // namespace

void register_manipulate_ops(OpRegistry& reg) {
  {
    OpInfo& op = reg.register_op("relax.reshape");
    op.summary = "Reshape to a new shape with the same number of elements (one dim may be -1).";
    op.arg_names = {"x", "shape"};
    op.infer = infer_reshape;
    op.pattern = OpPattern::kInjective;
  }
  {
    OpInfo& op = reg.register_op("relax.flatten");
    op.summary = "Flatten to one dimension.";
    op.arg_names = {"x"};
    op.infer = infer_flatten;
    op.pattern = OpPattern::kInjective;
  }
  {
    OpInfo& op = reg.register_op("relax.permute_dims");
    op.summary = "Permute the dimensions (reverse them when no axes are given).";
    op.arg_names = {"x"};
    op.attrs = {{"axes", AttrSpec::Kind::kInts, std::monostate{}, true, "the permutation"}};
    op.infer = infer_permute_dims;
    op.pattern = OpPattern::kInjective;
  }
  {
    OpInfo& op = reg.register_op("relax.shape_of");
    op.summary = "The shape of a tensor, as a Shape value.";
    op.arg_names = {"x"};
    op.infer = infer_shape_of;
    op.pattern = OpPattern::kOpaque;
  }
  {
    OpInfo& op = reg.register_op("relax.unique");
    op.summary = "The distinct elements of a tensor, flattened (sorted by default); data-dependent shape.";
    op.arg_names = {"x"};
    op.attrs = {{"sorted", AttrSpec::Kind::kBool, true, false, "sort the result"}};
    op.infer = infer_unique;
    op.pattern = OpPattern::kOpaque;
  }
}

}  // namespace op_detail

namespace op {
Expr reshape(Expr x, Expr shape) { return call_op("relax.reshape", {std::move(x), std::move(shape)}); }
Expr reshape(Expr x, std::vector<PrimExpr> shape) { return reshape(std::move(x), make_shape(std::move(shape))); }
Expr flatten(Expr x) { return call_op("relax.flatten", {std::move(x)}); }
Expr permute_dims(Expr x, std::optional<std::vector<int64_t>> axes) {
  Attrs attrs;
  if (axes) attrs = make_attrs({{"axes", *axes}});
  return call_op("relax.permute_dims", {std::move(x)}, attrs);
}
Expr shape_of(Expr x) { return call_op("relax.shape_of", {std::move(x)}); }
Expr unique(Expr x, bool sorted) {
  return call_op("relax.unique", {std::move(x)}, make_attrs({{"sorted", sorted}}));
}
}  // namespace op
}  // namespace relax
