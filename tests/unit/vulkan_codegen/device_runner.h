// Runs a scheduled GPU PrimFunc on the Vulkan device the way a user's executable does: built by
// the plugin's relax.backend.vulkan.build (a "spirv" kernel library: the launch table and one
// SPIR-V module per kernel), loaded by librelax-vulkan-runtime.so's "spirv" loader, called with
// device tensors of that runtime. The codegen tests compare its results with the interpreter.
#pragma once

#include <string>
#include <vector>

#include "relax/kernel/interpreter.h"
#include "relax/transform/plugin.h"
#include "spirv_codegen.h"

namespace relax::vulkan::test {

/// A plugin manager with librelax-vulkan.so loaded (the "vulkan" target kind and its build).
transform::PluginManager& vulkan_plugins();

/// The target attributes ("float16=0,...") of `features`.
std::string feature_attrs(const SpirvFeatures& features);

/// Runs `scheduled` (thread-bound; named "k") on `args` as tir::run_gpu_program does (NDArrays
/// updated in place, scalars int64 or double). Returns "" when it ran, else why there is no
/// Vulkan device; codegen and runtime errors throw.
std::string run_on_vulkan(const Ref<tir::PrimFunc>& scheduled,
                          const std::vector<tir::InterpArg>& args, const SpirvFeatures& features);

/// Copies of the NDArrays of `args` (other arguments as they are).
std::vector<tir::InterpArg> copy_args(const std::vector<tir::InterpArg>& args);

/// "" when every NDArray of `a` equals the one of `b` (integers and bools exactly, floats
/// within atol + rtol * |b|, 16-bit floats with rtol and atol at least 1e-3, NaN matching
/// NaN), else the first difference.
std::string compare_args(const std::vector<tir::InterpArg>& a, const std::vector<tir::InterpArg>& b,
                         double rtol, double atol);

}  // namespace relax::vulkan::test
