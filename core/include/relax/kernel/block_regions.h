// The regions a block reads and writes, inferred from its body: what the parser fills in when
// T.reads/T.writes are omitted, what the printer checks before omitting them, and what the
// schedule primitives recompute after rewriting a block.
#pragma once

#include <optional>
#include <unordered_map>
#include <vector>

#include "relax/arith/analyzer.h"
#include "relax/tir/stmt.h"

namespace relax::tir {

/// The regions a block body reads and writes: one region per buffer in order of first access
/// (point ranges where every access uses the same indices, whole dimensions otherwise); nested
/// blocks and buffers the block allocates are not included.
void infer_block_regions(const Stmt& body, const Stmt& init,
                         const std::vector<Ref<Buffer>>& allocated,
                         std::vector<BufferRegion>* reads, std::vector<BufferRegion>* writes);

}  // namespace relax::tir

// ---- Relaxing regions over loops.
//
// The schedule primitives that move or cache computation (compute_at, cache_read at a loop...)
// need the elements a block touches while some loops run through their whole range and the
// loops outside them stay fixed. relax_range bounds an index expression by interval
// arithmetic: affine sums, multiplication by constants, floordiv/floormod by positive
// constants, min and max are bounded (exactly for affine sums of distinct variables);
// anything else that mentions a relaxed variable is unbounded.

namespace relax::tir {

/// The variables that run over their whole range, each to its range [min, min + extent).
using RelaxDomain = std::unordered_map<const Var*, Range>;

/// The smallest interval found holding every value of `e` as the variables of `dom` run over
/// their ranges (the others fixed), as [min, min + extent) simplified with `ana`'s facts;
/// nothing when the analysis cannot bound `e`.
std::optional<Range> relax_range(const PrimExpr& e, const RelaxDomain& dom, arith::Analyzer* ana);

/// Each range of `region` relaxed over `dom` (the range of [min, min + extent - 1]); a
/// dimension that cannot be bounded covers the whole buffer dimension.
std::vector<Range> relax_region(const BufferRegion& region, const RelaxDomain& dom,
                                arith::Analyzer* ana);

/// The union (bounding interval) of two ranges, simplified with `ana`.
Range union_range(const Range& a, const Range& b, arith::Analyzer* ana);

}  // namespace relax::tir
