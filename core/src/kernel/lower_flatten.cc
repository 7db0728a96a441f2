// flatten_buffers: n-dimensional accesses to 1-D accesses (tir/lower.h).
//
// Expects no blocks (run lower_blocks first). Guarantees every buffer the body accesses is
// 1-D, compact, with element offset 0, over the data variable of the original buffer: the
// access buffer[i0, ..., ik] becomes flat[flat_offset(buffer, [i0, ..., ik])], so strides and
// element offsets are folded into the index. Allocate extents become one element count. The
// buffer_map keeps the parameters' n-dimensional buffers (the calling convention).
#include <unordered_map>

#include "relax/support/diagnostic.h"
#include "relax/kernel/lower.h"
#include "relax/tir/stmt_functor.h"

namespace relax::tir {

namespace {

bool is_flat(const Buffer& b) {
  return b.ndim() == 1 && b.strides.empty() && is_const_int(b.elem_offset, 0);
}

PrimExpr product(const std::vector<PrimExpr>& dims) {
  if (dims.empty()) return int_imm(1);
  PrimExpr p = dims[0];
  for (size_t i = 1; i < dims.size(); ++i) p = p * dims[i];
  return p;
}

class Flattener : public StmtExprMutator {
 public:
  using StmtExprMutator::visit_;

  PrimExpr visit_(const BufferLoad* op) override {
    std::vector<PrimExpr> idx;
    bool changed = mutate_all(op->indices, &idx);
    if (is_flat(*op->buffer)) {
      if (!changed) return PrimExpr(op);
      return make_ref<BufferLoad>(op->dtype, op->buffer, std::move(idx));
    }
    return make_ref<BufferLoad>(op->dtype, flat(op->buffer), flat_indices(*op->buffer, idx));
  }

  Stmt visit_(const BufferStore* op) override {
    std::vector<PrimExpr> idx;
    bool changed = mutate_exprs(op->indices, &idx);
    PrimExpr value = visit_expr(op->value);
    if (is_flat(*op->buffer)) {
      if (!changed && value.same_as(op->value)) return Stmt(op);
      return make_ref<BufferStore>(op->buffer, std::move(value), std::move(idx));
    }
    return make_ref<BufferStore>(flat(op->buffer), std::move(value),
                                 flat_indices(*op->buffer, idx));
  }

  Stmt visit_(const Allocate* op) override {
    Stmt body = visit_stmt(op->body);
    if (op->extents.size() == 1 && body.same_as(op->body)) return Stmt(op);
    return make_ref<Allocate>(op->buffer_var, op->dtype,
                              std::vector<PrimExpr>{product(op->extents)}, op->scope,
                              std::move(body), op->annotations);
  }

  Stmt visit_(const Block* op) override {
    RX_ICHECK(false) << "flatten_buffers: block " << op->name << " is left; run lower_blocks first";
    return Stmt(op);
  }
  Stmt visit_(const BlockRealize* op) override {
    RX_ICHECK(false) << "flatten_buffers: block " << op->block->name
                     << " is left; run lower_blocks first";
    return Stmt(op);
  }

 private:
  /// The 1-D buffer over `b`'s memory; one per buffer, so every access of it shares it.
  Ref<Buffer> flat(const Ref<Buffer>& b) {
    auto it = flat_.find(b.get());
    if (it != flat_.end()) return it->second;
    PrimExpr extent;
    if (b->strides.empty() && is_const_int(b->elem_offset, 0)) {
      extent = product(b->shape);
    } else {
      // One past the last element reachable through the strides and offset.
      std::vector<PrimExpr> last;
      for (const auto& d : b->shape) last.push_back(d - 1);
      extent = flat_offset(*b, last) + 1;
    }
    Ref<Buffer> f =
        make_buffer(b->data, b->dtype, {extent}, b->name, {}, int_imm(0, extent->dtype), b->scope);
    flat_.emplace(b.get(), f);
    keep_.push_back(b);
    return f;
  }

  /// The flat index of buffer[idx]; a Ramp in one dimension becomes a Ramp over the flat index.
  std::vector<PrimExpr> flat_indices(const Buffer& b, std::vector<PrimExpr> idx) {
    for (size_t d = 0; d < idx.size(); ++d) {
      if (auto* ramp = idx[d].as<Ramp>()) {
        std::vector<PrimExpr> strides = effective_strides(b);
        PrimExpr stride = ramp->stride * strides[d];
        int lanes = ramp->lanes;
        idx[d] = ramp->base;
        return {make_ref<Ramp>(flat_offset(b, idx), stride, lanes)};
      }
    }
    return {flat_offset(b, idx)};
  }

  std::unordered_map<const Buffer*, Ref<Buffer>> flat_;
  std::vector<Ref<Buffer>> keep_;  // keeps the keys of flat_ alive
};

}  // namespace

Ref<PrimFunc> flatten_buffers(const Ref<PrimFunc>& func) {
  Flattener flattener;
  return with_body(func, flattener(func->body));
}

}  // namespace relax::tir
