// The passes that lower a Relax module to the VM level (DESIGN.md §5, RFC §4.3): explicit
// output allocation (call-tir-rewrite), shape computation on the VM shape heap
// (vm-shape-lower) and register release (kill-after-last-use). Together with core's
// normalize, legalize-ops and to-non-dataflow they form the minimum build.
#pragma once

#include <string>
#include <vector>

#include "relax/transform/pass.h"

namespace relax::vm {

/// Adds call-tir-rewrite, vm-shape-lower, kill-after-last-use and device-placement
/// (device_placement.cc: heterogeneous modules; not part of the minimum build) to `registry`
/// (and registers
/// the VM-level ops they emit). Throws when one is already there.
void register_vm_passes(transform::PassRegistry& registry);

/// The passes of the minimum build, in order: normalize, legalize-ops, call-tir-rewrite,
/// to-non-dataflow, vm-shape-lower, kill-after-last-use.
std::vector<std::string> minimum_build_passes();
/// The same list as a one-line pipeline.
std::string minimum_build_pipeline();

}  // namespace relax::vm
