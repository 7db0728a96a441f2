// Default CPU schedule rules of the LLVM backend (DESIGN.md §4: "each backend supplies the
// default schedule rules for its targets").
//
// A kernel that reaches the backend unscheduled — fresh from the op library's legalisation or
// the compute DSL — gets these rules, written with the tir::Schedule primitives, applied to each
// of its blocks independently (softmax, layer_norm: several blocks, each its own loop nest):
//  - injective blocks (no reduce axes): the spatial loops fused into one, split into
//    [outer, inner = vector lanes], the outer loop parallel, the inner vectorized. The lanes are
//    `vector_bits / element bits` of the stored dtype (8 for f32 at 256 bits); a constant extent
//    prefers the largest power-of-two lane count that divides it (no predicate), a symbolic or
//    awkward extent is split with a predicate (the schedule's T.where);
//  - reductions with one spatial axis (or none that can be tiled): the leading spatial loops
//    fused and parallel; the reduce loops stay serial;
//  - reductions with two or more spatial axes (matmul, batch matmul, conv2d, reductions over a
//    middle axis): the last two spatial axes tiled (`tile` x `tile`, smaller when an extent is
//    smaller or a divisor fits better), the nest reordered to
//    [outer spatial..., tile rows, tile cols | row in tile, reduce..., col in tile], the outer
//    part fused and parallel, the column-in-tile loop vectorized when it indexes the last
//    dimension of the output (a contiguous store), and the init split out
//    (decompose_reduction) in front of the per-tile loops.
//
// Never fails: when a primitive refuses (throws relax::Error) the block falls back to a simpler
// rule — the spatial prefix fused and parallel, then the outermost loop parallel, then nothing.
// A block stays serial only where parallelism would be wrong or the block is not in the
// canonical form the rules reason about:
//  - a reduction to a scalar (no spatial loop: parallelising it would need rfactor);
//  - a block whose loops enclose other blocks, whose bindings are not plain loop variables
//    (one per loop), that has opaque iteration variables or nested blocks, or whose stores are
//    not at indices naming every spatial iteration variable directly (a scatter, a scan), or
//    that reads a buffer it writes at other indices than it writes: distinct iterations of a
//    parallel loop could then touch one element;
//  - a loop of constant extent below `min_parallel_extent` (2 by default: an extent-1 loop has
//    nothing to share).
//
// "Unscheduled" (what apply_default_cpu_schedule acts on): the function still has blocks (it is
// not lowered), every loop is serial, and it lacks the attribute kAttrScheduled. The result
// carries kAttrScheduled = true, so applying the rules twice changes nothing.
//
// LLVM-free (STYLE habit 10): the rules only use the TIR schedule.
#pragma once

#include <cstdint>

#include "relax/tir/function.h"

namespace relax::llvm_backend {

/// PrimFunc attribute (bool): the function's loops have been scheduled; the default rules
/// leave a function carrying it alone (TVM's "tir.is_scheduled").
inline constexpr const char* kAttrScheduled = "tir.is_scheduled";

/// Knobs of the default CPU schedule.
struct CpuScheduleOptions {
  /// Vector register width in bits; a vectorized loop has vector_bits / element bits lanes.
  int vector_bits = 256;
  /// Edge of the tiles of the last two spatial axes of a multi-axis reduction.
  int64_t tile = 32;
  /// A loop whose constant extent is below this stays serial rather than parallel.
  int64_t min_parallel_extent = 2;
};

/// True when `func` is unscheduled (see the header comment) and the rules would act on it.
bool needs_default_schedule(const Ref<tir::PrimFunc>& func);

/// `func` with the default CPU rules applied to every block (see the header comment); `func`
/// itself when it is null or already scheduled.
Ref<tir::PrimFunc> apply_default_cpu_schedule(Ref<tir::PrimFunc> func,
                                              const CpuScheduleOptions& options = {});

}  // namespace relax::llvm_backend
