// The interpreter's GPU device: heterogeneous execution testable on any machine.
//
// The target "tir-interp,gpu=1" runs kernels in the reference interpreter like "tir-interp",
// but on a device of its own: DLPack type kDLExtDev (12), device runtime "tir-interp-gpu".
// Its memory is host memory, yet it is a distinct device: a CPU tensor is not accepted by its
// kernels (nor its tensors by CPU kernels), and data moves only through copies, which the
// runtime counts — so a misplaced tensor or a missing copy fails exactly as on a real GPU.
// Its kernel library (format "tir-interp-gpu") holds the same bytes as a "tir-interp" one;
// each kernel checks that every tensor argument lives on the device, views it as host memory
// and runs tir::interpret.
#pragma once

#include <cstdint>

#include <string>
#include <utility>
#include <vector>

#include "relax/ir/module.h"
#include "relax/kernel/gpu_lower.h"
#include "relax/runtime/executable.h"

namespace relax::target {

/// The DLPack device type of the interpreter's GPU device (kDLExtDev).
inline constexpr int kInterpGpuDeviceType = 12;

/// Registers the "tir-interp-gpu" device runtime for kDLExtDev, the "tir-interp-gpu" kernel
/// library loader and the "tir-interp" one (idempotent, thread-safe).
void register_interp_gpu_device();

/// Copies into or out of the interpreter's GPU device since process start (tests: a constant
/// uploaded once, the copies placement inserted).
int64_t interp_gpu_copy_count();

/// The "tir-interp-gpu" kernel library of GPU programs (kernel/gpu_lower.h) by function name,
/// running on VM device `device_index`.
runtime::Library make_interp_gpu_library(
    const std::vector<std::pair<std::string, tir::GpuProgram>>& programs, int32_t device_index);
/// The same for the (unscheduled) PrimFuncs of `mod`: each scheduled with the default GPU rules
/// for `limits` and lowered for the GPU (tir::lower_for_gpu).
runtime::Library make_interp_gpu_library(const IRModule& mod, int32_t device_index,
                                         const tir::GpuLimits& limits = {});

}  // namespace relax::target
