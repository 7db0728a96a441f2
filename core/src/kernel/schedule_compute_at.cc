// Compute location at a loop: compute_at and reverse_compute_at (kernel/schedule.h).
//
// Both move a block under a loop of another block's nest (same enclosing block) and
// regenerate the loops the block needs there. The ranges of its iteration variables come
// from regions relaxed over the loops inside the target loop (relax_region; for a shared
// buffer of compute_at, also over the enclosing threadIdx and vthread loops): for compute_at
// the region its consumers read during one iteration, for reverse_compute_at the region its
// producers write. Expects a function whose blocks declare their regions (the parser infers
// them); guarantees every block instance the consumers need runs before them in the same
// iteration (compute_at), or after the producers' last write of its inputs
// (reverse_compute_at). Recomputing an instance is harmless: the block is complete or a
// reduction with an init.
#include <optional>

#include "relax/support/diagnostic.h"
#include "schedule_internal.h"

namespace relax::tir {

namespace {

using sched::BlockLoc;
using sched::LoopLoc;

/// What both primitives know after the checks they share.
struct AtSite {
  Ref<PrimFunc> func;  // with a root block
  BlockLoc block;
  LoopLoc loop;
  sched::BlockOrder order;  // the blocks of the enclosing block's body
  size_t pos = 0;           // the block's position in `order`
  size_t first = 0;         // positions of the first and last block under the loop
  size_t last = 0;
};

AtSite locate(const Ref<PrimFunc>& f, const BlockRV& block, const LoopRV& loop, const char* prim) {
  AtSite s;
  s.func = sched::ensure_root_block(f);
  s.block = sched::find_block(s.func->body, block.name, prim);
  s.loop = sched::find_loop(s.func->body, loop, prim);
  const std::string& l = loop.var->name;
  RX_CHECK(s.block.parent) << prim << ": block " << block.name << " is the root block";
  RX_CHECK(sched::loop_depth(s.block, loop.var.get()) == s.block.loops.size())
      << prim << ": block " << block.name << " is already under loop " << l;
  RX_CHECK(s.block.parent == s.loop.parent)
      << prim << ": block " << block.name << " is in block " << s.block.parent->name << " but loop "
      << l << " is in block " << (s.loop.parent ? s.loop.parent->name : "?")
      << "; both must be in the same block";
  s.order = sched::block_order(s.block.parent->body, s.loop.loop);
  s.pos = s.order.index_of(s.block.realize);
  bool any = false;
  for (size_t i = 0; i < s.order.blocks.size(); ++i) {
    if (!s.order.under_loop[i]) continue;
    if (!any) s.first = i;
    s.last = i;
    any = true;
  }
  RX_CHECK(any) << prim << ": loop " << l << " contains no block";
  return s;
}

/// A block that may be recomputed: complete, or a reduction with an init whose writes do not
/// depend on its reduce iteration variables.
void check_complete(const Block& b, const char* prim) {
  std::unordered_set<const Var*> reduce;
  for (const auto& iv : b.iter_vars) {
    RX_CHECK(iv->type != IterVarType::kOpaque)
        << prim << ": block " << b.name << " has the opaque iteration variable " << iv->var->name
        << "; only spatial and reduction blocks can move";
    if (iv->type == IterVarType::kReduce) reduce.insert(iv->var.get());
  }
  if (!reduce.empty()) {
    RX_CHECK(b.init.defined()) << prim << ": block " << b.name
                               << " is a reduction without an init (decomposed); it cannot be "
                                  "recomputed where it moves";
    for (const auto& w : b.writes)
      for (const auto& r : w.region)
        RX_CHECK(!sched::uses_any(r.min, reduce) && !sched::uses_any(r.extent, reduce))
            << prim << ": block " << b.name << " writes " << w.buffer->name
            << " at an index that depends on a reduce iteration variable";
    return;
  }
  for (const auto& r : b.reads)
    RX_CHECK(!sched::region_of(b.writes, r.buffer.get()))
        << prim << ": block " << b.name << " reads " << r.buffer->name
        << ", which it also writes; only complete blocks and reductions can move";
}

/// Narrows the ranges of `b`'s iteration variables so that `pattern` (the block's region of a
/// buffer) covers `need`: a dimension indexed by a spatial iteration variable bounds that
/// variable (a union with what earlier regions asked); one with a constant index bounds
/// nothing; any other index is an error.
void solve(const char* prim, const Block& b, const BufferRegion& pattern,
           const std::vector<Range>& need, const char* verb,
           std::vector<std::optional<Range>>* ranges, arith::Analyzer* ana) {
  std::unordered_set<const Var*> vars;
  for (const auto& iv : b.iter_vars) vars.insert(iv->var.get());
  for (size_t d = 0; d < pattern.region.size() && d < need.size(); ++d) {
    const Range& r = pattern.region[d];
    if (!sched::uses_any(r.min, vars) && !sched::uses_any(r.extent, vars)) continue;
    size_t k = b.iter_vars.size();
    if (auto* v = r.min.as<Var>())
      for (size_t i = 0; i < b.iter_vars.size(); ++i)
        if (b.iter_vars[i]->var.get() == v) k = i;
    RX_CHECK(k < b.iter_vars.size() && is_const_int(r.extent, 1) &&
             b.iter_vars[k]->type == IterVarType::kSpatial)
        << prim << ": block " << b.name << " " << verb << " " << pattern.buffer->name << " at "
        << to_string(r.min) << " in dimension " << d
        << ", not at one of its spatial iteration variables; the range of its iterations "
           "cannot be derived";
    auto& slot = (*ranges)[k];
    slot = slot ? union_range(*slot, need[d], ana) : need[d];
  }
}

/// The block of `realize` under new loops covering `ranges` (the whole domain where unset).
Stmt regenerate(const BlockRealize* realize, const std::vector<std::optional<Range>>& ranges,
                bool preserve_unit_loops, arith::Analyzer* ana) {
  const Block& b = *realize->block;
  std::vector<Ref<Var>> loops;
  std::vector<PrimExpr> extents, values;
  PrimExpr pred;
  auto add_pred = [&](const PrimExpr& c) { pred = pred.defined() ? logical_and(pred, c) : c; };
  for (size_t k = 0; k < b.iter_vars.size(); ++k) {
    const auto& iv = b.iter_vars[k];
    DataType dt = iv->var->dtype;
    Range r = ranges[k] ? *ranges[k] : iv->dom;
    PrimExpr start = cast(dt, r.min), extent = cast(dt, r.extent);
    PrimExpr value = start;
    if (preserve_unit_loops || !is_const_int(extent, 1)) {
      Ref<Var> ax = var("ax" + std::to_string(loops.size()), dt);
      loops.push_back(ax);
      extents.push_back(extent);
      ana->bind_range(ax, int_imm(0, dt), extent);
      value = is_const_int(start, 0) ? PrimExpr(ax) : start + ax;
    }
    PrimExpr lo = iv->dom.min, hi = iv->dom.min + iv->dom.extent;
    if (!ana->can_prove(ge(value, lo))) add_pred(ge(value, lo));
    if (!ana->can_prove(lt(value, hi))) add_pred(lt(value, hi));
    values.push_back(value);
  }
  Stmt body =
      make_ref<BlockRealize>(values, pred.defined() ? pred : bool_imm(true), realize->block);
  for (size_t i = loops.size(); i-- > 0;)
    body = make_ref<For>(loops[i], int_imm(0, loops[i]->dtype), extents[i], ForKind::kSerial, body);
  return body;
}

/// The function with `nest` added to `loop`'s body (at its start or end) and `moved` removed.
Ref<PrimFunc> move(const AtSite& s, const Stmt& nest, bool at_start) {
  Stmt body = sched::replace_stmt(s.func->body, s.loop.loop,
                                  sched::with_loop_extra(s.loop.loop, nest, at_start));
  body = sched::replace_stmt(body, s.block.realize, Stmt());
  return with_body(s.func, body);
}

}  // namespace

void Schedule::compute_at(const BlockRV& block, const LoopRV& loop, bool preserve_unit_loops) {
  constexpr const char* kPrim = "compute_at";
  AtSite s = locate(func_, block, loop, kPrim);
  const Block& b = *s.block.realize->block;
  const std::string& l = loop.var->name;
  check_complete(b, kPrim);
  RX_CHECK(s.pos < s.first) << kPrim << ": block " << b.name << " comes after loop " << l
                            << "; compute_at moves a producer into a later loop of its "
                               "consumers (reverse_compute_at moves a consumer)";
  std::vector<const Buffer*> outputs = sched::region_buffers(b.writes);
  std::vector<const Buffer*> inputs = sched::region_buffers(b.reads);
  for (const Buffer* out : outputs)
    RX_CHECK(!sched::is_param_buffer(s.func, out))
        << kPrim << ": block " << b.name << " writes " << out->name
        << ", an output of the function; only a block writing intermediate buffers can move "
           "to its consumers";
  std::vector<const BlockRealize*> consumers;
  for (size_t i = 0; i < s.order.blocks.size(); ++i) {
    if (i == s.pos) continue;
    const Block& o = *s.order.blocks[i]->block;
    bool reads_output = false;
    for (const Buffer* out : outputs) {
      RX_CHECK(!sched::region_of(o.writes, out))
          << kPrim << ": block " << o.name << " also writes " << out->name << "; " << b.name
          << " must be its only writer";
      if (!sched::region_of(o.reads, out)) continue;
      RX_CHECK(s.order.under_loop[i])
          << kPrim << ": block " << o.name << " reads " << out->name << " but is not under loop "
          << l << "; every consumer of block " << b.name << " must be";
      reads_output = true;
    }
    if (reads_output) consumers.push_back(s.order.blocks[i]);
    if (i > s.pos && i <= s.last) {
      for (const Buffer* in : inputs) {
        RX_CHECK(!sched::region_of(o.writes, in))
            << kPrim << ": block " << o.name << " writes " << in->name << ", which block " << b.name
            << " reads, between " << b.name << " and the end of loop " << l;
      }
    }
  }
  RX_CHECK(!consumers.empty()) << kPrim << ": no block under loop " << l << " reads what block "
                               << b.name << " writes";

  arith::Analyzer ana(arith::AnalyzerOptions{true});
  std::vector<std::optional<Range>> ranges(b.iter_vars.size());
  for (const BlockRealize* c : consumers) {
    BlockLoc cl = sched::find_block(s.func->body, c->block->name, kPrim);
    RX_CHECK(cl.parent == s.loop.parent)
        << kPrim << ": consumer " << c->block->name << " is nested in block "
        << (cl.parent ? cl.parent->name : "?") << "; consumers must be in the block of loop " << l;
    size_t depth = sched::loop_depth(cl, loop.var.get()) + 1;
    for (const auto& read : c->block->reads) {
      const BufferRegion* w = sched::region_of(b.writes, read.buffer.get());
      if (!w) continue;
      // A shared producer computes the tile of the whole thread block (TVM's rule, which lets
      // the copy loops be spread over the threads); other scopes stay per thread.
      bool shared = read.buffer->scope == "shared";
      auto need = sched::region_under(cl, depth, read, &ana, shared ? "shared" : "local");
      solve(kPrim, b, *w, need, "writes", &ranges, &ana);
    }
  }
  for (const For* f : s.loop.outer) ana.bind_range(f->loop_var, f->min, f->extent);
  ana.bind_range(s.loop.loop->loop_var, s.loop.loop->min, s.loop.loop->extent);
  func_ = move(s, regenerate(s.block.realize, ranges, preserve_unit_loops, &ana), true);
}

void Schedule::reverse_compute_at(const BlockRV& block, const LoopRV& loop,
                                  bool preserve_unit_loops) {
  constexpr const char* kPrim = "reverse_compute_at";
  AtSite s = locate(func_, block, loop, kPrim);
  const Block& b = *s.block.realize->block;
  const std::string& l = loop.var->name;
  check_complete(b, kPrim);
  RX_CHECK(s.pos > s.last) << kPrim << ": block " << b.name << " comes before loop " << l
                           << "; reverse_compute_at moves a consumer into an earlier loop of "
                              "its producers (compute_at moves a producer)";
  std::vector<const Buffer*> outputs = sched::region_buffers(b.writes);
  std::vector<const Buffer*> inputs = sched::region_buffers(b.reads);
  std::vector<const BlockRealize*> producers;
  for (size_t i = s.first; i < s.pos; ++i) {
    const Block& o = *s.order.blocks[i]->block;
    bool under = s.order.under_loop[i];
    for (const Buffer* out : outputs)
      RX_CHECK(!sched::region_of(o.reads, out) && !sched::region_of(o.writes, out))
          << kPrim << ": block " << o.name << " accesses " << out->name << ", which block "
          << b.name << " writes, "
          << (under ? "under loop " + l : "between loop " + l + " and " + b.name);
    bool writes_input = false;
    for (const Buffer* in : inputs)
      if (sched::region_of(o.writes, in)) writes_input = true;
    RX_CHECK(under || !writes_input) << kPrim << ": block " << o.name << " writes a buffer block "
                                     << b.name << " reads, between loop " << l << " and " << b.name;
    if (writes_input) producers.push_back(s.order.blocks[i]);
  }
  RX_CHECK(!producers.empty()) << kPrim << ": no block under loop " << l << " writes what block "
                               << b.name << " reads";
  // The block runs only where the loop produces its inputs: a buffer produced under the loop
  // must be produced nowhere else.
  for (size_t i = 0; i < s.first; ++i) {
    const Block& o = *s.order.blocks[i]->block;
    for (const BlockRealize* p : producers)
      for (const auto& w : p->block->writes)
        RX_CHECK(!sched::region_of(b.reads, w.buffer.get()) ||
                 !sched::region_of(o.writes, w.buffer.get()))
            << kPrim << ": block " << o.name << " also writes " << w.buffer->name
            << " (before loop " << l << "); block " << b.name
            << " can follow only inputs produced entirely under the loop";
  }

  arith::Analyzer ana(arith::AnalyzerOptions{true});
  std::vector<std::optional<Range>> ranges(b.iter_vars.size());
  for (const BlockRealize* p : producers) {
    BlockLoc pl = sched::find_block(s.func->body, p->block->name, kPrim);
    RX_CHECK(pl.parent == s.loop.parent)
        << kPrim << ": producer " << p->block->name << " is nested in block "
        << (pl.parent ? pl.parent->name : "?") << "; producers must be in the block of loop " << l;
    size_t depth = sched::loop_depth(pl, loop.var.get()) + 1;
    for (const auto& write : p->block->writes) {
      const BufferRegion* r = sched::region_of(b.reads, write.buffer.get());
      if (!r) continue;
      solve(kPrim, b, *r, sched::region_under(pl, depth, write, &ana), "reads", &ranges, &ana);
    }
  }
  for (const For* f : s.loop.outer) ana.bind_range(f->loop_var, f->min, f->extent);
  ana.bind_range(s.loop.loop->loop_var, s.loop.loop->min, s.loop.loop->extent);
  func_ = move(s, regenerate(s.block.realize, ranges, preserve_unit_loops, &ana), false);
}

}  // namespace relax::tir
