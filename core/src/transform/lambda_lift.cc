// lambda-lift: every local function becomes a module function (TVM's LambdaLift).
//
// For a local function `f = R.function(...)` inside module function `main`:
//  - it is added to the module as `main_f` (made unique), without "global_symbol" (private);
//  - the Relax variables it uses but does not define (its captures, in order of first use)
//    become its leading parameters; a captured variable that is itself a lifted function
//    without captures is not captured: it is referenced as its GlobalVar;
//  - without captures, `f` is replaced by the GlobalVar everywhere; with captures it is bound
//    to `R.make_closure(main_f, (captured...))`;
//  - a call `f(args)` in the function that defines `f` becomes the direct call
//    `main_f(captured..., args)`; recursive calls inside `f` likewise pass the function's own
//    capture parameters on; a use of `f` as a value inside itself (passed on, returned, or
//    captured by a function nested in it) sees a closure made once at the start of its body;
//  - a call of any other variable (a function value: a parameter of callable type, a closure
//    returned by a call, a captured closure) becomes R.invoke_pure_closure (R.invoke_closure
//    when the callee is impure) with the call's result type as sinfo_args.
// Nested local functions are lifted too (outermost first, so an inner function captures the
// outer one's parameters). A local function that is not bound to a variable (an argument
// written inline) is lifted the same way.
//
// Expects: normalised, well-formed IR. Guarantees: no Function remains inside a module
// function; calls of non-global callees are invoke_closure ops; the module's other functions
// are unchanged. Symbolic variables of the enclosing function that the local function uses but
// that no capture's or parameter's annotation defines (a shape written in its body) are
// captured too, as one R.Shape value: the lifted function's first parameter.
#include <unordered_map>
#include <unordered_set>

#include "relax/ir/expr_functor.h"
#include "relax/ir/struct_info_analysis.h"
#include "relax/op/closure.h"
#include "relax/transform/core_passes.h"

namespace relax::transform {

namespace {

/// The Relax variables a function uses but does not define, in order of first use.
class FreeVars : public ExprVisitor {
 public:
  using ExprVisitor::visit_;
  static std::vector<Ref<VarNode>> of(const Function& f) {
    FreeVars v;
    v.visit_(&f);
    return v.free_;
  }
  void visit_(const Var* op) override { use(op); }
  void visit_(const DataflowVar* op) override { use(op); }
  void visit_var_def(const Ref<VarNode>& var) override { defined_.insert(var.get()); }
  void visit_binding(const Binding& binding) override {
    // A recursive local function refers to its own variable inside its value.
    if (binding->value.is<Function>()) defined_.insert(binding->var.get());
    ExprVisitor::visit_binding(binding);
  }

 private:
  void use(const VarNode* v) {
    if (defined_.count(v) || !seen_.insert(v).second) return;
    free_.push_back(Ref<VarNode>(v));
  }
  std::unordered_set<const VarNode*> defined_, seen_;
  std::vector<Ref<VarNode>> free_;
};

/// Whether `self` is used in `body` other than as the callee of a call at the function's own
/// level (a value use, or any use inside a nested function).
class ValueUses : public ExprVisitor {
 public:
  using ExprVisitor::visit_;
  static bool any(const Expr& body, const VarNode* self) {
    ValueUses v(self);
    v.visit_expr(body);
    return v.total_ > v.direct_calls_;
  }
  void visit_(const Var* op) override { total_ += op == self_; }
  void visit_(const DataflowVar* op) override { total_ += op == self_; }
  void visit_(const Call* op) override {
    if (depth_ == 0 && op->op.get() == self_) ++direct_calls_;
    ExprVisitor::visit_(op);
  }
  void visit_(const Function* op) override {
    ++depth_;
    ExprVisitor::visit_(op);
    --depth_;
  }

 private:
  explicit ValueUses(const VarNode* self) : self_(self) {}
  const VarNode* self_;
  int depth_ = 0, total_ = 0, direct_calls_ = 0;
};

/// The symbolic variables a function uses (in struct info outside function signatures, shapes
/// and prim values) and those it defines inside (match_casts, nested functions' parameters).
class SymbolicVars : public ExprVisitor {
 public:
  using ExprVisitor::visit_;
  /// The variables `f` uses that neither `params` nor `f` itself defines, in order of first use.
  static std::vector<Ref<tir::Var>> missing(const Function& f, const std::vector<Ref<Var>>& params) {
    SymbolicVars v;
    for (const Ref<Var>& p : params)
      for (const auto& d : defined_symbolic_vars(p->struct_info)) v.defined_.insert(d.get());
    v.use_sinfo(f.ret_struct_info);
    v.visit_(&f);
    std::vector<Ref<tir::Var>> out;
    for (const auto& u : v.used_)
      if (!v.defined_.count(u.get())) out.push_back(u);
    return out;
  }
  void visit_(const Function* op) override {
    if (op != outermost_ && outermost_ != nullptr) {
      for (const Ref<Var>& p : op->params)
        for (const auto& d : defined_symbolic_vars(p->struct_info)) defined_.insert(d.get());
    }
    if (outermost_ == nullptr) outermost_ = op;
    use_sinfo(op->ret_struct_info);
    ExprVisitor::visit_(op);
  }
  void visit_(const Call* op) override {
    for (const StructInfo& s : op->sinfo_args) use_sinfo(s);
    ExprVisitor::visit_(op);
  }
  void visit_binding(const Binding& binding) override {
    if (auto* mc = binding.as<MatchCast>())
      for (const auto& d : defined_symbolic_vars(mc->struct_info)) defined_.insert(d.get());
    ExprVisitor::visit_binding(binding);
  }
  void visit_var_def(const Ref<VarNode>& var) override { use_sinfo(var->struct_info); }
  void visit_prim_expr(const PrimExpr& e) override { use_sinfo(shape_sinfo({e})); }

 private:
  void use_sinfo(const StructInfo& s) {
    // A function signature binds its own variables.
    if (!s.defined() || s.is<FuncStructInfo>()) return;
    if (auto* t = s.as<TupleStructInfo>()) {
      for (const StructInfo& f : t->fields) use_sinfo(f);
      return;
    }
    for (const auto& v : symbolic_vars(s))
      if (seen_.insert(v.get()).second) used_.push_back(v);
  }
  const Function* outermost_ = nullptr;
  std::unordered_set<const tir::Var*> defined_, seen_;
  std::vector<Ref<tir::Var>> used_;
};

class LambdaLifter : public ExprMutator {
 public:
  explicit LambdaLifter(const IRModule& mod) : ExprMutator(mod) {
    for (const auto& e : mod.functions()) taken_.insert(e.gv->name);
  }
  using ExprMutator::visit_;

  /// `func` (module function `name`) with its local functions lifted out.
  Ref<Function> lift_module_function(const std::string& name, const Ref<Function>& func) {
    global_name_ = name;
    direct_.clear();
    Expr body = visit_with_new_scope(func->body, func->params);
    if (body.same_as(func->body)) return func;
    return make_ref<Function>(func->params, body, func->ret_struct_info, func->is_pure,
                              func->attrs, func->span);
  }

  /// The functions lifted so far, in the order they were made.
  const std::vector<std::pair<Ref<GlobalVar>, Ref<Function>>>& lifted() const { return lifted_; }

  void visit_var_binding(const VarBinding* binding) override {
    auto* f = binding->value.as<Function>();
    if (f == nullptr) return ExprMutator::visit_var_binding(binding);
    Lifted l = lift(*f, binding->var.get(), binding->var->name);
    if (l.captured.empty()) {
      var_remap_[binding->var.get()] = l.gv;
      return;
    }
    Expr closure = builder_.normalize(op::make_closure(l.gv, l.captured));
    emit_visited(binding, closure);
    direct_[binding->var.get()] = {l.gv, std::move(l.captured)};
  }

  /// A local function written inline (not bound to a variable).
  Expr visit_(const Function* op) override {
    Lifted l = lift(*op, nullptr, "lambda");
    if (l.captured.empty()) return l.gv;
    return op::make_closure(l.gv, l.captured);
  }

  Expr visit_(const Call* op) override {
    auto* v = op->op.as<VarNode>();
    if (v == nullptr) return ExprMutator::visit_(op);
    std::vector<Expr> args;
    if (auto it = direct_.find(v); it != direct_.end()) {
      // A lifted function called where its captures are in scope: call it directly.
      args = it->second.captured;
      for (const Expr& a : op->args) args.push_back(visit_expr(a));
      return make_ref<Call>(it->second.gv, std::move(args), op->attrs, op->sinfo_args,
                            StructInfo(), op->span);
    }
    Expr callee = visit_expr(op->op);
    for (const Expr& a : op->args) args.push_back(visit_expr(a));
    Expr call = builder_.normalize(
        make_ref<Call>(callee, args, op->attrs, op->sinfo_args, StructInfo(), op->span));
    if (callee.is<GlobalVar>()) return call;
    // A call of a function value: the closure call, typed as the plain call was.
    auto* fs = get_struct_info(callee).as<FuncStructInfo>();
    RX_ICHECK(fs != nullptr) << "lambda-lift: the callee of " << describe(call)
                             << " is not a function";
    return op::invoke_closure(callee, std::move(args), get_struct_info(call), fs->purity);
  }

 private:
  struct Lifted {
    Ref<GlobalVar> gv;
    /// The values to capture, in the enclosing function's terms.
    std::vector<Expr> captured;
  };
  struct Direct {
    Ref<GlobalVar> gv;
    std::vector<Expr> captured;
  };

  std::string fresh_name(const std::string& local) {
    std::string base = global_name_ + "_" + (local.empty() ? "lambda" : local);
    std::string name = base;
    for (int i = 1; taken_.count(name); ++i) name = base + std::to_string(i);
    taken_.insert(name);
    return name;
  }

  Expr remapped(const VarNode* v) const {
    auto it = var_remap_.find(v);
    return it != var_remap_.end() ? it->second : Expr(v);
  }

  /// Lifts `f`, bound to `self` (null for an inline function), into the module.
  Lifted lift(const Function& f, const VarNode* self, const std::string& local_name) {
    Lifted out;
    std::vector<Ref<Var>> params;
    std::vector<Expr> inner_captured;
    // Variables whose mapping changes inside f; restored afterwards.
    std::vector<std::pair<const VarNode*, std::optional<Expr>>> saved;
    auto remap = [&](const VarNode* v, Expr to) {
      auto it = var_remap_.find(v);
      saved.emplace_back(v, it != var_remap_.end() ? std::optional<Expr>(it->second) : std::nullopt);
      var_remap_[v] = std::move(to);
    };
    for (const Ref<VarNode>& u : FreeVars::of(f)) {
      if (u.get() == self) continue;
      Expr value = remapped(u.get());
      if (value.is<GlobalVar>()) continue;  // a lifted function without captures
      Ref<Var> p = make_var(u->name, get_struct_info(value), u->span);
      params.push_back(p);
      inner_captured.push_back(p);
      out.captured.push_back(value);
      remap(u.get(), p);
    }
    for (const Ref<Var>& p : f.params) params.push_back(p);
    // Symbolic variables of the enclosing function that nothing in the lifted signature
    // defines: captured as one shape value, the first parameter.
    std::vector<Ref<tir::Var>> symbolic = SymbolicVars::missing(f, params);
    if (!symbolic.empty()) {
      std::vector<PrimExpr> dims(symbolic.begin(), symbolic.end());
      Ref<Var> p = make_var("captured_dims", shape_sinfo(dims));
      params.insert(params.begin(), p);
      inner_captured.insert(inner_captured.begin(), p);
      out.captured.insert(out.captured.begin(), make_shape(dims));
    }
    std::vector<StructInfo> param_sinfo;
    for (const Ref<Var>& p : params) param_sinfo.push_back(p->struct_info);
    std::string name = fresh_name(local_name);
    out.gv = make_ref<GlobalVar>(name, func_sinfo(param_sinfo, f.ret_struct_info, f.is_pure));

    std::unordered_map<const VarNode*, Direct> outer_direct;
    std::swap(outer_direct, direct_);
    Expr body = f.body;
    if (self != nullptr) {
      if (inner_captured.empty()) {
        remap(self, out.gv);
      } else {
        direct_[self] = {out.gv, inner_captured};
        if (ValueUses::any(f.body, self)) {
          // f used as a value inside itself: one closure at the start of the body.
          Expr closure = builder_.normalize(op::make_closure(out.gv, inner_captured));
          Ref<Var> self_var = make_var(self->name, get_struct_info(closure), self->span);
          remap(self, self_var);
          auto* seq = body.as<SeqExpr>();
          RX_ICHECK(seq != nullptr) << "lambda-lift: the body of " << local_name
                                    << " is not a SeqExpr";
          std::vector<Block> blocks{make_block({make_ref<VarBinding>(self_var, closure)}, false)};
          blocks.insert(blocks.end(), seq->blocks.begin(), seq->blocks.end());
          body = make_ref<SeqExpr>(std::move(blocks), seq->body);
        }
      }
    }
    Expr new_body = visit_with_new_scope(body, params);
    std::swap(outer_direct, direct_);
    for (auto it = saved.rbegin(); it != saved.rend(); ++it) {
      if (it->second) {
        var_remap_[it->first] = *it->second;
      } else {
        var_remap_.erase(it->first);
      }
    }
    // A capture-less function stays a GlobalVar for the rest of the enclosing scope.
    if (self != nullptr && out.captured.empty()) var_remap_[self] = out.gv;
    lifted_.emplace_back(out.gv, make_ref<Function>(params, new_body, f.ret_struct_info,
                                                    f.is_pure, f.attrs, f.span));
    return out;
  }

  std::string global_name_;
  std::unordered_set<std::string> taken_;
  /// Lifted functions with captures that the function being rewritten calls directly.
  std::unordered_map<const VarNode*, Direct> direct_;
  std::vector<std::pair<Ref<GlobalVar>, Ref<Function>>> lifted_;
};

IRModule lambda_lift(const IRModule& mod, const PassOptions&, PassContext&) {
  LambdaLifter lifter(mod);
  std::vector<std::pair<Ref<GlobalVar>, Ref<Function>>> updated;
  for (const auto& entry : mod.functions()) {
    auto func = entry.func.as_ref<Function>();
    if (!func.defined()) continue;
    Ref<Function> out = lifter.lift_module_function(entry.gv->name, func);
    if (!out.same_as(func)) updated.emplace_back(entry.gv, out);
  }
  if (updated.empty() && lifter.lifted().empty()) return mod;
  IRModule result = lifter.builder().get_module();
  for (auto& [gv, func] : updated) result.update(gv, func);
  for (const auto& [gv, func] : lifter.lifted()) result.add(gv, func);
  return result;
}

}  // namespace

void register_lambda_lift(PassRegistry& registry) {
  registry.add({"lambda-lift",
                "Lift local functions to module functions; captures become closures",
                Granularity::kModule,
                {}},
               ModuleTransform(lambda_lift));
}

}  // namespace relax::transform
