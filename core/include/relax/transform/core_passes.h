// The passes of the transform area, registered explicitly (no static initialisers).
#pragma once

#include "relax/transform/pass.h"

namespace relax::transform {

/// Adds the transform area's passes to `registry`: normalize, to-non-dataflow,
/// attach-global-symbol, remove-unused-functions, legalize-ops, run-codegen and lambda-lift
/// (local functions to module functions and closures). Throws when one is already
/// there. register_core_passes (relax/target/compile.h) adds these and the VM lowering passes.
void register_transform_passes(PassRegistry& registry);

/// `mod` without the functions no entry reaches through GlobalVar references. Entries: the
/// functions named in `entries` (comma-separated; names not in the module are ignored) and
/// every function with a `global_symbol` (only Relax functions when `prim_funcs_are_entries`
/// is false). A module without any entry is returned unchanged. The body of
/// remove-unused-functions, shared with the cleanup plugin's dead-code-elimination.
IRModule remove_unreachable_functions(const IRModule& mod, const std::string& entries,
                                      bool prim_funcs_are_entries = true);

}  // namespace relax::transform
