// Regions under a loop (schedule_internal.h): the elements a block touches during one
// iteration of an enclosing loop, and the small rewrites the primitives that move work under
// a loop share (adding to a loop's body, allocating a buffer in a block).
#include "relax/support/diagnostic.h"
#include "schedule_internal.h"

namespace relax::tir::sched {

size_t loop_depth(const BlockLoc& loc, const Var* loop_var) {
  size_t d = 0;
  while (d < loc.loops.size() && loc.loops[d]->loop_var.get() != loop_var) ++d;
  return d;
}

namespace {

/// True when threads of loop `f` see one buffer of `scope`.
bool shares_scope(const For& f, const std::string& scope) {
  if (f.kind != ForKind::kThreadBinding) return false;
  if (scope == "global") return true;
  return scope == "shared" &&
         (f.thread_tag.rfind("threadIdx", 0) == 0 || f.thread_tag.rfind("vthread", 0) == 0);
}

}  // namespace

std::vector<Range> region_under(const BlockLoc& loc, size_t depth, const BufferRegion& region,
                                arith::Analyzer* ana, const std::string& scope) {
  for (const For* f : loc.loops) ana->bind_range(f->loop_var, f->min, f->extent);
  RelaxDomain dom;
  for (size_t d = 0; d < loc.loops.size(); ++d)
    if (d >= depth || shares_scope(*loc.loops[d], scope))
      dom[loc.loops[d]->loop_var.get()] =
          Range::from_min_extent(loc.loops[d]->min, loc.loops[d]->extent);
  const Block& b = *loc.realize->block;
  std::unordered_map<const Var*, PrimExpr> bind;
  for (size_t i = 0; i < b.iter_vars.size(); ++i)
    bind[b.iter_vars[i]->var.get()] = loc.realize->iter_values[i];
  auto subst = [&](const PrimExpr& e) {
    return substitute(e, [&](const Var* v) -> PrimExpr {
      auto it = bind.find(v);
      return it == bind.end() ? PrimExpr() : it->second;
    });
  };
  BufferRegion bound{region.buffer, {}};
  for (const Range& r : region.region)
    bound.region.push_back(Range::from_min_extent(subst(r.min), subst(r.extent)));
  return relax_region(bound, dom, ana);
}

Stmt with_loop_extra(const For* loop, const Stmt& extra, bool at_start) {
  Stmt body = at_start ? seq_stmt({extra, loop->body}) : seq_stmt({loop->body, extra});
  return make_ref<For>(loop->loop_var, loop->min, loop->extent, loop->kind, body, loop->thread_tag,
                       loop->annotations);
}

Ref<PrimFunc> add_alloc(const Ref<PrimFunc>& func, const std::string& block,
                        const Ref<Buffer>& buffer) {
  return with_body(func, map_blocks(func->body, [&](const Ref<Block>& b) {
                     if (b->name != block) return b;
                     auto allocs = b->alloc_buffers;
                     allocs.push_back(buffer);
                     return make_ref<Block>(b->name, b->iter_vars, b->reads, b->writes, b->body,
                                            b->init, std::move(allocs), b->match_buffers,
                                            b->annotations);
                   }));
}

size_t BlockOrder::index_of(const BlockRealize* r) const {
  for (size_t i = 0; i < blocks.size(); ++i)
    if (blocks[i] == r) return i;
  RX_IFAIL() << "block " << r->block->name << " is not in the order";
}

BlockOrder block_order(const Stmt& s, const For* loop) {
  BlockOrder order;
  order.blocks = realizes_under(s);
  std::unordered_set<const BlockRealize*> under;
  if (loop)
    for (const BlockRealize* r : realizes_under(Stmt(loop))) under.insert(r);
  for (const BlockRealize* r : order.blocks) order.under_loop.push_back(under.count(r) != 0);
  return order;
}

std::vector<const Buffer*> region_buffers(const std::vector<BufferRegion>& regions) {
  std::vector<const Buffer*> out;
  for (const auto& r : regions) out.push_back(r.buffer.get());
  return out;
}

const BufferRegion* region_of(const std::vector<BufferRegion>& regions, const Buffer* buffer) {
  for (const auto& r : regions)
    if (r.buffer.get() == buffer) return &r;
  return nullptr;
}

}  // namespace relax::tir::sched
