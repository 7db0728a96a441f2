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

#include "relax/kernel/block_info.h"
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

using tir::Accesses;
using tir::analyze_block;
using tir::block_names;
using tir::BlockInfo;
using tir::const_loop_extent;
using tir::loop_extent;
using tir::fuse_all;
using tir::inline_elementwise_blocks;
using tir::uses_var;

/// Vector lanes for elements of `dtype` (bool and narrow types count as bytes).
int64_t vector_lanes(DataType dtype, const CpuScheduleOptions& o);

/// How to split a constant extent into pieces of at most `limit` (see schedule_rules.cc).
int64_t piece(int64_t extent, int64_t limit, bool pow2);

/// Marks `loop` parallel unless its constant extent is too small to share.
void parallel_if_worth(Schedule& s, const LoopRV& loop, const CpuScheduleOptions& o);
/// Vectorizes panel loop `col` (constant extent `c`), as whole power-of-two vectors (the
/// rest unrolled) where LLVM's code for one c-wide vector is slow (schedule_rules.cc).
void vectorize_panel(Schedule& s, LoopRV col, int64_t c, int64_t lanes);

/// Injective block (schedule_rules_injective.cc): elementwise blocks fused, split off the
/// vector lanes and parallel; blocks with broadcast, sliced or reshaped loads keep their
/// innermost loop (vectorized) under the fused parallel outer loops; transposes tiled.
void injective_rule(Schedule& s, const std::vector<LoopRV>& loops, const BlockInfo& info,
                    const CpuScheduleOptions& o);

/// The rules of multi-axis reductions (schedule_rules_reduce.cc); they throw relax::Error when
/// a primitive refuses, and the dispatch falls back to a simpler rule.
/// register_blocked_rule returns its parallel task loop (a row block of a column panel).
LoopRV register_blocked_rule(Schedule& s, const BlockRV& block, const std::vector<LoopRV>& loops,
                             const BlockInfo& info, const CpuScheduleOptions& o);
void tiled_reduction_rule(Schedule& s, const BlockRV& block, const std::vector<LoopRV>& loops,
                          const BlockInfo& info, const CpuScheduleOptions& o);

/// The channel-wise rule (schedule_rules_conv.cc): a reduction whose every operand is indexed
/// by the output's last axis in its own last index (NHWC depthwise conv, NHWC pooling); throws
/// relax::Error for other blocks.
/// Returns its parallel task loop (a row tile of a channel panel), if it has one.
std::optional<LoopRV> channel_rule(Schedule& s, const BlockRV& block,
                                   const std::vector<LoopRV>& loops, const BlockInfo& info,
                                   const CpuScheduleOptions& o);

}  // namespace relax::llvm_backend::detail
