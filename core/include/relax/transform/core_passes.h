// The passes of the core, registered explicitly (no static initialisers).
#pragma once

#include "relax/transform/pass.h"

namespace relax::transform {

/// Adds every core pass to `registry`: normalize, to-non-dataflow, attach-global-symbol,
/// remove-unused-functions and the minimum build's legalize-ops, call-tir-rewrite,
/// vm-shape-lower, kill-after-last-use (relax/target/build.h). Throws when one is already there (call it once per registry).
void register_core_passes(PassRegistry& registry);

/// A registry holding the core passes (a fresh one per call).
PassRegistry make_core_registry();

/// `mod` without the functions no entry reaches through GlobalVar references. Entries: the
/// functions named in `entries` (comma-separated; names not in the module are ignored) and
/// every function with a `global_symbol` (only Relax functions when `prim_funcs_are_entries`
/// is false). A module without any entry is returned unchanged. The body of
/// remove-unused-functions, shared with the cleanup plugin's dead-code-elimination.
IRModule remove_unreachable_functions(const IRModule& mod, const std::string& entries,
                                      bool prim_funcs_are_entries = true);

}  // namespace relax::transform
