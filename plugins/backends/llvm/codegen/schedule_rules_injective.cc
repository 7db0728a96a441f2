// The injective rules of the default CPU schedule (schedule_rules.h) and the inlining of the
// elementwise blocks of a fused kernel into their consumers.
//
// Why not always fuse every loop: once fused, each index of a load that is not the store's own
// (a broadcast, a slice, a reshape, a transpose) is rebuilt from the fused variable with a
// division and a modulo per element and per lane — by a symbolic divisor when a dimension is
// symbolic (BERT's batch): a 64-bit division for every element. Keeping the innermost loop
// leaves those indices uniform over it (LLVM hoists them), and a load whose last index follows
// the innermost loop stays a contiguous vector load. Where a load's last index follows another
// loop instead (a transpose), the two loops are tiled so that each tile's reads and writes stay
// within a few cache lines.
#include <algorithm>
#include <unordered_map>

#include "relax/arith/analyzer.h"
#include "relax/ir/structural_equal.h"
#include "relax/tir/stmt_functor.h"
#include "schedule_rules_internal.h"

namespace relax::llvm_backend::detail {

namespace {

/// Block iteration variable -> index of the loop it is bound to (bound ones only).
std::unordered_map<const tir::Var*, size_t> loop_of_iter_var(const BlockInfo& info) {
  std::unordered_map<const tir::Var*, size_t> out;
  const Block& block = *info.realize->block;
  for (size_t i = 0; i < block.iter_vars.size(); ++i) {
    auto* v = info.realize->iter_values[i].as<tir::Var>();
    if (!v) continue;
    for (size_t l = 0; l < info.loops.size(); ++l)
      if (info.loops[l]->loop_var.get() == v) out[block.iter_vars[i]->var.get()] = l;
  }
  return out;
}

/// The loops (by index) whose iteration variables `e` mentions.
std::vector<size_t> loops_used(const PrimExpr& e,
                               const std::unordered_map<const tir::Var*, size_t>& loop_of) {
  std::vector<size_t> out;
  for (const auto& [var, loop] : loop_of)
    if (uses_var(e, var)) out.push_back(loop);
  std::sort(out.begin(), out.end());
  return out;
}

/// How the loads of an injective block relate to its store.
struct InjectiveShape {
  /// Every load that depends on the loops reads at the store's indices (plain elementwise).
  bool elementwise = true;
  /// The loop that the last index of a transposed load follows (-1: none). That load's last
  /// index does not follow the innermost loop, so vectors along the innermost loop gather.
  int transposed = -1;
};

InjectiveShape injective_shape(const BlockInfo& info) {
  InjectiveShape shape;
  auto loop_of = loop_of_iter_var(info);
  std::vector<const BufferLoad*> loads;
  const BufferStore* store = nullptr;
  tir::post_order_visit(info.realize->block->body, [&](const Stmt& s) {
    if (auto* st = s.as<BufferStore>()) store = st;
  });
  if (!store) return shape;
  struct Collect : tir::ExprVisitor {
    std::vector<const BufferLoad*>* loads;
    using ExprVisitor::visit_;
    void visit_(const BufferLoad* op) override {
      loads->push_back(op);
      ExprVisitor::visit_(op);
    }
  } collect;
  collect.loads = &loads;
  collect.visit_expr(store->value);
  size_t last = info.loops.size() - 1;
  // Inlined reshapes leave indices such as (s * (b * 768) + d) % 768: simplified over the
  // iteration domain, the variables an index really depends on show.
  arith::Analyzer ana(arith::AnalyzerOptions{true});
  for (const auto& iv : info.realize->block->iter_vars)
    ana.bind_range(iv->var, iv->dom.min, iv->dom.extent);
  for (const BufferLoad* load : loads) {
    if (load->indices.empty()) continue;
    bool depends = std::any_of(load->indices.begin(), load->indices.end(), [&](const PrimExpr& e) {
      return !loops_used(e, loop_of).empty();
    });
    if (!depends) continue;
    if (load->indices.size() == store->indices.size() &&
        std::equal(load->indices.begin(), load->indices.end(), store->indices.begin(),
                   [](const PrimExpr& a, const PrimExpr& b) {
                     return structural_equal(a, b, /*map_free_vars=*/false);
                   }))
      continue;
    shape.elementwise = false;
    if (shape.transposed >= 0) continue;
    std::vector<size_t> used = loops_used(ana.simplify(load->indices.back()), loop_of);
    if (used.empty() || used.back() == last) continue;
    // The innermost loop that the last index follows, when the innermost loop indexes an
    // outer dimension of this load (otherwise the load is a broadcast along it, no gather).
    bool last_elsewhere = false;
    for (size_t d = 0; d + 1 < load->indices.size(); ++d)
      for (size_t l : loops_used(ana.simplify(load->indices[d]), loop_of))
        last_elsewhere |= l == last;
    if (last_elsewhere) shape.transposed = int(used.back());
  }
  return shape;
}

/// The product of the constant extents of `loops` (symbolic ones count as unknown: nullopt).
std::optional<int64_t> const_product(const Schedule& s, const std::vector<LoopRV>& loops) {
  int64_t p = 1;
  for (const LoopRV& l : loops) {
    std::optional<int64_t> c = const_loop_extent(s, l);
    if (!c) return std::nullopt;
    p *= *c;
  }
  return p;
}

/// Every loop fused, split off the vector lanes, the rest parallel.
void fused_injective_rule(Schedule& s, const std::vector<LoopRV>& loops, const BlockInfo& info,
                          const CpuScheduleOptions& o) {
  LoopRV fused = fuse_all(s, loops);
  std::optional<int64_t> c = const_loop_extent(s, fused);
  int64_t lanes = vector_lanes(info.dtype, o);
  if (c && *c <= 1) return;
  if (lanes < 2) return parallel_if_worth(s, fused, o);
  if (c && *c <= lanes) return s.vectorize(fused);
  std::vector<LoopRV> parts = s.split(fused, {-1, c ? piece(*c, lanes, true) : lanes});
  parallel_if_worth(s, parts[0], o);
  s.vectorize(parts[1]);
}

/// The innermost loop kept (split into [serial, vector lanes]); the outer loops fused and
/// parallel. A short innermost loop (a few vectors: NHWC channels) keeps the loop outside it
/// too, serial, when the loops outside that still give the threads enough rows: the indices
/// of the loads are then rebuilt from the fused variable once per row, not once per pixel (an
/// NHWC resize by symbolic sizes spent 4 divisions by symbolic divisors on each 32 channels).
void row_injective_rule(Schedule& s, const std::vector<LoopRV>& loops, const BlockInfo& info,
                        const CpuScheduleOptions& o) {
  int64_t lanes = vector_lanes(info.dtype, o);
  LoopRV inner = loops.back();
  std::optional<int64_t> c = const_loop_extent(s, inner);
  size_t kept = 1;
  if (c && *c <= 4 * lanes && loops.size() >= 3) {
    std::optional<int64_t> rows =
        const_product(s, std::vector<LoopRV>(loops.begin(), loops.end() - 2));
    if (!rows || *rows >= 4 * o.min_parallel_extent) kept = 2;
  }
  std::vector<LoopRV> outer(loops.begin(), loops.end() - long(kept));
  if (lanes >= 2 && !(c && *c <= 1)) {
    if (c && *c <= lanes) {
      s.vectorize(inner);
    } else {
      std::vector<LoopRV> parts = s.split(inner, {-1, c ? piece(*c, lanes, true) : lanes});
      s.vectorize(parts[1]);
    }
  }
  parallel_if_worth(s, fuse_all(s, outer), o);
}

/// Loop `p` (the one a transposed load's last index follows) and the innermost loop tiled,
/// tile loops outside, the innermost-in-tile loop vectorized: a tile reads `lanes` lines of the
/// transposed operand and writes `tile_rows` lines of the output, both held in L1.
void transpose_injective_rule(Schedule& s, const std::vector<LoopRV>& loops, size_t p,
                              const BlockInfo& info, const CpuScheduleOptions& o) {
  int64_t lanes = vector_lanes(info.dtype, o);
  // 8 x lanes tiles (TVM's and ORT's transposes block by 8 or 16 as well); the rows come
  // from the transposed operand's contiguous axis, so 16 of them read a 64-byte line each.
  constexpr int64_t kTileRows = 16;
  std::optional<int64_t> cp = const_loop_extent(s, loops[p]);
  std::optional<int64_t> cl = const_loop_extent(s, loops.back());
  if ((cl && *cl < lanes) || (cp && *cp < 2)) return row_injective_rule(s, loops, info, o);
  std::vector<LoopRV> pp =
      cp && *cp <= kTileRows ? std::vector<LoopRV>{} : s.split(loops[p], {-1, cp ? piece(*cp, kTileRows, false) : kTileRows});
  std::vector<LoopRV> lp = s.split(loops.back(), {-1, cl ? piece(*cl, lanes, true) : lanes});
  std::vector<LoopRV> order;
  for (size_t l = 0; l + 1 < loops.size(); ++l)
    if (l != p) order.push_back(loops[l]);
  if (!pp.empty()) order.push_back(pp[0]);
  order.push_back(lp[0]);
  order.push_back(pp.empty() ? loops[p] : pp[1]);
  order.push_back(lp[1]);
  s.reorder(order);
  s.vectorize(lp[1]);
  std::vector<LoopRV> outer(order.begin(), order.end() - 2);
  parallel_if_worth(s, fuse_all(s, outer), o);
}

}  // namespace

void injective_rule(Schedule& s, const std::vector<LoopRV>& loops, const BlockInfo& info,
                    const CpuScheduleOptions& o) {
  InjectiveShape shape = injective_shape(info);
  if (loops.size() < 2 || shape.elementwise) return fused_injective_rule(s, loops, info, o);
  // Too few outer iterations to share among the threads: fusing wins.
  std::optional<int64_t> outer =
      const_product(s, std::vector<LoopRV>(loops.begin(), loops.end() - 1));
  if (outer && *outer < 4 && shape.transposed < 0) return fused_injective_rule(s, loops, info, o);
  if (shape.transposed >= 0)
    return transpose_injective_rule(s, loops, size_t(shape.transposed), info, o);
  row_injective_rule(s, loops, info, o);
}

}  // namespace relax::llvm_backend::detail
