// Reductions: decompose_reduction (tir/schedule.h).
//
// Splits a reduction block's init into its own block placed before a chosen enclosing loop,
// under copies of the loops below it that its spatial iteration variables use; the
// reduction block keeps its body and loses its init. Expects the init to depend only on
// spatial iteration variables; guarantees every output element is initialised once before
// its first update, as the guarded init did.
#include <unordered_map>

#include "relax/support/diagnostic.h"
#include "schedule_internal.h"

namespace relax::tir {

BlockRV Schedule::decompose_reduction(const BlockRV& block, const LoopRV& loop) {
  constexpr const char* kPrim = "decompose_reduction";
  sched::BlockLoc loc = sched::find_block(func_->body, block.name, kPrim);
  sched::find_loop(func_->body, loop, kPrim);
  const BlockRealize* realize = loc.realize;
  const Ref<Block>& b = realize->block;
  RX_CHECK(b->init.defined()) << kPrim << ": block " << b->name
                              << " has no init; it is not a reduction block";
  size_t p = 0;
  while (p < loc.loops.size() && loc.loops[p]->loop_var.get() != loop.var.get()) ++p;
  RX_CHECK(p < loc.loops.size()) << kPrim << ": loop " << loop.var->name
                                 << " does not enclose block " << b->name;
  // A loop above the split point must not drive a reduce variable: the init would rerun.
  for (size_t q = 0; q < p; ++q)
    for (size_t i = 0; i < b->iter_vars.size(); ++i)
      RX_CHECK(b->iter_vars[i]->type == IterVarType::kSpatial ||
               !tir::uses_var(realize->iter_values[i], loc.loops[q]->loop_var.get()))
          << kPrim << ": loop " << loc.loops[q]->loop_var->name << " is above loop "
          << loop.var->name << " and binds the reduce iteration variable "
          << b->iter_vars[i]->var->name << " of block " << b->name
          << "; the init would run at each of its iterations";

  // The loops from p down that the spatial bindings (or the predicate) use get copies.
  std::unordered_set<const Var*> needed;
  auto need = [&](const PrimExpr& e) {
    for (size_t q = p; q < loc.loops.size(); ++q)
      if (tir::uses_var(e, loc.loops[q]->loop_var.get()))
        needed.insert(loc.loops[q]->loop_var.get());
  };
  std::unordered_map<const Var*, PrimExpr> vmap;  // loop and iteration vars -> copies
  std::vector<Ref<IterVar>> iters;
  std::vector<PrimExpr> spatial_values;
  for (size_t i = 0; i < b->iter_vars.size(); ++i) {
    const auto& iv = b->iter_vars[i];
    if (iv->type != IterVarType::kSpatial) continue;
    need(realize->iter_values[i]);
    Ref<Var> nv = var(iv->var->name, iv->var->dtype);
    vmap[iv->var.get()] = nv;
    iters.push_back(make_ref<IterVar>(nv, iv->dom, iv->type));
    spatial_values.push_back(realize->iter_values[i]);
  }
  // The init keeps the predicate's conjuncts over spatial loops only: a conjunct that masks
  // reduce iterations (a non-dividing split of a reduce loop) does not concern it.
  std::unordered_set<const Var*> reduce_loops;
  for (size_t i = 0; i < b->iter_vars.size(); ++i) {
    if (b->iter_vars[i]->type == IterVarType::kSpatial) continue;
    for (size_t q = 0; q < loc.loops.size(); ++q)
      if (tir::uses_var(realize->iter_values[i], loc.loops[q]->loop_var.get()))
        reduce_loops.insert(loc.loops[q]->loop_var.get());
  }
  PrimExpr init_predicate = int_imm(1, DataType::Bool());
  for (const PrimExpr& c : conjuncts(realize->predicate)) {
    if (!sched::uses_any(c, reduce_loops) && !is_const_int(c, 1)) {
      init_predicate =
          is_const_int(init_predicate, 1) ? c : logical_and(init_predicate, c);
    }
  }
  need(init_predicate);
  std::vector<Ref<Var>> copies;
  for (size_t q = p; q < loc.loops.size(); ++q) {
    const For* f = loc.loops[q];
    if (!needed.count(f->loop_var.get())) continue;
    copies.push_back(var(f->loop_var->name + "_init", f->loop_var->dtype));
    vmap[f->loop_var.get()] = copies.back();
  }
  auto subst = [&](const Var* v) -> PrimExpr {
    auto it = vmap.find(v);
    return it == vmap.end() ? PrimExpr() : it->second;
  };
  std::unordered_set<const Var*> reduce_vars;
  for (const auto& iv : b->iter_vars)
    if (iv->type != IterVarType::kSpatial) reduce_vars.insert(iv->var.get());
  struct UsesReduce : StmtExprVisitor {
    const std::unordered_set<const Var*>* vars;
    bool found = false;
    using StmtExprVisitor::visit_;
    void visit_(const Var* v) override { found |= vars->count(v) != 0; }
  } uses_reduce;
  uses_reduce.vars = &reduce_vars;
  uses_reduce.visit_stmt(b->init);
  RX_CHECK(!uses_reduce.found) << kPrim << ": the init of block " << b->name
                               << " uses a reduce iteration variable";

  std::string name = sched::fresh_block_name(func_->body, b->name + "_init");
  auto init_block = sched::with_inferred_regions(
      make_ref<Block>(name, iters, std::vector<BufferRegion>{}, std::vector<BufferRegion>{},
                      substitute(b->init, subst)));
  std::vector<PrimExpr> values;
  for (const auto& v : spatial_values) values.push_back(substitute(v, subst));
  Stmt init_nest =
      make_ref<BlockRealize>(values, substitute(init_predicate, subst), init_block);
  size_t c = copies.size();
  for (size_t q = loc.loops.size(); q-- > p;) {
    const For* f = loc.loops[q];
    if (!needed.count(f->loop_var.get())) continue;
    init_nest = make_ref<For>(copies[--c], f->min, f->extent, f->kind, init_nest, f->thread_tag,
                              f->annotations);
  }

  auto update = sched::with_block_body(b, b->body, Stmt());
  Stmt loop_stmt =
      sched::replace_stmt(Stmt(loc.loops[p]), realize,
                          make_ref<BlockRealize>(realize->iter_values, realize->predicate, update));
  func_ = with_body(
      func_, sched::replace_stmt(func_->body, loc.loops[p], seq_stmt({init_nest, loop_stmt})));
  return BlockRV{name};
}

}  // namespace relax::tir
