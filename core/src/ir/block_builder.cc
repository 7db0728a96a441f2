#include "relax/ir/block_builder.h"

#include "relax/arith/analyzer.h"
#include "relax/ir/op.h"
#include "relax/ir/struct_info_analysis.h"
#include "relax/support/diagnostic.h"

namespace relax {

std::string NameSupply::fresh(const std::string& hint) {
  std::string base = hint.empty() ? "v" : hint;
  auto [it, inserted] = taken_.emplace(base, 0);
  if (inserted) return base;
  while (true) {
    std::string candidate = base + std::to_string(++it->second);
    if (taken_.emplace(candidate, 0).second) return candidate;
  }
}

BlockBuilder::BlockBuilder(IRModule mod)
    : module_(std::move(mod)),
      analyzer_(std::make_unique<arith::Analyzer>(arith::AnalyzerOptions{.int64_vars_nonnegative = true})) {
  for (const auto& e : module_.functions()) global_names_.reserve(e.gv->name);
}

BlockBuilder::~BlockBuilder() = default;

// ---- Module

Ref<GlobalVar> BlockBuilder::add_function(BaseFunc func, const std::string& name_hint) {
  std::string name = global_names_.fresh(name_hint);
  while (module_.contains(name)) name = global_names_.fresh(name_hint);
  return module_.add(name, std::move(func));
}

void BlockBuilder::update_function(const Ref<GlobalVar>& gv, BaseFunc func) { module_.update(gv, std::move(func)); }

Ref<GlobalVar> BlockBuilder::declare_function(const std::string& name, StructInfo sinfo) {
  RX_CHECK(sinfo.is<FuncStructInfo>()) << "declare_function('" << name << "') needs a function struct info, got "
                                       << to_string(sinfo);
  RX_CHECK(!module_.contains(name) && !declared_.count(name)) << "function '" << name << "' is already defined";
  auto gv = make_ref<GlobalVar>(name, std::move(sinfo));
  declared_.emplace(name, gv);
  global_names_.reserve(name);
  return gv;
}

StructInfo BlockBuilder::global_var_sinfo(const GlobalVar& gv) const {
  if (BaseFunc f = module_.find(gv.name); f.defined() && f->struct_info.defined()) return f->struct_info;
  if (auto it = declared_.find(gv.name); it != declared_.end()) return it->second->struct_info;
  return gv.struct_info;
}

// ---- Functions and scopes

void BlockBuilder::begin_function(const std::string& name, std::vector<Ref<Var>> params, bool pure, Attrs attrs,
                                  Span span) {
  names_.clear();
  for (const auto& p : params) names_.reserve(p->name);
  begin_scope(params);
  functions_.push_back({name, std::move(params), pure, std::move(attrs), std::move(span)});
}

Ref<GlobalVar> BlockBuilder::end_function(const Expr& output, StructInfo ret) {
  RX_CHECK(!functions_.empty()) << "end_function without begin_function";
  Expr out = normalize(output);
  // The signature may mention only what the parameters define (and enclosing scopes).
  std::unordered_set<const tir::Var*> param_scope =
      symbolic_vars_in_scope(scopes_.size() >= 2 ? scopes_.size() - 2 : 0);
  if (scopes_.size() < 2) param_scope.clear();
  for (const auto& p : functions_.back().params)
    for (const auto& v : defined_symbolic_vars(p->struct_info)) param_scope.insert(v.get());
  std::vector<Block> blocks;
  for (auto& b : end_scope())
    if (!b->bindings.empty()) blocks.push_back(b);
  FunctionFrame frame = std::move(functions_.back());
  functions_.pop_back();
  StructInfo out_sinfo = get_struct_info(out);
  if (ret.defined()) {
    RX_CHECK(struct_info_base_check(ret, out_sinfo, *analyzer_) != BaseCheck::kFail)
        << "function '" << frame.name << "' returns " << to_string(out_sinfo) << ", which does not match its declared "
        << to_string(ret);
  } else {
    ret = erase_to_well_defined(out_sinfo, param_scope);
  }
  auto body = make_ref<SeqExpr>(std::move(blocks), out);
  auto func = make_ref<Function>(frame.params, body, ret, frame.pure, frame.attrs, frame.span);
  if (auto it = declared_.find(frame.name); it != declared_.end()) {
    Ref<GlobalVar> gv = it->second;
    declared_.erase(it);
    module_.add(gv, func);
    return gv;
  }
  global_names_.reserve(frame.name);
  return module_.add(frame.name, func);
}

void BlockBuilder::begin_scope(const std::vector<Ref<Var>>& params) {
  scopes_.emplace_back();
  for (const auto& p : params) {
    RX_CHECK(p.defined() && p->struct_info.defined()) << "a function parameter needs struct info";
    define_symbolic_vars(p->struct_info);
  }
}

std::vector<Block> BlockBuilder::end_scope() {
  RX_ICHECK(!scopes_.empty()) << "end_scope without begin_scope";
  ScopeFrame& s = scopes_.back();
  if (s.open) {
    if (!s.open->bindings.empty()) s.blocks.push_back(make_block(std::move(s.open->bindings), s.open->dataflow));
    s.open.reset();
  }
  std::vector<Block> blocks = std::move(s.blocks);
  scopes_.pop_back();
  return blocks;
}

void BlockBuilder::begin_dataflow_block() {
  if (scopes_.empty()) scopes_.emplace_back();
  ScopeFrame& s = scopes_.back();
  if (s.open && !s.open->bindings.empty()) s.blocks.push_back(make_block(std::move(s.open->bindings), s.open->dataflow));
  s.open = std::make_unique<BlockFrame>();
  s.open->dataflow = true;
}

void BlockBuilder::begin_binding_block() {
  if (scopes_.empty()) scopes_.emplace_back();
  ScopeFrame& s = scopes_.back();
  if (s.open && !s.open->bindings.empty()) s.blocks.push_back(make_block(std::move(s.open->bindings), s.open->dataflow));
  s.open = std::make_unique<BlockFrame>();
}

Block BlockBuilder::pop_block() {
  RX_CHECK(!scopes_.empty() && scopes_.back().open) << "end_block without an open block";
  std::unique_ptr<BlockFrame> b = std::move(scopes_.back().open);
  return make_block(std::move(b->bindings), b->dataflow);
}

Block BlockBuilder::end_block() {
  Block b = pop_block();
  if (!b->bindings.empty()) scopes_.back().blocks.push_back(b);
  return b;
}

bool BlockBuilder::in_dataflow_block() const {
  return !scopes_.empty() && scopes_.back().open && scopes_.back().open->dataflow;
}

BlockBuilder::BlockFrame& BlockBuilder::current_block() {
  if (scopes_.empty()) scopes_.emplace_back();
  ScopeFrame& s = scopes_.back();
  if (!s.open) s.open = std::make_unique<BlockFrame>();
  return *s.open;
}

void BlockBuilder::define_symbolic_vars(const StructInfo& sinfo) {
  if (scopes_.empty()) scopes_.emplace_back();
  for (auto& v : defined_symbolic_vars(sinfo)) {
    scopes_.back().symbolic_vars.push_back(v.get());
    symbolic_var_refs_.push_back(v);
  }
}

std::unordered_set<const tir::Var*> BlockBuilder::symbolic_vars_in_scope(size_t depth) const {
  std::unordered_set<const tir::Var*> out;
  for (size_t i = 0; i <= depth && i < scopes_.size(); ++i)
    out.insert(scopes_[i].symbolic_vars.begin(), scopes_[i].symbolic_vars.end());
  return out;
}

// ---- Emitting

Ref<VarNode> BlockBuilder::new_var(const std::string& hint, StructInfo sinfo, bool output, Span span) {
  bool dataflow = in_dataflow_block() && !output;
  std::string name = names_.fresh(hint.empty() ? (dataflow ? "lv" : "gv") : hint);
  if (dataflow) return make_dataflow_var(name, std::move(sinfo), std::move(span));
  return make_var(name, std::move(sinfo), std::move(span));
}

Ref<VarNode> BlockBuilder::emit(const Expr& value, const std::string& name_hint) {
  Expr v = normalize(value);
  Ref<VarNode> var = new_var(name_hint, get_struct_info(v), false, v->span);
  current_block().bindings.push_back(make_ref<VarBinding>(var, v, v->span));
  bindings_[var.get()] = v;
  return var;
}

Ref<VarNode> BlockBuilder::emit_match_cast(const Expr& value, const StructInfo& sinfo, const std::string& name_hint) {
  Expr v = normalize(value);
  RX_CHECK(sinfo.defined()) << "match_cast needs a target struct info";
  if (struct_info_base_check(sinfo, get_struct_info(v), *analyzer_) == BaseCheck::kFail)
    RX_THROW_AT(v->span.get()) << "match_cast of " << describe(v) << " can never succeed: its struct info "
                               << to_string(get_struct_info(v)) << " is incompatible with " << to_string(sinfo);
  define_symbolic_vars(sinfo);
  Ref<VarNode> var = new_var(name_hint, sinfo, false, v->span);
  current_block().bindings.push_back(make_ref<MatchCast>(var, v, sinfo, v->span));
  bindings_[var.get()] = v;
  return var;
}

Ref<Var> BlockBuilder::emit_output(const Expr& value, const std::string& name_hint) {
  RX_CHECK(in_dataflow_block()) << "emit_output (R.output) is only valid inside a dataflow block";
  Expr v = normalize(value);
  Ref<VarNode> var = new_var(name_hint, get_struct_info(v), true, v->span);
  current_block().bindings.push_back(make_ref<VarBinding>(var, v, v->span));
  bindings_[var.get()] = v;
  return var.as_ref<Var>();
}

void BlockBuilder::emit_binding(const Binding& binding) {
  RX_ICHECK(binding.defined() && binding->var->struct_info.defined()) << "emit_binding of an unnormalised binding";
  if (auto* mc = binding.as<MatchCast>()) define_symbolic_vars(mc->struct_info);
  names_.reserve(binding->var->name);
  current_block().bindings.push_back(binding);
  bindings_[binding->var.get()] = binding->value;
}

Expr BlockBuilder::lookup_binding(const Ref<VarNode>& var) const {
  auto it = bindings_.find(var.get());
  return it == bindings_.end() ? Expr() : it->second;
}

// ---- Normalisation

Expr BlockBuilder::normalize_argument(const Expr& e) {
  RX_ICHECK(e.defined()) << "normalising an undefined expression";
  if (is_leaf(e)) return normalize(e);
  if (auto* t = e.as<Tuple>()) {
    // A tuple of leaves may stand as an argument (call_tir(f, (x, y), ...)).
    std::vector<Expr> fields;
    bool changed = false;
    for (const auto& f : t->fields) {
      fields.push_back(normalize_argument(f));
      changed |= !fields.back().same_as(f);
    }
    if (!changed && t->struct_info.defined()) return e;
    return make_ref<Tuple>(std::move(fields), StructInfo(), t->span);
  }
  Expr n = normalize(e);
  return emit(n);
}

Expr BlockBuilder::normalize_seq(const Expr& e) {
  begin_scope();
  begin_binding_block();
  Expr r = normalize(e);
  std::vector<Block> blocks;
  for (auto& b : end_scope())
    if (!b->bindings.empty()) blocks.push_back(b);
  if (auto* seq = r.as<SeqExpr>()) {
    if (blocks.empty()) return r;
    blocks.insert(blocks.end(), seq->blocks.begin(), seq->blocks.end());
    return make_ref<SeqExpr>(std::move(blocks), seq->body, seq->struct_info);
  }
  return make_ref<SeqExpr>(std::move(blocks), r);
}

Expr BlockBuilder::normalize(const Expr& e) {
  RX_ICHECK(e.defined()) << "normalising an undefined expression";
  if (!e->span.defined()) return normalize_node(e);
  try {
    return normalize_node(e);
  } catch (const Error& err) {
    // The innermost node with a place wins: a nested call that already placed the error keeps it.
    throw err.located(e->span.get());
  }
}

Expr BlockBuilder::normalize_node(const Expr& e) {
  switch (ExprKind(e->kind())) {
    case ExprKind::kVar:
    case ExprKind::kDataflowVar:
      RX_CHECK(e->struct_info.defined()) << "variable " << describe(e) << " has no struct info";
      return e;
    case ExprKind::kConstant:
    case ExprKind::kShapeExpr:
    case ExprKind::kPrimValue:
    case ExprKind::kStringImm:
    case ExprKind::kDataTypeImm:
    case ExprKind::kOp:
    case ExprKind::kExternFunc: return e;
    case ExprKind::kGlobalVar: {
      if (e->struct_info.defined()) return e;
      auto* gv = e.as<GlobalVar>();
      StructInfo s = global_var_sinfo(*gv);
      return s.defined() ? Expr(make_ref<GlobalVar>(gv->name, s)) : e;
    }
    case ExprKind::kTuple: {
      auto* t = e.as<Tuple>();
      std::vector<Expr> fields;
      bool changed = false;
      for (const auto& f : t->fields) {
        fields.push_back(normalize_argument(f));
        changed |= !fields.back().same_as(f);
      }
      if (!changed && e->struct_info.defined()) return e;
      return make_ref<Tuple>(std::move(fields), StructInfo(), e->span);
    }
    case ExprKind::kTupleGetItem: {
      auto* g = e.as<TupleGetItem>();
      Expr t = normalize_argument(g->tuple);
      auto* ts = get_struct_info(t).as<TupleStructInfo>();
      if (ts) {
        RX_CHECK(g->index >= 0 && size_t(g->index) < ts->fields.size())
            << "tuple index " << g->index << " is out of range for " << describe(t) << " with " << ts->fields.size()
            << " field(s)";
      } else {
        RX_CHECK(get_struct_info(t).is<ObjectStructInfo>())
            << "indexing " << describe(t) << ", which is " << to_string(get_struct_info(t)) << ", not a tuple";
      }
      if (t.same_as(g->tuple) && e->struct_info.defined()) return e;
      return make_ref<TupleGetItem>(t, g->index, ts ? StructInfo() : object_sinfo(), e->span);
    }
    case ExprKind::kCall: return normalize_call(e.as<Call>());
    case ExprKind::kIf: {
      auto* i = e.as<If>();
      Expr cond = normalize_argument(i->cond);
      const StructInfo& cs = get_struct_info(cond);
      if (auto* t = cs.as<TensorStructInfo>()) {
        RX_CHECK(t->ndim <= 0 && (t->dtype.is_void() || t->dtype.is_bool()))
            << "an If condition must be a scalar bool tensor or a PrimValue, got " << to_string(cs);
      } else {
        RX_CHECK(cs.is<PrimStructInfo>() || cs.is<ObjectStructInfo>())
            << "an If condition must be a scalar bool tensor or a PrimValue, got " << to_string(cs);
      }
      Expr t = normalize_seq(i->then_branch);
      Expr f = normalize_seq(i->else_branch);
      auto scope = symbolic_vars_in_scope(scopes_.empty() ? 0 : scopes_.size() - 1);
      StructInfo s = erase_to_well_defined(struct_info_lca(get_struct_info(t), get_struct_info(f), *analyzer_), scope);
      if (cond.same_as(i->cond) && t.same_as(i->then_branch) && f.same_as(i->else_branch) && e->struct_info.defined())
        return e;
      return make_ref<If>(cond, t, f, s, e->span);
    }
    case ExprKind::kSeqExpr: return normalize_seq_expr(e.as<SeqExpr>());
    case ExprKind::kFunction: {
      auto* f = e.as<Function>();
      begin_scope(f->params);
      begin_binding_block();
      Expr body = normalize(f->body);
      std::vector<Block> prefix;
      for (auto& b : end_scope())
        if (!b->bindings.empty()) prefix.push_back(b);
      if (!prefix.empty() || !body.is<SeqExpr>()) {
        std::vector<Block> blocks = prefix;
        Expr inner = body;
        if (auto* seq = body.as<SeqExpr>()) {
          blocks.insert(blocks.end(), seq->blocks.begin(), seq->blocks.end());
          inner = seq->body;
        }
        body = make_ref<SeqExpr>(std::move(blocks), inner);
      }
      RX_CHECK(struct_info_base_check(f->ret_struct_info, get_struct_info(body), *analyzer_) != BaseCheck::kFail)
          << "the function body returns " << to_string(get_struct_info(body)) << ", which does not match the declared "
          << to_string(f->ret_struct_info);
      if (body.same_as(f->body)) return e;
      return make_ref<Function>(f->params, body, f->ret_struct_info, f->is_pure, f->attrs, f->span);
    }
    case ExprKind::kPrimFunc: return e;
    default: RX_IFAIL() << "cannot normalise " << relax_kind_name(e->kind());
  }
}

Expr BlockBuilder::normalize_call(const Call* call) {
  Expr callee = call->op;
  if (!callee.is<Op>()) callee = normalize_argument(callee);
  std::vector<Expr> args;
  bool changed = !callee.same_as(call->op);
  for (const auto& a : call->args) {
    args.push_back(normalize_argument(a));
    changed |= !args.back().same_as(a);
  }
  if (!changed && call->struct_info.defined()) return Expr(call);
  auto normalized = make_ref<Call>(callee, std::move(args), call->attrs, call->sinfo_args, StructInfo(), call->span);
  StructInfo sinfo = infer_call(*normalized);
  RX_ICHECK(sinfo.defined()) << "struct-info inference of " << describe(Expr(call)) << " returned nothing";
  return make_ref<Call>(normalized->op, normalized->args, normalized->attrs, normalized->sinfo_args, sinfo,
                        call->span);
}

Expr BlockBuilder::normalize_seq_expr(const SeqExpr* seq) {
  bool changed = false;
  std::vector<Block> blocks;
  for (const auto& b : seq->blocks) {
    if (b->is_dataflow()) {
      begin_dataflow_block();
    } else {
      begin_binding_block();
    }
    for (const auto& binding : b->bindings) {
      const Expr& value = binding->value;
      Expr nv;
      try {
        nv = normalize(value);
      } catch (const Error& err) {
        throw err.located(binding->span.get());
      }
      if (nv.same_as(value) && binding->var->struct_info.defined()) {
        emit_binding(binding);
        continue;
      }
      changed = true;
      Ref<VarNode> var = binding->var;
      if (!var->struct_info.defined()) var = make_var_like(var, get_struct_info(nv));
      if (auto* mc = binding.as<MatchCast>()) {
        emit_binding(make_ref<MatchCast>(var, nv, mc->struct_info, binding->span));
      } else {
        emit_binding(make_ref<VarBinding>(var, nv, binding->span));
      }
    }
    Block nb = pop_block();
    // Normalising a value may have emitted helper bindings before it.
    changed |= nb->bindings.size() != b->bindings.size();
    blocks.push_back(changed ? nb : b);
  }
  begin_binding_block();
  Expr body = normalize(seq->body);
  Block tail = pop_block();
  if (!tail->bindings.empty()) {
    blocks.push_back(tail);
    changed = true;
  }
  if (!changed && body.same_as(seq->body) && seq->struct_info.defined()) return Expr(seq);
  auto scope = symbolic_vars_in_scope(scopes_.empty() ? 0 : scopes_.size() - 1);
  return make_ref<SeqExpr>(std::move(blocks), body, erase_to_well_defined(get_struct_info(body), scope));
}

StructInfo BlockBuilder::infer_call(const Call& call) {
  if (auto* op = call.op.as<Op>()) {
    op->info->check_call(call);
    RX_CHECK(bool(op->info->infer)) << op->name << " has no struct-info inference";
    return op->info->infer(call, *this);
  }
  if (auto* ext = call.op.as<ExternFunc>()) {
    if (!call.sinfo_args.empty()) return call.sinfo_args[0];
    if (auto* f = ext->struct_info.as<FuncStructInfo>()) return f->ret;
    return object_sinfo();
  }
  StructInfo callee_sinfo;
  std::string callee_name = describe(call.op);
  if (auto* gv = call.op.as<GlobalVar>()) {
    BaseFunc f = module_.find(gv->name);
    RX_CHECK(!f.defined() || f.is<Function>())
        << "@" << gv->name << " is a PrimFunc; call it through R.call_tir, not directly";
    callee_sinfo = global_var_sinfo(*gv);
    RX_CHECK(callee_sinfo.defined()) << "call of @" << gv->name << ", which is not defined in the module";
  } else {
    callee_sinfo = get_struct_info(call.op);
  }
  auto* fs = callee_sinfo.as<FuncStructInfo>();
  RX_CHECK(fs != nullptr) << "call of " << callee_name << ", which is " << to_string(callee_sinfo)
                          << ", not a function";
  if (fs->is_opaque() && !call.sinfo_args.empty()) return call.sinfo_args[0];
  // A global function shares no symbolic variables with its caller; a local one may share
  // those of the scopes being built (outside any scope they are not known).
  std::unordered_set<const tir::Var*> scope;
  if (!call.op.is<GlobalVar>()) {
    if (scopes_.empty()) return derive_call_ret_struct_info(*fs, call.args, callee_name, *analyzer_);
    scope = symbolic_vars_in_scope(scopes_.size() - 1);
  }
  return derive_call_ret_struct_info(*fs, call.args, callee_name, *analyzer_, &scope);
}

}  // namespace relax
