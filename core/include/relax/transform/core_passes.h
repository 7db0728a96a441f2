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

}  // namespace relax::transform
