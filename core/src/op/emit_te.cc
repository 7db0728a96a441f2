// call_te / emit_te: compute-DSL functions as call_tir of generated PrimFuncs (tir/emit_te.h).
#include "relax/op/emit_te.h"

#include <unordered_map>

#include "relax/op/op.h"
#include "relax/support/diagnostic.h"
#include "relax/tir/stmt_functor.h"

namespace relax::te {

namespace {

/// Placeholder names: the argument variable's name, else "arg<i>".
std::string arg_name(const Expr& e, size_t i) {
  if (auto* v = e.as<VarNode>(); v && !v->name.empty()) return v->name;
  return "arg" + std::to_string(i);
}

/// `func` with each of its free symbolic variables (whole dimensions of parameter buffers and
/// scalar parameters) replaced by a fresh variable of the same name and dtype.
Ref<tir::PrimFunc> with_own_vars(const Ref<tir::PrimFunc>& func) {
  std::unordered_map<const tir::Var*, Ref<tir::Var>> fresh;
  auto add = [&](const tir::PrimExpr& e) {
    tir::substitute(e, [&](const tir::Var* v) -> tir::PrimExpr {
      if (!v->dtype.is_handle() && !fresh.count(v)) fresh.emplace(v, tir::var(v->name, v->dtype));
      return {};
    });
  };
  for (const auto& [param, buffer] : func->buffer_map) {
    for (const auto& d : buffer->shape) add(d);
    for (const auto& d : buffer->strides) add(d);
    add(buffer->elem_offset);
  }
  for (const auto& p : func->params)
    if (!p->dtype.is_handle()) add(p);
  if (fresh.empty()) return func;
  Ref<tir::PrimFunc> sub = tir::substitute(func, [&](const tir::Var* v) -> tir::PrimExpr {
    auto it = fresh.find(v);
    return it == fresh.end() ? tir::PrimExpr() : tir::PrimExpr(it->second);
  });
  std::vector<Ref<tir::Var>> params;
  for (const auto& p : sub->params) {
    auto it = fresh.find(p.get());
    params.push_back(it == fresh.end() ? p : it->second);
  }
  return make_ref<tir::PrimFunc>(std::move(params), sub->body, sub->buffer_map, sub->attrs,
                                 sub->ret_type);
}

}  // namespace

Expr call_te(BlockBuilder& bb, const std::vector<Expr>& args, const TeFunction& f,
             const std::string& name_hint) {
  RX_CHECK(f != nullptr) << "call_te " << name_hint << " without a te function";
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < args.size(); ++i) {
    const TensorStructInfo* t = tensor_info(args[i]);
    RX_CHECK(t != nullptr) << "call_te " << name_hint << ": argument " << i << " ("
                           << describe(args[i]) << ") must be a tensor, got "
                           << to_string(get_struct_info(args[i]));
    RX_CHECK(t->shape.has_value() && !t->dtype.is_void())
        << "call_te " << name_hint << ": argument " << i << " (" << describe(args[i])
        << ") needs a known shape and dtype, got " << to_string(get_struct_info(args[i]))
        << "; use R.match_cast to give it one";
    inputs.push_back(placeholder(*t->shape, t->dtype, arg_name(args[i], i)));
  }
  std::vector<Tensor> outputs = f(inputs).tensors;
  RX_CHECK(!outputs.empty()) << "call_te " << name_hint << ": the te function returns no tensors";
  std::vector<Tensor> params = inputs;
  std::vector<StructInfo> out_sinfo;
  for (const auto& o : outputs) {
    RX_CHECK(o.defined()) << "call_te " << name_hint
                          << ": the te function returns an undefined tensor";
    RX_CHECK(!o.op()->is_placeholder()) << "call_te " << name_hint << ": output " << o.name()
                                        << " is a placeholder, not a computed tensor";
    params.push_back(o);
    out_sinfo.push_back(tensor_sinfo(o.shape(), o.dtype()));
  }
  Ref<tir::PrimFunc> func = create_prim_func(params);
  // The Relax-side values of the scalar parameters, before the PrimFunc gets its own variables.
  std::vector<PrimExpr> tir_vars;
  for (const auto& p : func->params) {
    if (p->dtype.is_handle()) continue;
    RX_CHECK(p->dtype == DataType::Int(64))
        << "call_te " << name_hint << ": symbolic variable " << p->name << " is "
        << p->dtype.to_string() << "; tir_vars pass int64 values";
    tir_vars.push_back(p);
  }
  Ref<GlobalVar> gv = bb.add_function(with_own_vars(func), name_hint);
  std::optional<std::vector<PrimExpr>> tv;
  if (!tir_vars.empty()) tv = std::move(tir_vars);
  return op::call_tir(gv, args, std::move(out_sinfo), std::move(tv));
}

Ref<VarNode> emit_te(BlockBuilder& bb, const std::vector<Expr>& args, const TeFunction& f,
                     const std::string& name_hint) {
  return bb.emit(call_te(bb, args, f, name_hint), name_hint);
}

}  // namespace relax::te
