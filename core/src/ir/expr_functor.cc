#include "relax/ir/expr_functor.h"

#include "relax/tir/expr_functor.h"

namespace relax {

// ---- ExprVisitor

void ExprVisitor::visit_(const Constant* op) { visit_struct_info(op->struct_info); }
void ExprVisitor::visit_(const Tuple* op) {
  for (const auto& f : op->fields) visit_expr(f);
}
void ExprVisitor::visit_(const TupleGetItem* op) { visit_expr(op->tuple); }
void ExprVisitor::visit_(const Var*) {}
void ExprVisitor::visit_(const DataflowVar*) {}
void ExprVisitor::visit_(const ShapeExpr* op) {
  for (const auto& v : op->values) visit_prim_expr(v);
}
void ExprVisitor::visit_(const PrimValue* op) { visit_prim_expr(op->value); }
void ExprVisitor::visit_(const StringImm*) {}
void ExprVisitor::visit_(const DataTypeImm*) {}
void ExprVisitor::visit_(const GlobalVar*) {}
void ExprVisitor::visit_(const Op*) {}
void ExprVisitor::visit_(const ExternFunc*) {}
void ExprVisitor::visit_(const Call* op) {
  visit_expr(op->op);
  for (const auto& a : op->args) visit_expr(a);
  for (const auto& s : op->sinfo_args) visit_struct_info(s);
}
void ExprVisitor::visit_(const If* op) {
  visit_expr(op->cond);
  visit_expr(op->then_branch);
  visit_expr(op->else_branch);
}
void ExprVisitor::visit_(const SeqExpr* op) {
  for (const auto& b : op->blocks) visit_binding_block(b);
  visit_expr(op->body);
}
void ExprVisitor::visit_(const Function* op) {
  for (const auto& p : op->params) visit_var_def(p);
  visit_expr(op->body);
}
void ExprVisitor::visit_prim_func(const Expr&) {}

void ExprVisitor::visit_binding_block(const Block& block) {
  for (const auto& b : block->bindings) visit_binding(b);
}
void ExprVisitor::visit_binding(const Binding& binding) {
  visit_expr(binding->value);
  if (auto* mc = binding.as<MatchCast>()) visit_struct_info(mc->struct_info);
  visit_var_def(binding->var);
}
void ExprVisitor::visit_var_def(const Ref<VarNode>& var) { visit_struct_info(var->struct_info); }
void ExprVisitor::visit_struct_info(const StructInfo&) {}
void ExprVisitor::visit_prim_expr(const PrimExpr&) {}

void post_order_visit(const Expr& e, const std::function<void(const Expr&)>& fn) {
  struct Visitor : ExprVisitor {
    const std::function<void(const Expr&)>& fn;
    explicit Visitor(const std::function<void(const Expr&)>& fn) : fn(fn) {}
    void visit_expr(const Expr& e) override {
      ExprVisitor::visit_expr(e);
      fn(e);
    }
  } v(fn);
  v(e);
}

// ---- ExprMutatorBase

namespace {
template <class T, class F>
bool map_all(const std::vector<T>& in, std::vector<T>* out, F&& f) {
  bool changed = false;
  out->reserve(in.size());
  for (const auto& x : in) {
    out->push_back(f(x));
    changed |= !out->back().same_as(x);
  }
  return changed;
}
}  // namespace

Expr ExprMutatorBase::visit_(const Constant* op) { return Expr(op); }
Expr ExprMutatorBase::visit_(const Tuple* op) {
  std::vector<Expr> fields;
  if (!map_all(op->fields, &fields, [&](const Expr& e) { return visit_expr(e); })) return Expr(op);
  return make_ref<Tuple>(std::move(fields), StructInfo(), op->span);
}
Expr ExprMutatorBase::visit_(const TupleGetItem* op) {
  Expr t = visit_expr(op->tuple);
  if (t.same_as(op->tuple)) return Expr(op);
  return make_ref<TupleGetItem>(std::move(t), op->index, StructInfo(), op->span);
}
Expr ExprMutatorBase::visit_(const Var* op) {
  auto it = var_remap_.find(op);
  return it != var_remap_.end() ? it->second : Expr(op);
}
Expr ExprMutatorBase::visit_(const DataflowVar* op) {
  auto it = var_remap_.find(op);
  return it != var_remap_.end() ? it->second : Expr(op);
}
Expr ExprMutatorBase::visit_(const ShapeExpr* op) {
  std::vector<PrimExpr> values;
  if (!map_all(op->values, &values, [&](const PrimExpr& e) { return visit_prim_expr(e); })) return Expr(op);
  return make_ref<ShapeExpr>(std::move(values));
}
Expr ExprMutatorBase::visit_(const PrimValue* op) {
  PrimExpr v = visit_prim_expr(op->value);
  return v.same_as(op->value) ? Expr(op) : Expr(make_ref<PrimValue>(std::move(v)));
}
Expr ExprMutatorBase::visit_(const StringImm* op) { return Expr(op); }
Expr ExprMutatorBase::visit_(const DataTypeImm* op) { return Expr(op); }
Expr ExprMutatorBase::visit_(const GlobalVar* op) { return Expr(op); }
Expr ExprMutatorBase::visit_(const Op* op) { return Expr(op); }
Expr ExprMutatorBase::visit_(const ExternFunc* op) { return Expr(op); }
Expr ExprMutatorBase::visit_(const Call* op) {
  Expr callee = visit_expr(op->op);
  std::vector<Expr> args;
  bool changed = map_all(op->args, &args, [&](const Expr& e) { return visit_expr(e); });
  std::vector<StructInfo> sinfo_args;
  changed |= map_all(op->sinfo_args, &sinfo_args, [&](const StructInfo& s) { return visit_struct_info(s); });
  if (!changed && callee.same_as(op->op)) return Expr(op);
  return make_ref<Call>(std::move(callee), std::move(args), op->attrs, std::move(sinfo_args), StructInfo(), op->span);
}
Expr ExprMutatorBase::visit_(const If* op) {
  Expr c = visit_expr(op->cond), t = visit_expr(op->then_branch), f = visit_expr(op->else_branch);
  if (c.same_as(op->cond) && t.same_as(op->then_branch) && f.same_as(op->else_branch)) return Expr(op);
  return make_ref<If>(std::move(c), std::move(t), std::move(f), StructInfo(), op->span);
}
Expr ExprMutatorBase::visit_(const SeqExpr* op) {
  std::vector<Block> blocks;
  bool changed = map_all(op->blocks, &blocks, [&](const Block& b) { return visit_binding_block(b); });
  Expr body = visit_expr(op->body);
  if (!changed && body.same_as(op->body)) return Expr(op);
  return make_ref<SeqExpr>(std::move(blocks), std::move(body));
}
Expr ExprMutatorBase::visit_(const Function* op) {
  Expr body = visit_expr(op->body);
  StructInfo ret = visit_struct_info(op->ret_struct_info);
  if (body.same_as(op->body) && ret.same_as(op->ret_struct_info)) return Expr(op);
  return make_ref<Function>(op->params, std::move(body), std::move(ret), op->is_pure, op->attrs, op->span);
}
Block ExprMutatorBase::visit_binding_block(const Block& block) {
  std::vector<Binding> bindings;
  if (!map_all(block->bindings, &bindings, [&](const Binding& b) { return visit_binding(b); })) return block;
  return make_block(std::move(bindings), block->is_dataflow());
}
Binding ExprMutatorBase::visit_binding(const Binding& binding) {
  Expr value = visit_expr(binding->value);
  if (auto* mc = binding.as<MatchCast>()) {
    StructInfo s = visit_struct_info(mc->struct_info);
    if (value.same_as(mc->value) && s.same_as(mc->struct_info)) return binding;
    return make_ref<MatchCast>(mc->var, std::move(value), std::move(s), binding->span);
  }
  if (value.same_as(binding->value)) return binding;
  return make_ref<VarBinding>(binding->var, std::move(value), binding->span);
}

// ---- ExprMutator (normalising)

Expr ExprMutator::visit_expr(const Expr& e) { return builder_.normalize(ExprFunctor::visit_expr(e)); }

Expr ExprMutator::visit_(const Var* op) { return ExprMutatorBase::visit_(op); }
Expr ExprMutator::visit_(const DataflowVar* op) { return ExprMutatorBase::visit_(op); }

Expr ExprMutator::visit_(const If* op) {
  Expr c = visit_expr(op->cond);
  Expr t = visit_with_new_scope(op->then_branch);
  Expr f = visit_with_new_scope(op->else_branch);
  if (c.same_as(op->cond) && t.same_as(op->then_branch) && f.same_as(op->else_branch)) return Expr(op);
  return make_ref<If>(std::move(c), std::move(t), std::move(f), StructInfo(), op->span);
}

Expr ExprMutator::visit_(const SeqExpr* op) {
  std::vector<Block> blocks;
  bool changed = false;
  for (const auto& b : op->blocks) {
    Block nb = visit_binding_block(b);
    changed |= !nb.same_as(b);
    if (!nb->bindings.empty()) blocks.push_back(nb);
    else changed = true;
  }
  builder_.begin_binding_block();
  Expr body = visit_expr(op->body);
  Block tail = builder_.pop_block();
  if (!tail->bindings.empty()) {
    blocks.push_back(tail);
    changed = true;
  }
  if (!changed && body.same_as(op->body)) return Expr(op);
  return make_ref<SeqExpr>(std::move(blocks), std::move(body));
}

Expr ExprMutator::visit_(const Function* op) {
  std::vector<Ref<Var>> params;
  bool changed = false;
  for (const auto& p : op->params) {
    auto np = visit_var_def(p);
    changed |= !np.same_as(p);
    params.push_back(np.as_ref<Var>());
  }
  StructInfo ret = visit_struct_info(op->ret_struct_info);
  Expr body = visit_with_new_scope(op->body, params);
  if (!changed && body.same_as(op->body) && ret.same_as(op->ret_struct_info)) return Expr(op);
  return make_ref<Function>(std::move(params), std::move(body), std::move(ret), op->is_pure, op->attrs, op->span);
}

Block ExprMutator::visit_binding_block(const Block& block) {
  if (block->is_dataflow()) {
    builder_.begin_dataflow_block();
  } else {
    builder_.begin_binding_block();
  }
  for (const auto& b : block->bindings) visit_binding(b);
  Block out = builder_.pop_block();
  // Share the old block when every binding came back unchanged.
  if (out->bindings.size() == block->bindings.size()) {
    bool same = true;
    for (size_t i = 0; i < out->bindings.size() && same; ++i) same = out->bindings[i].same_as(block->bindings[i]);
    if (same) return block;
  }
  return out;
}

Binding ExprMutator::visit_binding(const Binding& binding) {
  if (auto* vb = binding.as<VarBinding>()) {
    visit_var_binding(vb);
  } else {
    visit_match_cast(binding.as<MatchCast>());
  }
  return {};
}

void ExprMutator::visit_var_binding(const VarBinding* binding) {
  emit_visited(binding, visit_expr(binding->value));
}

Ref<VarNode> ExprMutator::emit_visited(const VarBinding* binding, const Expr& value) {
  Ref<VarNode> var = binding->var;
  if (value.same_as(binding->value)) {
    Ref<VarNode> nv = visit_var_def(var);
    if (nv.same_as(var)) {
      builder_.emit_binding(Binding(binding));
      return var;
    }
    var = nv;
  }
  // Keep the variable when the value's struct info is the same node; otherwise make a new one.
  if (!value->struct_info.same_as(var->struct_info)) {
    Ref<VarNode> nv = make_var_like(var, value->struct_info);
    var_remap_[binding->var.get()] = nv;
    var = nv;
  } else if (!var.same_as(binding->var)) {
    var_remap_[binding->var.get()] = var;
  }
  builder_.emit_binding(make_ref<VarBinding>(var, value, binding->span));
  return var;
}

void ExprMutator::visit_match_cast(const MatchCast* binding) {
  Expr value = visit_expr(binding->value);
  StructInfo sinfo = visit_struct_info(binding->struct_info);
  Ref<VarNode> var = visit_var_def(binding->var);
  if (value.same_as(binding->value) && sinfo.same_as(binding->struct_info) && var.same_as(binding->var)) {
    builder_.emit_binding(Binding(binding));
    return;
  }
  if (!var.same_as(binding->var)) var_remap_[binding->var.get()] = var;
  builder_.emit_binding(make_ref<MatchCast>(var, value, sinfo, binding->span));
}

Ref<VarNode> ExprMutator::visit_var_def(const Ref<VarNode>& var) {
  StructInfo s = visit_struct_info(var->struct_info);
  if (s.same_as(var->struct_info)) return var;
  Ref<VarNode> nv = make_var_like(var, s);
  var_remap_[var.get()] = nv;
  return nv;
}

Expr ExprMutator::visit_with_new_scope(const Expr& e, const std::vector<Ref<Var>>& params) {
  builder_.begin_scope(params);
  builder_.begin_binding_block();
  Expr r = visit_expr(e);
  std::vector<Block> prefix = builder_.end_scope();
  if (prefix.empty()) {
    if (r.is<SeqExpr>()) return r;
    return builder_.normalize(make_ref<SeqExpr>(std::vector<Block>{}, r));
  }
  std::vector<Block> blocks = prefix;
  Expr body = r;
  if (auto* seq = r.as<SeqExpr>()) {
    blocks.insert(blocks.end(), seq->blocks.begin(), seq->blocks.end());
    body = seq->body;
  }
  return make_ref<SeqExpr>(std::move(blocks), body);
}

}  // namespace relax
