// Functors over TIR statements, dispatched on the kind tag from the one node list.
//
//   StmtFunctor<R(const Stmt&, Args...)>: override visit_(const For*, ...) etc.
//   StmtVisitor: visits every sub-statement; hands every expression directly inside a
//     statement to visit_expr and every buffer occurrence to visit_buffer (both no-ops).
//   StmtMutator: rebuilds a statement only when a child changed, otherwise returns it (so
//     unchanged subtrees stay shared); expressions go through visit_expr and buffers through
//     visit_buffer (both identity by default).
//   StmtExprVisitor / StmtExprMutator: the above combined with tir::ExprVisitor /
//     ExprMutator, so one class walks statements and the expressions inside them, including
//     the buffer of each BufferLoad (through visit_buffer).
//
// Definitions are not uses: loop variables, let variables, block iteration variables and
// allocated buffer variables are not passed to visit_expr; their domains and values are.
// visit_buffer sees every occurrence of a buffer: loads, stores, block read/write regions,
// alloc_buffers, match_buffers (and the buffer map, through visit_func / mutate_func). It
// does not descend into the buffer's shape; override it to do so.
#pragma once

#include <functional>
#include <unordered_map>
#include <vector>

#include "relax/support/diagnostic.h"
#include "relax/tir/expr_functor.h"
#include "relax/tir/stmt.h"

namespace relax::tir {


template <class FType>
class StmtFunctor;

template <class R, class... Args>
class StmtFunctor<R(const Stmt&, Args...)> {
 public:
  virtual ~StmtFunctor() = default;
  R operator()(const Stmt& s, Args... args) { return visit_stmt(s, args...); }

  /// Dispatches on the kind of `s`.
  virtual R visit_stmt(const Stmt& s, Args... args) {
    RX_ICHECK(s.defined()) << "visiting an undefined Stmt";
    switch (StmtKind(s->kind())) {
#define RELAX_X(Name)     \
  case StmtKind::k##Name: \
    return visit_(static_cast<const Name*>(s.get()), args...);
      RELAX_TIR_STMT_NODES(RELAX_X)
#undef RELAX_X
      default:
        RX_IFAIL() << "not a Stmt kind: " << s->kind();
    }
  }

#define RELAX_X(Name) \
  virtual R visit_(const Name* op, Args... args) { return visit_stmt_default(op, args...); }
  RELAX_TIR_STMT_NODES(RELAX_X)
#undef RELAX_X

  /// What every case not overridden does; by default an internal error.
  virtual R visit_stmt_default(const StmtNode* op, Args...) {
    RX_IFAIL() << "Stmt functor does not handle " << stmt_kind_name(op->kind());
  }
};

/// Visits every sub-statement in execution order.
class StmtVisitor : public StmtFunctor<void(const Stmt&)> {
 public:
  using StmtFunctor::visit_;
  /// Called on each expression directly inside a statement; does nothing by default.
  virtual void visit_expr(const PrimExpr&) {}
  /// Called on each occurrence of a buffer; does nothing by default.
  virtual void visit_buffer(const Ref<Buffer>&) {}

  void visit_(const LetStmt* op) override;
  void visit_(const AssertStmt* op) override;
  void visit_(const For* op) override;
  void visit_(const BufferStore* op) override;
  void visit_(const IfThenElse* op) override;
  void visit_(const SeqStmt* op) override;
  void visit_(const Allocate* op) override;
  void visit_(const Evaluate* op) override;
  void visit_(const Block* op) override;
  void visit_(const BlockRealize* op) override;

 protected:
  /// The buffer, then each range's min and extent.
  void visit_region(const BufferRegion& region);
};

/// Rebuilds statements bottom-up, sharing every unchanged node.
class StmtMutator : public StmtFunctor<Stmt(const Stmt&)> {
 public:
  using StmtFunctor::visit_;
  /// Called on each expression directly inside a statement; identity by default.
  virtual PrimExpr visit_expr(const PrimExpr& e) { return e; }
  /// Called on each occurrence of a buffer; identity by default.
  virtual Ref<Buffer> visit_buffer(const Ref<Buffer>& buffer) { return buffer; }

  Stmt visit_(const LetStmt* op) override;
  Stmt visit_(const AssertStmt* op) override;
  Stmt visit_(const For* op) override;
  Stmt visit_(const BufferStore* op) override;
  Stmt visit_(const IfThenElse* op) override;
  /// Children that become null are dropped and nested sequences flattened (seq_stmt).
  Stmt visit_(const SeqStmt* op) override;
  Stmt visit_(const Allocate* op) override;
  Stmt visit_(const Evaluate* op) override;
  Stmt visit_(const Block* op) override;
  Stmt visit_(const BlockRealize* op) override;

 protected:
  /// Mutates each expression into *out; false (and *out unspecified) when none changed.
  bool mutate_exprs(const std::vector<PrimExpr>& in, std::vector<PrimExpr>* out);
  /// The region with its buffer and ranges mutated; `*changed` set when anything changed.
  BufferRegion mutate_region(const BufferRegion& region, bool* changed);
  /// Mutates a list of regions; false (and *out unspecified) when none changed.
  bool mutate_regions(const std::vector<BufferRegion>& in, std::vector<BufferRegion>* out);
  /// Mutates a statement that may be null (an init, an else branch).
  Stmt visit_opt(const Stmt& s) { return s.defined() ? visit_stmt(s) : s; }
};

/// A StmtVisitor that also walks the expressions inside statements (tir::ExprVisitor).
class StmtExprVisitor : public StmtVisitor, public ExprVisitor {
 public:
  using StmtVisitor::operator();
  using ExprVisitor::operator();
  using ExprVisitor::visit_;
  using StmtVisitor::visit_;
  void visit_expr(const PrimExpr& e) override { ExprVisitor::visit_expr(e); }
  void visit_(const BufferLoad* op) override {
    visit_buffer(op->buffer);
    ExprVisitor::visit_(op);
  }
};

/// A StmtMutator that also rewrites the expressions inside statements (tir::ExprMutator).
class StmtExprMutator : public StmtMutator, public ExprMutator {
 public:
  using StmtMutator::operator();
  using ExprMutator::operator();
  using ExprMutator::visit_;
  using StmtMutator::visit_;
  PrimExpr visit_expr(const PrimExpr& e) override { return ExprMutator::visit_expr(e); }
  /// Rewrites the buffer (visit_buffer) and the indices; the dtype is recomputed (buffer_load).
  PrimExpr visit_(const BufferLoad* op) override;
};

/// Replaces variable uses and rebuilds the buffers whose shape mentions a replaced variable.
/// The mutator behind substitute(): replaces variable uses and rebuilds the buffers whose
/// shape mentions a replaced variable.
class VarSubstituter : public StmtExprMutator {
 public:
  explicit VarSubstituter(const std::function<PrimExpr(const Var*)>& f) : f_(f) {}
  using StmtExprMutator::visit_;

  PrimExpr visit_(const Var* op) override {
    PrimExpr r = f_(op);
    return r.defined() ? r : PrimExpr(op);
  }

  Ref<Buffer> visit_buffer(const Ref<Buffer>& buffer) override {
    auto it = buffers_.find(buffer.get());
    if (it != buffers_.end()) return it->second;
    std::vector<PrimExpr> shape, strides;
    bool changed = mutate_all(buffer->shape, &shape);
    bool strides_changed = mutate_all(buffer->strides, &strides);
    PrimExpr elem_offset = visit_expr(buffer->elem_offset);
    Ref<Buffer> result = buffer;
    if (changed || strides_changed || !elem_offset.same_as(buffer->elem_offset)) {
      if (!changed) shape = buffer->shape;
      if (!strides_changed) strides = buffer->strides;
      result = make_buffer(buffer->data, buffer->dtype, std::move(shape), buffer->name,
                           std::move(strides), std::move(elem_offset), buffer->scope);
    }
    buffers_.emplace(buffer.get(), result);
    return result;
  }

 private:
  const std::function<PrimExpr(const Var*)>& f_;
  // Keyed by the original buffer, which the input IR keeps alive.
  std::unordered_map<const Buffer*, Ref<Buffer>> buffers_;
};

/// Replaces uses of variables: `f(var)` returns the replacement, or null to keep the var.
/// Buffers whose shape, strides or elem_offset mention a replaced variable are rebuilt (once
/// each, so every occurrence of a buffer maps to the same new buffer). Definitions (loop
/// vars, let vars, iteration vars) are not replaced.
Stmt substitute(const Stmt& s, const std::function<PrimExpr(const Var*)>& f);
/// substitute with a map from variables to replacements.
Stmt substitute(const Stmt& s, const std::unordered_map<Ref<Var>, PrimExpr>& vmap);

/// True when `e` mentions the variable `v`.
bool uses_var(const PrimExpr& e, const Var* v);
/// True when an expression of `s` (or the shape of a buffer it accesses) mentions `v`.
bool stmt_uses_var(const Stmt& s, const Var* v);

/// The conjuncts of a scalar condition, left to right: `a && (b && c)` gives a, b, c (vector
/// Ands are not split).
std::vector<PrimExpr> conjuncts(const PrimExpr& e);

/// True when `e` is `v` or a sum with `v` as a whole term that no other term mentions
/// (`v`, `v + rc`): consecutive values of `v` then reach consecutive elements.
bool unit_stride_in(const PrimExpr& e, const Var* v);

/// Calls `f` on every statement, each after its children (post-order); not on expressions.
void post_order_visit(const Stmt& s, const std::function<void(const Stmt&)>& f);

}  // namespace relax::tir
