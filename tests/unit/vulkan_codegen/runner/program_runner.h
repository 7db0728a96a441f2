// Runs a lowered GPU program (tir::GpuProgram) on the test Vulkan runner (lavapipe_runner.h)
// with the SPIR-V of compile_kernel, in the calling convention of spirv_abi.h: the host part
// is evaluated here (asserts skipped, integer lets, launch sizes over the shapes of the
// arguments); each kernel's buffers are the host's parameter buffers, its scalars the values
// of its arguments and of the shape variables it reads, its element offsets 0. Test-only: a
// stand-in for the Vulkan runtime and the gpu_common executor, so that the codegen's results
// are checked against the interpreter.
#pragma once

#include <string>
#include <vector>

#include "relax/kernel/gpu_lower.h"
#include "spirv_codegen.h"

namespace relax::vulkan::test {

/// Runs `program` on `args` (as for tir::run_gpu_program; NDArrays updated in place). Returns
/// "" when it ran, else why it could not (no device, a launch size it cannot evaluate);
/// codegen errors and Vulkan failures throw. Global workspaces are zero-filled buffers.
std::string run_on_vulkan(const tir::GpuProgram& program, const std::vector<tir::InterpArg>& args,
                          const SpirvFeatures& features);

/// Copies of the NDArrays of `args` (other arguments as they are).
std::vector<tir::InterpArg> copy_args(const std::vector<tir::InterpArg>& args);

/// "" when every NDArray of `a` equals the one of `b` (integers and bools exactly, floats
/// within atol + rtol * |b|, 16-bit floats with rtol and atol at least 1e-3, NaN matching
/// NaN), else the first difference.
std::string compare_args(const std::vector<tir::InterpArg>& a, const std::vector<tir::InterpArg>& b,
                         double rtol, double atol);

}  // namespace relax::vulkan::test
