// Schedules: PrimFunc -> PrimFunc transformations (DESIGN.md §4; TVM's tir.Schedule, made
// functional).
//
// A Schedule holds the current PrimFunc; each primitive checks that it applies, builds the
// transformed function and makes it current (`func()`); earlier functions are never modified.
// Things are named by handles that stay valid across primitives:
//  - BlockRV names a block by its name (block names in a scheduled function are unique);
//  - LoopRV names a loop by its loop variable (kept by every primitive that keeps the loop).
// A primitive that removes a loop or a block leaves handles to it dangling: using one is an
// error naming the loop or block.
//
// Every primitive either applies or throws relax::Error ("split: loop i: ...") naming the
// primitive, the block or loop, and why it does not apply; the schedule is unchanged then.
//
// Conventions:
//  - "The loops of a block" are the For statements between the block and the nearest
//    enclosing block (usually the root block), outermost first.
//  - A block whose accesses change (inline, cache, layout) gets its read/write regions
//    recomputed as the parser infers omitted T.reads/T.writes: one region per buffer, a point
//    in each dimension where all accesses agree, the whole dimension otherwise.
//  - A split whose factors do not divide the extent adds a predicate (T.where) to the blocks
//    under the loop, so iterations past the extent do nothing (TVM's behaviour).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "relax/ir/prim_func.h"

namespace relax::tir {

/// Names a block by its (unique) name.
struct BlockRV {
  std::string name;
};

/// Names a loop by its loop variable.
struct LoopRV {
  Ref<Var> var;
};

/// Which buffer of a block: its `index`-th read region or write region.
struct BufferIndex {
  enum class Kind : uint8_t { kRead, kWrite };
  Kind kind = Kind::kRead;
  int index = 0;
  static BufferIndex read(int i) { return {Kind::kRead, i}; }
  static BufferIndex write(int i) { return {Kind::kWrite, i}; }
};

/// A map from indices to indices, `lambda i, j: (i // 4, j, i % 4)`: new layout of a buffer.
struct IndexMap {
  std::vector<Ref<Var>> initial_indices;
  std::vector<PrimExpr> final_indices;
  /// An index map of `ndim` int64 indices built from a function of them.
  static IndexMap from_func(
      size_t ndim, const std::function<std::vector<PrimExpr>(const std::vector<PrimExpr>&)>& fn);
  /// `final_indices` with the initial indices replaced by `indices`.
  std::vector<PrimExpr> map_indices(const std::vector<PrimExpr>& indices) const;
};

/// A functional schedule over one PrimFunc.
class Schedule {
 public:
  /// Starts from `func` (kept unchanged); block names in it must be unique.
  explicit Schedule(Ref<PrimFunc> func);

  /// The current function.
  const Ref<PrimFunc>& func() const { return func_; }

  // ---- Handles.

  /// The block named `name`; an error when there is none.
  BlockRV get_block(const std::string& name) const;
  /// The loops of `block`, outermost first.
  std::vector<LoopRV> get_loops(const BlockRV& block) const;

  // ---- Loop transformations (schedule_loops.cc).

  /// Splits a serial loop into nested loops with the given extents, outermost first. At most
  /// one factor may be -1 (inferred as ceil(extent / product of the others)); the others
  /// must be positive and, without a -1, their product at least the extent. Where the product
  /// exceeds the extent the blocks under the loop get the predicate `fused < extent`.
  /// The loop var becomes `(l0 * f1 + l1) * f2 + l2` (Horner form; plus the old min).
  std::vector<LoopRV> split(const LoopRV& loop, const std::vector<int64_t>& factors);
  /// The same with factors that may be expressions of the function's shape variables (a
  /// grid sized by the data, `max(1, min(ceildiv(n, 256), 65535))`): an expression factor
  /// must be provably positive; a null PrimExpr stands for -1.
  std::vector<LoopRV> split_exprs(const LoopRV& loop, const std::vector<PrimExpr>& factors);
  /// Reorders loops that lie on one chain of single-child loops (no block, branch or
  /// sequence between the outermost and the innermost of them): they take the positions
  /// they occupied, in the order given; loops of the chain not named stay where they are.
  void reorder(const std::vector<LoopRV>& order);
  /// Fuses adjacent serial loops (each the only child of the one before) into one loop of
  /// the product of their extents, named `a_b_fused`.
  LoopRV fuse(const std::vector<LoopRV>& loops);

  // ---- Loop annotations (schedule_annotate.cc).

  /// Marks a serial loop parallel. Every block under it must bind the loop only to spatial
  /// iteration variables.
  void parallel(const LoopRV& loop);
  /// Marks a serial loop vectorized: as parallel, and its extent must be a constant.
  void vectorize(const LoopRV& loop);
  /// Marks a serial loop unrolled.
  void unroll(const LoopRV& loop);
  /// Binds a serial loop to a GPU thread index ("blockIdx.x", "threadIdx.y", "vthread", ...).
  /// As parallel, except that a threadIdx loop may bind reduce iteration variables (a
  /// cross-thread reduction, which the GPU lowering turns into a shared-memory tree); the
  /// loop must not be bound already. Inside an enclosing loop bound to the same tag it runs on
  /// the same thread index (a cooperative copy inside the threads that use it, as in TVM):
  /// the extents must be equal constants and nothing under the loop may use the enclosing
  /// loop's variable.
  void bind(const LoopRV& loop, const std::string& thread_tag);

  // ---- Compute location (schedule_inline.cc).

  /// Inlines an elementwise producer into its consumers: `block` must be spatial, without
  /// init or predicate, its body one store `B[v...] = value` whose indices are its iteration
  /// variables (each once), B an intermediate (not a parameter) that no other block writes.
  /// Loads of B become `value`; the block, its emptied loops and B's allocation go away.
  void compute_inline(const BlockRV& block);
  /// Inlines an elementwise consumer into its producer: `block` must be spatial, without init
  /// or predicate, its body one store whose value loads one intermediate buffer B, always at
  /// indices that are its iteration variables (each once, over B's whole shape); B has one
  /// writer, a block without init, and no other reader. The producer then stores the
  /// consumer's result directly; the consumer and B go away.
  void reverse_compute_inline(const BlockRV& block);

  // ---- Compute location at a loop (schedule_compute_at.cc).
  //
  // Both move `block` under `loop` (a loop of another block's nest in the same enclosing
  // block) and regenerate the loops it needs there: one loop `ax<k>` per iteration variable
  // whose range at one iteration of `loop` has more than one value (or every one with
  // `preserve_unit_loops`), the variable bound to `start + ax<k>` (`start` an expression of
  // `loop` and the loops around it, such as `i_0 * 4`). The ranges are the bounding boxes of
  // the regions involved (relax_region). For compute_at of a producer of a "shared" buffer
  // they also span the enclosing threadIdx and vthread loops (TVM's rule), so the producer
  // computes the tile of the whole thread block and its loops can be spread over the threads
  // (other scopes stay per thread: each thread computes what it reads, which needs no
  // barrier and no redundant work). Where a range exceeds the variable's domain the block
  // gets a predicate. The block's former predicate is replaced by those bounds, so it may
  // only have masked iterations outside the domain (what split adds).
  // The block must be complete (only spatial iteration variables and no read of a buffer it
  // writes) or a reduction with an init whose reduce iteration variables are all regenerated
  // over their whole domain; its indices into the regions that decide the ranges must be
  // its spatial iteration variables (or constants).

  /// Moves producer `block` to the start of `loop`'s body, computing there exactly the part
  /// of its output the blocks under `loop` read in one iteration. `block` must come before
  /// `loop`, write only intermediate buffers (not parameters), be their only writer, and every
  /// reader of them must lie under `loop`; no block between `block` and the end of `loop` may
  /// write a buffer `block` reads.
  void compute_at(const BlockRV& block, const LoopRV& loop, bool preserve_unit_loops = false);
  /// Moves consumer `block` to the end of `loop`'s body, computing there the part of its
  /// output whose inputs the blocks under `loop` write in one iteration. `block` must come
  /// after `loop`; at least one block under `loop` writes a buffer it reads, and no block
  /// before `loop` writes that buffer too; no block between `loop` and `block` may write what
  /// it reads, and no block under `loop` or between may access what it writes.
  void reverse_compute_at(const BlockRV& block, const LoopRV& loop,
                          bool preserve_unit_loops = false);

  // ---- Caches (schedule_cache.cc).

  /// Reads the buffer of `block`'s `read_index`-th read region through a copy in `scope`
  /// ("shared", "local", "global"): a block `<buffer>_<scope>` copying the whole buffer is
  /// inserted before the outermost loop of `block`'s nest, and `block` reads the copy.
  /// Returns the copy block.
  BlockRV cache_read(const BlockRV& block, int read_index, const std::string& scope);
  /// Writes the buffer of `block`'s `write_index`-th write region through a copy in `scope`:
  /// `block` writes (and reads) the copy and a block `<buffer>_<scope>` copying it back is
  /// inserted after `block`'s outermost loop. `block` must be the buffer's only writer and
  /// no other block in its nest may access the buffer. Returns the copy-back block.
  BlockRV cache_write(const BlockRV& block, int write_index, const std::string& scope);
  /// As cache_read, but the copy covers only the region `block` reads during one iteration of
  /// `at` (a loop enclosing `block`) and sits at the start of `at`'s body. The cache buffer
  /// (allocated by the block enclosing the nest) has the region's shape (the constant upper
  /// bound of an extent that depends on a loop); `block` reads it at its indices minus the
  /// region's start. Copy iterations outside the buffer are masked by a predicate. The region
  /// spans the threads that share the cache: for "shared", enclosing threadIdx and vthread
  /// loops run over their range (so all threads of a block use one tile and each thread's
  /// copy covers the tile); for "global", every thread-bound loop; for "local", none.
  BlockRV cache_read(const BlockRV& block, int read_index, const std::string& scope,
                     const LoopRV& at);
  /// As cache_write, but `block` writes a cache of the region it writes during one iteration
  /// of `at`, copied back at the end of `at`'s body. Besides cache_write's conditions, no
  /// other block under `at` may read the buffer, no loop at or above `at` may drive a reduce
  /// iteration variable of `block` (it would read the cache across iterations), and `block`
  /// must write every element of that region's bounding box in the iteration (true for the
  /// usual affine nests; elements it skips would be copied back undefined).
  BlockRV cache_write(const BlockRV& block, int write_index, const std::string& scope,
                      const LoopRV& at);
  /// Changes the storage scope of the intermediate buffer `block` writes as its
  /// `write_index`-th write region. The buffer must be allocated by a block (alloc_buffer),
  /// not a parameter of the function. Every use of it in the function sees the new scope.
  void set_scope(const BlockRV& block, int write_index, const std::string& scope);

  // ---- Reductions (schedule_reduction.cc).

  /// Splits the init of a reduction block out into a block `<name>_init` placed before
  /// `loop` (an enclosing loop of `block`), under copies of the loops between `loop` and
  /// `block` that its spatial iteration variables use. No loop above `loop` may bind a
  /// reduce iteration variable. `block` keeps its name, without init. Returns the init block.
  BlockRV decompose_reduction(const BlockRV& block, const LoopRV& loop);
  /// Factors a reduction (TVM's rfactor; schedule_rfactor.cc). `loop` encloses exactly one
  /// block, a reduction with an init store and an update `C[idx] = C[idx] op expr` (op one of
  /// +, *, T.max, T.min, either operand order), and binds only reduce iteration variables of
  /// it. The block becomes `<name>_rf`, accumulating partial results into a new buffer
  /// `<C>_rf` with an extra dimension of `loop`'s extent inserted at `factor_axis` (0..ndim;
  /// negative counts from the end, -1 = last) and indexed by `loop`: its iteration variables
  /// are the spatial ones plus one per loop binding a reduce variable (spatial for `loop`,
  /// reduce for the others), its init the reducer's identity. A write-back block, named like
  /// the original, reduces `<C>_rf` over `loop`'s range into C (with the original init) under
  /// copies of the loops binding spatial variables and `loop`, right after the outermost loop
  /// that holds only the block (loops above it, which must not bind reduce variables, enclose
  /// both blocks). Predicate terms that mention reduce loops guard the rf update instead of the
  /// whole block. Returns the rf block.
  BlockRV rfactor(const LoopRV& loop, int factor_axis);

  // ---- Layout (schedule_layout.cc).

  /// Changes the layout of a buffer `block` accesses: every access B[idx] in the function
  /// becomes B'[map(idx)], where B' has the mapped shape (each final index's range over B's
  /// shape; it must start at 0, and the element count must not change: padding is not
  /// supported). A parameter buffer changes the function's signature.
  void transform_layout(const BlockRV& block, BufferIndex buffer, const IndexMap& map);

 private:
  Ref<PrimFunc> func_;
};

}  // namespace relax::tir
