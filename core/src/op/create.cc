// Tensor creation: full, zeros, ones (from a shape), their _like forms (from a tensor), and
// tril / triu (keep the lower / upper triangle of the last two axes).
#include "infer_utils.h"
#include "legalize_utils.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"

namespace relax {
namespace op_detail {

namespace {

/// The shape argument `i` as struct info of a tensor with `dtype`.
StructInfo shaped(const Call& call, size_t i, DataType dtype) {
  const StructInfo& ss = get_struct_info(call.args[i]);
  RX_CHECK(ss.is<ShapeStructInfo>())
      << op_name(call) << ": 'shape' should be a shape, got " << to_string(ss);
  int ndim = -1;
  auto values = shape_values(call.args[i], &ndim);
  if (values) {
    for (const auto& d : *values) {
      auto* c = tir::as_const_int(d);
      RX_CHECK(!c || *c >= 0) << op_name(call) << ": dimensions must be non-negative, got " << *c;
    }
    return tensor_sinfo(*values, dtype);
  }
  return tensor_sinfo(dtype, ndim);
}

StructInfo infer_full(const Call& call, BlockBuilder&) {
  const TensorStructInfo& v = expect_tensor(call, 1);
  RX_CHECK(v.ndim < 0 || v.ndim == 0)
      << op_name(call) << ": 'fill_value' should be a scalar (rank 0) tensor, got rank " << v.ndim;
  DataType dtype = get_dtype(call.attrs, "dtype", DataType::Void());
  return shaped(call, 0, dtype.is_void() ? v.dtype : dtype);
}

StructInfo infer_zeros(const Call& call, BlockBuilder&) {
  DataType dtype = get_dtype(call.attrs, "dtype", DataType::Void());
  RX_CHECK(!dtype.is_void()) << op_name(call) << ": attribute 'dtype' is required";
  return shaped(call, 0, dtype);
}

StructInfo infer_like(const Call& call, BlockBuilder&) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  DataType dtype = get_dtype(call.attrs, "dtype", DataType::Void());
  if (call.args.size() == 2) {
    const TensorStructInfo& v = expect_tensor(call, 1);
    RX_CHECK(v.ndim < 0 || v.ndim == 0)
        << op_name(call) << ": 'fill_value' should be a scalar (rank 0) tensor, got rank "
        << v.ndim;
  }
  if (dtype.is_void()) dtype = x.dtype;
  if (x.shape) return tensor_sinfo(*x.shape, dtype, x.vdevice);
  return tensor_sinfo(dtype, x.ndim, x.vdevice);
}

/// A kernel filling the result with `value(inputs)`; `inputs` are the call's tensor args used.
Expr legalize_fill(BlockBuilder& bb, const Call& call, std::vector<Expr> inputs,
                   const std::function<PrimExpr(const std::vector<te::Tensor>&, DataType)>& value) {
  const TensorStructInfo& out = legal_out(call);
  std::string name = kernel_name(call);
  return te::call_te(
      bb, inputs,
      [&](const std::vector<te::Tensor>& a) {
        return te::compute(
            *out.shape,
            [&](const std::vector<PrimExpr>&) { return tir::cast(out.dtype, value(a, out.dtype)); },
            name);
      },
      name);
}

PrimExpr load_scalar(const std::vector<te::Tensor>& a, DataType) {
  return a.back()(std::vector<PrimExpr>{});
}

StructInfo infer_tri(const Call& call, BlockBuilder&) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  RX_CHECK(x.ndim < 0 || x.ndim >= 2)
      << op_name(call) << ": needs a tensor of rank at least 2, got rank " << x.ndim;
  return StructInfo(&x);
}

Expr legalize_tri(bool lower, BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& out = legal_out(call);
  int64_t k = get_int(call.attrs, "k", 0);
  std::string name = kernel_name(call);
  return te::call_te(
      bb, {call.args[0]},
      [&](const std::vector<te::Tensor>& a) {
        return te::compute(
            *out.shape,
            [&](const std::vector<PrimExpr>& i) {
              const PrimExpr &r = i[i.size() - 2], &c = i[i.size() - 1];
              PrimExpr keep = lower ? tir::le(c, r + k) : tir::ge(c, r + k);
              return tir::select(keep, a[0](i), const_of(0, out.dtype));
            },
            name);
      },
      name);
}

}  // namespace

void register_create_ops(OpRegistry& reg) {
  auto dtype_attr =
      AttrSpec{"dtype", AttrSpec::Kind::kDType, std::monostate{}, true, "result dtype"};
  {
    OpInfo& op = reg.register_op("relax.full");
    op.summary = "A tensor of `shape` filled with the scalar tensor `fill_value`.";
    op.arg_names = {"shape", "fill_value"};
    op.attrs = {dtype_attr};
    op.infer = infer_full;
    op.pattern = OpPattern::kElemWise;
    op.legalize = [](BlockBuilder& bb, const Call& call) {
      return legalize_fill(bb, call, {call.args[1]}, load_scalar);
    };
  }
  for (int one = 0; one < 2; ++one) {
    OpInfo& op = reg.register_op(one ? "relax.ones" : "relax.zeros");
    op.summary =
        one ? "A tensor of `shape` filled with ones." : "A tensor of `shape` filled with zeros.";
    op.arg_names = {"shape"};
    op.attrs = {{"dtype", AttrSpec::Kind::kDType, std::monostate{}, false, "result dtype"}};
    op.infer = infer_zeros;
    op.pattern = OpPattern::kElemWise;
    op.legalize = [one](BlockBuilder& bb, const Call& call) {
      return legalize_fill(bb, call, {}, [one](const std::vector<te::Tensor>&, DataType t) {
        return const_of(one, t);
      });
    };
  }
  {
    OpInfo& op = reg.register_op("relax.full_like");
    op.summary = "A tensor shaped like `x` filled with the scalar tensor `fill_value`.";
    op.arg_names = {"x", "fill_value"};
    op.attrs = {dtype_attr};
    op.infer = infer_like;
    op.pattern = OpPattern::kElemWise;
    op.legalize = [](BlockBuilder& bb, const Call& call) {
      return legalize_fill(bb, call, {call.args[1]}, load_scalar);
    };
  }
  for (int one = 0; one < 2; ++one) {
    OpInfo& op = reg.register_op(one ? "relax.ones_like" : "relax.zeros_like");
    op.summary = one ? "Ones shaped like `x`." : "Zeros shaped like `x`.";
    op.arg_names = {"x"};
    op.attrs = {dtype_attr};
    op.infer = infer_like;
    op.pattern = OpPattern::kElemWise;
    op.legalize = [one](BlockBuilder& bb, const Call& call) {
      return legalize_fill(bb, call, {}, [one](const std::vector<te::Tensor>&, DataType t) {
        return const_of(one, t);
      });
    };
  }
  for (bool lower : {true, false}) {
    OpInfo& op = reg.register_op(lower ? "relax.tril" : "relax.triu");
    op.summary = lower ? "Zero the elements above diagonal k of the last two axes."
                       : "Zero the elements below diagonal k of the last two axes.";
    op.arg_names = {"x"};
    op.attrs = {{"k", AttrSpec::Kind::kInt, int64_t(0), false, "the diagonal offset"}};
    op.infer = infer_tri;
    op.pattern = OpPattern::kInjective;
    op.legalize = [lower](BlockBuilder& bb, const Call& call) {
      return legalize_tri(lower, bb, call);
    };
  }
}

}  // namespace op_detail

namespace op {
namespace {
Attrs dtype_attrs(DataType dtype) {
  if (dtype.is_void()) return {};
  return make_attrs({{"dtype", dtype}});
}
}  // namespace
Expr full(std::vector<PrimExpr> shape, Expr fill_value, DataType dtype) {
  return call_op("relax.full", {make_shape(std::move(shape)), std::move(fill_value)},
                 dtype_attrs(dtype));
}
Expr zeros(std::vector<PrimExpr> shape, DataType dtype) {
  return call_op("relax.zeros", {make_shape(std::move(shape))}, dtype_attrs(dtype));
}
Expr ones(std::vector<PrimExpr> shape, DataType dtype) {
  return call_op("relax.ones", {make_shape(std::move(shape))}, dtype_attrs(dtype));
}
Expr full_like(Expr x, Expr fill_value, DataType dtype) {
  return call_op("relax.full_like", {std::move(x), std::move(fill_value)}, dtype_attrs(dtype));
}
Expr zeros_like(Expr x, DataType dtype) {
  return call_op("relax.zeros_like", {std::move(x)}, dtype_attrs(dtype));
}
Expr ones_like(Expr x, DataType dtype) {
  return call_op("relax.ones_like", {std::move(x)}, dtype_attrs(dtype));
}
Expr tril(Expr x, int64_t k) {
  return call_op("relax.tril", {std::move(x)}, make_attrs({{"k", k}}));
}
Expr triu(Expr x, int64_t k) {
  return call_op("relax.triu", {std::move(x)}, make_attrs({{"k", k}}));
}
}  // namespace op
}  // namespace relax
