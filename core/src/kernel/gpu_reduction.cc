// Cross-thread reduction (lower_cross_thread_reduction, kernel/gpu_lower.h).
//
// Expects block form (before tir::lower), as the GPU rules leave it: a reduction block whose
// reduce iteration values use a loop L bound to threadIdx.*, under a chain of loops that is
// L's body or one statement of it. That statement becomes
//     partial[0] = identity                          (a "local" buffer per thread)
//     <the loops below L, the block now accumulating: partial[0] = combine(partial[0], v)>
//     red[g, L] = partial[0]; sync                  (red: "shared", allocated around the
//                                                    outermost threadIdx loop of the block)
//     if L < E - P: red[g, L] = combine(red[g, L], red[g, L + P]); sync   (when E is not P)
//     for s = P/2 .. 1: if L < s: red[g, L] = combine(red[g, L], red[g, L + s]); sync
//     if L == 0 and <the spatial part of the predicate>: out[...] = [combine(c, )] red[g, 0]
//     sync
// where E is L's extent, P the largest power of two <= E, g the flattened index of the other
// threadIdx loops around the block and c the init's value. Threads whose iterations the
// block's predicate excludes keep the identity. Guarantees the same values as the block (up to
// the reassociation of the reducer).
#include <cmath>
#include <limits>
#include <unordered_map>

#include "relax/ir/structural_equal.h"
#include "relax/kernel/gpu_lower.h"
#include "relax/support/diagnostic.h"
#include "relax/tir/intrin.h"
#include "schedule_internal.h"

namespace relax::tir {

namespace {

enum class Reducer { kSum, kProduct, kMax, kMin };

PrimExpr combine(Reducer r, PrimExpr a, PrimExpr b) {
  switch (r) {
    case Reducer::kSum:
      return std::move(a) + std::move(b);
    case Reducer::kProduct:
      return std::move(a) * std::move(b);
    case Reducer::kMax:
      return max(std::move(a), std::move(b));
    case Reducer::kMin:
      return min(std::move(a), std::move(b));
  }
  RX_IFAIL() << "unknown reducer";
}

PrimExpr identity(Reducer r, DataType t) {
  bool f = t.is_float();
  switch (r) {
    case Reducer::kSum:
      return f ? float_imm(0, t) : int_imm(0, t);
    case Reducer::kProduct:
      return f ? float_imm(1, t) : int_imm(1, t);
    case Reducer::kMax:
      if (f) return float_imm(-std::numeric_limits<double>::infinity(), t);
      return int_imm(t.is_uint() ? 0 : -(int64_t(1) << (t.bits - 1)), t);
    case Reducer::kMin:
      if (f) return float_imm(std::numeric_limits<double>::infinity(), t);
      return int_imm(t.is_uint() && t.bits == 64 ? -1
                                                 : (t.is_uint() ? (int64_t(1) << t.bits) - 1
                                                                : (int64_t(1) << (t.bits - 1)) - 1),
                     t);
  }
  RX_IFAIL() << "unknown reducer";
}

bool expr_equal(const PrimExpr& a, const PrimExpr& b) { return structural_equal(a, b, false); }

void split_conjuncts(const PrimExpr& e, std::vector<PrimExpr>* out) {
  if (auto* a = e.as<And>()) {
    split_conjuncts(a->a, out);
    split_conjuncts(a->b, out);
  } else {
    out->push_back(e);
  }
}

bool same_indices(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!expr_equal(a[i], b[i])) return false;
  return true;
}

/// A recognised reduction: out[idx] = c; out[idx] = combine(out[idx], value).
struct ReductionForm {
  Reducer reducer;
  Ref<Buffer> out;
  std::vector<PrimExpr> indices;
  PrimExpr init_value, value;
};

ReductionForm recognise(const Block& b) {
  auto fail = [&](const std::string& why) {
    RX_THROW() << "lower_cross_thread_reduction: block " << b.name << ": " << why
               << "; expected init `out[...] = c` and update `out[...] = out[...] op v` with op "
                  "one of +, *, max, min";
  };
  auto* init = b.init.as<BufferStore>();
  auto* upd = b.body.as<BufferStore>();
  if (!init || !upd) fail("init or body is not a single store");
  if (!init->buffer.same_as(upd->buffer) || !same_indices(init->indices, upd->indices))
    fail("init and update store to different elements");
  ReductionForm r{Reducer::kSum, upd->buffer, upd->indices, init->value, {}};
  auto is_self = [&](const PrimExpr& e) {
    auto* l = e.as<BufferLoad>();
    return l && l->buffer.same_as(upd->buffer) && same_indices(l->indices, upd->indices);
  };
  const PrimExpr& v = upd->value;
  const BinaryOp* op = nullptr;
  switch (PrimExprKind(v->kind())) {
    case PrimExprKind::kAdd:
      r.reducer = Reducer::kSum, op = v.as<Add>();
      break;
    case PrimExprKind::kMul:
      r.reducer = Reducer::kProduct, op = v.as<Mul>();
      break;
    case PrimExprKind::kMax:
      r.reducer = Reducer::kMax, op = v.as<Max>();
      break;
    case PrimExprKind::kMin:
      r.reducer = Reducer::kMin, op = v.as<Min>();
      break;
    default:
      fail("the update " + to_string(v) + " is not a recognised reducer");
  }
  if (is_self(op->a))
    r.value = op->b;
  else if (is_self(op->b))
    r.value = op->a;
  else
    fail("the update " + to_string(v) + " does not combine the output with a value");
  bool reads_out = false;
  struct Finder : ExprVisitor {
    const Buffer* out;
    bool* found;
    using ExprVisitor::visit_;
    void visit_(const BufferLoad* l) override {
      *found |= l->buffer.get() == out;
      ExprVisitor::visit_(l);
    }
  } finder;
  finder.out = upd->buffer.get();
  finder.found = &reads_out;
  finder.visit_expr(r.value);
  if (reads_out) fail("the reduced value reads the output");
  return r;
}

bool is_thread_loop(const For* f) {
  return f->kind == ForKind::kThreadBinding && f->thread_tag.rfind("threadIdx.", 0) == 0;
}

/// What the rewrite needs for one reduction block.
struct Site {
  const BlockRealize* realize;
  const For* bound;                // L
  const For* outer;                // the outermost threadIdx loop around the block
  std::vector<const For*> others;  // threadIdx loops around the block other than L, outer first
  Ref<Buffer> red;
  const StmtNode* chain_root = nullptr;  // the statement in L's body holding the block
};

class SiteFinder : public StmtVisitor {
 public:
  std::vector<Site> sites;
  using StmtVisitor::visit_;
  void visit_(const For* op) override {
    loops_.push_back(op);
    StmtVisitor::visit_(op);
    loops_.pop_back();
  }
  void visit_(const BlockRealize* op) override {
    const Block& b = *op->block;
    if (b.init.defined()) {
      const For* bound = nullptr;
      for (const For* f : loops_) {
        if (!is_thread_loop(f)) continue;
        for (size_t i = 0; i < b.iter_vars.size(); ++i)
          if (b.iter_vars[i]->type != IterVarType::kSpatial &&
              uses_var(op->iter_values[i], f->loop_var.get())) {
            RX_CHECK(!bound || bound == f)
                << "lower_cross_thread_reduction: block " << b.name
                << " reduces over two thread-bound loops (" << bound->loop_var->name << " and "
                << f->loop_var->name << "); bind one reduce loop to threadIdx";
            bound = f;
          }
      }
      if (bound) sites.push_back(make_site(op, bound));
    }
    StmtVisitor::visit_(op);
  }

 private:
  Site make_site(const BlockRealize* op, const For* bound) {
    const Block& b = *op->block;
    auto fail = [&](const std::string& why) {
      RX_THROW() << "lower_cross_thread_reduction: block " << b.name << " (reduce loop "
                 << bound->loop_var->name << " bound to " << bound->thread_tag << "): " << why;
    };
    Site s{op, bound, nullptr, {}, {}, nullptr};
    size_t at = 0;
    while (loops_[at] != bound) ++at;
    for (size_t q = 0; q < loops_.size(); ++q) {
      if (!is_thread_loop(loops_[q])) continue;
      if (!s.outer) s.outer = loops_[q];
      if (q > at) fail("the threadIdx loop " + loops_[q]->loop_var->name + " is inside it");
      if (!as_const_int(loops_[q]->extent))
        fail("the threadIdx loop " + loops_[q]->loop_var->name + " has a non-constant extent");
      if (loops_[q] != bound) s.others.push_back(loops_[q]);
    }
    // The block's chain of loops is L's body or one statement of it; nothing else is in the
    // chain.
    s.chain_root = at + 1 < loops_.size() ? static_cast<const StmtNode*>(loops_[at + 1])
                                          : static_cast<const StmtNode*>(op);
    bool found = bound->body.get() == s.chain_root;
    if (auto* seq = bound->body.as<SeqStmt>())
      for (const auto& c : seq->seq) found |= c.get() == s.chain_root;
    if (!found) fail("the block's loops are not directly inside it");
    for (size_t q = at + 1; q + 1 < loops_.size(); ++q)
      if (loops_[q]->body.get() != loops_[q + 1])
        fail("statements other than the block's loops are inside loop " +
             loops_[q]->loop_var->name);
    if (at + 1 < loops_.size() && loops_.back()->body.get() != op)
      fail("statements other than the block are inside loop " + loops_.back()->loop_var->name);
    for (size_t i = 0; i < b.iter_vars.size(); ++i) {
      if (b.iter_vars[i]->type != IterVarType::kSpatial) continue;
      for (size_t q = at; q < loops_.size(); ++q)
        if (uses_var(op->iter_values[i], loops_[q]->loop_var.get()))
          fail("the spatial iteration variable " + b.iter_vars[i]->var->name + " uses loop " +
               loops_[q]->loop_var->name);
    }
    ReductionForm form = recognise(b);
    int64_t groups = 1;
    for (const For* f : s.others) groups *= *as_const_int(f->extent);
    s.red =
        decl_buffer({int_imm(groups), bound->extent}, form.out->dtype, "red_" + b.name, "shared");
    return s;
  }

  std::vector<const For*> loops_;
};

Stmt sync() { return make_ref<Evaluate>(storage_sync()); }

/// What replaces the site's chain_root in L's body.
Stmt rewrite_bound(const Site& s, const Stmt& inner_chain_body) {
  const Block& b = *s.realize->block;
  ReductionForm form = recognise(b);
  DataType t = form.out->dtype;
  Ref<Buffer> partial = decl_buffer({int_imm(1)}, t, "partial_" + b.name, "local");
  // The block now accumulates into partial.
  Stmt acc_body = buffer_store(
      partial, combine(form.reducer, buffer_load(partial, {int_imm(0)}), form.value), {int_imm(0)});
  Ref<Block> nb = sched::with_inferred_regions(
      make_ref<Block>(b.name, b.iter_vars, std::vector<BufferRegion>{}, std::vector<BufferRegion>{},
                      acc_body, Stmt(), b.alloc_buffers, b.match_buffers, b.annotations));
  Stmt new_realize = make_ref<BlockRealize>(s.realize->iter_values, s.realize->predicate, nb);
  Stmt chain = sched::replace_stmt(inner_chain_body, s.realize, new_realize);

  const Ref<Var>& L = s.bound->loop_var;
  DataType it = L->dtype;
  int64_t E = *as_const_int(s.bound->extent);
  PrimExpr g = int_imm(0, it);
  for (const For* f : s.others) g = g * int_imm(*as_const_int(f->extent), it) + f->loop_var;
  auto red = [&](PrimExpr lane) { return buffer_load(s.red, {g, std::move(lane)}); };
  auto step = [&](int64_t active, int64_t offset) {
    return seq_stmt(
        {make_ref<IfThenElse>(
             lt(L, int_imm(active, it)),
             buffer_store(s.red, combine(form.reducer, red(L), red(L + int_imm(offset, it))),
                          {g, L})),
         sync()});
  };
  std::vector<Stmt> seq = {buffer_store(partial, identity(form.reducer, t), {int_imm(0)}), chain,
                           buffer_store(s.red, buffer_load(partial, {int_imm(0)}), {g, L}), sync()};
  int64_t P = 1;
  while (P * 2 <= E) P *= 2;
  if (P < E) seq.push_back(step(E - P, P));
  for (int64_t k = P / 2; k >= 1; k /= 2) seq.push_back(step(k, k));
  // The output element and the spatial part of the predicate, over the surrounding loops.
  std::unordered_map<const Var*, PrimExpr> vmap;
  for (size_t i = 0; i < b.iter_vars.size(); ++i)
    vmap[b.iter_vars[i]->var.get()] = s.realize->iter_values[i];
  auto subst = [&](const Var* v) -> PrimExpr {
    auto f = vmap.find(v);
    return f == vmap.end() ? PrimExpr() : f->second;
  };
  std::vector<PrimExpr> out_idx;
  for (const auto& i : form.indices) out_idx.push_back(substitute(i, subst));
  PrimExpr result = red(int_imm(0, it));
  if (!expr_equal(form.init_value, identity(form.reducer, t)))
    result = combine(form.reducer, substitute(form.init_value, subst), result);
  PrimExpr guard = eq(L, int_imm(0, it));
  std::vector<PrimExpr> conj;
  split_conjuncts(s.realize->predicate, &conj);
  for (const auto& c : conj) {
    bool reduce_side = uses_var(c, L.get());
    post_order_visit(s.bound->body, [&](const Stmt& x) {
      if (auto* f = x.as<For>()) reduce_side |= uses_var(c, f->loop_var.get());
    });
    if (!reduce_side && !is_const_int(c, 1)) guard = logical_and(guard, c);
  }
  seq.push_back(make_ref<IfThenElse>(guard, buffer_store(form.out, result, out_idx)));
  seq.push_back(sync());
  return make_ref<Allocate>(partial->data, t, std::vector<PrimExpr>{int_imm(1)}, "local",
                            seq_stmt(std::move(seq)));
}

class Rewriter : public StmtMutator {
 public:
  explicit Rewriter(const std::vector<Site>& sites) : sites_(sites) {}
  using StmtMutator::visit_;
  Stmt visit_(const For* op) override {
    Stmt r;
    Stmt body = op->body;
    bool done = false;
    for (const auto& s : sites_)
      if (s.bound == op) {
        body = sched::replace_stmt(body, s.chain_root, rewrite_bound(s, Stmt(s.chain_root)));
        done = true;
      }
    if (done)
      r = make_ref<For>(op->loop_var, op->min, op->extent, op->kind, body, op->thread_tag,
                        op->annotations);
    else
      r = StmtMutator::visit_(op);
    for (const auto& s : sites_)
      if (s.outer == op)
        r = make_ref<Allocate>(s.red->data, s.red->dtype, s.red->shape, "shared", r);
    return r;
  }

 private:
  const std::vector<Site>& sites_;
};

}  // namespace

Ref<PrimFunc> lower_cross_thread_reduction(const Ref<PrimFunc>& func) {
  SiteFinder finder;
  finder.visit_stmt(func->body);
  if (finder.sites.empty()) return func;
  Rewriter rewriter(finder.sites);
  return with_body(func, rewriter.visit_stmt(func->body));
}

}  // namespace relax::tir
