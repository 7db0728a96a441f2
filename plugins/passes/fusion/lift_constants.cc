// lift_primitive_constants (used by fuse-tir): makes every constant that a Primitive function's
// call_tir bindings take a parameter of the function, and passes it at every call.
//
// fuse-ops never leaves constants inside a group (they become parameters), but composite
// functions from fuse-ops-by-pattern keep their matched constants in the body by default
// (bind-constants, so that a backend claiming a composite sees its weights). When no backend
// claims a composite, legalize-ops turns its body into call_tirs like any group; lifting its
// constants gives the shape fuse-tir expects (a buffer per tensor parameter), so the composite
// becomes one kernel like a group of fuse-ops.
#include <algorithm>
#include <unordered_map>

#include "fusion.h"
#include "relax/ir/expr_functor.h"

namespace relax::fusion {
namespace {

/// The constants of `f`'s call_tir argument tuples, in order of first use.
std::vector<Expr> call_tir_constants(const Function& f) {
  std::vector<Expr> out;
  auto* seq = f.body.as<SeqExpr>();
  if (!seq) return out;
  for (const Block& block : seq->blocks)
    for (const Binding& b : block->bindings) {
      auto* call = b->value.as<Call>();
      auto* op = call ? call->op.as<Op>() : nullptr;
      if (!op || op->name != "relax.call_tir" || call->args.size() < 2) continue;
      auto* tuple = call->args[1].as<Tuple>();
      if (!tuple) continue;
      for (const Expr& a : tuple->fields)
        if (a.is<Constant>() &&
            std::none_of(out.begin(), out.end(), [&](const Expr& c) { return c.same_as(a); }))
          out.push_back(a);
    }
  return out;
}

/// Replaces the given constants by variables in call_tir argument tuples.
class ConstantReplacer : public ExprMutatorBase {
 public:
  explicit ConstantReplacer(std::unordered_map<const Object*, Expr> map) : map_(std::move(map)) {}
  using ExprMutatorBase::visit_;
  Expr visit_(const Constant* op) override {
    auto it = map_.find(op);
    return it != map_.end() ? it->second : Expr(op);
  }

 private:
  std::unordered_map<const Object*, Expr> map_;
};

/// Appends the lifted constants to the calls of the rewritten functions.
class CallExtender : public BranchKeepingMutator {
 public:
  explicit CallExtender(const std::unordered_map<std::string, std::vector<Expr>>& extra)
      : extra_(extra) {}
  using BranchKeepingMutator::visit_;
  Expr visit_(const Call* op) override {
    Expr out = ExprMutatorBase::visit_(op);
    auto* call = out.as<Call>();
    auto* gv = call->op.as<GlobalVar>();
    auto it = gv ? extra_.find(gv->name) : extra_.end();
    if (it == extra_.end()) {
      if (out.get() == op) return out;
      return make_ref<Call>(call->op, call->args, call->attrs, call->sinfo_args, op->struct_info);
    }
    std::vector<Expr> args = call->args;
    args.insert(args.end(), it->second.begin(), it->second.end());
    return make_ref<Call>(call->op, std::move(args), call->attrs, call->sinfo_args,
                          op->struct_info);
  }

 private:
  const std::unordered_map<std::string, std::vector<Expr>>& extra_;
};

}  // namespace

IRModule lift_primitive_constants(const IRModule& mod) {
  IRModule out = mod;
  std::unordered_map<std::string, std::vector<Expr>> extra;
  for (const auto& e : mod.functions()) {
    auto* f = e.func.as<Function>();
    if (!f || get_int(f->attrs, kAttrPrimitive, 0) == 0) continue;
    std::vector<Expr> constants = call_tir_constants(*f);
    if (constants.empty()) continue;
    std::vector<Ref<Var>> params = f->params;
    std::unordered_map<const Object*, Expr> map;
    for (const Expr& c : constants) {
      params.push_back(make_var("const_" + std::to_string(params.size()), c->struct_info));
      map[c.get()] = params.back();
    }
    Expr body = ConstantReplacer(std::move(map)).visit_expr(f->body);
    out.update(e.gv->name, make_ref<Function>(std::move(params), body, f->ret_struct_info,
                                              f->is_pure, f->attrs));
    extra[e.gv->name] = std::move(constants);
  }
  if (extra.empty()) return mod;
  CallExtender extender(extra);
  for (const auto& e : out.functions()) {
    if (!e.func.is<Function>()) continue;
    Expr nf = extender.visit_expr(e.func);
    if (!nf.same_as(e.func)) out.update(e.gv->name, nf.as_ref<Function>());
  }
  return out;
}

}  // namespace relax::fusion
