// Caches and scopes: cache_read, cache_write (whole buffer or at a loop) and set_scope
// (kernel/schedule.h).
//
// Each cache adds a buffer in another storage scope and a copy block; the block's accesses
// (and regions) move to the copy. The whole-buffer forms copy the whole buffer next to the
// block's loop nest (before it for a read, after it for a write), the buffer allocated by the
// root block; they expect the block directly under the root block (through loops). The forms
// at a loop copy only the region the block touches during one iteration of the loop, at the
// start (read) or end (write) of its body, into a buffer shaped like that region and
// allocated by the block enclosing the nest. A function without a root block gets one.
// Guarantees the same values reach the block (read) or the buffer (write).
#include <functional>

#include "relax/support/diagnostic.h"
#include "schedule_internal.h"

namespace relax::tir {

namespace {

using sched::BlockLoc;
using sched::find_block;

/// A loop nest ax0, ax1, ... over `dst`'s shape around block `name`: dst[v] = src[v].
Stmt copy_nest(const std::string& name, const Ref<Buffer>& src, const Ref<Buffer>& dst) {
  std::vector<Ref<Var>> loops;
  std::vector<Ref<IterVar>> iters;
  std::vector<PrimExpr> bindings, idx;
  for (size_t d = 0; d < src->ndim(); ++d) {
    DataType dt = src->shape[d]->dtype;
    loops.push_back(var("ax" + std::to_string(d), dt));
    Ref<Var> v = var("v" + std::to_string(d), dt);
    iters.push_back(make_iter_var(v, src->shape[d], IterVarType::kSpatial));
    bindings.push_back(loops.back());
    idx.push_back(v);
  }
  Stmt store = buffer_store(dst, buffer_load(src, idx), idx);
  auto block = sched::with_inferred_regions(make_ref<Block>(
      name, iters, std::vector<BufferRegion>{}, std::vector<BufferRegion>{}, store));
  Stmt body = block_realize(bindings, block);
  for (size_t d = loops.size(); d-- > 0;)
    body =
        make_ref<For>(loops[d], int_imm(0, loops[d]->dtype), src->shape[d], ForKind::kSerial, body);
  return body;
}

/// Replaces buffer `from` by `to` in a block's accesses and regions.
Ref<Block> redirect(const Ref<Block>& block, const Buffer* from, const Ref<Buffer>& to) {
  struct M : StmtExprMutator {
    const Buffer* from;
    Ref<Buffer> to;
    Ref<Buffer> visit_buffer(const Ref<Buffer>& b) override { return b.get() == from ? to : b; }
  } m;
  m.from = from;
  m.to = to;
  return m.visit_stmt(block).as_ref<Block>();
}

/// Rebuilds the root block with `alloc` allocated and `extra` inserted before (or after) the
/// top-level statement `top` of its body, which becomes `new_top`.
Ref<PrimFunc> insert_at_root(const Ref<PrimFunc>& func, const StmtNode* top, Stmt new_top,
                             Stmt extra, bool before, const Ref<Buffer>& alloc) {
  const Block* root = sched::root_block(func);
  std::vector<Stmt> items;
  if (auto* seq = root->body.as<SeqStmt>())
    items = seq->seq;
  else
    items.push_back(root->body);
  std::vector<Stmt> out;
  for (const auto& s : items) {
    if (s.get() != top) {
      out.push_back(s);
      continue;
    }
    if (before) out.push_back(extra);
    out.push_back(new_top);
    if (!before) out.push_back(extra);
  }
  auto allocs = root->alloc_buffers;
  allocs.push_back(alloc);
  auto new_root = make_ref<Block>(root->name, root->iter_vars, root->reads, root->writes,
                                  seq_stmt(std::move(out)), root->init, std::move(allocs),
                                  root->match_buffers, root->annotations);
  return with_body(func, block_realize({}, new_root));
}

/// The block's statement directly in the root block's body (its outermost loop, or itself).
const StmtNode* top_of(const Ref<PrimFunc>& func, const BlockLoc& loc, const char* prim) {
  RX_CHECK(loc.parent == sched::root_block(func))
      << prim << ": block " << loc.realize->block->name << " is nested in block "
      << (loc.parent ? loc.parent->name : "?")
      << "; only blocks directly under the root block are supported";
  return loc.loops.empty() ? static_cast<const StmtNode*>(loc.realize) : loc.loops[0];
}

/// The buffer a cache primitive caches: `block`'s `index`-th read or write region, checked.
Ref<Buffer> cached_buffer(const char* prim, const Block& b, BufferIndex index,
                          const std::string& scope) {
  bool read = index.kind == BufferIndex::Kind::kRead;
  const auto& regions = read ? b.reads : b.writes;
  RX_CHECK(index.index >= 0 && size_t(index.index) < regions.size())
      << prim << ": block " << b.name << " has " << regions.size() << (read ? " read" : " write")
      << " regions; " << index.index << " is out of range";
  RX_CHECK(is_valid_storage_scope(scope))
      << prim << ": '" << scope << "' is not a storage scope (global, shared, local)";
  return regions[size_t(index.index)].buffer;
}

/// Rewrites the block's accesses (and regions) of buffer `from` into `to` at the indices
/// minus `offset`.
Ref<Block> redirect_shifted(const Ref<Block>& block, const Buffer* from, const Ref<Buffer>& to,
                            const std::vector<PrimExpr>& offset) {
  auto shift_one = [&](const PrimExpr& index, size_t d) {
    return is_const_int(offset[d], 0) ? index : index - cast(index->dtype, offset[d]);
  };
  auto shift = [&](const std::vector<PrimExpr>& idx) {
    std::vector<PrimExpr> out;
    for (size_t d = 0; d < idx.size(); ++d) out.push_back(shift_one(idx[d], d));
    return out;
  };
  struct M : StmtExprMutator {
    const Buffer* from;
    Ref<Buffer> to;
    std::function<std::vector<PrimExpr>(const std::vector<PrimExpr>&)> shift;
    using StmtExprMutator::visit_;
    PrimExpr visit_(const BufferLoad* op) override {
      if (op->buffer.get() != from) return StmtExprMutator::visit_(op);
      std::vector<PrimExpr> idx;
      mutate_all(op->indices, &idx);
      return buffer_load(to, shift(idx));
    }
    Stmt visit_(const BufferStore* op) override {
      if (op->buffer.get() != from) return StmtExprMutator::visit_(op);
      std::vector<PrimExpr> idx;
      mutate_all(op->indices, &idx);
      return buffer_store(to, visit_expr(op->value), shift(idx));
    }
  } m;
  m.from = from;
  m.to = to;
  m.shift = shift;
  auto regions = [&](const std::vector<BufferRegion>& in) {
    std::vector<BufferRegion> out;
    for (const auto& r : in) {
      if (r.buffer.get() != from) {
        out.push_back(r);
        continue;
      }
      BufferRegion moved{to, {}};
      for (size_t d = 0; d < r.region.size(); ++d)
        moved.region.push_back(
            Range::from_min_extent(shift_one(r.region[d].min, d), r.region[d].extent));
      out.push_back(std::move(moved));
    }
    return out;
  };
  Stmt init = block->init.defined() ? m.visit_stmt(block->init) : block->init;
  return make_ref<Block>(block->name, block->iter_vars, regions(block->reads),
                         regions(block->writes), m.visit_stmt(block->body), init,
                         block->alloc_buffers, block->match_buffers, block->annotations);
}

/// The shape of a cache of `region`: each extent, or its constant upper bound where it
/// depends on a loop of `loc`.
std::vector<PrimExpr> cache_shape(const char* prim, const std::vector<Range>& region,
                                  const BlockLoc& loc, const Buffer& buf, const LoopRV& at,
                                  arith::Analyzer* ana) {
  std::unordered_set<const Var*> loops;
  for (const For* f : loc.loops) loops.insert(f->loop_var.get());
  std::vector<PrimExpr> shape;
  for (const auto& r : region) {
    if (!sched::uses_any(r.extent, loops)) {
      shape.push_back(r.extent);
      continue;
    }
    arith::ConstIntBound bound = ana->const_int_bound(r.extent);
    RX_CHECK(bound.max_value != arith::ConstIntBound::kPosInf)
        << prim << ": the region of " << buf.name << " under loop " << at.var->name
        << " has the extent " << to_string(r.extent)
        << ", which depends on the loops and has no constant upper bound";
    shape.push_back(int_imm(bound.max_value, r.extent->dtype));
  }
  return shape;
}

/// A loop nest ax0, ax1, ... over `region`'s extents around block `name` copying between
/// `buf` at the region and `cache` from 0: cache[v] = buf[start + v] (or back when
/// `to_cache` is false). Iterations outside `buf` are masked.
Stmt region_copy(const std::string& name, const Ref<Buffer>& buf, const Ref<Buffer>& cache,
                 const std::vector<Range>& region, bool to_cache, arith::Analyzer* ana) {
  std::vector<Ref<Var>> loops;
  std::vector<Ref<IterVar>> iters;
  std::vector<PrimExpr> bindings, local, global;
  PrimExpr pred;
  for (size_t d = 0; d < region.size(); ++d) {
    DataType dt = region[d].min->dtype;
    loops.push_back(var("ax" + std::to_string(d), dt));
    ana->bind_range(loops.back(), int_imm(0, dt), cast(dt, region[d].extent));
    Ref<Var> v = var("v" + std::to_string(d), dt);
    iters.push_back(make_iter_var(v, cast(dt, cache->shape[d]), IterVarType::kSpatial));
    bindings.push_back(loops.back());
    local.push_back(v);
    global.push_back(is_const_int(region[d].min, 0) ? PrimExpr(v) : region[d].min + v);
    PrimExpr at = region[d].min + loops.back();
    for (PrimExpr c : {ge(at, int_imm(0, dt)), lt(at, cast(dt, buf->shape[d]))})
      if (!ana->can_prove(c)) pred = pred.defined() ? logical_and(pred, c) : c;
  }
  Stmt store = to_cache ? buffer_store(cache, buffer_load(buf, global), local)
                        : buffer_store(buf, buffer_load(cache, local), global);
  auto block = sched::with_inferred_regions(make_ref<Block>(
      name, iters, std::vector<BufferRegion>{}, std::vector<BufferRegion>{}, store));
  Stmt body = make_ref<BlockRealize>(bindings, pred.defined() ? pred : bool_imm(true), block);
  for (size_t d = loops.size(); d-- > 0;)
    body = make_ref<For>(loops[d], int_imm(0, loops[d]->dtype),
                         cast(loops[d]->dtype, region[d].extent), ForKind::kSerial, body);
  return body;
}

/// cache_read / cache_write at a loop: both directions share everything but the checks.
Ref<PrimFunc> cache_at(const Ref<PrimFunc>& func, const BlockLoc& loc, const Ref<Buffer>& buf,
                       const BufferRegion& accessed, const std::string& scope, const LoopRV& at,
                       bool read, const char* prim, std::string* copy_name) {
  const Ref<Block>& b = loc.realize->block;
  size_t depth = sched::loop_depth(loc, at.var.get());
  arith::Analyzer ana(arith::AnalyzerOptions{true});
  std::vector<Range> region = sched::region_under(loc, depth + 1, accessed, &ana, scope);
  Ref<Buffer> cache = decl_buffer(cache_shape(prim, region, loc, *buf, at, &ana), buf->dtype,
                                  buf->name + "_" + scope, scope);
  *copy_name = sched::fresh_block_name(func->body, buf->name + "_" + scope);
  std::vector<PrimExpr> offset;
  for (const auto& r : region) offset.push_back(r.min);
  Stmt realize = make_ref<BlockRealize>(loc.realize->iter_values, loc.realize->predicate,
                                        redirect_shifted(b, buf.get(), cache, offset));
  const For* loop = loc.loops[depth];
  Stmt new_loop = sched::replace_stmt(Stmt(loop), loc.realize, realize);
  Stmt copy = region_copy(*copy_name, buf, cache, region, read, &ana);
  new_loop = sched::with_loop_extra(new_loop.as<For>(), copy, read);
  Ref<PrimFunc> out = with_body(func, sched::replace_stmt(func->body, loop, new_loop));
  return sched::add_alloc(out, loc.parent->name, cache);
}

}  // namespace

BlockRV Schedule::cache_read(const BlockRV& block, int read_index, const std::string& scope) {
  constexpr const char* kPrim = "cache_read";
  Ref<PrimFunc> func = sched::ensure_root_block(func_);
  BlockLoc loc = find_block(func->body, block.name, kPrim);
  const Ref<Block>& b = loc.realize->block;
  Ref<Buffer> buf = cached_buffer(kPrim, *b, BufferIndex::read(read_index), scope);
  auto writers = sched::writers_of(Stmt(loc.realize), buf.get());
  RX_CHECK(writers.empty()) << kPrim << ": block " << b->name << " also writes " << buf->name
                            << "; use cache_write for a buffer it updates";
  const StmtNode* top = top_of(func, loc, kPrim);
  Ref<Buffer> cache = decl_buffer(buf->shape, buf->dtype, buf->name + "_" + scope, scope);
  std::string name = sched::fresh_block_name(func->body, buf->name + "_" + scope);
  Stmt realize = make_ref<BlockRealize>(loc.realize->iter_values, loc.realize->predicate,
                                        redirect(b, buf.get(), cache));
  Stmt new_top = sched::replace_stmt(Stmt(top), loc.realize, realize);
  func_ = insert_at_root(func, top, new_top, copy_nest(name, buf, cache), true, cache);
  return BlockRV{name};
}

BlockRV Schedule::cache_write(const BlockRV& block, int write_index, const std::string& scope) {
  constexpr const char* kPrim = "cache_write";
  Ref<PrimFunc> func = sched::ensure_root_block(func_);
  BlockLoc loc = find_block(func->body, block.name, kPrim);
  const Ref<Block>& b = loc.realize->block;
  Ref<Buffer> buf = cached_buffer(kPrim, *b, BufferIndex::write(write_index), scope);
  auto writers = sched::writers_of(func->body, buf.get());
  RX_CHECK(writers.size() == 1) << kPrim << ": " << buf->name << " is written by " << writers.size()
                                << " blocks; " << b->name << " must be its only writer";
  const StmtNode* top = top_of(func, loc, kPrim);
  for (const BlockRealize* r : sched::realizes_under(Stmt(top))) {
    if (r == loc.realize) continue;
    auto readers = sched::readers_of(Stmt(r), buf.get());
    RX_CHECK(readers.empty()) << kPrim << ": block " << r->block->name << " reads " << buf->name
                              << " inside the loop nest of " << b->name
                              << "; the copy back would come too late for it";
  }
  Ref<Buffer> cache = decl_buffer(buf->shape, buf->dtype, buf->name + "_" + scope, scope);
  std::string name = sched::fresh_block_name(func->body, buf->name + "_" + scope);
  Stmt realize = make_ref<BlockRealize>(loc.realize->iter_values, loc.realize->predicate,
                                        redirect(b, buf.get(), cache));
  Stmt new_top = sched::replace_stmt(Stmt(top), loc.realize, realize);
  func_ = insert_at_root(func, top, new_top, copy_nest(name, cache, buf), false, cache);
  return BlockRV{name};
}

BlockRV Schedule::cache_read(const BlockRV& block, int read_index, const std::string& scope,
                             const LoopRV& at) {
  constexpr const char* kPrim = "cache_read";
  Ref<PrimFunc> func = sched::ensure_root_block(func_);
  BlockLoc loc = find_block(func->body, block.name, kPrim);
  const Ref<Block>& b = loc.realize->block;
  Ref<Buffer> buf = cached_buffer(kPrim, *b, BufferIndex::read(read_index), scope);
  sched::find_loop(func->body, at, kPrim);
  RX_CHECK(sched::loop_depth(loc, at.var.get()) < loc.loops.size())
      << kPrim << ": loop " << at.var->name << " does not enclose block " << b->name;
  RX_CHECK(!sched::region_of(b->writes, buf.get()))
      << kPrim << ": block " << b->name << " also writes " << buf->name
      << "; use cache_write for a buffer it updates";
  std::string name;
  func_ = cache_at(func, loc, buf, b->reads[size_t(read_index)], scope, at, true, kPrim, &name);
  return BlockRV{name};
}

BlockRV Schedule::cache_write(const BlockRV& block, int write_index, const std::string& scope,
                              const LoopRV& at) {
  constexpr const char* kPrim = "cache_write";
  Ref<PrimFunc> func = sched::ensure_root_block(func_);
  BlockLoc loc = find_block(func->body, block.name, kPrim);
  const Ref<Block>& b = loc.realize->block;
  Ref<Buffer> buf = cached_buffer(kPrim, *b, BufferIndex::write(write_index), scope);
  sched::find_loop(func->body, at, kPrim);
  size_t depth = sched::loop_depth(loc, at.var.get());
  RX_CHECK(depth < loc.loops.size())
      << kPrim << ": loop " << at.var->name << " does not enclose block " << b->name;
  auto writers = sched::writers_of(func->body, buf.get());
  RX_CHECK(writers.size() == 1) << kPrim << ": " << buf->name << " is written by " << writers.size()
                                << " blocks; " << b->name << " must be its only writer";
  for (const BlockRealize* r : sched::realizes_under(Stmt(loc.loops[depth]))) {
    if (r == loc.realize) continue;
    RX_CHECK(sched::readers_of(Stmt(r), buf.get()).empty())
        << kPrim << ": block " << r->block->name << " reads " << buf->name << " under loop "
        << at.var->name << "; the copy back at the end of the loop would come too late for it";
  }
  for (size_t i = 0; i < b->iter_vars.size(); ++i) {
    if (b->iter_vars[i]->type == IterVarType::kSpatial) continue;
    for (size_t q = 0; q <= depth; ++q)
      RX_CHECK(!uses_var(loc.realize->iter_values[i], loc.loops[q]->loop_var.get()))
          << kPrim << ": loop " << loc.loops[q]->loop_var->name << " (at or above loop "
          << at.var->name << ") binds the reduce iteration variable " << b->iter_vars[i]->var->name
          << " of block " << b->name << "; the block would read the cache across iterations of it";
  }
  std::string name;
  func_ = cache_at(func, loc, buf, b->writes[size_t(write_index)], scope, at, false, kPrim, &name);
  return BlockRV{name};
}

void Schedule::set_scope(const BlockRV& block, int write_index, const std::string& scope) {
  constexpr const char* kPrim = "set_scope";
  BlockLoc loc = find_block(func_->body, block.name, kPrim);
  const Ref<Block>& b = loc.realize->block;
  Ref<Buffer> buf = cached_buffer(kPrim, *b, BufferIndex::write(write_index), scope);
  RX_CHECK(!sched::is_param_buffer(func_, buf.get()))
      << kPrim << ": " << buf->name << " (written by block " << b->name
      << ") is a parameter of the function; only intermediate buffers can change scope";
  bool allocated = false;
  for (const BlockRealize* r : sched::realizes_under(func_->body))
    for (const auto& a : r->block->alloc_buffers) allocated |= a.get() == buf.get();
  RX_CHECK(allocated) << kPrim << ": " << buf->name << " (written by block " << b->name
                      << ") is not allocated by a block (T.alloc_buffer)";
  if (buf->scope == scope) return;
  Ref<Buffer> moved = make_buffer(buf->data, buf->dtype, buf->shape, buf->name, buf->strides,
                                  buf->elem_offset, scope);
  struct M : StmtExprMutator {
    const Buffer* from;
    Ref<Buffer> to;
    Ref<Buffer> visit_buffer(const Ref<Buffer>& x) override { return x.get() == from ? to : x; }
  } m;
  m.from = buf.get();
  m.to = moved;
  func_ = with_body(func_, m.visit_stmt(func_->body));
}

}  // namespace relax::tir
