// The default GPU schedule rules: any PrimFunc in, a function whose every block runs under
// thread-bound loops out, with no thread binding ever chosen by a user (TVM's "did you forget
// to bind?" cannot happen). Every GPU backend and vendor plugin shares them; the limits come
// from the target (kernel/gpu.h).
//
// Per function: elementwise producers are inlined into their consumers; then a whole-function
// rule is tried —
//
//   gpu.general_reduction  softmax, layer/group/RMS norm: a last spatial block over (rows,
//                       columns) fed by per-row stages; one block per row, the stages moved
//                       under the row loop (compute_at) with their results in shared memory,
//                       reductions across the threads, the columns spread over the threads
//
// — and otherwise each block (with its loops, one nest of the root block) gets the first rule
// that applies, tried on a copy of the schedule (a rule that throws leaves nothing behind and
// the next one runs):
//
//   gpu.injective       spatial blocks: loops fused, split onto [blockIdx.x, threadIdx.x]
//                       (tail predicate); past the grid limit a grid-stride loop inside the
//                       threads
//   gpu.matmul.shared   as gpu.matmul with 16x16 output tiles and the reduction in steps of
//                       16 whose operand tiles all threads of the block copy into shared
//                       memory first (when the tiles fit the target's shared memory)
//   gpu.matmul          reductions with two or more spatial loops (matmul, convolution,
//                       pooling, batched forms): the two innermost spatial loops split onto
//                       threadIdx.y x threadIdx.x, every outer part (batch, tile rows and
//                       columns) fused onto blockIdx.x, one output per thread, the
//                       reduction serial in that thread
//   gpu.reduction       reductions whose reduce loops carry the work (row sums, softmax and
//                       layer-norm statistics, GEMV): one block per output element, the
//                       reduce loops fused and split onto threadIdx.x (a cross-thread
//                       reduction the GPU lowering turns into a shared-memory tree)
//   gpu.reduction.serial the other reductions (outer reductions, short rows): spatial loops
//                       onto threads, each thread reducing its outputs serially
//   gpu.scalar          a block without loops: one thread (nothing to share)
//   gpu.single_thread   the last resort, total: the block's nest runs on one GPU thread, with
//                       a warning naming the function and the block (blocks that are not
//                       safe to run concurrently — scans, sorts, scatters — and any block
//                       the other rules refuse)
//
// A schedule counts only if the GPU lowering (kernel/gpu_lower.h) takes it: the rules above
// with cooperative threads, then without (no shared tiles, no cross-thread reductions), then
// one thread per nest — so the result always lowers. A function that already has
// thread-bound loops is returned unchanged (a hand schedule). With RELAX_GPU_RULES_DEBUG set
// in the environment, every refusal is printed on stderr with its reason.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "relax/ir/prim_func.h"
#include "relax/kernel/gpu.h"
#include "relax/kernel/gpu_lower.h"

namespace relax::tir {

/// Which rule scheduled each block of one function, and the warnings.
struct GpuScheduleReport {
  /// (block name, rule name), in program order.
  std::vector<std::pair<std::string, std::string>> blocks;
  std::vector<std::string> warnings;
  /// True when some block is on gpu.single_thread.
  bool single_thread() const;
  /// "block: rule, block: rule".
  std::string summary() const;
};

struct GpuScheduled {
  Ref<PrimFunc> func;
  GpuScheduleReport report;
  /// `func` lowered for the GPU (lower_for_gpu), when the rules lowered it to check it; empty
  /// for a hand schedule returned unchanged and for the one-thread fallback (callers lower those).
  std::optional<GpuProgram> program;
};

/// The rule names, in the order they are tried.
const std::vector<std::string>& gpu_rule_names();

/// Schedules `func` (named `name` in messages) for a GPU with `limits` (see the file comment).
/// Never throws for a valid PrimFunc: a block no rule handles runs on one thread.
GpuScheduled apply_default_gpu_schedule(const Ref<PrimFunc>& func, const GpuLimits& limits,
                                        const std::string& name);

/// True when every block of `func` (the root block aside) is under a thread-bound loop.
bool is_gpu_scheduled(const Ref<PrimFunc>& func);

}  // namespace relax::tir
