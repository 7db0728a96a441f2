#include "infer_utils.h"

#include "relax/support/diagnostic.h"

namespace relax::op_detail {

std::string op_name(const Call& call) {
  if (auto* op = call.op.as<Op>()) return op->name;
  return describe(call.op);
}

std::string arg_name(const Call& call, size_t i) {
  if (auto* op = call.op.as<Op>()) {
    const auto& names = op->info->arg_names;
    if (i < names.size()) return names[i];
    if (op->info->variadic && !names.empty()) return names.back();
  }
  return "argument " + std::to_string(i);
}

const TensorStructInfo& expect_tensor(const Call& call, size_t i) {
  RX_ICHECK(i < call.args.size()) << op_name(call) << ": argument index " << i << " out of range";
  const StructInfo& s = get_struct_info(call.args[i]);
  auto* t = s.as<TensorStructInfo>();
  RX_CHECK(t != nullptr) << op_name(call) << ": argument '" << arg_name(call, i) << "' (" << describe(call.args[i])
                         << ") should be a tensor, but it is " << to_string(s);
  return *t;
}

const TensorStructInfo& expect_float_tensor(const Call& call, size_t i) {
  const TensorStructInfo& x = expect_tensor(call, i);
  RX_CHECK(x.dtype.is_void() || x.dtype.is_float())
      << op_name(call) << ": '" << arg_name(call, i) << "' needs a floating-point tensor, got "
      << x.dtype.to_string();
  return x;
}

StructInfo infer_float_unary(const Call& call, BlockBuilder&) {
  return StructInfo(&expect_float_tensor(call, 0));
}

std::optional<std::vector<PrimExpr>> broadcast_shapes(const Call& call, const std::vector<PrimExpr>& a,
                                                      const std::vector<PrimExpr>& b, arith::Analyzer& ana) {
  size_t n = std::max(a.size(), b.size());
  std::vector<PrimExpr> out(n);
  bool known = true;
  for (size_t k = 0; k < n; ++k) {
    // Align from the right.
    const PrimExpr* x = k < n - a.size() ? nullptr : &a[k - (n - a.size())];
    const PrimExpr* y = k < n - b.size() ? nullptr : &b[k - (n - b.size())];
    if (!x) {
      out[k] = *y;
    } else if (!y) {
      out[k] = *x;
    } else if (tir::is_const_int(*x, 1)) {
      out[k] = *y;
    } else if (tir::is_const_int(*y, 1)) {
      out[k] = *x;
    } else if (ana.prove_equal(*x, *y)) {
      out[k] = *x;
    } else {
      auto* cx = tir::as_const_int(*x);
      auto* cy = tir::as_const_int(*y);
      RX_CHECK(!(cx && cy)) << op_name(call) << ": shapes cannot broadcast: dimension " << k << " is " << *cx
                            << " in one operand and " << *cy << " in the other";
      known = false;
    }
  }
  if (!known) return std::nullopt;
  return out;
}

DataType unify_dtype(const Call& call, DataType a, DataType b) {
  if (a.is_void()) return b;
  if (b.is_void()) return a;
  RX_CHECK(a == b) << op_name(call) << ": operand dtypes differ: " << a.to_string() << " and " << b.to_string()
                   << " (insert R.astype to convert)";
  return a;
}

int64_t normalize_axis(const Call& call, int64_t axis, int ndim) {
  RX_CHECK(axis >= -ndim && axis < ndim) << op_name(call) << ": axis " << axis << " is out of range for a tensor of rank "
                                         << ndim;
  return axis < 0 ? axis + ndim : axis;
}

PrimExpr product(const std::vector<PrimExpr>& dims, arith::Analyzer& ana) {
  PrimExpr p = tir::int_imm(1);
  for (const auto& d : dims) p = p * d;
  return ana.simplify(p);
}

std::optional<std::vector<PrimExpr>> shape_values(const Expr& shape, int* ndim) {
  *ndim = -1;
  if (auto* s = shape.as<ShapeExpr>()) {
    *ndim = int(s->values.size());
    return s->values;
  }
  if (auto* ss = shape->struct_info.as<ShapeStructInfo>()) {
    *ndim = ss->ndim;
    return ss->values;
  }
  return std::nullopt;
}

void check_constant_indices(const Call& call, size_t i, const TensorStructInfo& x, int64_t axis) {
  auto* c = call.args[i].as<Constant>();
  if (!c || !x.shape || axis < 0 || axis >= int64_t(x.shape->size())) return;
  const int64_t* dim = tir::as_const_int((*x.shape)[size_t(axis)]);
  const runtime::NDArray& a = c->data;
  DataType dt = a.dtype();
  if (!dim || !(dt.is_int() || dt.is_uint()) || a.device().device_type != kDLCPU) return;
  int64_t d = *dim;
  for (int64_t k = 0; k < a.numel(); ++k) {
    const char* p = static_cast<const char*>(a.data()) + k * dt.bytes();
    int64_t v = 0;
    bool s = dt.is_int();
    switch (dt.bytes()) {
      case 1: v = s ? *reinterpret_cast<const int8_t*>(p) : *reinterpret_cast<const uint8_t*>(p); break;
      case 2: v = s ? *reinterpret_cast<const int16_t*>(p) : *reinterpret_cast<const uint16_t*>(p); break;
      case 4: v = s ? int64_t(*reinterpret_cast<const int32_t*>(p)) : *reinterpret_cast<const uint32_t*>(p); break;
      default: v = *reinterpret_cast<const int64_t*>(p); break;
    }
    RX_CHECK(v >= -d && v < d) << op_name(call) << ": constant index " << v << " (element " << k
                               << " of '" << arg_name(call, i) << "') is out of range for axis "
                               << axis << " of size " << d << " (expected " << -d
                               << " <= index < " << d << ")";
  }
}

}  // namespace relax::op_detail
