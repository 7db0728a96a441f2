// librelax-cleanup.so: the cleanup passes (DESIGN.md §5), one per file:
//   dead-code-elimination  dead_code_elimination.cc
//   canonicalize-bindings  canonicalize_bindings.cc
//   cse                    cse.cc
//   fold-constant          fold_constant.cc
#include "relax/sdk/plugin.h"

namespace relax::cleanup {
void register_dead_code_elimination(transform::PluginRegistrar& r);
void register_canonicalize_bindings(transform::PluginRegistrar& r);
void register_cse(transform::PluginRegistrar& r);
void register_fold_constant(transform::PluginRegistrar& r);
}  // namespace relax::cleanup

namespace {

void register_cleanup(relax::transform::PluginRegistrar& r) {
  relax::cleanup::register_dead_code_elimination(r);
  relax::cleanup::register_canonicalize_bindings(r);
  relax::cleanup::register_cse(r);
  relax::cleanup::register_fold_constant(r);
}

}  // namespace

RELAX_PLUGIN("cleanup", "0.1.0", register_cleanup)
