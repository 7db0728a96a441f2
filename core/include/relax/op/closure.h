// Builders for the closure ops (op/closure.cc): R.make_closure, R.invoke_closure and
// R.invoke_pure_closure. lambda-lift emits them; vm-codegen maps them to the VM's
// vm.builtin.make_closure / vm.builtin.invoke_closure.
#pragma once

#include <vector>

#include "relax/ir/expr.h"

namespace relax::op {

/// R.make_closure(func, (captured...)): `func` (a GlobalVar) with its leading parameters bound
/// to `captured`; typed as R.Callable of the remaining parameters when func's signature is
/// known.
Expr make_closure(Expr func, std::vector<Expr> captured);

/// R.invoke_closure(closure, (args...), sinfo_args=[ret]) (or R.invoke_pure_closure when
/// `pure`): calls a closure or function value. An undefined `ret` takes the closure's return
/// type.
Expr invoke_closure(Expr closure, std::vector<Expr> args, StructInfo ret = {}, bool pure = false);

}  // namespace relax::op
