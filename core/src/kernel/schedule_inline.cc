// Compute location: compute_inline and reverse_compute_inline (tir/schedule.h).
//
// Both remove one elementwise block and the intermediate buffer between it and its
// neighbour: compute_inline substitutes a producer's value at each load of its buffer;
// reverse_compute_inline rewrites the producer's store into the consumer's store. Expects
// blocks as create_prim_func makes them (a single store per block, intermediates allocated by
// an enclosing block); guarantees the remaining blocks compute the same outputs, with their
// regions recomputed (schedule.h).
#include <algorithm>
#include <unordered_map>

#include "relax/arith/analyzer.h"
#include "relax/support/diagnostic.h"
#include "schedule_internal.h"

namespace relax::tir {

namespace {

using sched::BlockLoc;
using sched::find_block;

/// Rewrites loads of one buffer with `fn`, drops the buffer from alloc_buffers, and
/// recomputes the regions of the blocks whose own statements it rewrote.
class LoadRewriter : public StmtExprMutator {
 public:
  LoadRewriter(const Buffer* buffer,
               std::function<PrimExpr(const std::vector<PrimExpr>& indices)> fn)
      : buffer_(buffer), fn_(std::move(fn)) {}
  using StmtExprMutator::visit_;
  PrimExpr visit_(const BufferLoad* op) override {
    if (op->buffer.get() != buffer_) return StmtExprMutator::visit_(op);
    std::vector<PrimExpr> indices;
    for (const auto& i : op->indices) indices.push_back(visit_expr(i));
    hit_ = true;
    return fn_(indices);
  }
  Stmt visit_(const Block* op) override {
    bool saved = hit_;
    hit_ = false;
    Stmt s = StmtExprMutator::visit_(op);
    Ref<Block> b = s.as_ref<Block>();
    auto allocs = b->alloc_buffers;
    auto it = std::find_if(allocs.begin(), allocs.end(),
                           [&](const Ref<Buffer>& x) { return x.get() == buffer_; });
    if (it != allocs.end()) {
      allocs.erase(it);
      b = make_ref<Block>(b->name, b->iter_vars, b->reads, b->writes, b->body, b->init, allocs,
                          b->match_buffers, b->annotations);
    }
    if (hit_) b = sched::with_inferred_regions(b);
    hit_ = saved;
    return b;
  }

 private:
  const Buffer* buffer_;
  std::function<PrimExpr(const std::vector<PrimExpr>&)> fn_;
  bool hit_ = false;
};

/// Checks the shape compute_inline and reverse_compute_inline need of a block: spatial, no
/// init, no predicate, one store. Returns the store.
const BufferStore* elementwise_store(const char* prim, const BlockRealize& r) {
  const Block& b = *r.block;
  RX_CHECK(!b.init.defined()) << prim << ": block " << b.name
                              << " is a reduction (it has an init); only elementwise blocks "
                                 "can be inlined";
  for (const auto& iv : b.iter_vars)
    RX_CHECK(iv->type == IterVarType::kSpatial)
        << prim << ": block " << b.name << " has the " << iter_var_type_name(iv->type)
        << " iteration variable " << iv->var->name << "; only spatial blocks can be inlined";
  RX_CHECK(is_const_int(r.predicate, 1))
      << prim << ": block " << b.name << " has a predicate; it cannot be inlined";
  auto* store = b.body.as<BufferStore>();
  RX_CHECK(store) << prim << ": the body of block " << b.name << " is a "
                  << stmt_kind_name(b.body->kind()) << ", not a single buffer store";
  return store;
}

/// For indices that are distinct iteration variables of `b` covering all of them, the
/// position of each variable; empty otherwise.
std::unordered_map<const Var*, size_t> var_positions(const Block& b,
                                                     const std::vector<PrimExpr>& indices) {
  std::unordered_map<const Var*, size_t> pos;
  if (indices.size() != b.iter_vars.size()) return {};
  for (size_t d = 0; d < indices.size(); ++d) {
    auto* v = indices[d].as<Var>();
    bool is_iter = std::any_of(b.iter_vars.begin(), b.iter_vars.end(),
                               [&](const Ref<IterVar>& iv) { return iv->var.get() == v; });
    if (!v || !is_iter || !pos.emplace(v, d).second) return {};
  }
  return pos;
}

std::string names(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

/// The loads of `buffer` in `e`.
std::vector<const BufferLoad*> loads_of(const PrimExpr& e, const Buffer* buffer) {
  struct V : ExprVisitor {
    const Buffer* buffer;
    std::vector<const BufferLoad*> out;
    using ExprVisitor::visit_;
    void visit_(const BufferLoad* op) override {
      if (op->buffer.get() == buffer) out.push_back(op);
      ExprVisitor::visit_(op);
    }
  } v;
  v.buffer = buffer;
  v.visit_expr(e);
  return v.out;
}

}  // namespace

void Schedule::compute_inline(const BlockRV& block) {
  constexpr const char* kPrim = "compute_inline";
  BlockLoc loc = find_block(func_->body, block.name, kPrim);
  const Block& b = *loc.realize->block;
  const BufferStore* store = elementwise_store(kPrim, *loc.realize);
  const Ref<Buffer>& buf = store->buffer;
  RX_CHECK(!sched::is_param_buffer(func_, buf.get()))
      << kPrim << ": block " << b.name << " writes " << buf->name
      << ", an output of the function; only blocks writing an intermediate buffer can be inlined";
  auto pos = var_positions(b, store->indices);
  RX_CHECK(!pos.empty()) << kPrim << ": block " << b.name << " stores to " << buf->name
                         << " at indices that are not its iteration variables, each once";
  RX_CHECK(loads_of(store->value, buf.get()).empty())
      << kPrim << ": block " << b.name << " reads the buffer " << buf->name << " it writes";
  auto writers = sched::writers_of(func_->body, buf.get());
  RX_CHECK(writers.size() == 1) << kPrim << ": " << buf->name << " is written by blocks "
                                << names(writers) << "; the inlined block must be the only writer";

  Stmt body = sched::replace_stmt(func_->body, loc.realize, Stmt());
  PrimExpr value = store->value;
  LoadRewriter rw(buf.get(), [&](const std::vector<PrimExpr>& indices) {
    return substitute(value, [&](const Var* v) -> PrimExpr {
      auto it = pos.find(v);
      return it == pos.end() ? PrimExpr() : indices[it->second];
    });
  });
  func_ = with_body(func_, rw.visit_stmt(body));
}

void Schedule::reverse_compute_inline(const BlockRV& block) {
  constexpr const char* kPrim = "reverse_compute_inline";
  BlockLoc loc = find_block(func_->body, block.name, kPrim);
  const Block& c = *loc.realize->block;
  const BufferStore* store = elementwise_store(kPrim, *loc.realize);
  // The intermediate buffer the consumer reads.
  std::vector<const Buffer*> inter;
  std::vector<std::string> inter_names;
  auto note = [&](const PrimExpr& e) {
    struct V : ExprVisitor {
      std::vector<const BufferLoad*> out;
      using ExprVisitor::visit_;
      void visit_(const BufferLoad* op) override {
        out.push_back(op);
        ExprVisitor::visit_(op);
      }
    } v;
    v.visit_expr(e);
    for (const BufferLoad* l : v.out)
      if (!sched::is_param_buffer(func_, l->buffer.get()) &&
          std::find(inter.begin(), inter.end(), l->buffer.get()) == inter.end()) {
        inter.push_back(l->buffer.get());
        inter_names.push_back(l->buffer->name);
      }
  };
  note(store->value);
  RX_CHECK(inter.size() == 1) << kPrim << ": block " << c.name << " reads " << inter.size()
                              << " intermediate buffers (" << names(inter_names)
                              << "); it must read exactly one";
  const Buffer* buf = inter[0];
  auto loads = loads_of(store->value, buf);
  for (const BufferLoad* l : loads)
    RX_CHECK(l->indices.size() == loads[0]->indices.size() &&
             std::equal(l->indices.begin(), l->indices.end(), loads[0]->indices.begin(),
                        [](const PrimExpr& a, const PrimExpr& b) { return a.same_as(b); }))
        << kPrim << ": block " << c.name << " reads " << buf->name << " at different indices";
  auto pos = var_positions(c, loads[0]->indices);
  RX_CHECK(!pos.empty()) << kPrim << ": block " << c.name << " reads " << buf->name
                         << " at indices that are not its iteration variables, each once";
  arith::Analyzer ana(arith::AnalyzerOptions{true});
  for (const auto& iv : c.iter_vars) {
    size_t d = pos.at(iv->var.get());
    RX_CHECK(is_const_int(iv->dom.min, 0) && ana.prove_equal(iv->dom.extent, buf->shape[d]))
        << kPrim << ": block " << c.name << " does not cover all of " << buf->name
        << " (iteration variable " << iv->var->name << " over " << to_string(iv->dom.extent)
        << ", dimension " << d << " of extent " << to_string(buf->shape[d]) << ")";
  }
  for (const auto& i : store->indices)
    RX_CHECK(loads_of(i, buf).empty())
        << kPrim << ": block " << c.name << " indexes its output with " << buf->name;
  auto writers = sched::writers_of(func_->body, buf);
  RX_CHECK(writers.size() == 1) << kPrim << ": " << buf->name << " is written by "
                                << (writers.empty() ? "no block" : "blocks " + names(writers))
                                << "; it needs exactly one producer";
  RX_CHECK(writers[0] != c.name) << kPrim << ": block " << c.name << " writes " << buf->name
                                 << ", which it reads";
  BlockLoc ploc = find_block(func_->body, writers[0], kPrim);
  const Block& p = *ploc.realize->block;
  RX_CHECK(!p.init.defined()) << kPrim << ": the producer " << p.name
                              << " is a reduction; its consumer cannot be inlined into it";
  for (const auto& r : sched::readers_of(func_->body, buf))
    RX_CHECK(r == c.name || r == p.name) << kPrim << ": " << buf->name << " is also read by block "
                                         << r << "; " << c.name << " must be its only reader";
  auto* pstore = p.body.as<BufferStore>();
  RX_CHECK(pstore && pstore->buffer.get() == buf)
      << kPrim << ": the body of the producer " << p.name << " is not a single store to "
      << buf->name;

  // Consumer variables become the producer's store indices; loads of buf its value.
  auto to_producer = [&](const PrimExpr& e) {
    return substitute(e, [&](const Var* v) -> PrimExpr {
      auto it = pos.find(v);
      return it == pos.end() ? PrimExpr() : pstore->indices[it->second];
    });
  };
  struct Swap : ExprMutator {
    const Buffer* buf;
    PrimExpr value;
    using ExprMutator::visit_;
    PrimExpr visit_(const BufferLoad* op) override {
      if (op->buffer.get() == buf) return value;
      return ExprMutator::visit_(op);
    }
  } swap;
  swap.buf = buf;
  swap.value = pstore->value;
  PrimExpr value = to_producer(swap.visit_expr(store->value));
  std::vector<PrimExpr> indices;
  for (const auto& i : store->indices) indices.push_back(to_producer(i));
  Stmt new_store = buffer_store(store->buffer, value, indices);
  Ref<Block> np =
      sched::with_inferred_regions(sched::with_block_body(ploc.realize->block, new_store, Stmt()));
  Stmt body = sched::replace_stmt(func_->body, loc.realize, Stmt());
  body = sched::replace_stmt(
      body, ploc.realize,
      make_ref<BlockRealize>(ploc.realize->iter_values, ploc.realize->predicate, np));
  // Drop the buffer's allocation (no load of it is left to rewrite).
  LoadRewriter drop(buf, [](const std::vector<PrimExpr>&) -> PrimExpr {
    RX_IFAIL() << "a load of the inlined buffer is left";
    return PrimExpr();
  });
  func_ = with_body(func_, drop.visit_stmt(body));
}

}  // namespace relax::tir
