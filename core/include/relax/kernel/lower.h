// Lowering of PrimFuncs to what code generators and the reference interpreter consume.
//
// The lowered form ("lowered PrimFunc"):
//  - no Block or BlockRealize: blocks become plain statements over their loops' variables;
//  - every buffer the body accesses is flat: one dimension, compact, element offset 0, over the
//    data variable of a parameter or of an Allocate. The buffer_map keeps the parameters'
//    n-dimensional buffers: it is the calling convention (shapes checked, symbolic dimensions
//    bound at the call), while the body indexes the same memory through 1-D buffers;
//  - Allocate extents are one element count;
//  - index arithmetic simplified (loop bounds, indices, conditions of pure index arithmetic).
//
// lower() runs the steps in order and checks the result with verify_lowered; each step is also
// available on its own (the input of a later step is the output of the earlier ones).
#pragma once

#include <string>
#include <vector>

#include "relax/ir/prim_func.h"

namespace relax::tir {

/// Blocks to plain statements. For each BlockRealize: iteration variables are replaced by
/// their bound values; the init (if any) runs under `if (r0 == min0 && r1 == min1 ...)` over
/// the reduce iteration variables (unconditionally when there are none), before the body; a
/// predicate other than True becomes an IfThenElse around it; alloc_buffers become Allocates
/// around it; match_buffers of the same rank as their source are rewritten to access the
/// source at the region's offset (another rank is a relax::Error).
Ref<PrimFunc> lower_blocks(const Ref<PrimFunc>& func);

/// Accesses of n-dimensional (or strided, or offset) buffers become accesses of 1-D buffers
/// over the same data variable at tir::flat_offset; vector accesses (a Ramp in one dimension)
/// become a Ramp over the flat index. Allocate extents become their product. The buffer_map
/// is kept (see the header comment). Expects no blocks.
Ref<PrimFunc> flatten_buffers(const Ref<PrimFunc>& func);

/// Simplifies index arithmetic with arith::Analyzer: loop bounds, buffer indices, Allocate
/// extents, and conditions and let values that load nothing. Loop variables are known to lie in
/// their loop's range and parameter shape variables to be non-negative. Values computed from
/// loaded data are left alone: the simplifier assumes arithmetic does not overflow, which
/// narrow integer data cannot promise. Conditions that become constant select their branch;
/// serial loops of extent 1 are replaced by their body.
Ref<PrimFunc> simplify_indices(const Ref<PrimFunc>& func);

/// The problems that keep `func` from being a lowered PrimFunc (empty when there are none):
/// blocks left, accessed buffers not flat or over memory that is neither a parameter nor
/// allocated, variables used where they are not defined (or defined twice), and loads or
/// stores that can be proven out of bounds of a constant extent from the loop ranges (only for
/// accesses that no condition guards). Each message names the buffer or variable.
std::vector<std::string> verify_lowered(const Ref<PrimFunc>& func);

/// lower_blocks, flatten_buffers, simplify_indices, then verify_lowered; a failed check is an
/// InternalError listing the problems (a bug in lowering or in the input).
Ref<PrimFunc> lower(const Ref<PrimFunc>& func);

}  // namespace relax::tir
