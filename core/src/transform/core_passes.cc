// register_core_passes: the one list of the core's passes. Each pass file exports a
// register_<pass> function; adding a core pass means adding one line here.
#include "relax/transform/core_passes.h"

namespace relax::transform {

void register_normalize(PassRegistry& registry);
void register_to_non_dataflow(PassRegistry& registry);
void register_attach_global_symbol(PassRegistry& registry);
void register_remove_unused_functions(PassRegistry& registry);
void register_legalize_ops(PassRegistry& registry);
void register_call_tir_rewrite(PassRegistry& registry);
void register_vm_shape_lower(PassRegistry& registry);
void register_kill_after_last_use(PassRegistry& registry);

void register_core_passes(PassRegistry& registry) {
  register_normalize(registry);
  register_to_non_dataflow(registry);
  register_attach_global_symbol(registry);
  register_remove_unused_functions(registry);
  register_legalize_ops(registry);
  register_call_tir_rewrite(registry);
  register_vm_shape_lower(registry);
  register_kill_after_last_use(registry);
}

PassRegistry make_core_registry() {
  PassRegistry registry;
  register_core_passes(registry);
  return registry;
}

}  // namespace relax::transform
