// register_vm_passes and the minimum build's pass list (relax/vm/passes.h).
#include "relax/vm/passes.h"

#include "relax/vm/vm_ops.h"

namespace relax::vm {

void register_call_tir_rewrite(transform::PassRegistry& registry);
void register_vm_shape_lower(transform::PassRegistry& registry);
void register_kill_after_last_use(transform::PassRegistry& registry);
void register_device_placement(transform::PassRegistry& registry);

void register_vm_passes(transform::PassRegistry& registry) {
  register_vm_ops();
  register_call_tir_rewrite(registry);
  register_vm_shape_lower(registry);
  register_kill_after_last_use(registry);
  register_device_placement(registry);
}

std::vector<std::string> minimum_build_passes() {
  return {"normalize",       "lambda-lift",    "legalize-ops",       "call-tir-rewrite",
          "to-non-dataflow", "vm-shape-lower", "kill-after-last-use"};
}

std::string minimum_build_pipeline() {
  std::string line;
  for (const std::string& p : minimum_build_passes()) line += (line.empty() ? "" : ",") + p;
  return line;
}

}  // namespace relax::vm
