// hoist_invariant_index_arithmetic (kernel/gpu_lower.h): loop-invariant code motion of the
// integer divisions a kernel's index arithmetic repeats in its loops.
//
// With symbolic shapes a kernel's indices divide by run-time values (a fused loop split into
// (n, h, w) divides by h * w and w); the reduction loop of a convolution repeats those
// divisions at every step although they depend only on the thread's position. A device
// compiler cannot always move them out itself: its integer division is guarded against a
// zero divisor, and a guarded division inside a conditional is not safe to speculate. Here
// the loops are processed outermost first: each serial loop's body gives up its maximal
// integer subexpressions that divide by a non-constant and read only variables defined
// outside the loop, one LetStmt per distinct expression before the loop; what still depends
// on the loop's own variable stays for the loops inside it to consider.
#include <unordered_map>
#include <unordered_set>

#include "relax/ir/structural_equal.h"
#include "relax/kernel/gpu_lower.h"
#include "relax/tir/stmt_functor.h"

namespace relax::tir {
namespace {

/// The variables a statement defines: loop variables, let variables (statement and
/// expression), allocations.
std::unordered_set<const Var*> defined_in(const Stmt& s) {
  struct Collector : StmtExprVisitor {
    std::unordered_set<const Var*> vars;
    using StmtExprVisitor::visit_;
    void visit_(const For* op) override {
      vars.insert(op->loop_var.get());
      StmtExprVisitor::visit_(op);
    }
    void visit_(const LetStmt* op) override {
      vars.insert(op->var.get());
      StmtExprVisitor::visit_(op);
    }
    void visit_(const Allocate* op) override {
      vars.insert(op->buffer_var.get());
      StmtExprVisitor::visit_(op);
    }
    void visit_(const Let* op) override {
      vars.insert(op->var.get());
      StmtExprVisitor::visit_(op);
    }
  } c;
  c.visit_stmt(s);
  return std::move(c.vars);
}

bool is_division(const PrimExpr& e) {
  return e.is<Div>() || e.is<Mod>() || e.is<FloorDiv>() || e.is<FloorMod>();
}

/// Replaces, in the expressions of a loop's body, each maximal hoistable subexpression by a
/// variable; `hoisted` lists the (variable, expression) pairs in order of first use.
class Extractor : public StmtExprMutator {
 public:
  Extractor(std::unordered_set<const Var*> inside, int* counter)
      : inside_(std::move(inside)), counter_(counter) {}

  std::vector<std::pair<Ref<Var>, PrimExpr>> hoisted;

  using StmtExprMutator::visit_;
  PrimExpr visit_expr(const PrimExpr& e) override {
    if (hoistable(e)) return variable_for(e);
    return StmtExprMutator::visit_expr(e);
  }

 private:
  struct Facts {
    bool invariant = true;  // integer/bool arithmetic over variables defined outside the loop
    bool divides = false;   // contains a division by a non-constant
  };

  /// What `e` is made of (memoised per node).
  Facts facts(const PrimExpr& e) {
    auto it = memo_.find(e.get());
    if (it != memo_.end()) return it->second;
    Facts f;
    const DataType t = e->dtype;
    if (t.lanes != 1 || !(t.is_int() || t.is_uint() || t.is_bool())) {
      f.invariant = false;
    } else if (auto* v = e.as<Var>()) {
      f.invariant = !inside_.count(v);
    } else if (e.is<IntImm>()) {
    } else if (auto* b = e.as<BinaryOp>()) {
      Facts fa = facts(b->a), fb = facts(b->b);
      f.invariant = fa.invariant && fb.invariant;
      f.divides = fa.divides || fb.divides || (is_division(e) && !b->b.is<IntImm>());
    } else if (auto* x = e.as<Not>()) {
      f = facts(x->a);
    } else if (auto* c = e.as<Cast>()) {
      f = facts(c->value);
    } else if (auto* s = e.as<Select>()) {
      Facts fc = facts(s->condition), ft = facts(s->true_value), ff = facts(s->false_value);
      f.invariant = fc.invariant && ft.invariant && ff.invariant;
      f.divides = fc.divides || ft.divides || ff.divides;
    } else {
      f.invariant = false;  // loads, calls, lets, floats
    }
    memo_.emplace(e.get(), f);
    return f;
  }

  bool hoistable(const PrimExpr& e) {
    Facts f = facts(e);
    return f.invariant && f.divides;
  }

  PrimExpr variable_for(const PrimExpr& e) {
    size_t h = structural_hash(e, /*map_free_vars=*/false);
    for (size_t i : by_hash_[h])
      if (structural_equal(hoisted[i].second, e, /*map_free_vars=*/false)) return hoisted[i].first;
    auto var = make_ref<Var>("inv" + std::to_string((*counter_)++), e->dtype);
    by_hash_[h].push_back(hoisted.size());
    hoisted.emplace_back(var, e);
    return var;
  }

  const std::unordered_set<const Var*> inside_;
  int* counter_;
  std::unordered_map<const PrimExprNode*, Facts> memo_;
  std::unordered_map<size_t, std::vector<size_t>> by_hash_;
};

class Hoister : public StmtMutator {
 public:
  using StmtMutator::visit_;
  Stmt visit_(const For* op) override {
    if (op->kind != ForKind::kSerial && op->kind != ForKind::kUnrolled)
      return StmtMutator::visit_(op);
    Stmt loop(op);
    Extractor ex(defined_in(loop), &counter_);
    Stmt body = ex.visit_stmt(op->body);
    body = visit_stmt(body);  // the loops inside, on what is left
    Stmt out = body.same_as(op->body)
                   ? loop
                   : Stmt(make_ref<For>(op->loop_var, op->min, op->extent, op->kind, body,
                                        op->thread_tag, op->annotations));
    for (size_t i = ex.hoisted.size(); i-- > 0;)
      out = make_ref<LetStmt>(ex.hoisted[i].first, ex.hoisted[i].second, out);
    return out;
  }

 private:
  int counter_ = 0;
};

}  // namespace

Ref<PrimFunc> hoist_invariant_index_arithmetic(const Ref<PrimFunc>& func) {
  Stmt body = Hoister().visit_stmt(func->body);
  return body.same_as(func->body) ? func : with_body(func, body);
}

}  // namespace relax::tir
