// The GPU half of compile() (relax/target/compile.h), internal to the target area.
//
// With a GPU target (a kind registered with gpu = true, or tir-interp,gpu=1) and a host target:
//  1. the module gets the vdevice list [host, gpu] when it declares none (the host is
//     vdevice 0, the VM's device 0);
//  2. before call-tir-rewrite, two passes run: gpu-host-fallback{target} marks each PrimFunc
//     the default GPU rules can only run on one thread (scans, sorts written sequentially,
//     anything no rule takes) relax.host_only, and device-placement{device, host} places the
//     calls, inserting the copies;
//  3. after the passes, the PrimFuncs are split by device (vm::kernels_by_device): the host's
//     go to the host target's backend as on a CPU build, the GPU's are scheduled with the
//     default GPU rules and lowered (kernel/gpu_lower.h) into launch programs; the
//     interpreter's GPU target stores those programs in its library, a plugin's GPU kind
//     receives the scheduled (thread-bound) PrimFuncs in its build function and lowers them
//     with tir::lower_for_gpu itself.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "relax/ir/module.h"
#include "relax/runtime/executable.h"
#include "relax/target/targets.h"
#include "relax/transform/pass.h"
#include "relax/vm/codegen.h"

namespace relax::target {

/// Registers the pass gpu-host-fallback (core passes).
void register_gpu_passes(transform::PassRegistry& registry);

/// What the GPU build decided, for --stats and the caller's messages.
struct GpuBuildReport {
  /// GPU kernels scheduled.
  size_t kernels = 0;
  /// How many blocks each rule scheduled.
  std::map<std::string, int> blocks_per_rule;
  /// The rules' warnings (a kernel on a single thread).
  std::vector<std::string> warnings;
  /// One line each: kernels per rule, kernels on the host.
  std::string summary() const;
};

/// Step 1: `mod` with the [host, gpu] vdevices when it declares none (and the module attribute
/// vdevice_alignment from each target's buffer-alignment, which the memory planner reads);
/// else `mod` checked to hold a vdevice of the GPU target's kind after the host.
IRModule add_gpu_vdevices(IRModule mod, const Target& gpu, const Target& host);

/// Step 2: `passes` with gpu-host-fallback and device-placement inserted before
/// call-tir-rewrite (appended when it is absent).
std::vector<transform::Pass> with_gpu_passes(std::vector<transform::Pass> passes,
                                             const transform::PassRegistry& registry,
                                             const IRModule& mod, const Target& gpu);

/// Step 3: one kernel library per device that has kernels.
std::vector<runtime::Library> build_device_libraries(const IRModule& lowered, const Target& gpu,
                                                     const Target& host,
                                                     transform::PluginManager& plugins,
                                                     GpuBuildReport& report);

/// The VM device of a vdevice: its target kind's device type, kDLExtDev for tir-interp,gpu=1.
vm::DeviceResolver device_resolver(transform::PluginManager& plugins);

}  // namespace relax::target
