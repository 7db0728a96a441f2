// The channel-wise rule (schedule_rules.h): reductions whose operands all follow the output's
// last axis (NHWC depthwise convolution, NHWC pooling). The register-blocked rule needs an
// operand that the columns do not index (a matmul's left operand, broadcast along a row);
// here every operand is indexed by the channel, so the channel is the vector axis of every
// load and a row of the output is independent of the others.
#include <algorithm>
#include <optional>
#include <vector>

#include "relax/support/diagnostic.h"
#include "relax/tir/stmt_functor.h"
#include "schedule_rules_internal.h"

namespace relax::llvm_backend::detail {

namespace {

/// The largest divisor of `extent` not above `limit`.
int64_t largest_divisor(int64_t extent, int64_t limit) {
  for (int64_t d = std::min(limit, extent); d > 1; --d)
    if (extent % d == 0) return d;
  return 1;
}

/// Whether every load of the block but the accumulator's reads the last spatial variable
/// in its last index only, at unit stride: vectorising the channel then loads vectors.
bool channel_wise(const BlockInfo& info) {
  const tir::Block& block = *info.realize->block;
  const tir::For* last_loop = info.loops[info.n_spatial - 1];
  const tir::Var* last = nullptr;
  for (size_t i = 0; i < block.iter_vars.size(); ++i)
    if (info.realize->iter_values[i].get() == last_loop->loop_var.get())
      last = block.iter_vars[i]->var.get();
  if (!last) return false;
  Accesses acc;
  acc.visit_stmt(block.body);
  int operands = 0;
  for (const BufferLoad* load : acc.loads) {
    bool stored = std::any_of(acc.stores.begin(), acc.stores.end(), [&](const BufferStore* st) {
      return st->buffer.get() == load->buffer.get();
    });
    if (stored) continue;
    const auto& idx = load->indices;
    if (idx.empty() || !tir::unit_stride_in(idx.back(), last)) return false;
    for (size_t k = 0; k + 1 < idx.size(); ++k)
      if (uses_var(idx[k], last)) return false;
    ++operands;
  }
  return operands > 0;
}

}  // namespace

/// A reduction whose every operand is indexed by the output's last (contiguous) axis in its
/// own last index: the channel in panels of up to `nr` (vectorized), the axis before it (the
/// output width) in tiles of a few rows (unrolled), the reduce loops outside both, so the
/// rows x panel tile of accumulators stays in registers over the whole window:
///   parallel(outer spatial..., row tile, channel panel)
///     init
///     reduce... (rc, kh, kw)
///       row in tile (unrolled)
///         channel in panel (vectorized)
/// Each reduce step is one vector load per operand and row and one multiply-add (or max).
std::optional<LoopRV> channel_rule(Schedule& s, const BlockRV& block,
                                   const std::vector<LoopRV>& loops, const BlockInfo& info,
                                   const CpuScheduleOptions& o) {
  size_t n = info.n_spatial;
  RX_CHECK(n >= 2 && n < loops.size() && channel_wise(info))
      << "channel-wise rule: not a channel-wise reduction";
  int64_t lanes = vector_lanes(info.dtype, o);
  std::vector<LoopRV> par(loops.begin(), loops.begin() + long(n - 2));
  std::vector<LoopRV> reduce(loops.begin() + long(n), loops.end());
  // Channels: a panel of up to nr, preferring a multiple of the lanes that divides.
  LoopRV col = loops[n - 1];
  std::optional<int64_t> nc = const_loop_extent(s, col);
  std::optional<LoopRV> col_outer;
  if (!nc || *nc > o.nr) {
    int64_t w = o.nr;
    if (nc) {
      for (int64_t d = o.nr - o.nr % lanes; d >= lanes; d -= lanes)
        if (*nc % d == 0) {
          w = d;
          break;
        }
      if (*nc % w != 0) w = std::max<int64_t>(lanes, largest_divisor(*nc, o.nr));
    }
    std::vector<LoopRV> parts = s.split(col, {-1, w});
    col_outer = parts[0];
    col = parts[1];
  }
  // Rows: as many as keep the accumulators within about 12 vector registers, a divisor of a
  // constant extent (no predicate); a symbolic extent is not tiled.
  std::optional<int64_t> cw = const_loop_extent(s, col);
  int64_t vectors = std::max<int64_t>(1, (cw.value_or(o.nr) + lanes - 1) / lanes);
  int64_t budget = std::max<int64_t>(1, 12 / vectors);
  LoopRV row = loops[n - 2];
  std::optional<int64_t> rc = const_loop_extent(s, row);
  std::optional<LoopRV> row_in;
  if (rc && *rc <= budget) {
    row_in = row;
  } else if (rc && largest_divisor(*rc, budget) > 1) {
    std::vector<LoopRV> parts = s.split(row, {-1, largest_divisor(*rc, budget)});
    par.push_back(parts[0]);
    row_in = parts[1];
  } else {
    par.push_back(row);
  }
  if (col_outer) par.push_back(*col_outer);
  std::vector<LoopRV> order = par;
  order.insert(order.end(), reduce.begin(), reduce.end());
  if (row_in) order.push_back(*row_in);
  order.push_back(col);
  s.reorder(order);
  std::optional<LoopRV> task;
  if (!par.empty()) {
    task = fuse_all(s, par);
    parallel_if_worth(s, *task, o);
  }
  std::optional<int64_t> rows = row_in ? const_loop_extent(s, *row_in) : std::nullopt;
  if (rows && *rows > 1) s.unroll(*row_in);
  if (cw && *cw > 1) vectorize_panel(s, col, *cw, lanes);
  // The init in front of the reduce loops; a guarded reduction (padded pooling) may refuse,
  // and the rule stands without it.
  try {
    s.decompose_reduction(block, reduce[0]);
  } catch (const Error&) {
  }
  return task;
}

}  // namespace relax::llvm_backend::detail
