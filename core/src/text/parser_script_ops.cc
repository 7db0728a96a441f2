// The parser's TVM spellings of R.print, R.assert_op, R.call_tir_inplace and the lowered
// builtins (op/script_ops.cc, vm/vm_ops.h):
//
//   R.print(x, y, format="x={} y={}")            -> relax.print(R.str(format), x, y)
//   R.assert_op(cond, [x], format="bad {}")       -> relax.assert_op(cond, R.str(format), x)
//     (format_args may be one value, a list or a tuple; format may be R.str(...))
//   R.call_tir_inplace(f, (a, b), inplace_indices=[0], out_sinfo=...)
//   R.builtin.alloc_tensor(R.shape([2]), dtype="float32", runtime_device_index=0)
//     (literal arguments of R.builtin.*, R.memory.*, R.vm.* become R.prim_value / R.str /
//     R.dtype; a trailing storage scope "global" of R.builtin.alloc_tensor is TVM's default
//     and dropped, as the op here has no storage scope)
#include "parser_internal.h"
#include "relax/arith/analyzer.h"
#include "relax/ir/op.h"
#include "script_common.h"

namespace relax::script {

namespace {

bool is_lowered_builtin(const std::string& op_name) {
  return op_name.starts_with("relax.builtin.") || op_name.starts_with("relax.memory.") ||
         op_name.starts_with("relax.vm.");
}

bool is_int_literal(const NodeP& v) {
  return v->kind == NK::kInt || (v->kind == NK::kUnary && v->str == "-" && v->a->kind == NK::kInt);
}

}  // namespace

Expr Parser::op_arg(const NodeP& v, const std::string& op_name, size_t index) {
  if (!is_lowered_builtin(op_name)) return rexpr(v);
  const OpInfo* info = OpRegistry::global().find(op_name);
  std::string name = info && !info->arg_names.empty()
                         ? info->arg_names[std::min(index, info->arg_names.size() - 1)]
                         : std::string();
  if (is_int_literal(v)) return make_prim_value(prim_as(v, kDefaultInt));
  if (v->kind == NK::kTrue || v->kind == NK::kFalse) return make_prim_value(prim(v).e);
  if (v->kind == NK::kStr) return name == "dtype" ? make_dtype(dtype_of(v)) : make_string(v->str);
  return rexpr(v);
}

Expr Parser::direct_prim_func_call(const Expr& callee, const std::vector<Expr>& args, Pos pos) {
  auto* gv = callee.as<GlobalVar>();
  if (!gv || !bb_->module().find(gv->name).is<tir::PrimFunc>()) return Expr();
  if (!OpRegistry::global().find("relax.vm.call_dps"))
    error(pos, "calling PrimFunc @" + gv->name +
                   " directly is the VM's lowered form (R.vm.call_dps), whose ops are not loaded");
  return make_ref<Call>(
      get_op("relax.vm.call_dps"),
      std::vector<Expr>{callee, make_ref<Tuple>(args, StructInfo(), span_at(pos))}, Attrs(),
      std::vector<StructInfo>{}, StructInfo(), span_at(pos));
}

Expr Parser::script_op(const text::Node& n, const std::string& f) {
  Span span = span_at(n.pos);
  auto check_kwargs = [&](std::initializer_list<const char*> allowed) {
    for (const auto& [k, v] : n.kwargs) {
      bool ok = false;
      for (const char* a : allowed) ok |= k == a;
      if (!ok) error(v->pos, "R." + f + " has no keyword argument '" + k + "'");
    }
  };
  // A format: a string literal or R.str("...").
  auto format_of = [&](const NodeP& v) -> Expr {
    if (!v) return make_string("");
    if (v->kind == NK::kStr) return make_string(v->str);
    Expr e = rexpr(v);
    if (!e.is<StringImm>()) error(v->pos, "R." + f + ": format must be a string");
    return e;
  };
  if (f == "print") {
    check_kwargs({"format"});
    std::vector<Expr> args{format_of(kwarg(n, "format"))};
    for (const auto& it : n.items) args.push_back(rexpr(it));
    return make_ref<Call>(get_op("relax.print"), std::move(args), Attrs(),
                          std::vector<StructInfo>{}, StructInfo(), span);
  }
  if (f == "assert_op") {
    check_kwargs({"condition", "format_args", "format"});
    NodeP cond = !n.items.empty() ? n.items[0] : kwarg(n, "condition");
    NodeP vals = n.items.size() > 1 ? n.items[1] : kwarg(n, "format_args");
    NodeP format = n.items.size() > 2 ? n.items[2] : kwarg(n, "format");
    if (!cond) error(n.pos, "R.assert_op needs a condition");
    if (n.items.size() > 3)
      error(n.items[3]->pos, "R.assert_op takes (condition, format_args, format)");
    std::vector<Expr> args{rexpr(cond), format_of(format)};
    if (vals && (vals->kind == NK::kList || vals->kind == NK::kTuple)) {
      for (const auto& it : vals->items) args.push_back(rexpr(it));
    } else if (vals && vals->kind != NK::kNone) {
      args.push_back(rexpr(vals));
    }
    return make_ref<Call>(get_op("relax.assert_op"), std::move(args), Attrs(),
                          std::vector<StructInfo>{}, StructInfo(), span);
  }
  if (f == "call_tir_inplace") {
    check_kwargs({"inplace_indices", "out_sinfo", "out_ty", "tir_vars"});
    if (n.items.size() < 2) error(n.pos, "R.call_tir_inplace needs a PrimFunc and its arguments");
    NodeP idx = n.items.size() > 2 ? n.items[2] : kwarg(n, "inplace_indices");
    NodeP out = n.items.size() > 3 ? n.items[3] : kwarg(n, "out_sinfo");
    if (!out) out = kwarg(n, "out_ty");  // TVM's newer name
    if (!idx) error(n.pos, "R.call_tir_inplace needs inplace_indices=[...]");
    if (!out) error(n.pos, "R.call_tir_inplace needs out_sinfo=");
    std::vector<int64_t> indices;
    if (idx->kind == NK::kList || idx->kind == NK::kTuple) {
      for (const auto& it : idx->items) indices.push_back(int_literal(it, "an inplace index"));
    } else {
      indices.push_back(int_literal(idx, "an inplace index"));
    }
    // The rest is R.call_tir's: read it as one and take its parts.
    text::Node as_call_tir = n;
    auto callee = std::make_shared<text::Node>(*n.a);
    callee->str = "call_tir";
    as_call_tir.a = callee;
    as_call_tir.items.resize(2);
    as_call_tir.kwargs.clear();
    as_call_tir.kwargs.emplace_back("out_sinfo", out);
    if (NodeP tv = kwarg(n, "tir_vars")) as_call_tir.kwargs.emplace_back("tir_vars", tv);
    Expr base = relax_call(as_call_tir);
    auto* c = base.as<Call>();
    return make_ref<Call>(get_op("relax.call_tir_inplace"), c->args,
                          make_attrs({{"inplace_indices", indices}}), c->sinfo_args, StructInfo(),
                          span);
  }
  if (f == "vm.call_tir_dyn") {
    // R.vm.call_tir_dyn(f, (args..., R.shape([tir vars]))): R.vm.call_dps with the shape last.
    check_kwargs({});
    if (n.items.size() != 2 || n.items[1]->kind != NK::kTuple || n.items[1]->items.empty())
      error(n.pos, "R.vm.call_tir_dyn takes a PrimFunc and a tuple (args..., R.shape([...]))");
    Expr callee = rexpr(n.items[0]);
    std::vector<Expr> args;
    for (const auto& it : n.items[1]->items) args.push_back(rexpr(it));
    Expr tir_vars = args.back();
    args.pop_back();
    return make_ref<Call>(
        get_op("relax.vm.call_dps"),
        std::vector<Expr>{callee, make_ref<Tuple>(args, StructInfo(), span), tir_vars}, Attrs(),
        std::vector<StructInfo>{}, StructInfo(), span);
  }
  if (f == "vm.alloc_storage" && n.items.size() >= 3) {
    // TVM's R.vm.alloc_storage(R.shape([n]), device, dtype, scope?): n elements of dtype; here
    // the size is in bytes and the scope "global".
    check_kwargs({});
    Expr size = rexpr(n.items[0]), device = op_arg(n.items[1], "relax.vm.alloc_storage", 1);
    DataType t = n.items[2]->kind == NK::kStr ? dtype_of(n.items[2]) : DataType::Void();
    Expr dtype_arg = t.is_void() ? rexpr(n.items[2]) : Expr();  // keeps the node alive
    if (auto* d = dtype_arg.defined() ? dtype_arg.as<DataTypeImm>() : nullptr) t = d->value;
    auto* shape = size.as<ShapeExpr>();
    if (t.is_void() || !shape || shape->values.size() != 1)
      error(n.pos, "R.vm.alloc_storage takes (R.shape([size]), device index, dtype, scope)");
    if (n.items.size() > 3) {
      const NodeP& scope = n.items[3];
      Expr sc = scope->kind == NK::kStr ? make_string(scope->str) : rexpr(scope);
      if (!sc.is<StringImm>() || sc.as<StringImm>()->value != "global")
        error(scope->pos, "R.vm.alloc_storage: only the storage scope \"global\" is supported");
    }
    PrimExpr bytes = shape->values[0];
    if (t.bytes() != 1) bytes = arith::simplify(bytes * tir::int_imm(t.bytes()));
    return make_ref<Call>(get_op("relax.vm.alloc_storage"),
                          std::vector<Expr>{make_shape({bytes}), device}, Attrs(),
                          std::vector<StructInfo>{}, StructInfo(), span);
  }
  if (f == "builtin.alloc_tensor") {
    // TVM's fourth argument, the storage scope, is "global" here.
    text::Node rest = n;
    NodeP scope;
    if (rest.items.size() == 4) {
      scope = rest.items[3];
      rest.items.pop_back();
    }
    for (size_t i = 0; i < rest.kwargs.size(); ++i)
      if (rest.kwargs[i].first == "storage_scope") {
        scope = rest.kwargs[i].second;
        rest.kwargs.erase(rest.kwargs.begin() + long(i));
        break;
      }
    if (scope) {
      Expr s = scope->kind == NK::kStr ? make_string(scope->str) : rexpr(scope);
      auto* str = s.as<StringImm>();
      if (!str || str->value != "global")
        error(scope->pos, "R.builtin.alloc_tensor: only the storage scope \"global\" is supported");
    }
    return op_call(rest, "relax.builtin.alloc_tensor");
  }
  return Expr();
}

}  // namespace relax::script
