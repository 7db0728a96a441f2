#include "relax/ir/expr.h"

#include "relax/support/diagnostic.h"

namespace relax {

const char* relax_kind_name(uint32_t kind) {
  switch (kind) {
#define RELAX_X(Name) \
  case uint32_t(ExprKind::k##Name): return #Name;
    RELAX_EXPR_NODES(RELAX_X)
#undef RELAX_X
    case uint32_t(ExprKind::kPrimFunc): return "PrimFunc";
#define RELAX_X(Name) \
  case uint32_t(BindingKind::k##Name): return #Name;
    RELAX_BINDING_NODES(RELAX_X)
#undef RELAX_X
    default: return "<not a Relax node>";
  }
}

namespace {
StructInfo constant_sinfo(const runtime::NDArray& data) {
  RX_ICHECK(data.defined()) << "Constant without data";
  return tensor_sinfo(const_shape(data.shape()), data.dtype());
}

StructInfo tuple_fields_sinfo(const std::vector<Expr>& fields) {
  std::vector<StructInfo> out;
  out.reserve(fields.size());
  for (const auto& f : fields) {
    RX_ICHECK(f.defined()) << "Tuple with an undefined field";
    if (!f->struct_info.defined()) return {};
    out.push_back(f->struct_info);
  }
  return tuple_sinfo(std::move(out));
}

StructInfo get_item_sinfo(const Expr& tuple, int index) {
  if (!tuple.defined() || !tuple->struct_info.defined()) return {};
  if (auto* t = tuple->struct_info.as<TupleStructInfo>()) {
    if (index >= 0 && size_t(index) < t->fields.size()) return t->fields[index];
  }
  return {};
}
}  // namespace

Constant::Constant(runtime::NDArray data, StructInfo sinfo)
    : ExprNode(ExprKind::kConstant, sinfo.defined() ? std::move(sinfo) : constant_sinfo(data)), data(std::move(data)) {}

Tuple::Tuple(std::vector<Expr> fields, StructInfo sinfo, Span span)
    : ExprNode(ExprKind::kTuple, sinfo.defined() ? std::move(sinfo) : tuple_fields_sinfo(fields), std::move(span)),
      fields(std::move(fields)) {}

TupleGetItem::TupleGetItem(Expr tuple, int index, StructInfo sinfo, Span span)
    : ExprNode(ExprKind::kTupleGetItem, sinfo.defined() ? std::move(sinfo) : get_item_sinfo(tuple, index),
               std::move(span)),
      tuple(std::move(tuple)), index(index) {}

ShapeExpr::ShapeExpr(std::vector<PrimExpr> values)
    : ExprNode(ExprKind::kShapeExpr, shape_sinfo(values)), values(std::move(values)) {
  for (const auto& v : this->values) {
    RX_ICHECK(v.defined() && v->dtype.is_int() && v->dtype.is_scalar())
        << "shape dimensions must be scalar integers, got " << (v.defined() ? v->dtype.to_string() : "null");
  }
}

PrimValue::PrimValue(PrimExpr value)
    : ExprNode(ExprKind::kPrimValue, prim_sinfo(value->dtype, value)), value(std::move(value)) {}

StringImm::StringImm(std::string value) : ExprNode(ExprKind::kStringImm, object_sinfo()), value(std::move(value)) {}

DataTypeImm::DataTypeImm(DataType value) : ExprNode(ExprKind::kDataTypeImm, object_sinfo()), value(value) {}

ExternFunc::ExternFunc(std::string global_symbol, StructInfo sinfo)
    : ExprNode(ExprKind::kExternFunc, sinfo.defined() ? std::move(sinfo) : opaque_func_sinfo(object_sinfo(), false)),
      global_symbol(std::move(global_symbol)) {}

SeqExpr::SeqExpr(std::vector<Block> blocks, Expr body, StructInfo sinfo)
    : ExprNode(ExprKind::kSeqExpr, sinfo.defined() ? std::move(sinfo) : (body.defined() ? body->struct_info : StructInfo())),
      blocks(std::move(blocks)), body(std::move(body)) {}

namespace {
StructInfo function_sinfo(const std::vector<Ref<Var>>& params, const StructInfo& ret, bool pure) {
  std::vector<StructInfo> ps;
  ps.reserve(params.size());
  for (const auto& p : params) {
    RX_ICHECK(p.defined() && p->struct_info.defined()) << "function parameter without struct info";
    ps.push_back(p->struct_info);
  }
  return func_sinfo(std::move(ps), ret.defined() ? ret : object_sinfo(), pure);
}
}  // namespace

Function::Function(std::vector<Ref<Var>> params, Expr body, StructInfo ret_struct_info, bool is_pure, Attrs attrs,
                   Span span)
    : BaseFuncNode(ExprKind::kFunction, std::move(attrs), function_sinfo(params, ret_struct_info, is_pure),
                   std::move(span)),
      params(std::move(params)), body(std::move(body)),
      ret_struct_info(ret_struct_info.defined() ? std::move(ret_struct_info) : object_sinfo()), is_pure(is_pure) {}

Ref<Var> make_var(std::string name, StructInfo sinfo, Span span) {
  return make_ref<Var>(std::move(name), std::move(sinfo), std::move(span));
}
Ref<DataflowVar> make_dataflow_var(std::string name, StructInfo sinfo, Span span) {
  return make_ref<DataflowVar>(std::move(name), std::move(sinfo), std::move(span));
}
Ref<VarNode> make_var_like(const Ref<VarNode>& var, StructInfo sinfo) {
  if (var.is<DataflowVar>()) return make_dataflow_var(var->name, std::move(sinfo), var->span);
  return make_var(var->name, std::move(sinfo), var->span);
}
Expr make_tuple(std::vector<Expr> fields) { return make_ref<Tuple>(std::move(fields)); }
Expr make_shape(std::vector<PrimExpr> values) { return make_ref<ShapeExpr>(std::move(values)); }
Expr make_prim_value(PrimExpr value) { return make_ref<PrimValue>(std::move(value)); }
Expr make_prim_value(int64_t value) { return make_ref<PrimValue>(tir::int_imm(value)); }
Expr make_string(std::string value) { return make_ref<StringImm>(std::move(value)); }
Expr make_dtype(DataType value) { return make_ref<DataTypeImm>(value); }
Expr make_constant(runtime::NDArray data) { return make_ref<Constant>(std::move(data)); }
Ref<ExternFunc> make_extern(std::string global_symbol) { return make_ref<ExternFunc>(std::move(global_symbol)); }
Block make_block(std::vector<Binding> bindings, bool dataflow) {
  if (dataflow) return make_ref<DataflowBlock>(std::move(bindings));
  return make_ref<BindingBlock>(std::move(bindings));
}

const StructInfo& get_struct_info(const Expr& e) {
  RX_ICHECK(e.defined()) << "struct info of an undefined expression";
  RX_ICHECK(e->struct_info.defined()) << "expression " << describe(e) << " has no struct info (not normalised)";
  return e->struct_info;
}

const TensorStructInfo* tensor_info(const Expr& e) {
  if (!e.defined() || !e->struct_info.defined()) return nullptr;
  return e->struct_info.as<TensorStructInfo>();
}

bool is_leaf(const Expr& e) {
  switch (ExprKind(e->kind())) {
    case ExprKind::kVar:
    case ExprKind::kDataflowVar:
    case ExprKind::kConstant:
    case ExprKind::kShapeExpr:
    case ExprKind::kPrimValue:
    case ExprKind::kStringImm:
    case ExprKind::kDataTypeImm:
    case ExprKind::kGlobalVar:
    case ExprKind::kOp:
    case ExprKind::kExternFunc: return true;
    default: return false;
  }
}

std::string describe(const Expr& e) {
  if (!e.defined()) return "<null>";
  if (auto* v = e.as<VarNode>()) return "'" + v->name + "'";
  if (auto* op = e.as<Op>()) return op->name;
  if (auto* g = e.as<GlobalVar>()) return "@" + g->name;
  if (auto* x = e.as<ExternFunc>()) return "extern \"" + x->global_symbol + "\"";
  if (auto* c = e.as<Call>()) return "call of " + describe(c->op);
  return relax_kind_name(e->kind());
}

}  // namespace relax
