// legalize-ops: replaces each op call by its legalisation (OpInfo::legalize), usually a
// call_tir of a PrimFunc the legalisation adds to the module.
//
// Expects: normalized IR. Guarantees: every call of an op that has a legalize function is
// replaced by what it returns, normalised into the enclosing block; calls of ops without one
// (call_tir, call_packed, call_dps_packed, ...) stay as they are, so later passes (or a plugin
// that knows better) see them. A legalisation may itself produce ops with a legalisation: they
// are legalised too, up to a fixed depth (a cycle is an internal error). PrimFuncs the
// legalisations create are added to the module. A module pass: legalisations add functions.
#include "relax/ir/expr_functor.h"
#include "relax/ir/op.h"
#include "relax/transform/core_passes.h"

namespace relax::transform {

namespace {

constexpr int kMaxLegalizeDepth = 16;

class Legalizer : public ExprMutator {
 public:
  explicit Legalizer(IRModule mod) : ExprMutator(std::move(mod)) {}
  using ExprMutator::visit_;

  Expr visit_(const Call* op) override {
    Expr visited = ExprMutator::visit_(op);
    return legalize(visited, 0);
  }

 private:
  Expr legalize(const Expr& e, int depth) {
    auto* call = e.as<Call>();
    if (call == nullptr) return e;
    auto* callee = call->op.as<Op>();
    if (callee == nullptr || !callee->info->legalize) return e;
    RX_ICHECK(depth < kMaxLegalizeDepth)
        << "legalize-ops: legalisation of " << callee->name << " does not terminate";
    // Legalisations read argument struct info: make sure the call is normalised.
    Expr normalized = call->struct_info.defined() ? e : builder_.normalize(e);
    Expr result = callee->info->legalize(builder_, *normalized.as<Call>());
    RX_ICHECK(result.defined()) << "legalize-ops: the legalisation of " << callee->name
                                << " returned nothing";
    return legalize(builder_.normalize(result), depth + 1);
  }
};

IRModule legalize_ops(const IRModule& mod, const PassOptions&, PassContext&) {
  Legalizer legalizer(mod);
  std::vector<std::pair<Ref<GlobalVar>, Ref<Function>>> updated;
  for (const auto& entry : mod.functions()) {
    auto func = entry.func.as_ref<Function>();
    if (!func.defined()) continue;
    Expr out = legalizer.visit_expr(func);
    if (!out.same_as(func)) updated.emplace_back(entry.gv, out.as_ref<Function>());
  }
  IRModule result = legalizer.builder().get_module();
  for (auto& [gv, func] : updated) result.update(gv, func);
  return result;
}

}  // namespace

void register_legalize_ops(PassRegistry& registry) {
  registry.add({"legalize-ops",
                "Replace op calls by their legalisation (call_tir of generated PrimFuncs)",
                Granularity::kModule,
                {}},
               ModuleTransform(legalize_ops));
}

}  // namespace relax::transform
