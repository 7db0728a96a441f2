// Helpers of the Vulkan codegen tests: TIR text -> default GPU schedule (Vulkan's default
// limits) -> lower_for_gpu -> SPIR-V of every kernel, validated in process (compile_kernel).
// No Vulkan device is needed.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "relax/kernel/gpu_lower.h"
#include "relax/kernel/gpu_rules.h"
#include "relax/text/parser.h"
#include "spirv_codegen.h"

namespace relax::vulkan::test {

/// The vulkan target kind's default limits.
inline tir::GpuLimits vulkan_limits() {
  tir::GpuLimits l;
  l.max_threads_per_block = 256;
  l.max_shared_memory_bytes = 16384;
  l.max_grid = {65535, 65535, 65535};
  l.max_block = {1024, 1024, 64};
  l.target = "vulkan";
  return l;
}

struct Compiled {
  std::vector<SpirvKernel> kernels;
  std::string text;  ///< the disassembly of every kernel
};

/// Schedules (unless it is already thread-bound), lowers and compiles every kernel of `f`.
inline Compiled compile_func(const Ref<tir::PrimFunc>& f, const SpirvFeatures& features = {},
                             const std::string& name = "k") {
  tir::GpuLimits limits = vulkan_limits();
  tir::GpuScheduled s = tir::apply_default_gpu_schedule(f, limits, name);
  tir::GpuProgram p = s.program ? *s.program : tir::lower_for_gpu(s.func, limits, name);
  Compiled c;
  for (const tir::GpuKernel& k : p.kernels) {
    c.kernels.push_back(compile_kernel(k, features));
    c.text += disassemble(c.kernels.back().words);
  }
  return c;
}

inline Compiled compile_text(const std::string& text, const SpirvFeatures& features = {}) {
  return compile_func(relax::parse_prim_func(text, "<test>"), features);
}

/// The message of the relax::Error `fn` throws ("" when it throws none).
template <class Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace relax::vulkan::test
