// infer_block_regions (relax/kernel/block_regions.h): the read/write regions of a block body.
#include "relax/kernel/block_regions.h"

#include <unordered_set>

#include "relax/ir/structural_equal.h"
#include "relax/tir/stmt_functor.h"

namespace relax::tir {

namespace {


class RegionCollector : public StmtVisitor {
 public:
  struct Access {
    Ref<Buffer> buffer;
    std::vector<PrimExpr> indices;
    bool mixed = false;
    std::vector<bool> full;
  };
  std::vector<Access> reads, writes;
  std::unordered_set<const Buffer*> skip;

  void visit_expr(const PrimExpr& e) override {
    struct Loads : ExprVisitor {
      RegionCollector* self;
      using ExprVisitor::visit_;
      void visit_(const BufferLoad* op) override {
        self->record(self->reads, op->buffer, op->indices);
        ExprVisitor::visit_(op);
      }
    } loads;
    loads.self = this;
    loads.visit_expr(e);
  }
  using StmtVisitor::visit_;
  void visit_(const BufferStore* op) override {
    record(writes, op->buffer, op->indices);
    StmtVisitor::visit_(op);
  }
  void visit_(const BlockRealize*) override {}
  // Variables defined inside the block: an index using one covers the whole dimension, and a
  // buffer over memory allocated inside is local to the body.
  void visit_(const For* op) override {
    inner.insert(op->loop_var.get());
    StmtVisitor::visit_(op);
  }
  void visit_(const LetStmt* op) override {
    inner.insert(op->var.get());
    StmtVisitor::visit_(op);
  }
  void visit_(const Allocate* op) override {
    inner.insert(op->buffer_var.get());
    StmtVisitor::visit_(op);
  }
  std::unordered_set<const Var*> inner;

  bool uses_inner(const PrimExpr& e) const {
    bool found = false;
    struct V : ExprVisitor {
      const std::unordered_set<const Var*>* inner;
      bool* found;
      using ExprVisitor::visit_;
      void visit_(const Var* v) override { *found |= inner->count(v) != 0; }
      void visit_(const Let* op) override {
        *found = true;  // let-bound names exist only inside the expression
        ExprVisitor::visit_(op);
      }
    } v;
    v.inner = &inner;
    v.found = &found;
    v.visit_expr(e);
    return found;
  }

  void record(std::vector<Access>& list, const Ref<Buffer>& b,
              const std::vector<PrimExpr>& indices) {
    if (skip.count(b.get()) || inner.count(b->data.get())) return;
    for (auto& a : list) {
      if (!a.buffer.same_as(b)) continue;
      for (size_t d = 0; d < a.indices.size() && d < indices.size(); ++d)
        if (!a.full[d] &&
            (uses_inner(indices[d]) || !structural_equal(a.indices[d], indices[d], false)))
          a.full[d] = true;
      return;
    }
    Access a{b, indices, false, std::vector<bool>(indices.size(), false)};
    for (size_t d = 0; d < indices.size(); ++d)
      if (indices[d]->dtype.lanes != 1 || uses_inner(indices[d])) a.full[d] = true;
    list.push_back(std::move(a));
  }

  static std::vector<BufferRegion> regions(const std::vector<Access>& list) {
    std::vector<BufferRegion> out;
    for (const auto& a : list) {
      BufferRegion r{a.buffer, {}};
      for (size_t d = 0; d < a.indices.size() && d < a.buffer->shape.size(); ++d) {
        if (a.full[d]) {
          const PrimExpr& ext = a.buffer->shape[d];
          r.region.push_back(Range::from_min_extent(int_imm(0, ext->dtype), ext));
        } else {
          r.region.push_back(Range::point(a.indices[d]));
        }
      }
      out.push_back(std::move(r));
    }
    return out;
  }
};

}  // namespace

void infer_block_regions(const Stmt& body, const tir::Stmt& init,
                         const std::vector<Ref<tir::Buffer>>& allocated,
                         std::vector<tir::BufferRegion>* reads,
                         std::vector<tir::BufferRegion>* writes) {
  RegionCollector c;
  for (const auto& b : allocated) c.skip.insert(b.get());
  if (init.defined()) c.visit_stmt(init);
  c.reads.clear();  // the init only writes what the body writes
  if (body.defined()) c.visit_stmt(body);
  *reads = RegionCollector::regions(c.reads);
  *writes = RegionCollector::regions(c.writes);
}

}  // namespace relax::tir
