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
//    awkward extent is split with a predicate (the schedule's T.where). That is for blocks whose
//    loads all read at the store's indices; a block with a broadcast, sliced or reshaped load
//    keeps its innermost loop (split into [serial, vector lanes]) under the other loops fused and
//    parallel, and one with a transposed load (its last index follows another loop) tiles that
//    loop (16) and the innermost (lanes) (schedule_rules_injective.cc). Before any rule, the
//    elementwise blocks writing intermediates are inlined into their consumers;
//  - reductions with one spatial axis (or none that can be tiled): the leading spatial loops
//    fused and parallel; the reduce loops stay serial;
//  - reductions with two or more spatial axes whose last spatial axis is the last index of the
//    output (matmul, batch matmul, NCHW conv2d): a register-blocked micro-kernel. Rows (the
//    innermost other spatial axis that indexes none of the loads the column axis indexes: a
//    matmul's i, a conv2d's output channel; a symbolic one gives way to an outer constant one
//    of 16 or more: BERT's (seq, batch, hidden) rows are seq; fewer than mc / 2 constant rows
//    take in the constant axis outside them when it is a row axis too: an NHWC conv's 7 x 7
//    output is 49 rows, in tiles of 7 where 7 divides them) in tiles of `mr`, columns (the
//    last spatial axis) in panels of `nr`, the first reduce axis in chunks of `kc`; the nest
//    becomes
//      parallel(other spatial..., column panel, row block of `mc` rows) / k chunk / row tile /
//      reduce in chunk... / row in tile (unrolled) / column in panel (vectorized)
//    with the init split out in front of the k chunks. The mr x nr output tile keeps its
//    addresses over the k loops, so LLVM holds it in vector registers (the codegen tags
//    parameter accesses with alias scopes and unrolls the row loop itself): each k step is mr
//    broadcasts, nr / lanes contiguous loads and mr * nr / lanes fused multiply-adds. Tile
//    sizes prefer divisors of constant extents (up to mr + 1 rows are one tile; else a divisor
//    in [mr - mr/4, mr], else mr with a guard on the last row tile that the codegen keeps out
//    of the k loop; nr a multiple of the lanes
//    in [nr/2, nr], else any divisor of the columns in [lanes, nr]: 28 -> 14; a function with
//    kAttrWeightPanel = P uses P); other extents (symbolic ones included) get predicates,
//    which cost masked tile accesses;
//  - reductions with two or more spatial axes whose every operand is indexed by the output's
//    last axis in its own last index, at unit stride (NHWC depthwise conv2d, NHWC pooling; no
//    operand to broadcast along rows): the channel in panels of up to `nr` (vectorized), the
//    axis before it in tiles of a few rows (unrolled; a divisor of a constant extent, keeping
//    about 12 vector accumulators), the reduce loops outside both (schedule_rules_conv.cc);
//  - other reductions with two or more spatial axes, and all of them with
//    register_blocking=false: the last two spatial axes tiled (`tile` x `tile`, smaller when
//    an extent is smaller or a divisor fits better), the nest reordered to
//    [outer spatial..., tile rows, tile cols | row in tile, reduce..., col in tile], the outer
//    part fused and parallel, the column-in-tile loop vectorized when it indexes the last
//    dimension of the output (a contiguous store), and the init split out
//    (decompose_reduction) in front of the per-tile loops.
//
// The knobs (CpuScheduleOptions) come from the llvm target's attributes, so a pipeline YAML
// overrides them: `target: "llvm,mr=6,nr=16,kc=256,mc=64"`, `register-blocking=0`,
// `schedule=none` (llvm_build.h, BuildOptions::parse).
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

#include "relax/ir/prim_func.h"

namespace relax::llvm_backend {

/// PrimFunc attribute (bool): the function's loops have been scheduled; the default rules
/// leave a function carrying it alone (TVM's "tir.is_scheduled").
inline constexpr const char* kAttrScheduled = "tir.is_scheduled";

/// PrimFunc attribute (int): the right operands of its reductions are stored in column panels
/// of this width (the pack-weights pass, plugins/passes/layout/pack_weights.cc); the
/// register-blocked rule then takes exactly this many columns per panel, so the packed
/// indices B'[j // P, k, j % P] simplify to B'[jo, k, ji].
inline constexpr const char* kAttrWeightPanel = "weight_panel";

/// Knobs of the default CPU schedule. The defaults here are the AVX2 sizes; a build sizes them
/// for its target's ISA (cpu_schedule_options_for) unless the target string gives them.
struct CpuScheduleOptions {
  /// Vector register width in bits; a vectorized loop has vector_bits / element bits lanes.
  int vector_bits = 256;
  /// Edge of the tiles of the last two spatial axes of a multi-axis reduction (the tiled rule,
  /// used where the register-blocked one does not apply).
  int64_t tile = 32;
  /// The register-blocked rule for multi-axis reductions (matmul, conv2d); off: the tiled rule.
  bool register_blocking = true;
  /// Rows of the register tile (rows held in accumulators at once). 6 x 16 is the AVX2 BLAS
  /// kernel: 12 ymm accumulators, 2 loads of the right operand and a broadcast per row, no
  /// spill (8 x 16 needs 17 registers). Measured on Zen 3 (CPU time per run, 1 thread): with
  /// packed weights 66-90 GFLOP/s against 50 for 8 x 16; with B a parameter 44 against 40
  /// (1024^3) and 40 against 37 (BERT's 128 x 3072 x 768); 4 x 16 is close packed, 25 not.
  int64_t mr = 6;
  /// Columns of the register tile (a multiple of the vector lanes).
  int64_t nr = 16;
  /// Rows of a parallel task's row block (rounded down to a multiple of mr).
  int64_t mc = 64;
  /// Length of the chunks of the first reduce axis (the right operand's cache block).
  int64_t kc = 256;
  /// A loop whose constant extent is below this stays serial rather than parallel.
  int64_t min_parallel_extent = 2;
};

/// The knobs sized for vector registers of `vector_bits` bits, the width of the target's ISA:
/// 512 (AVX-512: 32 zmm registers), 256 (AVX2 + FMA: 16 ymm registers, the defaults above),
/// anything else (128: SSE, NEON) scaled from the 256-bit sizes. The register tile keeps its
/// accumulators, a vector or two of the right operand and a broadcast within the register file.
CpuScheduleOptions cpu_schedule_options_for(int vector_bits);

/// True when `func` is unscheduled (see the header comment) and the rules would act on it.
bool needs_default_schedule(const Ref<tir::PrimFunc>& func);

/// `func` with the default CPU rules applied to every block (see the header comment); `func`
/// itself when it is null or already scheduled.
Ref<tir::PrimFunc> apply_default_cpu_schedule(Ref<tir::PrimFunc> func,
                                              const CpuScheduleOptions& options = {});

}  // namespace relax::llvm_backend
