// GPU lowering: the passes that turn a thread-bound PrimFunc (the output of the GPU schedule
// rules: loops bound to blockIdx.* / threadIdx.*, buffers in "shared" and "local" scopes)
// into a GpuProgram — a host function plus device kernels with launch descriptions — that
// every GPU backend consumes. lower_for_gpu runs the whole chain; each pass is public so that
// tests and backends can run it alone.
//
// Thread-bound loops keep their meaning everywhere: `for tx in T.thread_binding(E,
// "threadIdx.x")` runs its body once per thread tx of the block, and the kernels of a
// GpuProgram keep those loops (the reference interpreter runs them as GPU threads; a code
// generator maps each to WorkgroupId / LocalInvocationId). Barriers are
// `T.tvm_storage_sync("shared")`: every thread of the block reaches it before any passes it.
//
// Launches: the host function calls the intrinsic
//   T.launch_kernel("name", grid_x, grid_y, grid_z, block_x, block_y, block_z, args...)
// (tir::launch_kernel) for each kernel, in program order; args are handles (a parameter's or a
// global workspace's data var) and integer scalars over the host's scalar parameters and shape
// variables, in the order of the kernel's parameters. GpuKernel repeats the same description
// in typed form, so a backend need not parse the host body.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "relax/ir/prim_func.h"
#include "relax/kernel/gpu.h"
#include "relax/kernel/interpreter.h"

namespace relax::tir {

/// One argument of a kernel launch: a handle (`buffer` set: the data var of a parameter
/// buffer of the host function or of a global workspace Allocate in it) or an integer scalar
/// (`scalar` set: an expression over the host's scalar parameters and shape variables).
struct KernelArg {
  Ref<Var> buffer;
  PrimExpr scalar;
};

/// A device kernel: a PrimFunc whose body is one thread-bound loop nest, with its launch.
/// Its parameters are the handles it accesses (the host's parameter buffers, then flat buffers
/// over workspaces), then the scalars it reads that its buffers do not define, then the shape
/// variables of its buffers that its body reads (a device cannot read a shape from a buffer,
/// so every backend receives them as arguments; where a buffer also binds one, as in the
/// interpreter, the two agree); `args` lists what the host passes for each, in order.
/// grid/block: extents of blockIdx.{x,y,z} / threadIdx.{x,y,z} (1 where a dimension is not
/// bound), as expressions over the host's variables.
struct GpuKernel {
  std::string name;
  Ref<PrimFunc> func;
  std::array<PrimExpr, 3> grid;
  std::array<PrimExpr, 3> block;
  /// Bytes of "shared" memory the kernel allocates (the sum over its shared Allocates).
  int64_t shared_bytes = 0;
  std::vector<KernelArg> args;
};

/// The split of a lowered thread-bound PrimFunc: the host function (parameters and buffer map
/// of the input; body of asserts, global allocations and launch_kernel calls) and its kernels.
struct GpuProgram {
  Ref<PrimFunc> host;
  std::vector<GpuKernel> kernels;
};

/// A run-time condition the host must check before launching (from narrow_indices).
struct HostCheck {
  PrimExpr condition;
  std::string message;
};

/// The result of narrow_indices: the function and the host-side checks its narrowing relies
/// on (empty when every range is proven).
struct NarrowResult {
  Ref<PrimFunc> func;
  std::vector<HostCheck> checks;
};

/// Cross-thread reduction (block form, before tir::lower). A reduction block (one with an
/// init) whose reduce iteration values use a loop bound to threadIdx.* becomes: each thread
/// accumulates its iterations into a "local" one-element buffer starting at the reducer's
/// identity; the partials go to a "shared" buffer (one slot per thread of the block); a tree
/// of power-of-two steps with barriers combines them (a first step folds the slots past the
/// largest power of two, so any extent works; threads whose iterations fall outside the
/// reduce domain contribute the identity); the thread with index 0 writes the block's output,
/// combined with the init's value unless that is the identity. Reducers: sum, product, max,
/// min, recognised from `init: out = c` and `update: out = combine(out, v)`; another form is a
/// relax::Error naming the block, as are thread loops of non-constant extent, loops below the
/// bound one that drive spatial variables, a threadIdx loop inside the bound one, and a
/// block whose loops are not one statement of the bound loop's body (several reductions may
/// share one thread loop: softmax's max and sum). The bound loop's extent must be the
/// block's thread count for its tag (its barriers are reached by every thread). Blocks
/// without a thread-bound reduce loop are left alone.
Ref<PrimFunc> lower_cross_thread_reduction(const Ref<PrimFunc>& func);

/// Barrier insertion on a lowered function (after tir::lower, flat buffers). Inside each
/// outermost thread-bound nest, walks the statements in order and inserts
/// `T.tvm_storage_sync("shared")` before a statement that reads a shared buffer written since
/// the last barrier (read-after-write) or writes a shared buffer read since then
/// (write-after-read, e.g. the next K step of a tiled matmul) — before a whole loop or
/// conditional when anything inside it conflicts, so barriers sit outside loops and branches
/// where they can — and at the end of a serial loop body when the next iteration would
/// conflict with the current one. Existing barriers reset the tracking (the pass is
/// idempotent). Shared buffers are those of "shared" Allocates anywhere in the function. A barrier
/// needed inside a conditional or a loop whose condition/extent depends on threadIdx
/// (thread-divergent) is a relax::Error naming the function (`kernel`) and the buffer.
Ref<PrimFunc> insert_barriers(const Ref<PrimFunc>& func, const std::string& kernel = "");

/// int64 index arithmetic to int32 (on a lowered function): loop variables, loop bounds and
/// buffer indices become int32 when their ranges fit (arith const-int bounds, loop variables in
/// their ranges, shape variables non-negative). Expressions over symbolic dimensions are
/// narrowed under the assumption that every buffer holds fewer than 2^31 elements: the
/// returned checks assert it for each parameter buffer with a symbolic shape (and the 32-bit
/// range of each scalar parameter the body uses). Loop bounds, lets and comparisons whose
/// bounds are not proven stay int64 arithmetic (a tail guard `bx * 128 + tx < n` cannot wrap;
/// a loop bound is cast to int32 after). Values stored as data keep their type (a
/// narrowed index stored into an int64 buffer is cast back). When a bound is a constant
/// beyond int32, or an index is computed from loaded data, the function is returned unchanged.
NarrowResult narrow_indices(const Ref<PrimFunc>& func, const std::string& kernel = "");

/// Loop-invariant code motion of index arithmetic in a kernel (a GpuKernel's func, or any
/// lowered function): in each serial or unrolled loop, outermost first, every maximal integer
/// subexpression that divides (or takes a modulo) by a non-constant and reads only variables
/// defined outside the loop (no loads, calls or lets) becomes a LetStmt before the loop, one
/// per distinct expression (variables inv0, inv1, ...). A hoisted division runs even when its
/// loop runs no iteration or the branch that held it is not taken: for backends whose integer
/// division by zero gives a value instead of trapping (the Vulkan and OpenCL code generators
/// guard it), not for the reference interpreter, which reports it.
Ref<PrimFunc> hoist_invariant_index_arithmetic(const Ref<PrimFunc>& func);

/// Host/device split of a lowered function (see GpuProgram). Each outermost thread-bound loop
/// nest becomes a kernel named `<name>_kernel<i>` (name: `name`, else the function's
/// global_symbol, else "main"); `checks` become AssertStmts at the top of the host. Outside
/// the nests the body may hold only AssertStmts, LetStmts of scalars, Allocates and no-ops:
/// "global" Allocates stay on the host as workspaces; "shared"/"local" ones (a root block's
/// alloc_buffer) move into each kernel that uses them, inside its blockIdx loops. Anything else is
/// a relax::Error naming the function and the statement ("statement outside any thread-bound
/// loop").
GpuProgram split_host_device(const Ref<PrimFunc>& func, const std::vector<HostCheck>& checks = {},
                             const std::string& name = "");

/// The limits a program breaks, one message each naming the kernel and the limit (empty when
/// none): threads per block and per dimension, shared bytes, grid size per dimension when
/// constant, global stores outside the kernel's thread-bound loops, and a thread tag bound
/// twice with different extents.
std::vector<std::string> verify_gpu(const GpuProgram& program, const GpuLimits& limits);

/// Checks of the grid sizes that are not constant against limits.max_grid, for the host to
/// assert before the launches (lower_for_gpu adds them).
std::vector<HostCheck> grid_checks(const GpuProgram& program, const GpuLimits& limits);

/// The whole chain: lower_cross_thread_reduction, tir::lower, narrow_indices, insert_barriers,
/// split_host_device, verify_gpu; a verifier problem is a relax::Error listing them.
GpuProgram lower_for_gpu(const Ref<PrimFunc>& func, const GpuLimits& limits,
                         const std::string& name = "");

/// A readable text form of a program (for dumps and golden tests): the host function, then
/// each kernel's launch description and function.
std::string to_string(const GpuProgram& program);

/// Runs a program in the reference interpreter: the host body is evaluated here (asserts,
/// lets, global allocations), each launch_kernel runs its kernel with tir::interpret. Args as
/// for tir::interpret on the host function.
void run_gpu_program(const GpuProgram& program, const std::vector<InterpArg>& args);

}  // namespace relax::tir
