// lower_blocks: Blocks to plain statements (tir/lower.h).
//
// Expects any PrimFunc. Guarantees no Block or BlockRealize is left: each block's body (and
// init, guarded by "every reduce variable at the start of its domain") is inlined where its
// BlockRealize stood, with iteration variables replaced by their bound values, under the
// predicate, inside Allocates for its alloc_buffers. Loops are untouched.
#include <unordered_map>

#include "relax/support/diagnostic.h"
#include "relax/kernel/lower.h"
#include "relax/tir/stmt_functor.h"

namespace relax::tir {

namespace {

/// Rewrites accesses of a match_buffer into accesses of its source at the region's offset.
class MatchBufferRewriter : public StmtExprMutator {
 public:
  MatchBufferRewriter(const MatchBufferRegion& m,
                      std::unordered_map<const Var*, PrimExpr> shape_vars)
      : m_(m), shape_vars_(std::move(shape_vars)) {}

  using StmtExprMutator::visit_;
  PrimExpr visit_(const Var* op) override {
    auto it = shape_vars_.find(op);
    return it == shape_vars_.end() ? PrimExpr(op) : it->second;
  }
  PrimExpr visit_(const BufferLoad* op) override {
    if (!op->buffer.same_as(m_.buffer)) return StmtExprMutator::visit_(op);
    std::vector<PrimExpr> idx;
    mutate_all(op->indices, &idx);  // fills idx whether or not anything changed
    return buffer_load(m_.source.buffer, shift(idx));
  }
  Stmt visit_(const BufferStore* op) override {
    if (!op->buffer.same_as(m_.buffer)) return StmtExprMutator::visit_(op);
    std::vector<PrimExpr> idx;
    mutate_exprs(op->indices, &idx);
    return buffer_store(m_.source.buffer, visit_expr(op->value), shift(idx));
  }

 private:
  std::vector<PrimExpr> shift(const std::vector<PrimExpr>& idx) {
    std::vector<PrimExpr> out;
    for (size_t d = 0; d < idx.size(); ++d) {
      const PrimExpr& min = m_.source.region[d].min;
      out.push_back(is_const_int(min, 0) ? idx[d] : idx[d] + cast(idx[d]->dtype, min));
    }
    return out;
  }
  const MatchBufferRegion& m_;
  std::unordered_map<const Var*, PrimExpr> shape_vars_;
};

Stmt rewrite_match_buffer(const MatchBufferRegion& m, const Stmt& s) {
  if (!s.defined()) return s;
  RX_CHECK(m.buffer->ndim() == m.source.region.size())
      << "lower_blocks: match_buffer " << m.buffer->name << " has " << m.buffer->ndim()
      << " dimensions but its source region of " << m.source.buffer->name << " has "
      << m.source.region.size() << "; only same-rank match_buffers are supported";
  RX_CHECK(m.buffer->strides.empty()) << "lower_blocks: match_buffer " << m.buffer->name
                                      << " with explicit strides is not supported";
  // Symbolic dimensions of the matched buffer take the region's extents.
  std::unordered_map<const Var*, PrimExpr> shape_vars;
  for (size_t d = 0; d < m.buffer->ndim(); ++d)
    if (auto* v = m.buffer->shape[d].as<Var>()) shape_vars.emplace(v, m.source.region[d].extent);
  MatchBufferRewriter rewriter(m, std::move(shape_vars));
  return rewriter(s);
}

class BlockLowerer : public StmtMutator {
 public:
  using StmtMutator::visit_;

  Stmt visit_(const BlockRealize* op) override {
    return lower(op->iter_values, op->predicate, *op->block);
  }
  Stmt visit_(const Block* op) override {
    RX_CHECK(op->iter_vars.empty()) << "lower_blocks: block " << op->name
                                    << " has iteration variables but no BlockRealize binding them";
    return lower({}, bool_imm(true), *op);
  }

 private:
  Stmt lower(const std::vector<PrimExpr>& values, const PrimExpr& predicate, const Block& block) {
    Stmt body = visit_stmt(block.body);
    Stmt init = block.init.defined() ? visit_stmt(block.init) : Stmt();
    for (const auto& m : block.match_buffers) {
      body = rewrite_match_buffer(m, body);
      init = rewrite_match_buffer(m, init);
    }
    std::unordered_map<Ref<Var>, PrimExpr> vmap;
    PrimExpr at_start = bool_imm(true);
    for (size_t i = 0; i < block.iter_vars.size(); ++i) {
      const auto& iv = block.iter_vars[i];
      vmap.emplace(iv->var, values[i]);
      if (iv->type == IterVarType::kReduce)
        at_start = logical_and(at_start, eq(values[i], iv->dom.min));
    }
    if (!vmap.empty()) {
      body = substitute(body, vmap);
      if (init.defined()) init = substitute(init, vmap);
    }
    Stmt s = body;
    if (init.defined()) {
      Stmt guarded = is_const_int(at_start, 1) ? init : Stmt(make_ref<IfThenElse>(at_start, init));
      s = seq_stmt({guarded, body});
    }
    if (!is_const_int(predicate, 1)) s = make_ref<IfThenElse>(predicate, s);
    for (size_t i = block.alloc_buffers.size(); i-- > 0;) {
      const auto& b = block.alloc_buffers[i];
      s = make_ref<Allocate>(b->data, b->dtype, b->shape, b->scope, s);
    }
    return s;
  }
};

}  // namespace

Ref<PrimFunc> lower_blocks(const Ref<PrimFunc>& func) {
  BlockLowerer lowerer;
  return with_body(func, lowerer(func->body));
}

}  // namespace relax::tir
