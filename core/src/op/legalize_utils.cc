#include "legalize_utils.h"

#include "infer_utils.h"
#include "relax/support/diagnostic.h"

namespace relax::op_detail {

std::string kernel_name(const Call& call) {
  std::string name = op_name(call);
  for (const char* prefix : {"relax.", "nn."}) {
    if (name.rfind(prefix, 0) == 0) name = name.substr(std::string(prefix).size());
  }
  return name;
}

const TensorStructInfo& legal_out(const Call& call) {
  auto* t = call.struct_info.as<TensorStructInfo>();
  RX_CHECK(t != nullptr && t->shape.has_value() && !t->dtype.is_void())
      << op_name(call) << ": cannot legalise a call whose result is "
      << (call.struct_info.defined() ? to_string(call.struct_info) : std::string("not inferred"))
      << "; the kernel needs a known shape and dtype (use R.match_cast to give the operands one)";
  return *t;
}

const TensorStructInfo& legal_arg(const Call& call, size_t i) {
  const TensorStructInfo& t = expect_tensor(call, i);
  RX_CHECK(t.shape.has_value() && !t.dtype.is_void())
      << op_name(call) << ": cannot legalise: argument '" << arg_name(call, i) << "' is "
      << to_string(StructInfo(&t)) << "; the kernel needs a known shape and dtype";
  return t;
}

PrimExpr broadcast_load(const te::Tensor& t, const std::vector<PrimExpr>& idx) {
  size_t n = t.ndim();
  RX_ICHECK(n <= idx.size()) << "broadcast_load: operand of rank " << n << " for " << idx.size()
                             << " indices";
  std::vector<PrimExpr> at;
  for (size_t k = 0; k < n; ++k) {
    const PrimExpr& d = t.shape()[k];
    at.push_back(tir::is_const_int(d, 1) ? tir::int_imm(0) : idx[idx.size() - n + k]);
  }
  return t(at);
}

PrimExpr const_of(double value, DataType dtype) {
  if (dtype.is_bool()) return tir::bool_imm(value != 0);
  if (dtype.is_float()) return tir::float_imm(value, dtype);
  return tir::int_imm(int64_t(value), dtype);
}

PrimExpr flat_index(const std::vector<PrimExpr>& idx, const std::vector<PrimExpr>& shape) {
  PrimExpr flat = tir::int_imm(0);
  for (size_t k = 0; k < idx.size(); ++k) flat = flat * shape[k] + idx[k];
  return flat;
}

std::vector<PrimExpr> unflatten_index(PrimExpr flat, const std::vector<PrimExpr>& shape) {
  std::vector<PrimExpr> idx(shape.size());
  for (size_t k = shape.size(); k-- > 0;) {
    if (k == 0) {
      idx[k] = flat;
    } else {
      idx[k] = tir::floormod(flat, shape[k]);
      flat = tir::floordiv(flat, shape[k]);
    }
  }
  return idx;
}

std::vector<Expr> tuple_fields_of(const Expr& e) {
  if (auto* t = e.as<Tuple>()) return t->fields;
  std::vector<Expr> out;
  if (auto* ts = get_struct_info(e).as<TupleStructInfo>()) {
    for (size_t i = 0; i < ts->fields.size(); ++i)
      out.push_back(make_ref<TupleGetItem>(e, int(i), ts->fields[i]));
  }
  return out;
}

Expr legalize_elementwise(BlockBuilder& bb, const Call& call,
                          const std::function<PrimExpr(PrimExpr)>& f) {
  const TensorStructInfo& out = legal_out(call);
  legal_arg(call, 0);
  return te::call_te(
      bb, {call.args[0]},
      [&](const std::vector<te::Tensor>& a) {
        return te::compute(
            *out.shape, [&](const std::vector<PrimExpr>& i) { return f(a[0](i)); },
            kernel_name(call));
      },
      kernel_name(call));
}

Expr legalize_broadcast(BlockBuilder& bb, const Call& call,
                        const std::function<PrimExpr(PrimExpr, PrimExpr)>& f) {
  const TensorStructInfo& out = legal_out(call);
  legal_arg(call, 0);
  legal_arg(call, 1);
  return te::call_te(
      bb, {call.args[0], call.args[1]},
      [&](const std::vector<te::Tensor>& a) {
        return te::compute(
            *out.shape,
            [&](const std::vector<PrimExpr>& i) {
              return f(broadcast_load(a[0], i), broadcast_load(a[1], i));
            },
            kernel_name(call));
      },
      kernel_name(call));
}

void register_activation(OpRegistry& reg, const std::string& name, const std::string& summary,
                         InferStructInfo infer, std::function<PrimExpr(PrimExpr, const Call&)> f,
                         std::vector<AttrSpec> attrs) {
  OpInfo& op = reg.register_op(name);
  op.summary = summary;
  op.arg_names = {"x"};
  op.attrs = std::move(attrs);
  op.infer = std::move(infer);
  op.pattern = OpPattern::kElemWise;
  op.legalize = [f = std::move(f)](BlockBuilder& bb, const Call& call) {
    return legalize_elementwise(bb, call, [&](PrimExpr x) { return f(x, call); });
  };
}

double prim_value_arg(const Call& call, size_t i) {
  auto* pv = call.args[i].as<PrimValue>();
  RX_CHECK(pv != nullptr) << op_name(call) << ": argument '" << arg_name(call, i)
                          << "' should be a constant PrimValue, got " << describe(call.args[i]);
  if (auto* c = pv->value.as<tir::IntImm>()) return double(c->value);
  if (auto* c = pv->value.as<tir::FloatImm>()) return c->value;
  RX_THROW() << op_name(call) << ": argument '" << arg_name(call, i)
             << "' should be a constant, got " << tir::to_string(pv->value);
  return 0;
}

}  // namespace relax::op_detail
