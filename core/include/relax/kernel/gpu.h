// What the GPU schedule rules, the GPU lowering and the GPU verifier know of a target: its
// limits, read from the target's attributes (relax/target/target_kind.h) by the target area.
// The kernel area never parses targets; it receives these numbers.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace relax::tir {

struct GpuLimits {
  /// Threads in one block (workgroup), all dimensions together.
  int64_t max_threads_per_block = 1024;
  /// Threads per block dimension (x, y, z).
  std::array<int64_t, 3> max_block = {1024, 1024, 64};
  /// Blocks per grid dimension (x, y, z).
  std::array<int64_t, 3> max_grid = {2147483647, 65535, 65535};
  /// Shared (workgroup) memory of one block, in bytes.
  int64_t max_shared_memory_bytes = 49152;
  /// Threads that execute in lockstep (warp, wavefront, subgroup).
  int64_t subgroup_size = 32;
  /// Alignment of buffers the runtime allocates, in bytes (the memory planner's alignment).
  int64_t buffer_alignment = 64;
  /// Element types the device computes in ("float32", "float16", "int64", ...); empty: all.
  std::vector<std::string> dtypes;
  /// The target's name for messages ("tir-interp,gpu=1", "vulkan").
  std::string target;
};

}  // namespace relax::tir
