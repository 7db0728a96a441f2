// Internals of the default CPU schedule rules (schedule_rules.h), shared by their files:
//   schedule_rules.cc         the block analysis, the injective and spatial-prefix rules, and
//                             the dispatch that picks a block's rule;
//   schedule_rules_reduce.cc  the register-blocked and tiled rules of multi-axis reductions;
//   schedule_rules_conv.cc    the channel-wise rule (NHWC depthwise convolution and pooling);
//   schedule_rules_injective.cc  the injective rules and the inlining of elementwise blocks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "relax/kernel/schedule.h"
#include "relax/tir/stmt_functor.h"
#include "schedule_rules.h"

namespace relax::llvm_backend::detail {

using tir::Block;
using tir::BlockRealize;
using tir::BlockRV;
using tir::BufferLoad;
using tir::BufferStore;
using tir::For;
using tir::ForKind;
using tir::IterVarType;
using tir::LoopRV;
using tir::PrimExpr;
using tir::PrimFunc;
using tir::Schedule;
using tir::Stmt;

/// What the rules need to know about one block and its loops.
struct BlockInfo {
  const BlockRealize* realize = nullptr;
  /// The loops between the block and its enclosing block, outermost first.
  std::vector<const For*> loops;
  bool has_reduce = false;
  /// Safe to run distinct iterations of its spatial loops concurrently (the header's list).
  bool parallel_safe = false;
  /// Number of leading loops bound to spatial iteration variables.
  size_t n_spatial = 0;
  /// The element type of the first store (what the vector lanes are sized for).
  DataType dtype = DataType::Float(32);
  /// The innermost spatial loop's iteration variable is the last index of every store and
  /// appears in no other index: its consecutive iterations store to consecutive elements.
  bool last_spatial_contiguous = false;
  /// The loop the register-blocked rule takes as rows: the innermost of the leading spatial
  /// loops but the last whose iteration variable indexes no load that the last spatial
  /// variable indexes (the accumulator's own loads aside), so a vector of the right operand
  /// serves every row of a tile: `i` of a matmul, the output channel of an NCHW conv2d. -1 when
  /// there is none.
  int row_loop = -1;
};

/// The stores and loads of a block's body and init (nested blocks are noted, not entered).
struct Accesses : tir::StmtExprVisitor {
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
BlockInfo analyze(const Ref<PrimFunc>& func, const std::string& name);

using tir::uses_var;

/// The extent of a loop of the schedule's current function.
PrimExpr extent_of(const Schedule& s, const LoopRV& loop);

/// The extent of a loop when it is a constant.
std::optional<int64_t> const_extent(const Schedule& s, const LoopRV& loop);

/// Vector lanes for elements of `dtype` (bool and narrow types count as bytes).
int64_t vector_lanes(DataType dtype, const CpuScheduleOptions& o);

/// How to split a constant extent into pieces of at most `limit` (see schedule_rules.cc).
int64_t piece(int64_t extent, int64_t limit, bool pow2);

/// `loops` fused into one (the loop itself when there is one).
LoopRV fuse_all(Schedule& s, const std::vector<LoopRV>& loops);

/// Marks `loop` parallel unless its constant extent is too small to share.
void parallel_if_worth(Schedule& s, const LoopRV& loop, const CpuScheduleOptions& o);

/// The names of the blocks of `func` in program order (the root block included).
std::vector<std::string> block_names(const Ref<PrimFunc>& func);

/// Injective block (schedule_rules_injective.cc): elementwise blocks fused, split off the
/// vector lanes and parallel; blocks with broadcast, sliced or reshaped loads keep their
/// innermost loop (vectorized) under the fused parallel outer loops; transposes tiled.
void injective_rule(Schedule& s, const std::vector<LoopRV>& loops, const BlockInfo& info,
                    const CpuScheduleOptions& o);

/// Inlines every elementwise block that writes an intermediate buffer into its consumers
/// (compute_inline), unless that would repeat an intrinsic call per read: a fused kernel's chain
/// of injective blocks then makes one pass over memory instead of one per block.
void inline_elementwise_blocks(Schedule& s);

/// The rules of multi-axis reductions (schedule_rules_reduce.cc); they throw relax::Error when
/// a primitive refuses, and the dispatch falls back to a simpler rule.
void register_blocked_rule(Schedule& s, const BlockRV& block, const std::vector<LoopRV>& loops,
                           const BlockInfo& info, const CpuScheduleOptions& o);
void tiled_reduction_rule(Schedule& s, const BlockRV& block, const std::vector<LoopRV>& loops,
                          const BlockInfo& info, const CpuScheduleOptions& o);

/// The channel-wise rule (schedule_rules_conv.cc): a reduction whose every operand is indexed
/// by the output's last axis in its own last index (NHWC depthwise conv, NHWC pooling); throws
/// relax::Error for other blocks.
void channel_rule(Schedule& s, const BlockRV& block, const std::vector<LoopRV>& loops,
                  const BlockInfo& info, const CpuScheduleOptions& o);

}  // namespace relax::llvm_backend::detail
