// normalize: re-emits every Relax function through the normalising ExprMutator.
//
// Expects: any Relax functions (struct info may be missing, nested calls allowed).
// Guarantees: A-normal form and struct info on every expression, as the BlockBuilder makes
// them; a function already in normal form comes back unchanged (the same node).
#include "relax/ir/expr_functor.h"
#include "relax/transform/core_passes.h"

namespace relax::transform {

namespace {

Ref<Function> normalize_function(const Ref<Function>& func, const PassArgs& args) {
  ExprMutator mutator(args.module);
  Expr out = mutator.visit_expr(func);
  auto result = out.as_ref<Function>();
  RX_ICHECK(result.defined()) << "normalising '" << args.function_name
                              << "' did not give a function";
  return result;
}

}  // namespace

void register_normalize(PassRegistry& registry) {
  registry.add(
      {"normalize",
       "Re-normalise every Relax function: A-normal form and struct info on every expression",
       Granularity::kFunction,
       {}},
      FunctionTransform(normalize_function));
}

}  // namespace relax::transform
