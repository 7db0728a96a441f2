// Closures (TVM's R.make_closure / R.invoke_closure / R.invoke_pure_closure), the ops that
// lambda-lift (relax/transform/core_passes.h) leaves for the VM.
//
// Representation:
//   make_closure:        Call(relax.make_closure, [func, Tuple(captured...)])
//   invoke_closure:      Call(relax.invoke_closure, [closure, Tuple(args...)], sinfo_args=[ret]?)
//   invoke_pure_closure: the same, promised pure (allowed in dataflow blocks).
// `func` is a module function (a GlobalVar) whose leading parameters receive the captured
// values; the closure is the function of the remaining parameters, typed as such
// (R.Callable of the rest, with the symbolic variables the captures bind substituted) when
// func's signature is known, else R.Object. Invoking a closure calls it with the captured
// values followed by `args`; the result is sinfo_args[0], else the closure's return type.
// vm-codegen maps them to vm.builtin.make_closure / vm.builtin.invoke_closure.
#include "infer_utils.h"
#include "relax/ir/struct_info_analysis.h"
#include "relax/op/closure.h"
#include "relax/support/diagnostic.h"

namespace relax {
namespace op_detail {

namespace {

/// The struct info of the fields of argument `i`, which must be a tuple.
std::vector<StructInfo> tuple_field_sinfo(const Call& call, size_t i) {
  const StructInfo& s = get_struct_info(call.args.at(i));
  auto* t = s.as<TupleStructInfo>();
  RX_CHECK(t != nullptr) << op_name(call) << ": argument " << arg_name(call, i)
                         << " must be a tuple, got " << to_string(s);
  return t->fields;
}

StructInfo infer_make_closure(const Call& call, BlockBuilder& ctx) {
  const StructInfo& fs = get_struct_info(call.args[0]);
  std::vector<StructInfo> captured = tuple_field_sinfo(call, 1);
  if (fs.is<ObjectStructInfo>()) return object_sinfo();
  auto* f = fs.as<FuncStructInfo>();
  RX_CHECK(f != nullptr) << op_name(call) << ": func must be a function, got "
                         << describe(call.args[0]) << " of type " << to_string(fs);
  if (f->is_opaque()) return opaque_func_sinfo(f->ret, f->purity);
  const std::vector<StructInfo>& params = *f->params;
  RX_CHECK(captured.size() <= params.size())
      << op_name(call) << ": " << describe(call.args[0]) << " takes " << params.size()
      << " parameter(s), but " << captured.size() << " value(s) are captured";
  SymbolicVarMap bindings;
  for (size_t i = 0; i < captured.size(); ++i) bind_symbolic_vars(params[i], captured[i], &bindings);
  for (size_t i = 0; i < captured.size(); ++i) {
    StructInfo expected = substitute_sinfo(params[i], bindings, ctx.analyzer());
    RX_CHECK(struct_info_base_check(expected, captured[i], ctx.analyzer()) != BaseCheck::kFail)
        << op_name(call) << ": captured value " << i << " has struct info " << to_string(captured[i])
        << ", which does not match parameter " << i << " of " << describe(call.args[0]) << ", "
        << to_string(expected);
  }
  std::vector<StructInfo> rest;
  for (size_t i = captured.size(); i < params.size(); ++i)
    rest.push_back(substitute_sinfo(params[i], bindings, ctx.analyzer()));
  return func_sinfo(std::move(rest), substitute_sinfo(f->ret, bindings, ctx.analyzer()), f->purity);
}

StructInfo infer_invoke_closure(const Call& call, BlockBuilder& ctx) {
  const StructInfo& cs = get_struct_info(call.args[0]);
  std::vector<StructInfo> args = tuple_field_sinfo(call, 1);
  RX_CHECK(call.sinfo_args.size() <= 1) << op_name(call) << " takes at most one sinfo_args entry";
  auto* f = cs.as<FuncStructInfo>();
  RX_CHECK(f != nullptr || cs.is<ObjectStructInfo>())
      << op_name(call) << ": " << describe(call.args[0]) << " is " << to_string(cs)
      << ", not a closure or function";
  StructInfo derived = object_sinfo();
  if (f != nullptr && call.args[1].is<Tuple>()) {
    // Arity and argument types checked against the closure's signature.
    derived = derive_call_ret_struct_info(*f, call.args[1].as<Tuple>()->fields,
                                          describe(call.args[0]), ctx.analyzer());
  } else if (f != nullptr) {
    RX_CHECK(f->is_opaque() || f->params->size() == args.size())
        << op_name(call) << ": " << describe(call.args[0]) << " takes " << f->params->size()
        << " argument(s), got " << args.size();
    derived = f->ret;
  }
  return call.sinfo_args.empty() ? derived : call.sinfo_args[0];
}

}  // namespace

void register_closure_ops(OpRegistry& reg) {
  {
    OpInfo& op = reg.register_op("relax.make_closure");
    op.summary = "A closure: a module function with its leading parameters bound to values.";
    op.arg_names = {"func", "args"};
    op.infer = infer_make_closure;
    op.pure = true;
  }
  {
    OpInfo& op = reg.register_op("relax.invoke_closure");
    op.summary = "Call a closure (or function value) with a tuple of arguments; may have side effects.";
    op.arg_names = {"closure", "args"};
    op.infer = infer_invoke_closure;
    op.pure = false;
  }
  {
    OpInfo& op = reg.register_op("relax.invoke_pure_closure");
    op.summary = "Call a closure (or function value) with a tuple of arguments, promised pure.";
    op.arg_names = {"closure", "args"};
    op.infer = infer_invoke_closure;
    op.pure = true;
  }
}

}  // namespace op_detail

namespace op {

Expr make_closure(Expr func, std::vector<Expr> captured) {
  return call_op("relax.make_closure", {std::move(func), make_tuple(std::move(captured))});
}

Expr invoke_closure(Expr closure, std::vector<Expr> args, StructInfo ret, bool pure) {
  std::vector<StructInfo> sinfo_args;
  if (ret.defined()) sinfo_args.push_back(std::move(ret));
  return call_op(pure ? "relax.invoke_pure_closure" : "relax.invoke_closure",
                 {std::move(closure), make_tuple(std::move(args))}, {}, std::move(sinfo_args));
}

}  // namespace op
}  // namespace relax
