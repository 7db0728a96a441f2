// The rules of reductions with two or more spatial axes (schedule_rules.h): the
// register-blocked micro-kernel (matmul, batch matmul, convolution) and the tiled fallback.
#include <algorithm>
#include <numeric>
#include <optional>
#include <vector>

#include "relax/tir/attrs.h"
#include "relax/support/diagnostic.h"
#include "schedule_rules_internal.h"

namespace relax::llvm_backend::detail {

namespace {

/// The factor to split a constant extent by: the largest multiple of `step` in
/// [limit / 2, limit] that divides `extent` (no predicate); otherwise `limit` (a predicate).
int64_t dividing_factor(int64_t extent, int64_t limit, int64_t step) {
  for (int64_t d = limit - limit % step; d >= std::max(step, limit / 2); d -= step)
    if (extent % d == 0) return d;
  return limit;
}

/// The column panel of the register-blocked rule for a constant extent above `nr`: a
/// multiple of the lanes in [nr / 2, nr] that divides it; else the largest divisor in
/// [lanes, nr] (28 -> 14: one full vector and a partial one, but no predicate — a predicated
/// panel turns every tile access into a masked load or store and keeps the tile out of
/// registers, measured 5-8x slower on ResNet's 28 x 28 convolutions); else `nr` (a predicate).
int64_t panel_width(int64_t extent, int64_t nr, int64_t lanes) {
  int64_t d = dividing_factor(extent, nr, lanes);
  if (extent % d == 0) return d;
  for (d = nr; d >= lanes; --d)
    if (extent % d == 0) return d;
  return nr;
}

}  // namespace

/// A reduction with two or more spatial loops (matmul, batch matmul, conv2d): a
/// register-blocked micro-kernel, the way BLAS libraries write it by hand. With rows the
/// BlockInfo::row_loop axis (matmul: the second-last spatial axis; NCHW conv2d: the output
/// channel), columns the last spatial axis (contiguous in the output) and k the first reduce
/// axis, the nest becomes
///   parallel(outer spatial..., column panel, row block)    -- tasks
///     (window: kh, kw, when the chunks are 64 channels or more)
///     ko                                                   -- k in chunks of `kc`
///       row tile                                           -- `mr` rows
///         k in chunk, other reduce axes...
///           row in tile (unrolled)
///             column in panel (vectorized, `nr` lanes)
/// and the init goes in front of the window or ko. The mr x nr output tile is read, updated and
/// written at addresses that do not change over the k loops: with the codegen's per-parameter alias
/// scopes LLVM keeps it in mr * nr / lanes vector registers for the whole chunk, and each k step is
/// mr broadcasts of the left operand, nr / lanes contiguous loads of the right one and mr * nr /
/// lanes fused multiply-adds. The k chunk keeps the kc x nr slice of the right operand in L1 across
/// the row tiles of a row block.
LoopRV register_blocked_rule(Schedule& s, const BlockRV& block, const std::vector<LoopRV>& loops,
                             const BlockInfo& info, const CpuScheduleOptions& o) {
  size_t n = info.n_spatial;
  int64_t lanes = vector_lanes(info.dtype, o);
  RX_CHECK(info.row_loop >= 0) << "register-blocked rule: no row loop";
  // Rows shorter than half a row block take in the loop outside them where it can join them
  // (an NHWC conv's height: 7 x 7 outputs are 49 rows), so each panel of the right operand
  // serves a whole row block: ResNet-50's 7 x 7 stage ran at a third of the peak with 7-row
  // blocks, and the model 87 -> 75 ms on one thread with its 7-, 14- and 28-wide rows joined.
  // Longer rows stay (MobileNetV2's 56-wide 1x1 convs with few channels measured no better).
  std::optional<int64_t> inner_rows = const_loop_extent(s, loops[size_t(info.row_loop)]);
  bool join_rows = info.row_outer_loop >= 0 && inner_rows && *inner_rows * 2 < o.mc;
  std::vector<LoopRV> par;
  for (size_t l = 0; l + 1 < n; ++l)
    if (int(l) != info.row_loop && !(join_rows && int(l) == info.row_outer_loop))
      par.push_back(loops[l]);
  std::vector<LoopRV> reduce(loops.begin() + long(n), loops.end());
  RX_CHECK(!reduce.empty()) << "register-blocked rule: no reduce loop";
  // Columns: [panel, nr] (vectorized); a short constant axis is one panel.
  LoopRV col = loops[n - 1];
  std::optional<int64_t> nc = const_loop_extent(s, col);
  // Packed weights (kAttrWeightPanel) fix the panel: the packed index j % P becomes the
  // column in the panel only when the panel is exactly P wide.
  int64_t packed = get_int(s.func()->attrs, kAttrWeightPanel, 0);
  if (packed > 0 && (!nc || *nc != packed)) {
    std::vector<LoopRV> parts = s.split(col, {-1, packed});
    par.push_back(parts[0]);
    col = parts[1];
  } else if (packed == 0 && (!nc || *nc > o.nr)) {
    int64_t nr = nc ? panel_width(*nc, o.nr, lanes) : o.nr;
    std::vector<LoopRV> parts = s.split(col, {-1, nr});
    par.push_back(parts[0]);
    col = parts[1];
  }
  // Rows: [block, tile, mr] (the row in the tile unrolled).
  LoopRV row = loops[size_t(info.row_loop)];
  if (join_rows) row = s.fuse({loops[size_t(info.row_outer_loop)], row});
  std::optional<int64_t> mc = const_loop_extent(s, row);
  // A divisor of the rows close to mr, else mr itself with a guard on the last tile (which
  // codegen_promote.cc keeps in registers): 6 rows on 1024 beat 4 rows without a guard.
  // Up to mr + 1 rows are one tile: a spilled accumulator costs less than a one-row tile.
  // A packed panel fixes the columns; the rows then keep the knobs' accumulator budget
  // (mr x nr / lanes vectors), at most 8 (taller tiles spill): 8 x 32 at 512 bits.
  int64_t knob_mr = o.mr;
  if (packed > 0) {
    int64_t budget = o.mr * ((o.nr + lanes - 1) / lanes);
    knob_mr = std::clamp<int64_t>(budget / ((packed + lanes - 1) / lanes), 1, 8);
  }
  auto tile_rows = [&](std::optional<int64_t> extent) {
    if (extent && *extent <= knob_mr + 1) return *extent;
    if (extent)
      for (int64_t d = knob_mr; d >= std::max<int64_t>(1, knob_mr - knob_mr / 4); --d)
        if (*extent % d == 0) return d;
    return knob_mr;
  };
  int64_t mr = tile_rows(mc);
  // Joined rows keep the tile of the inner rows where it divides them (7 of 7 x 7: no guard).
  if (join_rows) {
    int64_t inner_mr = tile_rows(inner_rows);
    if (mc && *mc % inner_mr == 0) mr = inner_mr;
  }
  int64_t tiles = mc ? (*mc + mr - 1) / mr : -1;
  int64_t per_block = std::max<int64_t>(1, o.mc / mr);
  // Joined rows: a row block is whole inner rows (56 rows of 14 x 14, not 64), so that the
  // outputs of one task are a box of the output (attach_epilogues needs exact regions).
  if (join_rows) {
    int64_t whole = *inner_rows / std::gcd(*inner_rows, mr);
    per_block = std::max(whole, per_block / whole * whole);
  }
  if (tiles > 0 && tiles <= per_block) per_block = tiles;
  // A row block that divides the tiles where one is near: MobileNetV2's 112-wide rows are 14
  // tiles of 8, two blocks of 7 rather than 8 and 6 with a guard on every row of both. Joined
  // rows take any multiple of their whole rows that divides: ResNet's 14 x 14 outputs are 49
  // tiles of 4, seven blocks of 7 rather than three of 14 and a half-empty fourth (-4% on
  // those convs).
  int64_t step = join_rows ? *inner_rows / std::gcd(*inner_rows, mr) : 1;
  int64_t least = join_rows ? step : per_block / 2 + 1;
  for (int64_t d = per_block; tiles > per_block && d >= least; --d)
    if (tiles % d == 0 && d % step == 0) {
      per_block = d;
      break;
    }
  std::vector<LoopRV> rparts = s.split(row, {-1, per_block, mr});
  par.push_back(rparts[0]);
  LoopRV tile = rparts[1], row_in = rparts[2];
  // k: [ko, ki] when the first reduce axis is longer than a chunk.
  std::vector<LoopRV> inner_reduce = reduce;
  std::optional<LoopRV> ko;
  std::optional<int64_t> kext = const_loop_extent(s, reduce[0]);
  if (!kext || *kext > o.kc) {
    std::vector<LoopRV> kparts =
        s.split(reduce[0], {-1, kext ? piece(*kext, o.kc, false) : o.kc});
    ko = kparts[0];
    inner_reduce[0] = kparts[1];
  }
  // A convolution's window loops (kh, kw) go outside the k chunks when the chunk has 64
  // channels or more: the chunk's slice of the weights is then kc x nr contiguous floats (64
  // KiB) rather than kc x kh x kw x nr (576 KiB at 3 x 3, beyond L2, streamed again for every
  // row tile). ResNet's 7 x 7 stage -10 to -20%; with few channels (a stem's 3) the tile's
  // accumulators would be reloaded every few k steps.
  std::vector<LoopRV> window;
  std::optional<int64_t> chunk = const_loop_extent(s, inner_reduce[0]);
  bool wide_window = false;
  for (size_t r = 1; r < inner_reduce.size(); ++r) {
    std::optional<int64_t> e = const_loop_extent(s, inner_reduce[r]);
    wide_window |= !e || *e > 1;
  }
  if (wide_window && chunk && *chunk >= 64) {
    window.assign(inner_reduce.begin() + 1, inner_reduce.end());
    inner_reduce.resize(1);
  }
  std::vector<LoopRV> order = par;
  order.insert(order.end(), window.begin(), window.end());
  if (ko) order.push_back(*ko);
  order.push_back(tile);
  order.insert(order.end(), inner_reduce.begin(), inner_reduce.end());
  order.push_back(row_in);
  order.push_back(col);
  s.reorder(order);
  LoopRV task = fuse_all(s, par);
  parallel_if_worth(s, task, o);
  if (std::optional<int64_t> c = const_loop_extent(s, row_in); c && *c > 1) s.unroll(row_in);
  std::optional<int64_t> c = const_loop_extent(s, col);
  if (info.last_spatial_contiguous && c && *c > 1) vectorize_panel(s, col, *c, lanes);
  s.decompose_reduction(block, !window.empty() ? window[0] : ko ? *ko : tile);
  return task;
}

/// A reduction with two or more spatial loops: tile the last two, parallel the tiles,
/// vectorize the column in a tile, split the init out (the fallback of the register-blocked
/// rule).
void tiled_reduction_rule(Schedule& s, const BlockRV& block, const std::vector<LoopRV>& loops,
                          const BlockInfo& info, const CpuScheduleOptions& o) {
  size_t n = info.n_spatial;
  std::vector<LoopRV> outer(loops.begin(), loops.begin() + long(n - 2));
  std::vector<LoopRV> reduce(loops.begin() + long(n), loops.end());
  // Splits `loop` into tiles; returns the loop inside a tile and appends the tile loop (if any)
  // to `outer`.
  auto tile = [&](const LoopRV& loop) {
    std::optional<int64_t> c = const_loop_extent(s, loop);
    if (c && *c <= o.tile) return loop;
    std::vector<LoopRV> parts = s.split(loop, {-1, c ? piece(*c, o.tile, false) : o.tile});
    outer.push_back(parts[0]);
    return parts[1];
  };
  LoopRV row = tile(loops[n - 2]);
  LoopRV col = tile(loops[n - 1]);
  std::vector<LoopRV> order = outer;
  order.push_back(row);
  order.insert(order.end(), reduce.begin(), reduce.end());
  order.push_back(col);
  s.reorder(order);
  // Without tile or batch loops the rows of the (single) tile are what runs in parallel.
  LoopRV par = outer.empty() ? row : fuse_all(s, outer);
  parallel_if_worth(s, par, o);
  std::optional<int64_t> col_extent = const_loop_extent(s, col);
  if (info.last_spatial_contiguous && col_extent && *col_extent > 1) s.vectorize(col);
  // The init in front of the loops inside the parallel one (copies keep their kinds): no
  // `reduce == 0` test in the inner loop. Optional: the schedule above stands without it.
  LoopRV inside = outer.empty() ? (reduce.empty() ? col : reduce[0]) : row;
  try {
    s.decompose_reduction(block, inside);
  } catch (const Error&) {
  }
}

}  // namespace relax::llvm_backend::detail
