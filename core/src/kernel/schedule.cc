// The Schedule object (tir/schedule.h): handles, lookups and the helpers every primitive uses
// (schedule_internal.h). The primitives live in schedule_<concern>.cc.
#include <unordered_map>

#include "relax/kernel/block_regions.h"
#include "relax/support/diagnostic.h"
#include "schedule_internal.h"

namespace relax::tir {

// ---- IndexMap

IndexMap IndexMap::from_func(
    size_t ndim, const std::function<std::vector<PrimExpr>(const std::vector<PrimExpr>&)>& fn) {
  IndexMap m;
  std::vector<PrimExpr> args;
  for (size_t i = 0; i < ndim; ++i) {
    m.initial_indices.push_back(var("i" + std::to_string(i)));
    args.push_back(m.initial_indices.back());
  }
  m.final_indices = fn(args);
  return m;
}

std::vector<PrimExpr> IndexMap::map_indices(const std::vector<PrimExpr>& indices) const {
  RX_ICHECK(indices.size() == initial_indices.size())
      << "index map of " << initial_indices.size() << " indices applied to " << indices.size();
  std::unordered_map<const Var*, PrimExpr> m;
  for (size_t i = 0; i < indices.size(); ++i) m[initial_indices[i].get()] = indices[i];
  std::vector<PrimExpr> out;
  for (const auto& e : final_indices)
    out.push_back(substitute(e, [&](const Var* v) -> PrimExpr {
      auto it = m.find(v);
      return it == m.end() ? PrimExpr() : it->second;
    }));
  return out;
}

namespace sched {

namespace {

/// Walks statements keeping the loops between the current point and the enclosing block.
struct NestWalker : StmtVisitor {
  std::vector<const For*> loops;
  const Block* parent = nullptr;
  std::function<bool(const BlockRealize*)> on_realize;  // true stops the walk
  std::function<bool(const For*)> on_loop;
  bool done = false;

  using StmtVisitor::visit_;
  void visit_stmt(const Stmt& s) override {
    if (!done) StmtVisitor::visit_stmt(s);
  }
  void visit_(const For* op) override {
    if (on_loop && on_loop(op)) {
      done = true;
      return;
    }
    loops.push_back(op);
    StmtVisitor::visit_(op);
    loops.pop_back();
  }
  void visit_(const BlockRealize* op) override {
    if (on_realize && on_realize(op)) {
      done = true;
      return;
    }
    auto saved_loops = std::move(loops);
    const Block* saved_parent = parent;
    loops.clear();
    parent = op->block.get();
    StmtVisitor::visit_(op);
    loops = std::move(saved_loops);
    parent = saved_parent;
  }
};

/// The buffers a block's own init and body load and store (nested blocks excluded).
struct AccessScan : StmtExprVisitor {
  std::unordered_set<const Buffer*> loaded, stored;
  using StmtExprVisitor::visit_;
  void visit_(const BlockRealize*) override {}
  void visit_(const BufferStore* op) override {
    stored.insert(op->buffer.get());
    StmtExprVisitor::visit_(op);
  }
  void visit_(const BufferLoad* op) override {
    loaded.insert(op->buffer.get());
    StmtExprVisitor::visit_(op);
  }
  void scan(const Block& b) {
    if (b.init.defined()) visit_stmt(b.init);
    visit_stmt(b.body);
  }
};

bool region_mentions(const std::vector<BufferRegion>& regions, const Buffer* buffer) {
  for (const auto& r : regions)
    if (r.buffer.get() == buffer) return true;
  return false;
}

class Replacer : public StmtMutator {
 public:
  Replacer(const StmtNode* target, Stmt replacement)
      : target_(target), replacement_(std::move(replacement)) {}
  using StmtMutator::visit_;
  Stmt visit_stmt(const Stmt& s) override {
    if (s.get() == target_) return replacement_;
    return StmtMutator::visit_stmt(s);
  }
  // A body that disappears takes its loop (branch, let...) with it.
  Stmt visit_(const For* op) override {
    Stmt body = visit_stmt(op->body);
    if (!body.defined()) return Stmt();
    if (body.same_as(op->body)) return Stmt(op);
    return make_ref<For>(op->loop_var, op->min, op->extent, op->kind, body, op->thread_tag,
                         op->annotations);
  }
  Stmt visit_(const LetStmt* op) override {
    Stmt body = visit_stmt(op->body);
    if (!body.defined()) return Stmt();
    return body.same_as(op->body) ? Stmt(op) : make_ref<LetStmt>(op->var, op->value, body);
  }
  Stmt visit_(const IfThenElse* op) override {
    Stmt then_case = visit_stmt(op->then_case);
    Stmt else_case = visit_opt(op->else_case);
    if (!then_case.defined() && !else_case.defined()) return Stmt();
    if (then_case.same_as(op->then_case) && else_case.same_as(op->else_case)) return Stmt(op);
    if (!then_case.defined()) return make_ref<IfThenElse>(logical_not(op->condition), else_case);
    return make_ref<IfThenElse>(op->condition, then_case, else_case);
  }
  Stmt visit_(const Block* op) override {
    Stmt body = visit_stmt(op->body);
    Stmt init = visit_opt(op->init);
    if (body.same_as(op->body) && init.same_as(op->init)) return Stmt(op);
    if (!body.defined()) body = no_op();
    return with_block_body(Ref<Block>(op), body, init);
  }

 private:
  const StmtNode* target_;
  Stmt replacement_;
};

}  // namespace

BlockLoc find_block(const Stmt& body, const std::string& name, const char* prim) {
  BlockLoc loc;
  NestWalker w;
  w.on_realize = [&](const BlockRealize* r) {
    if (r->block->name != name) return false;
    loc.realize = r;
    loc.loops = w.loops;
    loc.parent = w.parent;
    return true;
  };
  w.visit_stmt(body);
  RX_CHECK(loc.realize) << prim << ": no block named '" << name << "' in the function";
  return loc;
}

LoopLoc find_loop(const Stmt& body, const LoopRV& loop, const char* prim) {
  RX_CHECK(loop.var.defined()) << prim << ": an undefined loop handle";
  LoopLoc loc;
  NestWalker w;
  w.on_loop = [&](const For* f) {
    if (f->loop_var.get() != loop.var.get()) return false;
    loc.loop = f;
    loc.outer = w.loops;
    loc.parent = w.parent;
    return true;
  };
  w.visit_stmt(body);
  RX_CHECK(loc.loop) << prim << ": loop " << loop.var->name
                     << " is not in the function (a primitive replaced or removed it)";
  return loc;
}

std::vector<const BlockRealize*> realizes_under(const Stmt& s) {
  std::vector<const BlockRealize*> out;
  NestWalker w;
  w.on_realize = [&](const BlockRealize* r) {
    out.push_back(r);
    return false;
  };
  w.visit_stmt(s);
  return out;
}

bool uses_any(const PrimExpr& e, const std::unordered_set<const Var*>& vars) {
  bool found = false;
  struct V : ExprVisitor {
    const std::unordered_set<const Var*>* vars;
    bool* found;
    using ExprVisitor::visit_;
    void visit_(const Var* v) override { *found |= vars->count(v) != 0; }
  } v;
  v.vars = &vars;
  v.found = &found;
  v.visit_expr(e);
  return found;
}

Stmt replace_stmt(const Stmt& root, const StmtNode* target, const Stmt& replacement) {
  Replacer r(target, replacement);
  Stmt out = r.visit_stmt(root);
  return out.defined() ? out : no_op();
}

Stmt map_blocks(const Stmt& s, const std::function<Ref<Block>(const Ref<Block>&)>& f) {
  struct M : StmtMutator {
    const std::function<Ref<Block>(const Ref<Block>&)>* fn;
    using StmtMutator::visit_;
    Stmt visit_(const Block* op) override {
      Stmt s = StmtMutator::visit_(op);
      return (*fn)(s.as_ref<Block>());
    }
  } m;
  m.fn = &f;
  return m.visit_stmt(s);
}

Ref<Block> with_inferred_regions(const Ref<Block>& block) {
  std::vector<BufferRegion> reads, writes;
  infer_block_regions(block->body, block->init, block->alloc_buffers, &reads, &writes);
  return make_ref<Block>(block->name, block->iter_vars, std::move(reads), std::move(writes),
                         block->body, block->init, block->alloc_buffers, block->match_buffers,
                         block->annotations);
}

Ref<Block> with_block_body(const Ref<Block>& block, Stmt body, Stmt init) {
  return make_ref<Block>(block->name, block->iter_vars, block->reads, block->writes,
                         std::move(body), std::move(init), block->alloc_buffers,
                         block->match_buffers, block->annotations);
}

const Block* root_block(const Ref<PrimFunc>& func) {
  auto* r = func->body.as<BlockRealize>();
  if (!r || !r->block->iter_vars.empty()) return nullptr;
  return r->block.get();
}

Ref<PrimFunc> ensure_root_block(const Ref<PrimFunc>& func) {
  if (root_block(func)) return func;
  auto root = make_ref<Block>("root", std::vector<Ref<IterVar>>{}, std::vector<BufferRegion>{},
                              std::vector<BufferRegion>{}, func->body);
  return with_body(func, block_realize({}, root));
}

bool is_param_buffer(const Ref<PrimFunc>& func, const Buffer* buffer) {
  for (const auto& [param, b] : func->buffer_map)
    if (b.get() == buffer) return true;
  return false;
}

std::vector<std::string> writers_of(const Stmt& s, const Buffer* buffer) {
  std::vector<std::string> out;
  for (const BlockRealize* r : realizes_under(s)) {
    AccessScan scan;
    scan.scan(*r->block);
    if (scan.stored.count(buffer) || region_mentions(r->block->writes, buffer))
      out.push_back(r->block->name);
  }
  return out;
}

std::vector<std::string> readers_of(const Stmt& s, const Buffer* buffer) {
  std::vector<std::string> out;
  for (const BlockRealize* r : realizes_under(s)) {
    AccessScan scan;
    scan.scan(*r->block);
    if (scan.loaded.count(buffer) || region_mentions(r->block->reads, buffer))
      out.push_back(r->block->name);
  }
  return out;
}

std::string fresh_block_name(const Stmt& s, const std::string& hint) {
  std::unordered_set<std::string> names;
  for (const BlockRealize* r : realizes_under(s)) names.insert(r->block->name);
  std::string name = hint;
  for (int i = 1; names.count(name); ++i) name = hint + "_" + std::to_string(i);
  return name;
}

}  // namespace sched

// ---- Schedule

Schedule::Schedule(Ref<PrimFunc> func) : func_(std::move(func)) {
  RX_CHECK(func_.defined()) << "Schedule: no function";
  std::unordered_set<std::string> names;
  for (const BlockRealize* r : sched::realizes_under(func_->body))
    RX_CHECK(names.insert(r->block->name).second)
        << "Schedule: two blocks are named '" << r->block->name
        << "'; block names must be unique to be scheduled";
}

BlockRV Schedule::get_block(const std::string& name) const {
  sched::find_block(func_->body, name, "get_block");
  return BlockRV{name};
}

std::vector<LoopRV> Schedule::get_loops(const BlockRV& block) const {
  sched::BlockLoc loc = sched::find_block(func_->body, block.name, "get_loops");
  std::vector<LoopRV> out;
  for (const For* f : loc.loops) out.push_back(LoopRV{f->loop_var});
  return out;
}

}  // namespace relax::tir
