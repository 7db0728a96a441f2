// Reductions: rfactor (kernel/schedule.h).
//
// Factors a reduction over one of its reduce loops: the block accumulates partial results
// into a buffer with an extra dimension indexed by that loop (the rf block), and a
// write-back block reduces that buffer into the original output. Expects a reduction block
// whose init is one store and whose update combines the output element with an expression by
// +, *, max or min (a commutative, associative reducer with an identity); guarantees the same
// output up to the reassociation of the reducer (exact for max and min and integers).
#include <cmath>
#include <limits>
#include <unordered_map>

#include "relax/ir/structural_equal.h"
#include "relax/support/diagnostic.h"
#include "schedule_internal.h"

namespace relax::tir {

namespace {

enum class ReducerKind : uint8_t { kSum, kProduct, kMax, kMin };

/// A reduction update `out[indices] = out[indices] op rhs`.
struct Reducer {
  ReducerKind kind;
  Ref<Buffer> out;
  std::vector<PrimExpr> indices;
  PrimExpr rhs;

  PrimExpr combine(const PrimExpr& a, const PrimExpr& b) const {
    switch (kind) {
      case ReducerKind::kSum:
        return a + b;
      case ReducerKind::kProduct:
        return a * b;
      case ReducerKind::kMax:
        return max(a, b);
      case ReducerKind::kMin:
        return min(a, b);
    }
    RX_IFAIL() << "unknown reducer";
  }

  /// The reducer's identity in `dt`: 0, 1, the lowest or the highest finite value.
  PrimExpr identity(DataType dt) const {
    double lowest = 0, highest = 0;
    if (dt.is_float()) {
      highest = dt.code == DataType::kBFloat ? 3.3895313892515355e38
                : dt.bits == 16              ? 65504.0
                : dt.bits == 32              ? double(std::numeric_limits<float>::max())
                                             : std::numeric_limits<double>::max();
      lowest = -highest;
    } else if (dt.is_uint()) {
      highest = std::ldexp(1.0, dt.bits) - 1;
    } else {
      highest = std::ldexp(1.0, dt.bits - 1) - 1;
      lowest = -std::ldexp(1.0, dt.bits - 1);
    }
    double v = kind == ReducerKind::kSum       ? 0
               : kind == ReducerKind::kProduct ? 1
               : kind == ReducerKind::kMax     ? lowest
                                               : highest;
    return dt.is_float() ? float_imm(v, dt) : int_imm(int64_t(v), dt);
  }
};

bool is_load_of(const PrimExpr& e, const Buffer* buf, const std::vector<PrimExpr>& indices) {
  auto* load = e.as<BufferLoad>();
  if (!load || load->buffer.get() != buf || load->indices.size() != indices.size()) return false;
  for (size_t d = 0; d < indices.size(); ++d)
    if (!structural_equal(load->indices[d], indices[d], false)) return false;
  return true;
}

bool reads_buffer(const PrimExpr& e, const Buffer* buf) {
  bool found = false;
  struct V : ExprVisitor {
    const Buffer* buf;
    bool* found;
    using ExprVisitor::visit_;
    void visit_(const BufferLoad* op) override {
      *found |= op->buffer.get() == buf;
      ExprVisitor::visit_(op);
    }
  } v;
  v.buf = buf;
  v.found = &found;
  v.visit_expr(e);
  return found;
}

/// The reducer of block `b`, or an error naming what the block does instead.
Reducer match_reducer(const Block& b, const char* prim) {
  auto* init = b.init.as<BufferStore>();
  RX_CHECK(init) << prim << ": the init of block " << b.name
                 << " is not a single store; rfactor needs `C[...] = init` and an update";
  auto* update = b.body.as<BufferStore>();
  RX_CHECK(update && update->buffer.same_as(init->buffer))
      << prim << ": the body of block " << b.name << " is not a single store to "
      << init->buffer->name;
  const Buffer* out = update->buffer.get();
  RX_CHECK(init->indices.size() == update->indices.size())
      << prim << ": block " << b.name << " stores to " << out->name
      << " at other indices than its init";
  for (size_t d = 0; d < init->indices.size(); ++d)
    RX_CHECK(structural_equal(init->indices[d], update->indices[d], false))
        << prim << ": block " << b.name << " stores to " << out->name
        << " at other indices than its init";
  const PrimExpr& v = update->value;
  std::optional<ReducerKind> kind;
  PrimExpr a, c;
  if (auto* op = v.as<Add>()) kind = ReducerKind::kSum, a = op->a, c = op->b;
  if (auto* op = v.as<Mul>()) kind = ReducerKind::kProduct, a = op->a, c = op->b;
  if (auto* op = v.as<Max>()) kind = ReducerKind::kMax, a = op->a, c = op->b;
  if (auto* op = v.as<Min>()) kind = ReducerKind::kMin, a = op->a, c = op->b;
  PrimExpr rhs;
  if (kind && is_load_of(a, out, update->indices))
    rhs = c;
  else if (kind && is_load_of(c, out, update->indices))
    rhs = a;
  RX_CHECK(rhs.defined() && !reads_buffer(rhs, out))
      << prim << ": the update of block " << b.name << ", " << out->name
      << "[...] = " << to_string(v)
      << ", is not a supported reducer: rfactor supports sum (+), product (*), "
      << "max and min of the output element and an expression";
  return Reducer{*kind, update->buffer, update->indices, rhs};
}

/// The conjuncts of a predicate.
void conjuncts(const PrimExpr& e, std::vector<PrimExpr>* out) {
  if (auto* op = e.as<And>()) {
    conjuncts(op->a, out);
    conjuncts(op->b, out);
  } else if (!is_const_int(e, 1)) {
    out->push_back(e);
  }
}

PrimExpr all_of(const std::vector<PrimExpr>& cs) {
  PrimExpr p;
  for (const auto& c : cs) p = p.defined() ? logical_and(p, c) : c;
  return p.defined() ? p : bool_imm(true);
}

std::vector<PrimExpr> insert_at(std::vector<PrimExpr> v, size_t pos, PrimExpr x) {
  v.insert(v.begin() + std::ptrdiff_t(pos), std::move(x));
  return v;
}

auto lookup(const std::unordered_map<const Var*, PrimExpr>& m) {
  return [&m](const Var* v) -> PrimExpr {
    auto it = m.find(v);
    return it == m.end() ? PrimExpr() : it->second;
  };
}

}  // namespace

BlockRV Schedule::rfactor(const LoopRV& loop, int factor_axis) {
  constexpr const char* kPrim = "rfactor";
  Ref<PrimFunc> func = sched::ensure_root_block(func_);
  const For* rloop = sched::find_loop(func->body, loop, kPrim).loop;
  const std::string& l = loop.var->name;
  auto under = sched::realizes_under(Stmt(rloop));
  RX_CHECK(under.size() == 1) << kPrim << ": loop " << l << " holds " << under.size()
                              << " blocks; it must hold exactly one reduction block";
  sched::BlockLoc loc = sched::find_block(func->body, under[0]->block->name, kPrim);
  const BlockRealize* realize = loc.realize;
  const Ref<Block>& b = realize->block;
  RX_CHECK(b->init.defined()) << kPrim << ": block " << b->name
                              << " has no init; it is not a reduction block";
  Reducer red = match_reducer(*b, kPrim);

  // Which loops bind reduce variables; none of them may bind a spatial one.
  std::unordered_set<const Var*> spatial_loops, reduce_loops;
  for (size_t k = 0; k < b->iter_vars.size(); ++k)
    for (const For* f : loc.loops)
      if (uses_var(realize->iter_values[k], f->loop_var.get()))
        (b->iter_vars[k]->type == IterVarType::kSpatial ? spatial_loops : reduce_loops)
            .insert(f->loop_var.get());
  for (const For* f : loc.loops) {
    bool spatial = spatial_loops.count(f->loop_var.get()) != 0;
    bool reduce = reduce_loops.count(f->loop_var.get()) != 0;
    RX_CHECK(!spatial || !reduce) << kPrim << ": loop " << f->loop_var->name
                                  << " binds both spatial and reduce iteration variables of block "
                                  << b->name;
    RX_CHECK(spatial || reduce) << kPrim << ": loop " << f->loop_var->name
                                << " binds no iteration variable of block " << b->name
                                << "; every loop of the nest must bind one";
  }
  RX_CHECK(!spatial_loops.count(loop.var.get()))
      << kPrim << ": loop " << l << " binds a spatial iteration variable of block " << b->name
      << "; rfactor needs a loop over reduce iteration variables";
  RX_CHECK(reduce_loops.count(loop.var.get()))
      << kPrim << ": loop " << l << " binds no reduce iteration variable of block " << b->name;
  int ndim = int(red.out->ndim());
  int axis = factor_axis < 0 ? factor_axis + ndim + 1 : factor_axis;
  RX_CHECK(axis >= 0 && axis <= ndim)
      << kPrim << ": factor_axis " << factor_axis << " is out of range for the " << ndim
      << "-dimensional buffer " << red.out->name << " (expected " << -ndim - 1 << ".." << ndim
      << ")";
  // The write-back goes right after the outermost loop that holds only this block; the
  // loops above it enclose both blocks, so none of them may drive the reduction.
  size_t top_idx = 0;
  while (sched::realizes_under(Stmt(loc.loops[top_idx])).size() != 1) ++top_idx;
  const For* top = loc.loops[top_idx];
  for (size_t q = 0; q < top_idx; ++q)
    RX_CHECK(!reduce_loops.count(loc.loops[q]->loop_var.get()))
        << kPrim << ": loop " << loc.loops[q]->loop_var->name
        << " binds a reduce iteration variable of block " << b->name
        << " and holds other blocks; the write-back would run at each of its iterations";

  // The rf block: the spatial variables, plus one per reduce loop (spatial for `loop`).
  DataType ldt = rloop->loop_var->dtype;
  DataType sdt = red.out->shape.empty() ? rloop->extent->dtype : red.out->shape[0]->dtype;
  Ref<Buffer> rf = decl_buffer(insert_at(red.out->shape, size_t(axis), cast(sdt, rloop->extent)),
                               red.out->dtype, red.out->name + "_rf", red.out->scope);
  std::vector<Ref<IterVar>> rf_iters;
  std::vector<PrimExpr> rf_values;
  std::unordered_map<const Var*, PrimExpr> loop_to_iter, reduce_to_value;
  for (size_t k = 0; k < b->iter_vars.size(); ++k) {
    if (b->iter_vars[k]->type != IterVarType::kSpatial) continue;
    rf_iters.push_back(b->iter_vars[k]);
    rf_values.push_back(realize->iter_values[k]);
  }
  PrimExpr rf_index;
  for (const For* f : loc.loops) {
    if (!reduce_loops.count(f->loop_var.get())) continue;
    bool is_rf = f == rloop;
    Ref<Var> v = var("v" + f->loop_var->name, f->loop_var->dtype);
    rf_iters.push_back(make_ref<IterVar>(v, Range::from_min_extent(f->min, f->extent),
                                         is_rf ? IterVarType::kSpatial : IterVarType::kReduce));
    rf_values.push_back(f->loop_var);
    loop_to_iter[f->loop_var.get()] = v;
    if (is_rf) rf_index = is_const_int(f->min, 0) ? PrimExpr(v) : v - f->min;
  }
  for (size_t k = 0; k < b->iter_vars.size(); ++k)
    if (b->iter_vars[k]->type != IterVarType::kSpatial)
      reduce_to_value[b->iter_vars[k]->var.get()] =
          substitute(realize->iter_values[k], lookup(loop_to_iter));
  std::vector<PrimExpr> rf_idx = insert_at(red.indices, size_t(axis), cast(ldt, rf_index));
  // Predicate terms over reduce loops guard the update: every rf element still gets its init.
  std::vector<PrimExpr> keep, guard;
  std::vector<PrimExpr> terms;
  conjuncts(realize->predicate, &terms);
  for (const auto& t : terms) (sched::uses_any(t, reduce_loops) ? guard : keep).push_back(t);
  Stmt update = buffer_store(
      rf, red.combine(buffer_load(rf, rf_idx), substitute(red.rhs, lookup(reduce_to_value))),
      rf_idx);
  if (!guard.empty())
    update = make_ref<IfThenElse>(substitute(all_of(guard), lookup(loop_to_iter)), update);
  std::string rf_name = sched::fresh_block_name(func->body, b->name + "_rf");
  auto rf_block = sched::with_inferred_regions(
      make_ref<Block>(rf_name, rf_iters, std::vector<BufferRegion>{}, std::vector<BufferRegion>{},
                      update, buffer_store(rf, red.identity(red.out->dtype), rf_idx)));
  Stmt rf_realize = make_ref<BlockRealize>(rf_values, all_of(keep), rf_block);

  // The write-back block under copies of the spatial loops and `loop`.
  std::unordered_map<const Var*, PrimExpr> wb_map;  // old loop and spatial vars -> copies
  std::vector<const For*> wb_loops;
  for (size_t q = top_idx; q < loc.loops.size(); ++q) {
    const For* f = loc.loops[q];
    if (f != rloop && !spatial_loops.count(f->loop_var.get())) continue;
    wb_loops.push_back(f);
    wb_map[f->loop_var.get()] = var(f->loop_var->name, f->loop_var->dtype);
  }
  std::vector<Ref<IterVar>> wb_iters;
  std::vector<PrimExpr> wb_values;
  for (size_t k = 0; k < b->iter_vars.size(); ++k) {
    const auto& iv = b->iter_vars[k];
    if (iv->type != IterVarType::kSpatial) continue;
    wb_values.push_back(substitute(realize->iter_values[k], lookup(wb_map)));
    Ref<Var> v = var(iv->var->name, iv->var->dtype);
    wb_map[iv->var.get()] = v;
    wb_iters.push_back(make_ref<IterVar>(v, iv->dom, IterVarType::kSpatial));
  }
  Ref<Var> vr = var("v" + l, ldt);
  wb_iters.push_back(make_ref<IterVar>(vr, Range::from_min_extent(rloop->min, rloop->extent),
                                       IterVarType::kReduce));
  wb_values.push_back(wb_map.at(rloop->loop_var.get()));
  std::vector<PrimExpr> out_idx;
  for (const auto& e : red.indices) out_idx.push_back(substitute(e, lookup(wb_map)));
  PrimExpr wb_rf_index = is_const_int(rloop->min, 0) ? PrimExpr(vr) : vr - rloop->min;
  Stmt wb_update =
      buffer_store(red.out,
                   red.combine(buffer_load(red.out, out_idx),
                               buffer_load(rf, insert_at(out_idx, size_t(axis), wb_rf_index))),
                   out_idx);
  auto wb_block = sched::with_inferred_regions(
      make_ref<Block>(b->name, wb_iters, std::vector<BufferRegion>{}, std::vector<BufferRegion>{},
                      wb_update, substitute(b->init, lookup(wb_map))));
  Stmt wb = make_ref<BlockRealize>(wb_values, substitute(all_of(keep), lookup(wb_map)), wb_block);
  for (size_t i = wb_loops.size(); i-- > 0;) {
    const For* f = wb_loops[i];
    wb = make_ref<For>(wb_map.at(f->loop_var.get()).as_ref<Var>(), f->min, f->extent, f->kind, wb,
                       f->thread_tag, f->annotations);
  }

  Stmt new_top = sched::replace_stmt(Stmt(top), realize, rf_realize);
  Ref<PrimFunc> out =
      with_body(func, sched::replace_stmt(func->body, top, seq_stmt({new_top, wb})));
  func_ = sched::add_alloc(out, loc.parent->name, rf);
  return BlockRV{rf_name};
}

}  // namespace relax::tir
