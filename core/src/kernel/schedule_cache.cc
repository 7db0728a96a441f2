// Caches: cache_read and cache_write (tir/schedule.h).
//
// Each adds a buffer in another storage scope, allocated by the root block, and a copy block
// over the whole buffer next to the block's loop nest (before it for a read, after it for a
// write); the block's accesses (and regions) move to the copy. Expects the block directly
// under the root block (through loops); a function without a root block gets one. Guarantees
// the same values reach the block (read) or the buffer (write).
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

}  // namespace

BlockRV Schedule::cache_read(const BlockRV& block, int read_index, const std::string& scope) {
  constexpr const char* kPrim = "cache_read";
  Ref<PrimFunc> func = sched::ensure_root_block(func_);
  BlockLoc loc = find_block(func->body, block.name, kPrim);
  const Ref<Block>& b = loc.realize->block;
  RX_CHECK(read_index >= 0 && size_t(read_index) < b->reads.size())
      << kPrim << ": block " << b->name << " has " << b->reads.size() << " read regions; "
      << read_index << " is out of range";
  RX_CHECK(is_valid_storage_scope(scope))
      << kPrim << ": '" << scope << "' is not a storage scope (global, shared, local)";
  const Ref<Buffer>& buf = b->reads[size_t(read_index)].buffer;
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
  RX_CHECK(write_index >= 0 && size_t(write_index) < b->writes.size())
      << kPrim << ": block " << b->name << " has " << b->writes.size() << " write regions; "
      << write_index << " is out of range";
  RX_CHECK(is_valid_storage_scope(scope))
      << kPrim << ": '" << scope << "' is not a storage scope (global, shared, local)";
  const Ref<Buffer>& buf = b->writes[size_t(write_index)].buffer;
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

}  // namespace relax::tir
