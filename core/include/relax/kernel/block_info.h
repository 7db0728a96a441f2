// What the default schedule rules (the CPU rules of the llvm backend, the GPU rules of
// kernel/gpu_rules.h) read of a block before they choose how to schedule it, and the helpers
// they share: block order, loop extents, fusing a loop list, inlining elementwise blocks.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "relax/kernel/schedule.h"
#include "relax/tir/stmt_functor.h"

namespace relax::tir {

/// What the rules need to know about one block and its loops.
struct BlockInfo {
  const BlockRealize* realize = nullptr;
  /// The loops between the block and its enclosing block, outermost first.
  std::vector<const For*> loops;
  bool has_reduce = false;
  /// Safe to run distinct iterations of its spatial loops concurrently: every iteration
  /// variable is bound to one loop variable (each loop at most once) or a constant, the
  /// block is alone under its outermost loop, every store names every spatial variable as a
  /// whole index, and a written buffer is read only where this instance writes it.
  bool parallel_safe = false;
  /// Number of leading loops bound to spatial iteration variables.
  size_t n_spatial = 0;
  /// The element type of the first store.
  DataType dtype = DataType::Float(32);
  /// The innermost spatial loop's iteration variable is the last index of every store and
  /// appears in no other index: its consecutive iterations store to consecutive elements.
  bool last_spatial_contiguous = false;
  /// The innermost of the leading spatial loops but the last whose iteration variable indexes
  /// no load that the last spatial variable indexes (the accumulator's own loads aside), so a
  /// vector of the right operand serves every row of a tile: `i` of a matmul, the output
  /// channel of an NCHW conv2d. -1 when there is none.
  int row_loop = -1;
  /// The loop just outside row_loop when it can join the rows: a leading spatial loop of
  /// constant extent that indexes, like row_loop (also constant), no load the last spatial
  /// variable indexes: an NHWC conv2d's output height beside its width. Fused with row_loop,
  /// the rows of a tile block span several of its iterations (a 7 x 7 output is 49 rows, not
  /// 7), so a panel of the right operand serves more rows. -1 when there is none.
  int row_outer_loop = -1;
};

/// The stores and loads of a block's body and init (nested blocks are noted, not entered).
struct Accesses : StmtExprVisitor {
  std::vector<const BufferStore*> stores;
  std::vector<const BufferLoad*> loads;
  bool nested_block = false;
  using StmtExprVisitor::visit_;
  void visit_(const BufferStore* op) override {
    stores.push_back(op);
    StmtExprVisitor::visit_(op);
  }
  void visit_(const BufferLoad* op) override {
    loads.push_back(op);
    StmtExprVisitor::visit_(op);
  }
  void visit_(const BlockRealize*) override { nested_block = true; }
};

/// The block `name` of `func` analysed as it stands (info.realize is null when it is absent).
BlockInfo analyze_block(const Ref<PrimFunc>& func, const std::string& name);

/// The names of the blocks of `func` in program order (the root block included).
std::vector<std::string> block_names(const Ref<PrimFunc>& func);

/// The extent of a loop of the schedule's current function.
PrimExpr loop_extent(const Schedule& s, const LoopRV& loop);

/// The extent of a loop when it is a constant.
std::optional<int64_t> const_loop_extent(const Schedule& s, const LoopRV& loop);

/// `loops` fused into one (the loop itself when there is one).
LoopRV fuse_all(Schedule& s, const std::vector<LoopRV>& loops);

/// Inlines every elementwise block that writes an intermediate buffer into its consumers
/// (compute_inline; blocks it refuses are kept). With `avoid_repeated_work`, a block is kept
/// when inlining would repeat an intrinsic call per read (its value calls exp, erf, a pad's
/// if_then_else... and its buffer is read at several places or re-read by a reduction).
void inline_elementwise_blocks(Schedule& s, bool avoid_repeated_work = true);

}  // namespace relax::tir
