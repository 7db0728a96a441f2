// Functors over Relax expressions, dispatched on the kind tag from the one node list.
//
//   ExprFunctor<R(const Expr&, Args...)>  override visit_(const Call*, ...) etc.
//   ExprVisitor       visits every expression, binding and block (post-order by default).
//   ExprMutatorBase   rebuilds an expression only where a child changed; no normalisation.
//                     A rebuilt node (and a rebuilt binding) keeps the span of the one it
//                     replaces, so errors about rewritten IR still point at the source text.
//   ExprMutator       the normalising mutator: owns a BlockBuilder, re-emits every binding
//                     through it, so rewritten calls get struct info and stay in A-normal form.
//   StructInfoFunctor dispatch over struct info kinds.
#pragma once

#include <functional>
#include <unordered_map>

#include "relax/ir/block_builder.h"
#include "relax/ir/expr.h"
#include "relax/support/diagnostic.h"

namespace relax {

template <class FType>
class ExprFunctor;

template <class R, class... Args>
class ExprFunctor<R(const Expr&, Args...)> {
 public:
  virtual ~ExprFunctor() = default;
  R operator()(const Expr& e, Args... args) { return visit_expr(e, args...); }

  virtual R visit_expr(const Expr& e, Args... args) {
    RX_ICHECK(e.defined()) << "visiting an undefined expression";
    switch (ExprKind(e->kind())) {
#define RELAX_X(Name) \
  case ExprKind::k##Name: return visit_(static_cast<const Name*>(e.get()), args...);
      RELAX_EXPR_NODES(RELAX_X)
#undef RELAX_X
      case ExprKind::kPrimFunc: return visit_prim_func(e, args...);
      default: RX_IFAIL() << "not a Relax expression kind: " << e->kind();
    }
  }

#define RELAX_X(Name) \
  virtual R visit_(const Name* op, Args... args) { return visit_expr_default(op, args...); }
  RELAX_EXPR_NODES(RELAX_X)
#undef RELAX_X
  /// PrimFuncs appear as expressions only as module functions; by default they are opaque.
  virtual R visit_prim_func(const Expr& e, Args... args) { return visit_expr_default(e.get(), args...); }
  virtual R visit_expr_default(const ExprNode* op, Args...) {
    RX_IFAIL() << "expression functor does not handle " << relax_kind_name(op->kind());
  }
};

/// Visits expressions, bindings and blocks. Override the visit_* hooks and call the base to
/// keep recursing.
class ExprVisitor : public ExprFunctor<void(const Expr&)> {
 public:
  using ExprFunctor::visit_;
  void visit_(const Constant* op) override;
  void visit_(const Tuple* op) override;
  void visit_(const TupleGetItem* op) override;
  void visit_(const Var* op) override;
  void visit_(const DataflowVar* op) override;
  void visit_(const ShapeExpr* op) override;
  void visit_(const PrimValue* op) override;
  void visit_(const StringImm* op) override;
  void visit_(const DataTypeImm* op) override;
  void visit_(const GlobalVar* op) override;
  void visit_(const Op* op) override;
  void visit_(const ExternFunc* op) override;
  void visit_(const Call* op) override;
  void visit_(const If* op) override;
  void visit_(const SeqExpr* op) override;
  void visit_(const Function* op) override;
  void visit_prim_func(const Expr& e) override;

  virtual void visit_binding_block(const Block& block);
  virtual void visit_binding(const Binding& binding);
  /// Called for each variable definition (params, binding vars).
  virtual void visit_var_def(const Ref<VarNode>& var);
  /// Called for the struct info annotations (params, match_cast); by default does nothing.
  virtual void visit_struct_info(const StructInfo& sinfo);
  /// Called for every PrimExpr in ShapeExpr, PrimValue and call attributes.
  virtual void visit_prim_expr(const PrimExpr& e);
};

/// Calls `fn` on every expression of `e`, children first.
void post_order_visit(const Expr& e, const std::function<void(const Expr&)>& fn);

/// Rebuilds expressions bottom-up without normalisation; unchanged nodes are shared.
/// Variables are remapped through `var_remap_` at their uses.
class ExprMutatorBase : public ExprFunctor<Expr(const Expr&)> {
 public:
  using ExprFunctor::visit_;
  Expr visit_(const Constant* op) override;
  Expr visit_(const Tuple* op) override;
  Expr visit_(const TupleGetItem* op) override;
  Expr visit_(const Var* op) override;
  Expr visit_(const DataflowVar* op) override;
  Expr visit_(const ShapeExpr* op) override;
  Expr visit_(const PrimValue* op) override;
  Expr visit_(const StringImm* op) override;
  Expr visit_(const DataTypeImm* op) override;
  Expr visit_(const GlobalVar* op) override;
  Expr visit_(const Op* op) override;
  Expr visit_(const ExternFunc* op) override;
  Expr visit_(const Call* op) override;
  Expr visit_(const If* op) override;
  Expr visit_(const SeqExpr* op) override;
  Expr visit_(const Function* op) override;
  Expr visit_prim_func(const Expr& e) override { return e; }

  virtual Block visit_binding_block(const Block& block);
  virtual Binding visit_binding(const Binding& binding);
  /// Rewrites a PrimExpr in shapes and prim values; identity by default.
  virtual PrimExpr visit_prim_expr(const PrimExpr& e) { return e; }
  /// Rewrites struct info (e.g. to substitute symbolic variables); identity by default.
  virtual StructInfo visit_struct_info(const StructInfo& sinfo) { return sinfo; }

 protected:
  /// Uses of a variable are replaced by the mapped expression.
  std::unordered_map<const VarNode*, Expr> var_remap_;
};

/// The normalising mutator. Bindings are re-emitted through `builder_`: override
/// visit_(const Call*) and the like to rewrite values; the result of each binding is
/// normalised (A-normal form, struct info inferred) and bound to a variable, reusing the old
/// variable when the value's struct info is unchanged.
class ExprMutator : public ExprMutatorBase {
 public:
  explicit ExprMutator(IRModule mod = IRModule()) : builder_(std::move(mod)) {}
  using ExprMutatorBase::visit_;

  Expr visit_expr(const Expr& e) override;
  Expr visit_(const Var* op) override;
  Expr visit_(const DataflowVar* op) override;
  Expr visit_(const If* op) override;
  Expr visit_(const SeqExpr* op) override;
  Expr visit_(const Function* op) override;

  Block visit_binding_block(const Block& block) override;
  Binding visit_binding(const Binding& binding) override;
  /// Emits the rewritten form of a VarBinding into the builder: emit_visited(binding,
  /// visit_expr(binding->value)).
  virtual void visit_var_binding(const VarBinding* binding);
  /// Emits `var = value` for `binding`, whose value was visited into `value`: the binding itself
  /// when nothing changed, else a new variable (remapped) when the struct info changed. Returns
  /// the variable bound. For overrides of visit_var_binding that rewrite or drop some values.
  Ref<VarNode> emit_visited(const VarBinding* binding, const Expr& value);
  /// Emits the rewritten form of a MatchCast into the builder.
  virtual void visit_match_cast(const MatchCast* binding);
  /// A new definition of `var` when its struct info changed; the same var otherwise.
  virtual Ref<VarNode> visit_var_def(const Ref<VarNode>& var);

  /// Visits `e` in a scope of its own and returns a normalised SeqExpr.
  Expr visit_with_new_scope(const Expr& e, const std::vector<Ref<Var>>& params = {});

  BlockBuilder& builder() { return builder_; }

 protected:
  BlockBuilder builder_;
};

template <class FType>
class StructInfoFunctor;

template <class R, class... Args>
class StructInfoFunctor<R(const StructInfo&, Args...)> {
 public:
  virtual ~StructInfoFunctor() = default;
  R operator()(const StructInfo& s, Args... args) { return visit_struct_info(s, args...); }
  virtual R visit_struct_info(const StructInfo& s, Args... args) {
    RX_ICHECK(s.defined()) << "visiting undefined struct info";
    switch (StructInfoKind(s->kind())) {
#define RELAX_X(Name) \
  case StructInfoKind::k##Name: return visit_(static_cast<const Name*>(s.get()), args...);
      RELAX_STRUCT_INFO_NODES(RELAX_X)
#undef RELAX_X
      default: RX_IFAIL() << "not a struct info kind: " << s->kind();
    }
  }
#define RELAX_X(Name) virtual R visit_(const Name* op, Args... args) = 0;
  RELAX_STRUCT_INFO_NODES(RELAX_X)
#undef RELAX_X
};

}  // namespace relax
