// The well-formed checker (ir/well_formed.h). Each violation is a Diagnostic placed at the
// innermost node with a span that the checker is looking at: the offending call or parameter
// when it has one, else the binding being checked, else the function — so IR parsed from text
// (and rewritten by passes that keep spans) is reported as file:line:column.
#include "relax/ir/well_formed.h"

#include <unordered_map>
#include <unordered_set>

#include "relax/ir/expr_functor.h"
#include "relax/ir/op.h"
#include "relax/ir/struct_info_analysis.h"
#include "relax/tir/expr_functor.h"

namespace relax {

namespace {

bool is_argument(const Expr& e) {
  if (is_leaf(e)) return true;
  if (auto* t = e.as<Tuple>()) {
    for (const auto& f : t->fields)
      if (!is_argument(f)) return false;
    return true;
  }
  return false;
}

class WellFormedChecker : public ExprVisitor {
 public:
  WellFormedChecker(const IRModule* mod, std::vector<Diagnostic>* out) : mod_(mod), out_(out) {}

  void check_function(const std::string& name, const Function* f) {
    func_name_ = name;
    // "relax.force_pure" (TVM): declared pure although it calls impure ops.
    func_pure_ = f->is_pure && !get_bool(f->attrs, "relax.force_pure", false);
    defined_vars_.clear();
    visible_.clear();
    symbolic_.clear();
    where_ = f->span;
    visit_(f);
  }

  using ExprVisitor::visit_;

  void visit_expr(const Expr& e) override {
    if (!e->struct_info.defined() && !e.is<Op>() && !e.is<GlobalVar>()) error("expression " + describe(e) + " has no struct info (not normalised)");
    ExprVisitor::visit_expr(e);
  }

  void visit_(const Var* op) override { check_use(op); }
  void visit_(const DataflowVar* op) override { check_use(op); }

  void visit_(const GlobalVar* op) override {
    if (mod_ && !mod_->contains(op->name)) error("@" + op->name + " is not a function of the module");
  }

  void visit_(const ShapeExpr* op) override {
    for (const auto& v : op->values) check_symbolic(v, "shape " + describe(Expr(op)));
  }
  void visit_(const PrimValue* op) override { check_symbolic(op->value, "a prim value"); }

  void visit_(const Tuple* op) override {
    for (const auto& f : op->fields)
      if (!is_argument(f)) error("a tuple field is " + describe(f) + ", not a leaf (the IR is not in A-normal form)");
    ExprVisitor::visit_(op);
  }

  void visit_(const TupleGetItem* op) override {
    if (!is_argument(op->tuple)) error("tuple_getitem of " + describe(op->tuple) + ", not a leaf");
    ExprVisitor::visit_(op);
  }

  void visit_(const Call* op) override {
    // Faults of the call itself are placed at the call; a bad variable use among its arguments
    // is placed at the binding (where_), as for any other use.
    for (size_t i = 0; i < op->args.size(); ++i) {
      if (!is_argument(op->args[i]))
        error("argument " + std::to_string(i) + " of " + describe(Expr(op)) + " is " + describe(op->args[i]) +
                  ", not a leaf (the IR is not in A-normal form)",
              op->span);
    }
    if (auto* callee = op->op.as<Op>(); callee && callee->name == "relax.call_tir" && mod_ && !op->args.empty()) {
      if (auto* gv = op->args[0].as<GlobalVar>()) {
        BaseFunc f = mod_->find(gv->name);
        if (f.defined() && f.is<Function>())
          error("R.call_tir of @" + gv->name + ", which is a Relax function, not a PrimFunc", op->span);
      }
    }
    for (const StructInfo& si : op->sinfo_args)
      check_vdevices(si, "the out_sinfo of " + describe(Expr(op)), op->span);
    if (auto* callee = op->op.as<Op>(); callee && callee->name == "relax.to_vdevice" && mod_) {
      const AttrValue* dst = op->attrs.defined() ? op->attrs->find("dst_vdevice") : nullptr;
      const std::string* ref = dst ? std::get_if<std::string>(dst) : nullptr;
      if (ref && !find_vdevice(mod_->vdevices(), *ref))
        error(unknown_vdevice_message(mod_->vdevices(), *ref, "R.to_vdevice"), op->span);
    }
    bool pure = call_is_pure(op);
    if (!pure && in_dataflow_)
      error("impure call " + describe(Expr(op)) + " in a dataflow block (binding '" + binding_name_ + "')", op->span);
    if (!pure && func_pure_)
      error("impure call " + describe(Expr(op)) + " in a function declared pure (binding '" + binding_name_ + "')",
            op->span);
    ExprVisitor::visit_(op);
  }

  void visit_(const If* op) override {
    if (in_dataflow_) error("control flow (If) in a dataflow block (binding '" + binding_name_ + "')");
    if (!is_leaf(op->cond)) error("the If condition is " + describe(op->cond) + ", not a leaf");
    visit_expr(op->cond);
    for (const Expr& branch : {op->then_branch, op->else_branch}) {
      if (!branch.is<SeqExpr>()) error("an If branch is " + describe(branch) + ", not a SeqExpr");
      // Variables and symbolic variables defined in a branch are not visible after it.
      auto saved_visible = visible_;
      auto saved_symbolic = symbolic_;
      visit_expr(branch);
      visible_ = std::move(saved_visible);
      symbolic_ = std::move(saved_symbolic);
    }
  }

  void visit_(const Function* op) override {
    auto saved_visible = visible_;
    auto saved_symbolic = symbolic_;
    Span outer = where_;
    if (op->span.defined()) where_ = op->span;
    for (const auto& p : op->params) {
      if (!p.is<Var>()) error("parameter '" + p->name + "' is a DataflowVar", p->span);
      define_var(p.get(), "parameter");
      define_symbolic(p->struct_info);
    }
    for (const auto& p : op->params)
      check_sinfo(p->struct_info, "the struct info of parameter '" + p->name + "'", p->span);
    if (!op->body.is<SeqExpr>()) error("the body of a function is " + describe(op->body) + ", not a SeqExpr");
    visit_expr(op->body);
    visible_ = std::move(saved_visible);
    symbolic_ = std::move(saved_symbolic);
    where_ = outer;
  }

  void visit_binding_block(const Block& block) override {
    bool outer_dataflow = in_dataflow_;
    std::string outer_binding = binding_name_;
    Span outer_where = where_;
    in_dataflow_ = block->is_dataflow();
    std::vector<const VarNode*> block_locals;
    for (const auto& b : block->bindings) {
      binding_name_ = b->var->name;
      where_ = b->span.defined() ? b->span : outer_where;
      visit_binding(b);
      if (b->var.is<DataflowVar>()) {
        block_locals.push_back(b->var.get());
        if (!in_dataflow_) error("DataflowVar '" + b->var->name + "' is defined outside a dataflow block");
      }
    }
    // DataflowVars die with their block.
    for (const auto* v : block_locals) visible_.erase(v);
    in_dataflow_ = outer_dataflow;
    binding_name_ = outer_binding;
    where_ = outer_where;
  }

  void visit_binding(const Binding& binding) override {
    if (!is_argument(binding->value) && !binding->value.is<Call>() && !binding->value.is<If>() &&
        !binding->value.is<Function>() && !binding->value.is<TupleGetItem>())
      error("binding '" + binding->var->name + "' has a value of kind " + relax_kind_name(binding->value->kind()) +
            ", which normal form does not allow here");
    // A local function may call itself: its variable is visible in its own body (TVM's rule).
    bool recursive = binding->value.is<Function>() && binding.is<VarBinding>();
    if (recursive) define_var(binding->var.get(), "binding");
    visit_expr(binding->value);
    if (auto* mc = binding.as<MatchCast>()) {
      define_symbolic(mc->struct_info);
      check_sinfo(mc->struct_info, "the match_cast of '" + binding->var->name + "'");
    } else {
      check_sinfo(binding->var->struct_info, "the struct info of '" + binding->var->name + "'");
    }
    if (!recursive) define_var(binding->var.get(), "binding");
  }

  void visit_struct_info(const StructInfo&) override {}

 private:
  /// Records a violation at `at` when it is known, else at the node being checked.
  void error(const std::string& msg, const Span& at = {}) {
    const Span& place = at.defined() ? at : where_;
    out_->push_back({Diagnostic::Level::kError, place.get(), "in function '" + func_name_ + "': " + msg});
  }

  void define_var(const VarNode* v, const char* what) {
    if (!defined_vars_.insert(v).second)
      error("variable '" + v->name + "' is defined more than once (" + what + ")", v->span);
    visible_.insert(v);
  }

  void check_use(const VarNode* v) {
    if (visible_.count(v)) return;
    if (defined_vars_.count(v)) {
      if (v->kind() == uint32_t(ExprKind::kDataflowVar)) {
        error("DataflowVar '" + v->name + "' is used outside its dataflow block (in binding '" + binding_name_ + "')");
      } else {
        error("variable '" + v->name + "' is used outside the scope where it is defined (in binding '" + binding_name_ + "')");
      }
    } else {
      error("variable '" + v->name + "' is used before it is defined (in binding '" + binding_name_ + "')");
    }
  }

  void define_symbolic(const StructInfo& s) {
    for (const auto& v : defined_symbolic_vars(s)) {
      symbolic_.insert(v.get());
      symbolic_refs_.push_back(v);
    }
  }

  void check_symbolic(const PrimExpr& e, const std::string& where) {
    struct Check : tir::ExprVisitor {
      WellFormedChecker* self;
      const std::string* where;
      using tir::ExprVisitor::visit_;
      void visit_(const tir::Var* v) override {
        if (!self->symbolic_.count(v))
          self->error("symbolic variable '" + v->name + "' in " + *where + " is used before it is defined (in binding '" +
                      self->binding_name_ + "')");
      }
    } c;
    c.self = this;
    c.where = &where;
    c(e);
  }

  void check_sinfo(const StructInfo& s, const std::string& where, const Span& at = {}) {
    if (!s.defined()) {
      error(where + " is missing", at);
      return;
    }
    check_vdevices(s, where, at);
    check_dims(s, where, at);
    if (s.is<FuncStructInfo>()) return;  // function signatures bind their own variables
    for (const auto& v : symbolic_vars(s)) {
      if (!symbolic_.count(v.get()))
        error("symbolic variable '" + v->name + "' in " + where + " is used before it is defined", at);
    }
  }

  /// Every constant dimension of a tensor inside `s` is >= 0.
  void check_dims(const StructInfo& s, const std::string& where, const Span& at) {
    if (auto* t = s.as<TensorStructInfo>(); t && t->shape) {
      for (size_t i = 0; i < t->shape->size(); ++i) {
        const int64_t* c = tir::as_const_int((*t->shape)[i]);
        if (c && *c < 0)
          error("dimension " + std::to_string(i) + " of " + where + " is " + std::to_string(*c) +
                    "; a tensor dimension must be >= 0",
                at);
      }
    } else if (auto* tup = s.as<TupleStructInfo>()) {
      for (const StructInfo& f : tup->fields) check_dims(f, where, at);
    }
  }

  /// Every TensorStructInfo::vdevice inside `s` names a vdevice of the module.
  void check_vdevices(const StructInfo& s, const std::string& where, const Span& at) {
    if (mod_ == nullptr) return;
    if (auto* t = s.as<TensorStructInfo>()) {
      if (!t->vdevice.empty() && !find_vdevice(mod_->vdevices(), t->vdevice))
        error(unknown_vdevice_message(mod_->vdevices(), t->vdevice, where), at);
    } else if (auto* tup = s.as<TupleStructInfo>()) {
      for (const StructInfo& f : tup->fields) check_vdevices(f, where, at);
    } else if (auto* f = s.as<FuncStructInfo>()) {
      if (f->params)
        for (const StructInfo& p : *f->params) check_vdevices(p, where, at);
      check_vdevices(f->ret, where, at);
    }
  }

  bool call_is_pure(const Call* op) {
    if (auto* callee = op->op.as<Op>()) return callee->info->pure;
    if (op->op.is<ExternFunc>()) return false;
    if (op->op->struct_info.defined()) {
      if (auto* f = op->op->struct_info.as<FuncStructInfo>()) return f->purity;
    }
    if (auto* gv = op->op.as<GlobalVar>(); gv && mod_) {
      if (BaseFunc f = mod_->find(gv->name); f.defined())
        if (auto* fn = f.as<Function>()) return fn->is_pure;
    }
    return false;
  }

  const IRModule* mod_;
  std::vector<Diagnostic>* out_;
  std::string func_name_;
  std::string binding_name_;
  bool func_pure_ = true;
  bool in_dataflow_ = false;
  /// The innermost node with a span being checked: where a violation is reported.
  Span where_;
  std::unordered_set<const VarNode*> defined_vars_;
  std::unordered_set<const VarNode*> visible_;
  std::unordered_set<const tir::Var*> symbolic_;
  std::vector<Ref<tir::Var>> symbolic_refs_;
};

}  // namespace

std::vector<Diagnostic> well_formed_errors(const IRModule& mod) {
  std::vector<Diagnostic> out;
  WellFormedChecker checker(&mod, &out);
  for (const auto& e : mod.functions()) {
    if (auto* f = e.func.as<Function>()) checker.check_function(e.gv->name, f);
  }
  return out;
}

std::vector<Diagnostic> well_formed_errors(const Ref<Function>& func, const std::string& name) {
  std::vector<Diagnostic> out;
  WellFormedChecker checker(nullptr, &out);
  checker.check_function(name, func.get());
  return out;
}

bool is_well_formed(const IRModule& mod) { return well_formed_errors(mod).empty(); }

void check_well_formed(const IRModule& mod) {
  auto errors = well_formed_errors(mod);
  if (!errors.empty()) throw Error(std::move(errors));
}

}  // namespace relax
