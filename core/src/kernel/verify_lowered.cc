// verify_lowered: checks that a PrimFunc is in the lowered form (tir/lower.h).
//
// Definitions: parameters; variables that are a whole dimension (or stride, or offset) of a
// parameter buffer, at their first such occurrence; loop, let and Let variables; Allocate data
// variables. Everything else that is used must be one of these, defined once. Bounds: an access
// whose index range, computed from the enclosing loops' ranges, is finite and leaves
// [0, extent) of a constant extent is reported, unless a condition (IfThenElse, if_then_else)
// guards it: guards are how padding reads stay in bounds, and their facts are not tracked.
// Only provable problems are reported: the interval range is attained only by an index affine
// in distinct variables (each at most once, no division), so an index of another form (fused
// or split loops give floordiv/floormod, whose interval bounds are loose) is reported only when
// every iteration leaves [0, extent).
#include <sstream>
#include <unordered_set>

#include "relax/arith/analyzer.h"
#include "relax/kernel/lower.h"
#include "relax/tir/stmt_functor.h"

namespace relax::tir {

namespace {

/// True when `e` is an integer affine combination of variables, each appearing once
/// (tracked in `seen`), with constant coefficients: its interval bounds are then attained.
bool exact_affine(const PrimExpr& e, std::unordered_set<const Var*>& seen) {
  if (e.as<IntImm>()) return true;
  if (auto* v = e.as<Var>()) return seen.insert(v).second;
  if (auto* a = e.as<Add>()) return exact_affine(a->a, seen) && exact_affine(a->b, seen);
  if (auto* a = e.as<Sub>()) return exact_affine(a->a, seen) && exact_affine(a->b, seen);
  if (auto* m = e.as<Mul>()) {
    if (m->b.as<IntImm>()) return exact_affine(m->a, seen);
    if (m->a.as<IntImm>()) return exact_affine(m->b, seen);
  }
  return false;
}

class Verifier : public StmtExprVisitor {
 public:
  std::vector<std::string> errors;

  void run(const Ref<PrimFunc>& func) {
    for (const auto& p : func->params) define(p.get());
    for (const auto& p : func->params)
      if (p->dtype.is_handle()) memory_.insert(p.get());
    // Whole-dimension variables of the parameter buffers are defined there (first occurrence).
    for (const auto& [param, buffer] : func->buffer_map) {
      auto def_dim = [&](const PrimExpr& d) {
        if (auto* v = d.as<Var>(); v && !defined_.count(v)) {
          define(v);
          if (v->dtype.is_int()) analyzer_.assume_nonnegative(Ref<Var>(v));
        }
      };
      for (const auto& d : buffer->shape) def_dim(d);
      for (const auto& d : buffer->strides) def_dim(d);
      def_dim(buffer->elem_offset);
    }
    for (const auto& [param, buffer] : func->buffer_map) {
      for (const auto& d : buffer->shape) visit_expr(d);
      for (const auto& d : buffer->strides) visit_expr(d);
      visit_expr(buffer->elem_offset);
    }
    visit_stmt(func->body);
  }

  using StmtExprVisitor::visit_;

  void visit_(const Var* op) override {
    if (!defined_.count(op) && reported_.insert(op).second)
      errors.push_back("variable " + op->name + " is used but not defined");
  }
  void visit_(const Let* op) override {
    visit_expr(op->value);
    define(op->var.get());
    visit_expr(op->body);
  }
  void visit_(const Call* op) override {
    if (op->op != Intrinsic::kIfThenElse) return StmtExprVisitor::visit_(op);
    visit_expr(op->args[0]);
    ++guards_;
    visit_expr(op->args[1]);
    visit_expr(op->args[2]);
    --guards_;
  }
  void visit_(const BufferLoad* op) override {
    StmtExprVisitor::visit_(op);
    check_access(*op->buffer, op->indices, "load from");
  }

  void visit_(const LetStmt* op) override {
    visit_expr(op->value);
    define(op->var.get());
    visit_stmt(op->body);
  }
  void visit_(const For* op) override {
    visit_expr(op->min);
    visit_expr(op->extent);
    define(op->loop_var.get());
    analyzer_.bind_range(op->loop_var, op->min, op->extent);
    visit_stmt(op->body);
  }
  void visit_(const IfThenElse* op) override {
    visit_expr(op->condition);
    ++guards_;
    visit_stmt(op->then_case);
    if (op->else_case.defined()) visit_stmt(op->else_case);
    --guards_;
  }
  void visit_(const Allocate* op) override {
    for (const auto& e : op->extents) visit_expr(e);
    if (op->extents.size() != 1)
      errors.push_back("Allocate of " + op->buffer_var->name + " has " +
                       std::to_string(op->extents.size()) +
                       " extents; a lowered Allocate has one (run flatten_buffers)");
    define(op->buffer_var.get());
    memory_.insert(op->buffer_var.get());
    visit_stmt(op->body);
  }
  void visit_(const BufferStore* op) override {
    StmtExprVisitor::visit_(op);
    check_access(*op->buffer, op->indices, "store to");
  }
  void visit_(const Block* op) override {
    errors.push_back("block " + op->name + " is left (run lower_blocks)");
  }
  void visit_(const BlockRealize* op) override {
    errors.push_back("block " + op->block->name + " is left (run lower_blocks)");
  }
  void visit_buffer(const Ref<Buffer>& b) override {
    if (!checked_buffers_.insert(b.get()).second) return;
    for (const auto& d : b->shape) visit_expr(d);
    if (!(b->ndim() == 1 && b->strides.empty() && is_const_int(b->elem_offset, 0)))
      errors.push_back("buffer " + to_string(b) + " is not flat (run flatten_buffers)");
    if (!memory_.count(b->data.get()))
      errors.push_back("buffer " + b->name + " accesses " + b->data->name +
                       ", which is neither a parameter nor allocated here");
  }

 private:
  void define(const Var* v) {
    if (!defined_.insert(v).second) errors.push_back("variable " + v->name + " is defined twice");
  }

  void check_access(const Buffer& b, const std::vector<PrimExpr>& indices, const char* what) {
    if (guards_ > 0 || b.ndim() != 1 || indices.size() != 1) return;
    const int64_t* extent = as_const_int(b.shape[0]);
    if (extent == nullptr) return;
    PrimExpr first = indices[0], last = indices[0];
    const Ramp* ramp = indices[0].as<Ramp>();
    if (ramp) {
      first = ramp->base;
      last = ramp->base + ramp->stride * int64_t(ramp->lanes - 1);
    }
    std::unordered_set<const Var*> seen;
    bool exact =
        exact_affine(ramp ? ramp->base : indices[0], seen) && (!ramp || ramp->stride.as<IntImm>());
    if (!exact && !analyzer_.can_prove_less(first, 0) && !analyzer_.can_prove_less(last, 0) &&
        !analyzer_.can_prove_greater_equal(first, *extent) &&
        !analyzer_.can_prove_greater_equal(last, *extent))
      return;
    arith::ConstIntBound lo = analyzer_.const_int_bound(first),
                         hi = analyzer_.const_int_bound(last);
    int64_t min = std::min(lo.min_value, hi.min_value), max = std::max(lo.max_value, hi.max_value);
    if (min == arith::ConstIntBound::kNegInf || max == arith::ConstIntBound::kPosInf) return;
    if (min < 0 || max >= *extent) {
      std::ostringstream os;
      os << what << " " << b.name << " at " << to_string(indices[0]) << " reaches [" << min << ", "
         << max << "], out of bounds of its extent " << *extent;
      errors.push_back(os.str());
    }
  }

  std::unordered_set<const Var*> defined_, reported_, memory_;
  std::unordered_set<const Buffer*> checked_buffers_;
  arith::Analyzer analyzer_;
  int guards_ = 0;
};

}  // namespace

std::vector<std::string> verify_lowered(const Ref<PrimFunc>& func) {
  Verifier v;
  v.run(func);
  return v.errors;
}

}  // namespace relax::tir
