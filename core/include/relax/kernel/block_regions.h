// The regions a block reads and writes, inferred from its body: what the parser fills in when
// T.reads/T.writes are omitted, what the printer checks before omitting them, and what the
// schedule primitives recompute after rewriting a block.
#pragma once

#include <vector>

#include "relax/tir/stmt.h"

namespace relax::tir {

/// The regions a block body reads and writes: one region per buffer in order of first access
/// (point ranges where every access uses the same indices, whole dimensions otherwise); nested
/// blocks and buffers the block allocates are not included.
void infer_block_regions(const Stmt& body, const Stmt& init,
                         const std::vector<Ref<Buffer>>& allocated,
                         std::vector<BufferRegion>* reads, std::vector<BufferRegion>* writes);

}  // namespace relax::tir
