// Target kinds in a compile session: the core's own kind, resolving a target string against
// the session's registry (loading the backend plugin that provides the kind on demand), every
// kind a session could use, and the GPU limits a validated target states.
//
//   Compiler c;
//   Target t = resolve_target("tir-interp,gpu=1", c.plugins());   // validated, defaults in
//   tir::GpuLimits limits = gpu_limits(t);                        // max_threads_per_block 1024
//
// The core registers one kind, "tir-interp" (kernels run by the TIR reference interpreter),
// with the attributes of a GPU it can emulate: gpu (bool, 0: with 1 the GPU path — placement,
// GPU rules, lowering, launch descriptions — is run in the interpreter), max-threads-per-block,
// max-shared-memory-bytes, max-grid, max-block, subgroup-size, buffer-alignment. Backends
// register theirs through the plugin registrar (relax/transform/plugin.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "relax/kernel/gpu.h"
#include "relax/target/target.h"
#include "relax/transform/target_kind.h"

namespace relax {

namespace transform {
class PluginManager;
}

/// The core's target kind names.
inline constexpr const char* kTirInterpTarget = "tir-interp";

/// Registers the core's target kinds ("tir-interp") into `kinds`; throws when one is there.
void register_core_target_kinds(transform::TargetKindRegistry& kinds);

/// The kind named `name` in the registry of `plugins`; when absent, loads the plugin providing
/// it (the plugin named like the kind, librelax-<name>.so, else the plugin on the search path
/// whose scan lists it). Throws relax::Error naming the kind and listing the known kinds (the
/// registry's and every scanned plugin's) when none provides it.
const transform::TargetKind& find_target_kind(const std::string& name,
                                              transform::PluginManager& plugins);

/// Parses `text` (Target::parse), finds its kind as find_target_kind does and validates it
/// (transform::validate_target: defaults filled in). The limits are read as gpu_limits() reads
/// them, so that a malformed limit (max-grid=1x2) fails here. Errors name `text`.
Target resolve_target(std::string_view text, transform::PluginManager& plugins);

/// Every target kind a session could use: the registry's (core and loaded plugins) and those
/// of every plugin on the search path that is not refused (from its scan), sorted by name.
std::vector<transform::TargetKind> available_target_kinds(transform::PluginManager& plugins);

/// The GPU limits of a validated target: the attributes max-threads-per-block,
/// max-shared-memory-bytes, max-grid (x, y, z), max-block (x, y, z), subgroup-size,
/// buffer-alignment and dtypes where the target has them, GpuLimits' defaults where it does
/// not; `target` is validated.str(). Throws relax::Error for a non-positive limit or a grid or
/// block list that does not have three entries, naming the attribute.
tir::GpuLimits gpu_limits(const Target& validated);

}  // namespace relax
