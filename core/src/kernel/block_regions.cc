// infer_block_regions and relax_region (relax/kernel/block_regions.h): the regions a block
// body reads and writes, and their bounds while some loops run.
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

// ---- relax_range / relax_region

namespace relax::tir {

namespace {

/// Inclusive bounds [lo, hi] of an expression; undefined ends mean "not bounded".
struct Interval {
  PrimExpr lo, hi;
  bool bounded() const { return lo.defined() && hi.defined(); }
};

class IntervalEval {
 public:
  IntervalEval(const RelaxDomain& dom, arith::Analyzer* ana) : dom_(dom), ana_(ana) {}

  Interval eval(const PrimExpr& e) {
    if (!mentions_dom(e)) return {e, e};
    if (auto* v = e.as<Var>()) {
      const Range& r = dom_.at(v);
      return {r.min, r.min + r.extent - int_imm(1, r.extent->dtype)};
    }
    if (auto* op = e.as<Add>()) return both(op, [](auto a, auto b) { return a + b; });
    if (auto* op = e.as<Sub>()) {
      Interval a = eval(op->a), b = eval(op->b);
      if (!a.bounded() || !b.bounded()) return {};
      return {a.lo - b.hi, a.hi - b.lo};
    }
    if (auto* op = e.as<Mul>()) {
      if (const int64_t* c = as_const_int(op->b)) return scale(eval(op->a), *c, op->b);
      if (const int64_t* c = as_const_int(op->a)) return scale(eval(op->b), *c, op->a);
      return {};
    }
    if (auto* op = e.as<FloorDiv>()) {
      const int64_t* c = as_const_int(op->b);
      Interval a = eval(op->a);
      if (!c || *c <= 0 || !a.bounded()) return {};
      return {floordiv(a.lo, op->b), floordiv(a.hi, op->b)};
    }
    if (auto* op = e.as<FloorMod>()) {
      const int64_t* c = as_const_int(op->b);
      Interval a = eval(op->a);
      if (!c || *c <= 0) return {};
      // Within one period the remainder is monotone; otherwise it covers [0, c).
      if (a.bounded() && ana_->can_prove(eq(floordiv(a.lo, op->b), floordiv(a.hi, op->b))))
        return {floormod(a.lo, op->b), floormod(a.hi, op->b)};
      return {int_imm(0, e->dtype), int_imm(*c - 1, e->dtype)};
    }
    if (auto* op = e.as<Min>()) return both(op, [](auto a, auto b) { return min(a, b); });
    if (auto* op = e.as<Max>()) return both(op, [](auto a, auto b) { return max(a, b); });
    return {};
  }

 private:
  bool mentions_dom(const PrimExpr& e) const {
    bool found = false;
    struct V : ExprVisitor {
      const RelaxDomain* dom;
      bool* found;
      using ExprVisitor::visit_;
      void visit_(const Var* v) override { *found |= dom->count(v) != 0; }
    } v;
    v.dom = &dom_;
    v.found = &found;
    v.visit_expr(e);
    return found;
  }
  template <class Op, class F>
  Interval both(const Op* op, F f) {
    Interval a = eval(op->a), b = eval(op->b);
    if (!a.bounded() || !b.bounded()) return {};
    return {f(a.lo, b.lo), f(a.hi, b.hi)};
  }
  static Interval scale(const Interval& a, int64_t c, const PrimExpr& ce) {
    if (!a.bounded()) return {};
    return c >= 0 ? Interval{a.lo * ce, a.hi * ce} : Interval{a.hi * ce, a.lo * ce};
  }

  const RelaxDomain& dom_;
  arith::Analyzer* ana_;
};

}  // namespace

std::optional<Range> relax_range(const PrimExpr& e, const RelaxDomain& dom, arith::Analyzer* ana) {
  IntervalEval ev(dom, ana);
  Interval iv = ev.eval(ana->simplify(e));
  if (!iv.bounded()) return std::nullopt;
  PrimExpr lo = ana->simplify(iv.lo);
  PrimExpr extent = ana->simplify(iv.hi - lo + int_imm(1, lo->dtype));
  return Range::from_min_extent(lo, extent);
}

std::vector<Range> relax_region(const BufferRegion& region, const RelaxDomain& dom,
                                arith::Analyzer* ana) {
  std::vector<Range> out;
  for (size_t d = 0; d < region.region.size(); ++d) {
    const Range& r = region.region[d];
    PrimExpr last = r.min + r.extent - int_imm(1, r.extent->dtype);
    auto lo = relax_range(r.min, dom, ana);
    auto hi = relax_range(last, dom, ana);
    if (lo && hi) {
      PrimExpr end = ana->simplify(hi->min + hi->extent);
      out.push_back(Range::from_min_extent(lo->min, ana->simplify(end - lo->min)));
    } else {
      const PrimExpr& ext = region.buffer->shape[d];
      out.push_back(Range::from_min_extent(int_imm(0, ext->dtype), ext));
    }
  }
  return out;
}

Range union_range(const Range& a, const Range& b, arith::Analyzer* ana) {
  PrimExpr lo = ana->simplify(min(a.min, b.min));
  PrimExpr end = ana->simplify(max(a.min + a.extent, b.min + b.extent));
  return Range::from_min_extent(lo, ana->simplify(end - lo));
}

}  // namespace relax::tir
