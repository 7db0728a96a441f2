// Helpers the schedule primitives share (tir/schedule.h): finding blocks and loops, replacing
// one statement, removing blocks with the loops they empty, recomputing block regions.
// Internal to core/src/tir.
#pragma once

#include <functional>
#include <string>
#include <unordered_set>
#include <vector>

#include "relax/arith/analyzer.h"
#include "relax/kernel/block_regions.h"
#include "relax/kernel/schedule.h"
#include "relax/tir/stmt_functor.h"

namespace relax::tir::sched {

/// Where a block sits: its realize and the loops between it and the enclosing block
/// (outermost first), plus that enclosing block (null for a block at the top of the body).
struct BlockLoc {
  const BlockRealize* realize = nullptr;
  std::vector<const For*> loops;
  const Block* parent = nullptr;
};

/// Where a loop sits: the For and the enclosing loops up to the enclosing block (outermost
/// first, not including the loop).
struct LoopLoc {
  const For* loop = nullptr;
  std::vector<const For*> outer;
  const Block* parent = nullptr;
};

/// The block named `name`; a relax::Error "<prim>: no block named 'x'" otherwise.
BlockLoc find_block(const Stmt& body, const std::string& name, const char* prim);
/// The loop of `loop`; a relax::Error "<prim>: loop x is not in the function" otherwise.
LoopLoc find_loop(const Stmt& body, const LoopRV& loop, const char* prim);

/// Every BlockRealize under `s` (nested ones too), in order.
std::vector<const BlockRealize*> realizes_under(const Stmt& s);

/// True when `e` mentions `v`.
/// True when `e` mentions any of `vars`.
bool uses_any(const PrimExpr& e, const std::unordered_set<const Var*>& vars);

/// `root` with the node `target` replaced by `replacement` (null removes it from its
/// sequence; loops and branches left empty go too). Unchanged subtrees stay shared.
Stmt replace_stmt(const Stmt& root, const StmtNode* target, const Stmt& replacement);

/// Each block of `s` rewritten by `f` (called post-order, children already rewritten).
Stmt map_blocks(const Stmt& s, const std::function<Ref<Block>(const Ref<Block>&)>& f);

/// `block` with reads/writes recomputed from its init and body (see schedule.h).
Ref<Block> with_inferred_regions(const Ref<Block>& block);

/// `block` with another body / init / name (other fields kept).
Ref<Block> with_block_body(const Ref<Block>& block, Stmt body, Stmt init);

/// The function's root block (the body's BlockRealize with no iteration variables); null
/// when the body is not one.
const Block* root_block(const Ref<PrimFunc>& func);
/// `func` whose body is wrapped in a root block when it has none yet.
Ref<PrimFunc> ensure_root_block(const Ref<PrimFunc>& func);

/// True when `buffer` is one of the function's parameter buffers.
bool is_param_buffer(const Ref<PrimFunc>& func, const Buffer* buffer);

/// The blocks (by name) that write / read `buffer` in `s`, from their regions and bodies.
std::vector<std::string> writers_of(const Stmt& s, const Buffer* buffer);
std::vector<std::string> readers_of(const Stmt& s, const Buffer* buffer);

/// A block name not used in `s`, `hint` or `hint_1`, `hint_2`...
std::string fresh_block_name(const Stmt& s, const std::string& hint);

// ---- Regions under a loop (schedule_region.cc): what compute_at, reverse_compute_at and the
// cache primitives at a loop share.

/// The position of the loop over `loop_var` among `loc.loops`; loc.loops.size() if absent.
size_t loop_depth(const BlockLoc& loc, const Var* loop_var);

/// The ranges `region` (one of `loc`'s block's regions, over its iteration variables) covers
/// while the loops loc.loops[depth...] run over their ranges and the outer ones stay fixed,
/// except outer loops bound to threads that share memory of `scope` ("shared": threadIdx
/// and vthread loops; "global": every thread-bound loop; "local": none), which run too.
/// `ana` learns the ranges of all of `loc`'s loops.
std::vector<Range> region_under(const BlockLoc& loc, size_t depth, const BufferRegion& region,
                                arith::Analyzer* ana, const std::string& scope = "local");

/// `loop` with `extra` added at the start (or the end) of its body.
Stmt with_loop_extra(const For* loop, const Stmt& extra, bool at_start);

/// `func` with `buffer` allocated by the block named `block`.
Ref<PrimFunc> add_alloc(const Ref<PrimFunc>& func, const std::string& block,
                        const Ref<Buffer>& buffer);

/// Every block of `s`, in program order, with whether it lies under `loop` (null: none).
struct BlockOrder {
  std::vector<const BlockRealize*> blocks;
  std::vector<bool> under_loop;
  /// The position of `r` in `blocks`.
  size_t index_of(const BlockRealize* r) const;
};
BlockOrder block_order(const Stmt& s, const For* loop);

/// The buffers a block region list names.
std::vector<const Buffer*> region_buffers(const std::vector<BufferRegion>& regions);

/// The region of `regions` over `buffer`; null when there is none.
const BufferRegion* region_of(const std::vector<BufferRegion>& regions, const Buffer* buffer);

}  // namespace relax::tir::sched
