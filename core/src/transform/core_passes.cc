// register_transform_passes: the one list of the transform area's passes. Each pass file
// exports a register_<pass> function; adding a pass here means adding one line. The VM
// lowering passes are registered by relax/vm/passes.h, both together by register_core_passes
// (relax/target/compile.h).
#include "relax/transform/core_passes.h"

namespace relax::transform {

void register_normalize(PassRegistry& registry);
void register_to_non_dataflow(PassRegistry& registry);
void register_attach_global_symbol(PassRegistry& registry);
void register_remove_unused_functions(PassRegistry& registry);
void register_legalize_ops(PassRegistry& registry);
void register_run_codegen(PassRegistry& registry);
void register_lambda_lift(PassRegistry& registry);

void register_transform_passes(PassRegistry& registry) {
  register_normalize(registry);
  register_to_non_dataflow(registry);
  register_attach_global_symbol(registry);
  register_remove_unused_functions(registry);
  register_legalize_ops(registry);
  register_run_codegen(registry);
  register_lambda_lift(registry);
}

}  // namespace relax::transform
