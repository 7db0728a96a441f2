#include "relax/tir/stmt_functor.h"


namespace relax::tir {

// ---- StmtVisitor

void StmtVisitor::visit_region(const BufferRegion& region) {
  visit_buffer(region.buffer);
  for (const auto& r : region.region) {
    visit_expr(r.min);
    visit_expr(r.extent);
  }
}

void StmtVisitor::visit_(const LetStmt* op) {
  visit_expr(op->value);
  visit_stmt(op->body);
}
void StmtVisitor::visit_(const AssertStmt* op) {
  visit_expr(op->condition);
  visit_stmt(op->body);
}
void StmtVisitor::visit_(const For* op) {
  visit_expr(op->min);
  visit_expr(op->extent);
  visit_stmt(op->body);
}
void StmtVisitor::visit_(const BufferStore* op) {
  visit_buffer(op->buffer);
  visit_expr(op->value);
  for (const auto& i : op->indices) visit_expr(i);
}
void StmtVisitor::visit_(const IfThenElse* op) {
  visit_expr(op->condition);
  visit_stmt(op->then_case);
  if (op->else_case.defined()) visit_stmt(op->else_case);
}
void StmtVisitor::visit_(const SeqStmt* op) {
  for (const auto& s : op->seq) visit_stmt(s);
}
void StmtVisitor::visit_(const Allocate* op) {
  for (const auto& e : op->extents) visit_expr(e);
  visit_stmt(op->body);
}
void StmtVisitor::visit_(const Evaluate* op) { visit_expr(op->value); }
void StmtVisitor::visit_(const Block* op) {
  for (const auto& iv : op->iter_vars) {
    visit_expr(iv->dom.min);
    visit_expr(iv->dom.extent);
  }
  for (const auto& r : op->reads) visit_region(r);
  for (const auto& r : op->writes) visit_region(r);
  for (const auto& b : op->alloc_buffers) visit_buffer(b);
  for (const auto& m : op->match_buffers) {
    visit_buffer(m.buffer);
    visit_region(m.source);
  }
  if (op->init.defined()) visit_stmt(op->init);
  visit_stmt(op->body);
}
void StmtVisitor::visit_(const BlockRealize* op) {
  for (const auto& v : op->iter_values) visit_expr(v);
  visit_expr(op->predicate);
  visit_stmt(op->block);
}

// ---- StmtMutator

bool StmtMutator::mutate_exprs(const std::vector<PrimExpr>& in, std::vector<PrimExpr>* out) {
  bool changed = false;
  out->clear();
  out->reserve(in.size());
  for (const auto& e : in) {
    out->push_back(visit_expr(e));
    changed |= !out->back().same_as(e);
  }
  return changed;
}

BufferRegion StmtMutator::mutate_region(const BufferRegion& region, bool* changed) {
  BufferRegion out{visit_buffer(region.buffer), {}};
  *changed |= !out.buffer.same_as(region.buffer);
  out.region.reserve(region.region.size());
  for (const auto& r : region.region) {
    Range nr{visit_expr(r.min), visit_expr(r.extent)};
    *changed |= !nr.min.same_as(r.min) || !nr.extent.same_as(r.extent);
    out.region.push_back(std::move(nr));
  }
  return out;
}

bool StmtMutator::mutate_regions(const std::vector<BufferRegion>& in,
                                 std::vector<BufferRegion>* out) {
  bool changed = false;
  out->clear();
  out->reserve(in.size());
  for (const auto& r : in) out->push_back(mutate_region(r, &changed));
  return changed;
}

Stmt StmtMutator::visit_(const LetStmt* op) {
  PrimExpr value = visit_expr(op->value);
  Stmt body = visit_stmt(op->body);
  if (value.same_as(op->value) && body.same_as(op->body)) return Stmt(op);
  return make_ref<LetStmt>(op->var, std::move(value), std::move(body));
}

Stmt StmtMutator::visit_(const AssertStmt* op) {
  PrimExpr cond = visit_expr(op->condition);
  Stmt body = visit_stmt(op->body);
  if (cond.same_as(op->condition) && body.same_as(op->body)) return Stmt(op);
  return make_ref<AssertStmt>(std::move(cond), op->message, std::move(body));
}

Stmt StmtMutator::visit_(const For* op) {
  PrimExpr min = visit_expr(op->min);
  PrimExpr extent = visit_expr(op->extent);
  Stmt body = visit_stmt(op->body);
  if (min.same_as(op->min) && extent.same_as(op->extent) && body.same_as(op->body)) return Stmt(op);
  return make_ref<For>(op->loop_var, std::move(min), std::move(extent), op->kind, std::move(body),
                       op->thread_tag, op->annotations);
}

Stmt StmtMutator::visit_(const BufferStore* op) {
  Ref<Buffer> buffer = visit_buffer(op->buffer);
  PrimExpr value = visit_expr(op->value);
  std::vector<PrimExpr> indices;
  bool indices_changed = mutate_exprs(op->indices, &indices);
  if (!indices_changed && buffer.same_as(op->buffer) && value.same_as(op->value)) return Stmt(op);
  if (!indices_changed) indices = op->indices;
  return make_ref<BufferStore>(std::move(buffer), std::move(value), std::move(indices));
}

Stmt StmtMutator::visit_(const IfThenElse* op) {
  PrimExpr cond = visit_expr(op->condition);
  Stmt then_case = visit_stmt(op->then_case);
  Stmt else_case = visit_opt(op->else_case);
  if (cond.same_as(op->condition) && then_case.same_as(op->then_case) &&
      else_case.same_as(op->else_case))
    return Stmt(op);
  return make_ref<IfThenElse>(std::move(cond), std::move(then_case), std::move(else_case));
}

Stmt StmtMutator::visit_(const SeqStmt* op) {
  std::vector<Stmt> seq;
  seq.reserve(op->seq.size());
  bool changed = false;
  for (const auto& s : op->seq) {
    seq.push_back(visit_stmt(s));
    changed |= !seq.back().same_as(s);
  }
  if (!changed) return Stmt(op);
  return seq_stmt(std::move(seq));
}

Stmt StmtMutator::visit_(const Allocate* op) {
  std::vector<PrimExpr> extents;
  bool extents_changed = mutate_exprs(op->extents, &extents);
  Stmt body = visit_stmt(op->body);
  if (!extents_changed && body.same_as(op->body)) return Stmt(op);
  if (!extents_changed) extents = op->extents;
  return make_ref<Allocate>(op->buffer_var, op->dtype, std::move(extents), op->scope,
                            std::move(body), op->annotations);
}

Stmt StmtMutator::visit_(const Evaluate* op) {
  PrimExpr value = visit_expr(op->value);
  if (value.same_as(op->value)) return Stmt(op);
  return make_ref<Evaluate>(std::move(value));
}

Stmt StmtMutator::visit_(const Block* op) {
  bool changed = false;
  std::vector<Ref<IterVar>> iter_vars;
  iter_vars.reserve(op->iter_vars.size());
  for (const auto& iv : op->iter_vars) {
    PrimExpr min = visit_expr(iv->dom.min), extent = visit_expr(iv->dom.extent);
    if (min.same_as(iv->dom.min) && extent.same_as(iv->dom.extent)) {
      iter_vars.push_back(iv);
    } else {
      iter_vars.push_back(
          make_ref<IterVar>(iv->var, Range{std::move(min), std::move(extent)}, iv->type));
      changed = true;
    }
  }
  std::vector<BufferRegion> reads, writes;
  changed |= mutate_regions(op->reads, &reads);
  changed |= mutate_regions(op->writes, &writes);
  std::vector<Ref<Buffer>> alloc_buffers;
  alloc_buffers.reserve(op->alloc_buffers.size());
  for (const auto& b : op->alloc_buffers) {
    alloc_buffers.push_back(visit_buffer(b));
    changed |= !alloc_buffers.back().same_as(b);
  }
  std::vector<MatchBufferRegion> match_buffers;
  match_buffers.reserve(op->match_buffers.size());
  for (const auto& m : op->match_buffers) {
    MatchBufferRegion nm{visit_buffer(m.buffer), mutate_region(m.source, &changed)};
    changed |= !nm.buffer.same_as(m.buffer);
    match_buffers.push_back(std::move(nm));
  }
  Stmt init = visit_opt(op->init);
  Stmt body = visit_stmt(op->body);
  changed |= !init.same_as(op->init) || !body.same_as(op->body);
  if (!changed) return Stmt(op);
  return make_ref<Block>(op->name, std::move(iter_vars), std::move(reads), std::move(writes),
                         std::move(body), std::move(init), std::move(alloc_buffers),
                         std::move(match_buffers), op->annotations);
}

Stmt StmtMutator::visit_(const BlockRealize* op) {
  std::vector<PrimExpr> values;
  bool values_changed = mutate_exprs(op->iter_values, &values);
  PrimExpr predicate = visit_expr(op->predicate);
  Stmt block = visit_stmt(op->block);
  if (!values_changed && predicate.same_as(op->predicate) && block.same_as(op->block))
    return Stmt(op);
  Ref<Block> new_block = block.as_ref<Block>();
  RX_ICHECK(new_block.defined()) << "mutating block " << op->block->name << " gave a "
                                 << (block.defined() ? stmt_kind_name(block->kind())
                                                     : "null statement")
                                 << "; a BlockRealize needs a Block";
  if (!values_changed) values = op->iter_values;
  return make_ref<BlockRealize>(std::move(values), std::move(predicate), std::move(new_block));
}

// ---- StmtExprMutator

PrimExpr StmtExprMutator::visit_(const BufferLoad* op) {
  Ref<Buffer> buffer = visit_buffer(op->buffer);
  std::vector<PrimExpr> indices;
  bool indices_changed = mutate_all(op->indices, &indices);
  if (!indices_changed && buffer.same_as(op->buffer)) return PrimExpr(op);
  if (!indices_changed) indices = op->indices;
  return buffer_load(buffer, std::move(indices));
}

namespace {

std::function<PrimExpr(const Var*)> map_lookup(const std::unordered_map<Ref<Var>, PrimExpr>& vmap) {
  return [&vmap](const Var* v) -> PrimExpr {
    auto it = vmap.find(Ref<Var>(v));
    return it == vmap.end() ? PrimExpr() : it->second;
  };
}

}  // namespace

Stmt substitute(const Stmt& s, const std::function<PrimExpr(const Var*)>& f) {
  VarSubstituter sub(f);
  return sub.visit_stmt(s);
}

Stmt substitute(const Stmt& s, const std::unordered_map<Ref<Var>, PrimExpr>& vmap) {
  return substitute(s, map_lookup(vmap));
}

std::vector<PrimExpr> conjuncts(const PrimExpr& e) {
  std::vector<PrimExpr> out, todo{e};
  while (!todo.empty()) {
    PrimExpr c = todo.back();
    todo.pop_back();
    if (auto* a = c.as<And>(); a && c->dtype.lanes == 1) {
      todo.push_back(a->b);
      todo.push_back(a->a);
    } else {
      out.push_back(c);
    }
  }
  return out;
}

bool uses_var(const PrimExpr& e, const Var* v) {
  struct Finder : ExprVisitor {
    const Var* v;
    bool found = false;
    using ExprVisitor::visit_;
    void visit_(const Var* op) override { found |= op == v; }
  } finder;
  finder.v = v;
  finder.visit_expr(e);
  return finder.found;
}

bool stmt_uses_var(const Stmt& s, const Var* v) {
  struct Finder : StmtExprVisitor {
    const Var* v;
    bool found = false;
    using StmtExprVisitor::visit_;
    void visit_(const Var* op) override { found |= op == v; }
    void visit_buffer(const Ref<Buffer>& b) override {
      for (const PrimExpr& d : b->shape) visit_expr(d);
      for (const PrimExpr& d : b->strides) visit_expr(d);
    }
  } finder;
  finder.v = v;
  finder.visit_stmt(s);
  return finder.found;
}

bool unit_stride_in(const PrimExpr& e, const Var* v) {
  if (e.get() == v) return true;
  auto* add = e.as<Add>();
  if (!add) return false;
  bool a = uses_var(add->a, v), b = uses_var(add->b, v);
  return a != b && unit_stride_in(a ? add->a : add->b, v);
}

void post_order_visit(const Stmt& s, const std::function<void(const Stmt&)>& f) {
  struct Walker : StmtVisitor {
    const std::function<void(const Stmt&)>& fn;
    explicit Walker(const std::function<void(const Stmt&)>& fn) : fn(fn) {}
    void visit_stmt(const Stmt& s) override {
      StmtVisitor::visit_stmt(s);
      fn(s);
    }
  } walker(f);
  walker.visit_stmt(s);
}

}  // namespace relax::tir
