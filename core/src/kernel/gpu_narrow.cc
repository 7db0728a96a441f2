// int64 -> int32 index narrowing (narrow_indices, kernel/gpu_lower.h).
//
// Expects a lowered function (flat buffers). GPUs compute 32-bit integers natively and 64-bit
// ones slowly (or not at all), while shapes and the lowering's index arithmetic are int64.
// The pass first decides whether the whole function can be narrowed: every int64
// subexpression of the index arithmetic (loop bounds, buffer indices, comparisons and lets of
// pure index arithmetic) must have a const-int bound inside int32, with loop variables in
// their ranges and shape variables in [0, 2^31 - 1], unless it mentions a shape variable or a
// scalar parameter: those are narrowed under the assumption that every buffer holds fewer
// than 2^31 elements (an index value then fits, and +, -, * modulo 2^32 give the same low bits
// whatever intermediate wraps), and the returned host checks assert that assumption for the
// parameter buffers with symbolic shapes and the scalars the body reads. An index computed
// from loaded data or beyond int32 by a constant bound keeps the whole function in int64.
// Then loop and let variables become int32, index arithmetic is rebuilt in int32 (shape
// variables and scalar parameters cast at their uses), and int64 values used as data get a
// cast back to int64.
#include <unordered_map>
#include <unordered_set>

#include "relax/arith/analyzer.h"
#include "relax/kernel/gpu_lower.h"

namespace relax::tir {

namespace {

constexpr int64_t kI32Min = -(int64_t(1) << 31);
constexpr int64_t kI32Max = (int64_t(1) << 31) - 1;

bool is_i64(const PrimExpr& e) { return e->dtype.is_int() && e->dtype.bits == 64; }

/// True for int64 index arithmetic: constants, integer variables, arithmetic, min/max,
/// Ramp/Broadcast of such, casts between integer types. No loads, calls or lets.
bool is_pure_index(const PrimExpr& e) {
  if (!is_i64(e)) return false;
  struct Check : ExprVisitor {
    bool ok = true;
    using ExprVisitor::visit_;
    void visit_(const BufferLoad*) override { ok = false; }
    void visit_(const Call*) override { ok = false; }
    void visit_(const Let*) override { ok = false; }
    void visit_(const Select*) override { ok = false; }
    void visit_(const FloatImm*) override { ok = false; }
    void visit_(const Cast* op) override {
      ok &= op->value->dtype.is_integer_like() && !op->value->dtype.is_bool();
      ExprVisitor::visit_(op);
    }
  } c;
  c.visit_expr(e);
  return c.ok;
}

/// Decides whether narrowing is sound; collects the host variables the body reads.
class Checker : public StmtExprVisitor {
 public:
  Checker(const Ref<PrimFunc>& f) {
    for (const auto& [p, b] : f->buffer_map)
      for (const auto& d : b->shape)
        if (auto* v = d.as<Var>()) {
          host_.insert(v);
          az_.set_bound(Ref<Var>(v), 0, kI32Max);
        }
    for (const auto& p : f->params)
      if (!p->dtype.is_handle()) host_.insert(p.get());
    symbolic_ = host_;
  }
  std::string reason;  // why not, or empty
  std::unordered_set<const Var*> host_, used_host_;
  /// Loop bounds, let values and comparison operands not proven inside int32: the narrowed
  /// function computes them in int64 (loop bounds then cast to int32).
  std::unordered_set<const Object*> unproven_;
  using StmtExprVisitor::visit_;

  void visit_(const For* op) override {
    index(op->min);
    index(op->extent);
    if (uses_symbolic(op->min) || uses_symbolic(op->extent)) symbolic_.insert(op->loop_var.get());
    if (is_i64(op->extent)) az_.bind_range(op->loop_var, op->min, op->extent);
    visit_stmt(op->body);
  }
  void visit_(const LetStmt* op) override {
    if (is_pure_index(op->value)) {
      index(op->value);
      az_.bind(op->var, op->value);
      if (uses_symbolic(op->value)) symbolic_.insert(op->var.get());
    } else {
      visit_expr(op->value);
    }
    visit_stmt(op->body);
  }
  void visit_(const BufferStore* op) override {
    for (const auto& i : op->indices) index(i, true);
    visit_expr(op->value);
  }
  void visit_(const BufferLoad* op) override {
    for (const auto& i : op->indices) index(i, true);
  }
  void visit_(const Var* op) override {
    if (host_.count(op)) used_host_.insert(op);
  }
  void visit_compare(const BinaryOp* op) {
    if (is_pure_index(op->a) && is_pure_index(op->b)) {
      index(op->a);
      index(op->b);
    } else {
      visit_expr(op->a);
      visit_expr(op->b);
    }
  }
  void visit_(const EQ* op) override { visit_compare(op); }
  void visit_(const NE* op) override { visit_compare(op); }
  void visit_(const LT* op) override { visit_compare(op); }
  void visit_(const LE* op) override { visit_compare(op); }
  void visit_(const GT* op) override { visit_compare(op); }
  void visit_(const GE* op) override { visit_compare(op); }

 private:
  /// An index expression: int64 must be pure and bounded (or symbolic). Buffer indices are
  /// narrowed even when only the in-bounds assumption bounds them.
  void index(const PrimExpr& e, bool buffer_index = false) {
    if (!e->dtype.is_integer_like() || e->dtype.is_bool()) return visit_expr(e);
    if (!is_i64(e)) return visit_expr(e);
    if (!is_pure_index(e)) {
      if (reason.empty()) reason = "the index " + to_string(e) + " is computed from data";
      return visit_expr(e);
    }
    struct Sub : ExprVisitor {
      Checker* self;
      bool proven = true;
      using ExprVisitor::visit_;
      void visit_expr(const PrimExpr& x) override {
        proven &= self->check_bound(x);
        ExprVisitor::visit_expr(x);
      }
      void visit_(const Var* v) override { self->visit_(v); }
    } sub;
    sub.self = this;
    sub.visit_expr(e);
    if (!sub.proven && !buffer_index) unproven_.insert(e.get());
  }
  /// True when x's bound is inside int32; a constant bound outside it sets `reason`.
  bool check_bound(const PrimExpr& x) {
    if (!is_i64(x) || x->dtype.lanes != 1 || !reason.empty()) return true;
    arith::ConstIntBound b = az_.const_int_bound(x);
    if (b.min_value >= kI32Min && b.max_value <= kI32Max) return true;
    if (!uses_symbolic(x)) reason = "the index " + to_string(x) + " may leave the int32 range";
    return false;
  }

  bool uses_symbolic(const PrimExpr& e) const {
    for (const Var* v : symbolic_)
      if (uses_var(e, v)) return true;
    return false;
  }

  arith::Analyzer az_;
  /// Host variables, and loop and let variables whose ranges depend on them.
  std::unordered_set<const Var*> symbolic_;
};

/// Rebuilds the index arithmetic in int32.
class Narrower : public StmtExprMutator {
 public:
  explicit Narrower(const std::unordered_set<const Object*>& unproven) : unproven_(unproven) {}
  using StmtExprMutator::visit_;

  Stmt visit_(const For* op) override {
    if (!is_i64(op->loop_var)) return StmtExprMutator::visit_(op);
    Ref<Var> v = var(op->loop_var->name, DataType::Int(32));
    vars_[op->loop_var.get()] = v;
    return make_ref<For>(v, bound(op->min), bound(op->extent), op->kind, visit_stmt(op->body),
                         op->thread_tag, op->annotations);
  }
  Stmt visit_(const LetStmt* op) override {
    if (!is_pure_index(op->value) || unproven(op->value)) return StmtExprMutator::visit_(op);
    Ref<Var> v = var(op->var->name, DataType::Int(32));
    vars_[op->var.get()] = v;
    return make_ref<LetStmt>(v, n32(op->value), visit_stmt(op->body));
  }
  Stmt visit_(const BufferStore* op) override {
    std::vector<PrimExpr> idx;
    for (const auto& i : op->indices) idx.push_back(index(i));
    return make_ref<BufferStore>(op->buffer, visit_expr(op->value), std::move(idx));
  }
  PrimExpr visit_(const BufferLoad* op) override {
    std::vector<PrimExpr> idx;
    for (const auto& i : op->indices) idx.push_back(index(i));
    return make_ref<BufferLoad>(op->dtype, op->buffer, std::move(idx));
  }
  PrimExpr visit_(const Var* op) override {
    auto it = vars_.find(op);
    return it == vars_.end() ? PrimExpr(op) : cast(op->dtype, it->second);
  }
#define RELAX_X(Name, fn)                                                                     \
  PrimExpr visit_(const Name* op) override {                                                  \
    if (is_pure_index(op->a) && is_pure_index(op->b) && !unproven(op->a) && !unproven(op->b)) \
      return fn(n32(op->a), n32(op->b));                                                      \
    return StmtExprMutator::visit_(op);                                                       \
  }
  RELAX_X(EQ, eq)
  RELAX_X(NE, ne)
  RELAX_X(LT, lt) RELAX_X(LE, le) RELAX_X(GT, gt) RELAX_X(GE, ge)
#undef RELAX_X

      private : bool unproven(const PrimExpr& e) const {
    return unproven_.count(e.get()) != 0;
  }
  PrimExpr index(const PrimExpr& e) { return is_pure_index(e) ? n32(e) : visit_expr(e); }
  /// A loop bound: int32 arithmetic when proven, else computed in int64 and cast.
  PrimExpr bound(const PrimExpr& e) {
    return unproven(e) ? cast(DataType::Int(32), visit_expr(e)) : n32(e);
  }

  /// The int32 form of pure int64 index arithmetic.
  PrimExpr n32(const PrimExpr& e) {
    if (!is_i64(e)) return visit_expr(e);
    const DataType t = DataType::Int(32, e->dtype.lanes);
    switch (PrimExprKind(e->kind())) {
      case PrimExprKind::kIntImm:
        return make_ref<IntImm>(t, e.as<IntImm>()->value);
      case PrimExprKind::kVar: {
        auto it = vars_.find(e.as<Var>());
        return it != vars_.end() ? PrimExpr(it->second) : make_ref<Cast>(t, e);
      }
      case PrimExprKind::kCast: {
        const PrimExpr& v = e.as<Cast>()->value;
        return v->dtype == t ? v : make_ref<Cast>(t, v);
      }
      case PrimExprKind::kRamp: {
        auto* r = e.as<Ramp>();
        return make_ref<Ramp>(n32(r->base), n32(r->stride), r->lanes);
      }
      case PrimExprKind::kBroadcast: {
        auto* b = e.as<Broadcast>();
        return make_ref<Broadcast>(n32(b->value), b->lanes);
      }
#define RELAX_X(Name)                               \
  case PrimExprKind::k##Name: {                     \
    auto* b = e.as<Name>();                         \
    return make_ref<Name>(t, n32(b->a), n32(b->b)); \
  }
        RELAX_X(Add)
        RELAX_X(Sub)
            RELAX_X(Mul) RELAX_X(Div) RELAX_X(Mod) RELAX_X(FloorDiv) RELAX_X(FloorMod) RELAX_X(Min)
                RELAX_X(Max)
#undef RELAX_X
                    default : RX_IFAIL()
                              << "narrowing a non-index expression "
                              << to_string(e);
    }
  }

  std::unordered_map<const Var*, Ref<Var>> vars_;
  const std::unordered_set<const Object*>& unproven_;
};

std::string shape_text(const Buffer& b) {
  std::string s = "(";
  for (size_t d = 0; d < b.ndim(); ++d) s += (d ? ", " : "") + to_string(b.shape[d]);
  return s + (b.ndim() == 1 ? ",)" : ")");
}

}  // namespace

NarrowResult narrow_indices(const Ref<PrimFunc>& func, const std::string& kernel) {
  std::string name = kernel.empty() ? get_string(func->attrs, kAttrGlobalSymbol, "main") : kernel;
  Checker checker(func);
  checker.visit_stmt(func->body);
  if (!checker.reason.empty()) return {func, {}};
  NarrowResult result;
  Narrower narrower(checker.unproven_);
  result.func = with_body(func, narrower.visit_stmt(func->body));
  for (const auto& [p, b] : func->buffer_map) {
    PrimExpr n = int_imm(1);
    std::vector<std::string> dims;
    for (const auto& d : b->shape) {
      n = n * cast(DataType::Int(64), d);
      if (!as_const_int(d)) dims.push_back(to_string(d));
    }
    if (dims.empty()) continue;
    std::string dim_text;
    for (size_t i = 0; i < dims.size(); ++i) dim_text += (i ? ", " : "") + dims[i];
    result.checks.push_back({lt(n, int_imm(kI32Max + 1)),
                             "kernel " + name + ": dimension " + dim_text + " of buffer " +
                                 b->name + " (shape " + shape_text(*b) +
                                 ") exceeds the 32-bit index range: the buffer must hold fewer "
                                 "than 2^31 elements"});
  }
  for (const auto& p : func->params)
    if (!p->dtype.is_handle() && checker.used_host_.count(p.get()) && p->dtype.bits > 32)
      result.checks.push_back(
          {logical_and(ge(Ref<Var>(p), int_imm(kI32Min, p->dtype)),
                       le(Ref<Var>(p), int_imm(kI32Max, p->dtype))),
           "kernel " + name + ": scalar parameter " + p->name + " exceeds the 32-bit index range"});
  return result;
}

}  // namespace relax::tir
