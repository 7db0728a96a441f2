// Purity of calls for the cleanup passes (see purity.h).
#include "purity.h"

#include <string_view>

#include "relax/ir/op.h"

namespace relax::cleanup {

bool call_is_pure(const Call& call, const IRModule& mod) {
  if (auto* op = call.op.as<Op>()) {
    std::string_view name = op->name;
    if (name.starts_with("relax.vm.") || name.starts_with("relax.builtin.")) return false;
    return op->info->pure;
  }
  if (call.op.is<ExternFunc>()) return false;
  if (auto* gv = call.op.as<GlobalVar>()) {
    if (BaseFunc f = mod.find(gv->name); f.defined()) {
      if (auto* fn = f.as<Function>()) return fn->is_pure;
      return false;
    }
  }
  if (call.op->struct_info.defined())
    if (auto* f = call.op->struct_info.as<FuncStructInfo>()) return f->purity;
  return false;
}

bool expr_is_pure(const Expr& e, const IRModule& mod) {
  bool pure = true;
  post_order_visit(e, [&](const Expr& x) {
    if (auto* c = x.as<Call>(); c && !call_is_pure(*c, mod)) pure = false;
  });
  return pure;
}

}  // namespace relax::cleanup
