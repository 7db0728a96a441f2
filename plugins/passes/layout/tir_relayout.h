// Layout rewrites at the TIR level: transform_layout of a PrimFunc's parameter buffers, and the
// design's flow of a result rewrite to the operands by reading the block that writes the
// result ("Flowing Layout Rewrite through an Operation at TIR-level").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "relax/arith/index_map.h"
#include "relax/ir/prim_func.h"

namespace relax::layout {

/// TIR transform_layout of several parameters at once: parameter i's buffer, when maps[i] is
/// set, takes the shape map(shape) and every access buf[idx] becomes buf[map(idx)] (block
/// regions recomputed). The loops are unchanged, so the function computes the same values,
/// laid out by the maps. Nothing (with `why`) when a map is not a padding-free rearrangement
/// of its buffer. maps.size() must be the number of parameters.
/// `allocs` relays out buffers the function allocates (a fused function's intermediates) the
/// same way.
std::optional<Ref<tir::PrimFunc>> relayout_prim_func(
    const Ref<tir::PrimFunc>& func, const std::vector<std::optional<arith::IndexMap>>& maps,
    std::string* why,
    const std::vector<std::pair<Ref<tir::Buffer>, arith::IndexMap>>& allocs = {});

/// The rewrite each input parameter (0 .. out_param - 1) needs so that `out_map` applied to
/// output parameter `out_param` can move from the result to the operands. Read from the one
/// block that writes the output: its store indices must be distinct block variables, and each
/// input must be read there with one index list of block variables and constants. With the
/// output's variables renamed to the operand's (broadcast constants aligned from the right,
/// numpy-style), every result of `out_map` over the operand's variables is kept, one over
/// none of them is dropped, and the operand's own axes (reduction axes) keep their place
/// next to their neighbours. An input the block does not read gets no map (nullopt entry).
/// Nothing, with `why`, when the block or an access is of another form.
///
/// Fused functions: an intermediate buffer the block reads (one the function allocates) gets
/// its map the same way and the flow goes on through the block that writes it, and so on up to
/// the parameters; those maps are added to `allocs` (when given) for relayout_prim_func. An
/// input reached by two paths must get the same map from both.
std::optional<std::vector<std::optional<arith::IndexMap>>> flow_to_operands(
    const Ref<tir::PrimFunc>& func, size_t out_param, const arith::IndexMap& out_map,
    std::string* why,
    std::vector<std::pair<Ref<tir::Buffer>, arith::IndexMap>>* allocs = nullptr);

/// TIR transform_block_layout: the block named `block` (alone at the bottom of a perfect loop
/// nest under the root, its variables bound to the loops) iterates over map(its domain)
/// instead: new block variables and loops over the mapped extents, the old variables read
/// back through the inverse. `map` has one variable per block variable, in order, and must be
/// a padding-free rearrangement whose results each mix variables of one type (spatial or
/// reduce). Nothing, with `why`, otherwise.
std::optional<Ref<tir::PrimFunc>> transform_block_layout(const Ref<tir::PrimFunc>& func,
                                                         const std::string& block,
                                                         const arith::IndexMap& map,
                                                         std::string* why);

/// The loops of the blocks writing output `out_param` (when `out_map` is set) and each
/// intermediate of `allocs` reordered after their maps (the buffer's axes in the rewritten
/// order, other block variables after them), so that a relaid-out function walks its buffers
/// in memory order: transform_block_layout of each writer. `func` is the function before
/// relayout (where the blocks' store indices are their variables); `relaid` the one to
/// transform. A block of another form keeps its loops.
Ref<tir::PrimFunc> realign_writers(
    const Ref<tir::PrimFunc>& func, Ref<tir::PrimFunc> relaid,
    const std::vector<std::pair<Ref<tir::Buffer>, arith::IndexMap>>& allocs, size_t out_param,
    const std::optional<arith::IndexMap>& out_map);

/// freeze-layout's relayout: relayout_prim_func of the parameters by `maps`, the function's
/// intermediates laid out like the inputs their writers copy axis by axis (a convolution's
/// padded input follows the input), and the blocks writing the intermediates and output
/// `out_param` realigned (realign_writers) so that each walks its buffer in memory order: the
/// loop nest a kernel written for those layouts would have. Nothing, with `why`, when the
/// parameters cannot be relaid out; an intermediate or block of another form stays as it is.
std::optional<Ref<tir::PrimFunc>> relayout_frozen(
    const Ref<tir::PrimFunc>& func, const std::vector<std::optional<arith::IndexMap>>& maps,
    size_t out_param, std::string* why);

/// `stmt` with every access to each pair's first buffer made to its second (same rank), block
/// regions recomputed.
tir::Stmt replace_buffers(const tir::Stmt& stmt,
                          const std::vector<std::pair<Ref<tir::Buffer>, Ref<tir::Buffer>>>& pairs);

}  // namespace relax::layout
