// Barrier insertion (insert_barriers, kernel/gpu_lower.h).
//
// Expects a lowered function (no blocks); works inside each outermost thread-bound loop nest,
// where every thread of a block runs every statement (threadIdx loops bind, they do not
// iterate). Walks the statements in execution order tracking the shared buffers written and
// read since the last barrier; a statement that reads a buffer written since then (RAW) or
// writes one read since then (WAR) gets `T.tvm_storage_sync("shared")` before it. A serial
// loop whose next iteration would conflict with its current one gets a barrier at the end of
// its body. After a conditional, the state is the union of its branches' states; after a loop,
// the union of the states before and after its body (it may not run). A barrier is never put
// where threads diverge — under a condition, or in a loop whose bounds depend on threadIdx
// variables, or in a threadIdx loop shorter than the block — such a need is an error naming the
// kernel and the buffer. Guarantees: every RAW/WAR pair of shared accesses by different
// statements has a barrier between them on every path.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "relax/kernel/gpu_lower.h"
#include "relax/support/diagnostic.h"
#include "relax/tir/intrin.h"

namespace relax::tir {

namespace {

using VarSet = std::unordered_set<const Var*>;

struct State {
  VarSet written, read;
  void clear() { written.clear(), read.clear(); }
  void merge(const State& o) {
    written.insert(o.written.begin(), o.written.end());
    read.insert(o.read.begin(), o.read.end());
  }
};

/// Shared buffers one statement (without its sub-statements) or expression touches.
struct Accesses : StmtExprVisitor {
  const VarSet* shared;
  VarSet reads, writes;
  using StmtExprVisitor::visit_;
  void visit_(const BufferLoad* op) override {
    if (shared->count(op->buffer->data.get())) reads.insert(op->buffer->data.get());
    StmtExprVisitor::visit_(op);
  }
};

bool uses_any(const PrimExpr& e, const VarSet& vars) {
  for (const Var* v : vars)
    if (uses_var(e, v)) return true;
  return false;
}

class BarrierInserter {
 public:
  BarrierInserter(std::string kernel) : kernel_(std::move(kernel)) {}

  /// Rewrites `s` given the state before it; leaves the state after it in `st`. With `dry`,
  /// only reports (through `needed_`) whether a barrier would be inserted.
  Stmt visit(const Stmt& s, State& st, bool divergent) {
    if (auto* op = s.as<SeqStmt>()) {
      std::vector<Stmt> seq;
      for (const auto& c : op->seq) seq.push_back(visit(c, st, divergent));
      return seq_stmt(std::move(seq));
    }
    if (auto* op = s.as<Evaluate>(); op && is_storage_sync(op->value)) {
      st.clear();
      return s;
    }
    if (auto* op = s.as<Allocate>()) {
      if (op->scope == "shared") shared_.insert(op->buffer_var.get());
      Stmt body = visit(op->body, st, divergent);
      return body.same_as(op->body) ? s
                                    : make_ref<Allocate>(op->buffer_var, op->dtype, op->extents,
                                                         op->scope, body, op->annotations);
    }
    if (auto* op = s.as<LetStmt>()) {
      Stmt pre = leaf_check(op->value, {}, st, divergent, s);
      if (uses_any(op->value, thread_vars_)) thread_vars_.insert(op->var.get());
      Stmt body = visit(op->body, st, divergent);
      return prepend(pre, body.same_as(op->body) ? s : make_ref<LetStmt>(op->var, op->value, body));
    }
    if (auto* op = s.as<AssertStmt>()) {
      Stmt body = visit(op->body, st, divergent);
      return body.same_as(op->body) ? s : make_ref<AssertStmt>(op->condition, op->message, body);
    }
    if (auto* op = s.as<IfThenElse>()) {
      Stmt pre = hoist(s, st, divergent);
      leaf_check(op->condition, {}, st, divergent, s);
      bool div = divergent || uses_any(op->condition, thread_vars_);
      State se = st;
      Stmt t = visit(op->then_case, st, div);
      Stmt e = op->else_case.defined() ? visit(op->else_case, se, div) : op->else_case;
      st.merge(se);
      Stmt r = t.same_as(op->then_case) && e.same_as(op->else_case)
                   ? s
                   : make_ref<IfThenElse>(op->condition, t, e);
      return prepend(pre, r);
    }
    if (auto* op = s.as<For>()) return visit_for(op, s, st, divergent);
    // A leaf: BufferStore, Evaluate.
    VarSet writes;
    if (auto* store = s.as<BufferStore>(); store && shared_.count(store->buffer->data.get()))
      writes.insert(store->buffer->data.get());
    Stmt pre = leaf_check(PrimExpr(), s, st, divergent, s, writes);
    return prepend(pre, s);
  }

  bool needed_ = false;  // dry runs: a barrier would be inserted
  bool dry_ = false;

 private:
  Stmt visit_for(const For* op, const Stmt& s, State& st, bool divergent) {
    Stmt pre = hoist(s, st, divergent);
    Stmt pre2 = leaf_check(op->extent, {}, st, divergent, s);
    leaf_check(op->min, {}, st, divergent, s);
    bool div = divergent || uses_any(op->min, thread_vars_) || uses_any(op->extent, thread_vars_);
    bool is_thread =
        op->kind == ForKind::kThreadBinding && op->thread_tag.rfind("threadIdx.", 0) == 0;
    bool is_block = op->kind == ForKind::kThreadBinding && !is_thread;
    if (is_thread) {
      thread_vars_.insert(op->loop_var.get());
      auto it = block_extent_.find(op->thread_tag);
      div |= it == block_extent_.end() || !is_const_int(op->extent, it->second);
    }
    State before = st;
    Stmt body = visit(op->body, st, div);
    if (!is_thread && !is_block) {
      // The next iteration starts in the state this one ends in.
      State again = st;
      bool saved_dry = dry_, saved_needed = needed_;
      dry_ = true;
      needed_ = false;
      visit(body, again, div);
      bool carried = needed_;
      dry_ = saved_dry;
      needed_ = saved_needed;
      if (carried) {
        need_barrier(div, "the next iteration of loop " + op->loop_var->name, conflict_);
        if (!dry_) body = seq_stmt({body, make_ref<Evaluate>(storage_sync())});
        st.clear();
      }
    }
    st.merge(before);
    Stmt r = body.same_as(op->body) ? s
                                    : make_ref<For>(op->loop_var, op->min, op->extent, op->kind,
                                                    body, op->thread_tag, op->annotations);
    return prepend(pre2, prepend(pre, r));
  }

  /// A barrier before a compound statement when anything in it conflicts with the state (so
  /// the barrier sits outside its loops and conditions rather than inside them).
  Stmt hoist(const Stmt& s, State& st, bool divergent) {
    struct All : StmtExprVisitor {
      const VarSet* shared;
      VarSet reads, writes;
      using StmtExprVisitor::visit_;
      void visit_(const BufferLoad* op) override {
        if (shared->count(op->buffer->data.get())) reads.insert(op->buffer->data.get());
        StmtExprVisitor::visit_(op);
      }
      void visit_(const BufferStore* op) override {
        if (shared->count(op->buffer->data.get())) writes.insert(op->buffer->data.get());
        StmtExprVisitor::visit_(op);
      }
    } all;
    all.shared = &shared_;
    all.visit_stmt(s);
    std::string buffer;
    for (const Var* v : all.reads)
      if (st.written.count(v)) buffer = v->name;
    for (const Var* v : all.writes)
      if (st.read.count(v)) buffer = v->name;
    if (buffer.empty()) return Stmt();
    need_barrier(divergent, to_string(s), buffer);
    st.clear();
    return dry_ ? Stmt() : make_ref<Evaluate>(storage_sync());
  }

  /// Checks the accesses of a leaf statement (or of one expression when `stmt` is null):
  /// returns a barrier to put before it when they conflict with the state, then records them.
  Stmt leaf_check(const PrimExpr& e, const Stmt& stmt, State& st, bool divergent, const Stmt& where,
                  const VarSet& writes = {}) {
    Accesses acc;
    acc.shared = &shared_;
    if (e.defined()) acc.visit_expr(e);
    if (stmt.defined()) acc.visit_stmt(stmt);
    std::string buffer;
    for (const Var* v : acc.reads)
      if (st.written.count(v)) buffer = v->name;
    for (const Var* v : writes)
      if (st.read.count(v)) buffer = v->name;
    Stmt pre;
    if (!buffer.empty()) {
      conflict_ = buffer;
      need_barrier(divergent, to_string(where), buffer);
      if (!dry_) pre = make_ref<Evaluate>(storage_sync());
      st.clear();
    }
    st.read.insert(acc.reads.begin(), acc.reads.end());
    st.written.insert(writes.begin(), writes.end());
    return pre;
  }

  void need_barrier(bool divergent, std::string where, const std::string& buffer) {
    if (dry_) {
      needed_ = true;
      return;
    }
    if (where.size() > 160) where = where.substr(0, 160) + "...";
    RX_CHECK(!divergent) << "insert_barriers: kernel " << kernel_ << ": shared buffer " << buffer
                         << " needs a barrier before " << where
                         << ", which is inside thread-divergent control flow (a "
                         << "condition or loop bound that depends on threadIdx); not every "
                         << "thread of the block would reach it";
  }

  static Stmt prepend(const Stmt& pre, const Stmt& s) {
    return pre.defined() ? seq_stmt({pre, s}) : s;
  }

 public:
  std::unordered_map<std::string, int64_t> block_extent_;  // threadIdx tag -> block size
  VarSet shared_;                                          // shared memory vars

 private:
  std::string kernel_;
  std::string conflict_;
  VarSet thread_vars_;
};

/// The largest constant extent of each threadIdx tag in a nest.
std::unordered_map<std::string, int64_t> block_extents(const Stmt& nest) {
  std::unordered_map<std::string, int64_t> m;
  post_order_visit(nest, [&](const Stmt& s) {
    auto* f = s.as<For>();
    if (!f || f->kind != ForKind::kThreadBinding) return;
    if (const int64_t* c = as_const_int(f->extent)) {
      auto& x = m[f->thread_tag];
      x = std::max(x, *c);
    }
  });
  return m;
}

class NestFinder : public StmtMutator {
 public:
  explicit NestFinder(std::string kernel) : kernel_(std::move(kernel)) {}
  using StmtMutator::visit_;
  /// Shared memory allocated above the nests (a root block's alloc_buffer).
  VarSet shared;
  Stmt visit_(const For* op) override {
    if (op->kind != ForKind::kThreadBinding) return StmtMutator::visit_(op);
    Stmt nest(op);
    BarrierInserter inserter(kernel_);
    inserter.block_extent_ = block_extents(nest);
    inserter.shared_ = shared;
    State st;
    return inserter.visit(nest, st, false);
  }

 private:
  std::string kernel_;
};

}  // namespace

Ref<PrimFunc> insert_barriers(const Ref<PrimFunc>& func, const std::string& kernel) {
  std::string name = kernel.empty() ? get_string(func->attrs, kAttrGlobalSymbol, "main") : kernel;
  NestFinder finder(name);
  post_order_visit(func->body, [&](const Stmt& s) {
    if (auto* a = s.as<Allocate>(); a && a->scope == "shared")
      finder.shared.insert(a->buffer_var.get());
  });
  return with_body(func, finder.visit_stmt(func->body));
}

}  // namespace relax::tir
