// Vectorized loops: `for i in vectorized(min, N)` with a constant N becomes straight-line vector
// code over N lanes, the way TVM's VectorizeLoop pass does it, as a rewrite of the TIR that the
// codegen's vector support (Ramp, Broadcast, vector loads and stores, masks) then emits.
//
// The rewrite replaces i by Ramp(min, 1, N) and widens every expression that depends on it;
// operands that do not (uniform ones) are broadcast where they meet a vector. Index arithmetic
// keeps Ramps folded (Ramp + x -> Ramp(base + x), Ramp * c -> Ramp(base * c, stride * c)) so
// that `base + i` accesses stay contiguous vector loads and stores; other indices gather and
// scatter. An IfThenElse (or if_then_else) whose condition depends on i becomes a mask (its
// conjuncts that do not depend on i stay a scalar branch around it)
// (codegen_llvm.h; the widened IfThenElse keeps a `true` condition, as TIR conditions are
// scalars, and WidenedLoop::masks maps it to its vector condition): a split whose factor does not
// divide the extent gives exactly that guard, and the tail's lanes then read and write nothing past
// it.
//
// Widening must not change what the loop computes, so the rewrite refuses (and the loop stays
// a scalar loop with a vectorize hint for LLVM) when:
//  - the body holds a loop, an allocation, an assert, an Evaluate or an extern call;
//  - a store's index does not depend on i (every lane would write one element: a reduction),
//    or the store is of bool;
//  - a buffer that the body stores is read or stored at any index other than the one of its
//    (single) store index: then an iteration could read what an earlier one wrote;
//  - a Ramp or Broadcast is already in the body, or a let binds a handle.
#include <unordered_map>

#include "codegen_llvm.h"
#include "relax/ir/structural_equal.h"
#include "relax/support/diagnostic.h"

namespace relax::llvm_backend {

using namespace relax::tir;  // NOLINT
using tir::Call;             // not relax::Call
using tir::Var;              // not relax::Var

namespace {

bool is_vector(const PrimExpr& e) { return e->dtype.lanes > 1; }

class Vectorizer : public ExprMutator {
 public:
  Vectorizer(const For& loop, int lanes) : loop_var_(loop.loop_var.get()), lanes_(lanes) {
    ramp_ = make_ref<Ramp>(loop.min, int_imm(1, loop.min->dtype), lanes);
  }

  /// The widened body (null when it cannot be widened) and its vector conditions.
  WidenedLoop run(const Stmt& body) {
    Stmt s = widen(body);
    if (failed_ || !s.defined()) return {};
    return {s, std::move(masks_)};
  }

  using ExprMutator::visit_;

  PrimExpr visit_(const Var* op) override {
    if (op == loop_var_) return ramp_;
    if (auto it = lets_.find(op); it != lets_.end()) return it->second;
    return PrimExpr(op);
  }

#define RELAX_X(Name, Symbol)                              \
  PrimExpr visit_(const Name* op) override {               \
    PrimExpr a = visit_expr(op->a), b = visit_expr(op->b); \
    return binary<Name>(op, std::move(a), std::move(b));   \
  }
  RELAX_PRIM_EXPR_BINARY_NODES(RELAX_X)
#undef RELAX_X

  PrimExpr visit_(const Not* op) override {
    PrimExpr a = visit_expr(op->a);
    return a.same_as(op->a) ? PrimExpr(op) : PrimExpr(make_ref<Not>(std::move(a)));
  }

  PrimExpr visit_(const Select* op) override {
    PrimExpr c = visit_expr(op->condition);
    PrimExpr t = visit_expr(op->true_value), f = visit_expr(op->false_value);
    if (!is_vector(c) && !is_vector(t) && !is_vector(f)) return ExprMutator::visit_(op);
    return make_ref<Select>(std::move(c), widen(t), widen(f));
  }

  PrimExpr visit_(const Cast* op) override {
    PrimExpr v = visit_expr(op->value);
    if (!is_vector(v))
      return v.same_as(op->value) ? PrimExpr(op) : PrimExpr(make_ref<Cast>(op->dtype, v));
    return make_ref<Cast>(op->dtype.with_lanes(lanes_), std::move(v));
  }

  PrimExpr visit_(const Let* op) override {
    PrimExpr v = visit_expr(op->value);
    Ref<Var> var = bind(op->var, v);
    PrimExpr body = visit_expr(op->body);
    lets_.erase(op->var.get());
    if (var.same_as(op->var) && v.same_as(op->value) && body.same_as(op->body)) return PrimExpr(op);
    return make_ref<Let>(var, std::move(v), std::move(body));
  }

  PrimExpr visit_(const Call* op) override {
    if (op->op == Intrinsic::kExtern) return refuse(op);
    std::vector<PrimExpr> args;
    bool any_vector = false;
    for (const PrimExpr& a : op->args) {
      args.push_back(visit_expr(a));
      any_vector |= is_vector(args.back());
    }
    if (!any_vector) return ExprMutator::visit_(op);
    for (PrimExpr& a : args) a = widen(a);
    return make_ref<Call>(op->dtype.with_lanes(lanes_), op->op, std::move(args), op->name);
  }

  PrimExpr visit_(const BufferLoad* op) override {
    PrimExpr index = visit_expr(op->indices.at(0));
    if (op->indices.size() != 1 || op->dtype.lanes != 1) return refuse(op);
    loads_.push_back({op->buffer->data.get(), index});
    if (!is_vector(index))
      return index.same_as(op->indices[0])
                 ? PrimExpr(op)
                 : PrimExpr(
                       make_ref<BufferLoad>(op->dtype, op->buffer, std::vector<PrimExpr>{index}));
    if (op->dtype.is_bool()) return refuse(op);
    return make_ref<BufferLoad>(op->dtype.with_lanes(lanes_), op->buffer,
                                std::vector<PrimExpr>{index});
  }

  PrimExpr visit_(const Ramp* op) override { return refuse(op); }
  PrimExpr visit_(const Broadcast* op) override { return refuse(op); }

 private:
  struct Access {
    const Var* data;
    PrimExpr index;
  };

  PrimExpr refuse(const PrimExprNode* op) {
    failed_ = true;
    return PrimExpr(op);
  }

  PrimExpr widen(const PrimExpr& e) {
    return is_vector(e) ? e : PrimExpr(make_ref<Broadcast>(e, lanes_));
  }

  /// A let's variable: itself when the value is uniform, else a vector variable standing for it.
  Ref<Var> bind(const Ref<Var>& var, const PrimExpr& value) {
    if (!is_vector(value)) return var;
    if (var->dtype.is_handle()) {
      failed_ = true;
      return var;
    }
    Ref<Var> v = make_ref<Var>(var->name, var->dtype.with_lanes(lanes_));
    lets_[var.get()] = v;
    return v;
  }

  template <class Node>
  PrimExpr binary(const Node* op, PrimExpr a, PrimExpr b) {
    if (!is_vector(a) && !is_vector(b)) {
      if (a.same_as(op->a) && b.same_as(op->b)) return PrimExpr(op);
      return make_ref<Node>(op->dtype, std::move(a), std::move(b));
    }
    // Keep index arithmetic a Ramp: base and stride stay scalar.
    if constexpr (std::is_same_v<Node, Add> || std::is_same_v<Node, Sub> ||
                  std::is_same_v<Node, Mul>) {
      if (op->dtype.is_int() || op->dtype.is_uint()) {
        auto* ra = a.as<Ramp>();
        auto* rb = b.as<Ramp>();
        DataType t = op->dtype;
        auto scalar = [&](PrimExpr x, PrimExpr y) {
          return PrimExpr(make_ref<Node>(t, std::move(x), std::move(y)));
        };
        if constexpr (std::is_same_v<Node, Add> || std::is_same_v<Node, Sub>) {
          if (ra && rb)
            return make_ref<Ramp>(scalar(ra->base, rb->base), scalar(ra->stride, rb->stride),
                                  lanes_);
          if (ra && !is_vector(b)) return make_ref<Ramp>(scalar(ra->base, b), ra->stride, lanes_);
          if (rb && !is_vector(a)) {
            if constexpr (std::is_same_v<Node, Add>)
              return make_ref<Ramp>(scalar(a, rb->base), rb->stride, lanes_);
            else
              return make_ref<Ramp>(scalar(a, rb->base), scalar(int_imm(0, t), rb->stride), lanes_);
          }
        } else {
          if (ra && !is_vector(b))
            return make_ref<Ramp>(scalar(ra->base, b), scalar(ra->stride, b), lanes_);
          if (rb && !is_vector(a))
            return make_ref<Ramp>(scalar(a, rb->base), scalar(a, rb->stride), lanes_);
        }
      }
    }
    return make_ref<Node>(op->dtype.with_lanes(lanes_), widen(a), widen(b));
  }

  Stmt widen(const Stmt& s) {
    if (failed_) return s;
    if (auto* store = s.as<BufferStore>()) {
      if (store->indices.size() != 1 || store->value->dtype.lanes != 1 ||
          store->buffer->dtype.is_bool()) {
        failed_ = true;
        return s;
      }
      PrimExpr index = visit_expr(store->indices[0]);
      PrimExpr value = visit_expr(store->value);
      if (!is_vector(index)) {  // every lane would write the same element
        failed_ = true;
        return s;
      }
      stores_.push_back({store->buffer->data.get(), index});
      return make_ref<BufferStore>(store->buffer, widen(value), std::vector<PrimExpr>{index});
    }
    if (auto* seq = s.as<SeqStmt>()) {
      std::vector<Stmt> parts;
      for (const Stmt& p : seq->seq) parts.push_back(widen(p));
      return seq_stmt(std::move(parts));
    }
    if (auto* let = s.as<LetStmt>()) {
      PrimExpr v = visit_expr(let->value);
      Ref<Var> var = bind(let->var, v);
      Stmt body = widen(let->body);
      lets_.erase(let->var.get());
      return make_ref<LetStmt>(var, std::move(v), std::move(body));
    }
    if (auto* branch = s.as<IfThenElse>()) {
      // `uniform && varying` without an else: test the uniform part as a scalar branch around
      // the masked body, so that a uniform load under it (the left operand of a tile whose
      // rows and columns are both guarded) is not read for a row past the end.
      if (!branch->else_case.defined()) {
        std::vector<PrimExpr> uniform, varying;
        for (const PrimExpr& c : conjuncts(branch->condition)) {
          PrimExpr w = visit_expr(c);
          (is_vector(w) ? varying : uniform).push_back(w);
        }
        if (!uniform.empty() && !varying.empty()) {
          auto all = [](const std::vector<PrimExpr>& parts) {
            PrimExpr r = parts[0];
            for (size_t i = 1; i < parts.size(); ++i) r = logical_and(r, parts[i]);
            return r;
          };
          auto inner = make_ref<IfThenElse>(bool_imm(true), widen(branch->then_case));
          masks_[inner.get()] = all(varying);
          return make_ref<IfThenElse>(all(uniform), inner);
        }
      }
      PrimExpr c = visit_expr(branch->condition);
      Stmt then_case = widen(branch->then_case);
      Stmt else_case = branch->else_case.defined() ? widen(branch->else_case) : Stmt();
      if (!is_vector(c))
        return make_ref<IfThenElse>(std::move(c), std::move(then_case), std::move(else_case));
      auto node = make_ref<IfThenElse>(bool_imm(true), std::move(then_case), std::move(else_case));
      masks_[node.get()] = std::move(c);
      return node;
    }
    failed_ = true;  // loops, allocations, asserts, Evaluate
    return s;
  }

 public:
  /// Whether any iteration could read or write what another one wrote (see the file comment).
  bool has_cross_lane_dependence() const {
    for (const Access& st : stores_) {
      for (const auto* list : {&stores_, &loads_}) {
        for (const Access& other : *list) {
          if (other.data != st.data) continue;
          if (!structural_equal(st.index, other.index, false)) return true;
        }
      }
    }
    return false;
  }

 private:
  const Var* loop_var_;
  int lanes_;
  PrimExpr ramp_;
  bool failed_ = false;
  std::unordered_map<const Var*, PrimExpr> lets_;
  std::vector<Access> loads_;
  std::vector<Access> stores_;
  std::unordered_map<const IfThenElse*, PrimExpr> masks_;
};

}  // namespace

WidenedLoop vectorize_loop_body(const For& loop) {
  const int64_t* extent = as_const_int(loop.extent);
  RX_ICHECK(extent) << "vectorize_loop_body: loop " << loop.loop_var->name
                    << " has no constant extent";
  Vectorizer v(loop, int(*extent));
  WidenedLoop widened = v.run(loop.body);
  if (!widened.body.defined() || v.has_cross_lane_dependence()) return {};
  return widened;
}

}  // namespace relax::llvm_backend
