// The Relax half of the parser: symbolic variable declarations, functions, bindings, dataflow
// blocks and if/else (expressions are in parser_relax_call.cc, struct info annotations in
// parser_sinfo.cc). Everything is built through the BlockBuilder; bindings keep the names
// written in the text (the value is normalised, then bound with emit_binding to a var of that
// name). Variables, bindings and functions carry the span of their text. An error from
// inference is reported where the BlockBuilder placed it — the call that failed — or else at
// the statement that caused it.
#include <algorithm>
#include <unordered_set>

#include "parser_internal.h"
#include "relax/arith/analyzer.h"
#include "relax/ir/op.h"
#include "relax/ir/struct_info_analysis.h"
#include "relax/text/printer.h"
#include "script_common.h"

namespace relax::script {

namespace {

bool is_call_to(const NodeP& n, std::initializer_list<const char*> names) {
  if (!n || n->kind != NK::kCall) return false;
  std::string d = text::dotted_name(n->a);
  for (const char* x : names)
    if (d == x) return true;
  return false;
}

}  // namespace

Span Parser::span_at(Pos pos) const {
  return Span(SourceSpan{ctx_.file(), pos.line, pos.col, pos.line, pos.col});
}

void Parser::rethrow_at(const Error& e, Pos pos) const {
  // A place in this file that the error already names is more precise than the statement.
  const SourceSpan& s = e.span();
  if (s.defined() && s.file == ctx_.file()) pos = Pos{s.line, s.column};
  error(pos, e.message());
}

bool Parser::is_sym_decl(const NodeP& v) const {
  if (v && v->kind == NK::kTuple && !v->items.empty()) {
    // n, m = T.int64(), T.int64()
    for (const auto& it : v->items)
      if (!is_sym_decl(it)) return false;
    return true;
  }
  if (!v || v->kind != NK::kCall) return false;
  std::string d = text::dotted_name(v->a);
  if (d == "T.var" || d == "T.Var") return true;
  if (d.rfind("T.", 0) != 0 || !v->items.empty()) return false;
  auto t = DataType::parse(d.substr(2));
  return t && t->is_integer_like() && !t->is_bool();
}

void Parser::declare_sym(const text::Stmt& s) {
  if (s.value->kind == NK::kTuple) {
    if (s.target->kind != NK::kTuple || s.target->items.size() != s.value->items.size())
      error(s.target->pos, "expected as many names as declarations");
    for (size_t i = 0; i < s.value->items.size(); ++i) {
      text::Stmt one = s;
      one.target = s.target->items[i];
      one.value = s.value->items[i];
      declare_sym(one);
    }
    return;
  }
  const NodeP& v = s.value;
  std::string d = text::dotted_name(v->a);
  DataType t = kDefaultInt;
  if (d == "T.var" || d == "T.Var") {
    // T.var("int64") (RFC) or T.Var("n", "int64").
    if (v->items.empty()) error(v->pos, d + " needs a dtype");
    t = dtype_of(v->items.back());
  } else {
    t = *DataType::parse(d.substr(2));
  }
  if (s.target->kind != NK::kName)
    error(s.target->pos, "expected one name to declare a symbolic variable");
  const std::string& name = s.target->str;
  if (const Entry* e = lookup(name); e && e->kind == Entry::kSymVar) {
    if (e->tvar->dtype != t)
      error(s.pos, "symbolic variable '" + name + "' is " + e->tvar->dtype.to_string() +
                       ", declared here as " + t.to_string());
    return;
  }
  define(name, Entry::sym(make_ref<tir::Var>(name, t)));
}

Ref<GlobalVar> Parser::global_var(const std::string& name, Pos pos) {
  if (bb_) {
    if (auto gv = bb_->module().find_global_var(name)) return gv;
  }
  if (auto it = declared_.find(name); it != declared_.end()) return it->second;
  if (const Entry* e = lookup(name); e && e->kind == Entry::kGlobal)
    error(pos,
          "function '" + name +
              "' is used before its definition; give it a return annotation (-> R.Tensor(...)) "
              "so that it can be called earlier");
  error(pos, "the module has no function '" + name + "'");
}

// ---- Functions and bindings.

StructInfo Parser::func_signature(const text::Stmt& def, bool pure) {
  push_scope();
  for (const auto& s : def.body)
    if (s->kind == SK::kAssign && is_sym_decl(s->value)) declare_sym(*s);
  implicit_vars_ = true;
  std::vector<StructInfo> params;
  for (const auto& p : def.params) {
    if (!p.annotation) error(p.pos, "parameter '" + p.name + "' needs a struct info annotation");
    params.push_back(sinfo(p.annotation));
  }
  StructInfo ret = sinfo(def.ret);
  implicit_vars_ = false;
  pop_scope();
  return func_sinfo(std::move(params), ret, pure);
}

Parser::FuncHeader Parser::func_header(const text::Stmt& def) {
  FuncHeader h;
  for (const auto& d : def.decorators) {
    if (d->kind != NK::kCall) continue;
    for (const auto& [k, v] : d->kwargs) {
      if (k == "pure")
        h.pure = v->kind != NK::kFalse;
      else if (k != "private")
        error(v->pos, "@R.function has no option '" + k + "'; valid: pure, private");
    }
  }
  pure_ = h.pure;
  func_name_ = def.name;
  for (const auto& s : def.body) {
    if (s->kind == SK::kAssign && is_sym_decl(s->value)) declare_sym(*s);
    if (s->kind == SK::kExpr && is_call_to(s->value, {"R.func_attr"})) {
      if (s->value->items.size() != 1) error(s->pos, "R.func_attr takes one dict");
      h.attrs = attr_dict(s->value->items[0]);
    }
  }
  // "relax.force_pure": the function promises purity although it calls impure ops (TVM).
  const AttrValue* force = h.attrs.defined() ? h.attrs->find("relax.force_pure") : nullptr;
  force_pure_ = force && std::holds_alternative<bool>(*force) && std::get<bool>(*force);
  implicit_vars_ = true;
  for (const auto& p : def.params) {
    if (!p.annotation) error(p.pos, "parameter '" + p.name + "' needs a struct info annotation");
    for (const auto& q : h.params)
      if (q->name == p.name) error(p.pos, "parameter '" + p.name + "' is repeated");
    h.params.push_back(make_var(p.name, sinfo(p.annotation), span_at(p.pos)));
  }
  h.ret = def.ret ? sinfo(def.ret) : StructInfo();
  implicit_vars_ = false;
  for (const auto& p : h.params) define(p->name, Entry::relax_var(p));
  if (def.body.empty() || def.body.back()->kind != SK::kReturn)
    error(def.body.empty() ? def.pos : def.body.back()->pos,
          "function '" + def.name + "' must end with a return statement");
  if (!def.body.back()->value) error(def.body.back()->pos, "a Relax function must return a value");
  return h;
}

void Parser::relax_function(const text::Stmt& def) {
  push_scope();
  FuncHeader h = func_header(def);
  bb_->begin_function(def.name, h.params, h.pure, h.attrs, span_at(def.pos));
  relax_stmts(std::vector<StmtP>(def.body.begin(), def.body.end() - 1), false, {});
  const text::Stmt& r = *def.body.back();
  Expr out = rexpr(r.value);
  try {
    bb_->end_function(out, h.ret);
  } catch (const Error& e) {
    rethrow_at(e, def.ret ? def.ret->pos : r.pos);
  }
  pop_scope();
}

void Parser::local_function(const text::Stmt& def, bool dataflow,
                            const std::vector<std::string>& outputs) {
  bool is_relax = false;
  for (const auto& d : def.decorators) {
    std::string n = text::dotted_name(d->kind == NK::kCall ? d->a : d);
    is_relax |= n == "R.function" || n == "R.func" || n == "relax.function";
  }
  if (!is_relax)
    error(def.pos, "a function defined inside a Relax function ('" + def.name +
                       "') needs the @R.function decorator");
  // The body sees the enclosing function's names (free variables are captured); purity and the
  // function name (for messages) are the local function's own while it is read.
  bool outer_pure = pure_, outer_force = force_pure_;
  std::string outer_name = func_name_;
  push_scope();
  FuncHeader h = func_header(def);
  // With a return annotation the function's variable exists before its body, so the body may
  // call it (a recursive local function, bound like TVM's: `f = R.function(...)` whose body
  // refers to `f`). The annotation is then the function's declared struct info.
  bool df_var = dataflow && std::find(outputs.begin(), outputs.end(), def.name) == outputs.end();
  Ref<VarNode> self;
  if (h.ret.defined()) {
    std::vector<StructInfo> ps;
    for (const auto& p : h.params) ps.push_back(p->struct_info);
    StructInfo fs = func_sinfo(std::move(ps), h.ret, h.pure);
    self = df_var ? Ref<VarNode>(make_dataflow_var(def.name, fs, span_at(def.pos)))
                  : Ref<VarNode>(make_var(def.name, fs, span_at(def.pos)));
    scopes_[scopes_.size() - 2][def.name] = Entry::relax_var(self);
  }
  bb_->begin_scope(h.params);
  bb_->begin_binding_block();
  relax_stmts(std::vector<StmtP>(def.body.begin(), def.body.end() - 1), false, {});
  const text::Stmt& r = *def.body.back();
  Expr out = rexpr(r.value);
  try {
    out = bb_->normalize(out);
  } catch (const Error& e) {
    rethrow_at(e, r.value->pos);
  }
  std::vector<Block> blocks;
  for (auto& b : bb_->end_scope())
    if (!b->bindings.empty()) blocks.push_back(b);
  StructInfo ret = h.ret;
  if (ret.defined()) {
    if (struct_info_base_check(ret, get_struct_info(out), bb_->analyzer()) == BaseCheck::kFail)
      error(def.ret->pos, "function '" + def.name + "' returns " +
                              print_struct_info(get_struct_info(out)) +
                              ", which does not match its declared " + print_struct_info(ret));
  } else {
    // Without an annotation the result may mention only the symbolic variables in scope.
    std::unordered_set<const tir::Var*> in_scope;
    for (const auto& scope : scopes_)
      for (const auto& [name, e] : scope)
        if (e.kind == Entry::kSymVar) in_scope.insert(e.tvar.get());
    for (const auto& p : h.params)
      for (const auto& v : defined_symbolic_vars(p->struct_info)) in_scope.insert(v.get());
    ret = erase_to_well_defined(get_struct_info(out), in_scope);
  }
  pop_scope();
  pure_ = outer_pure;
  force_pure_ = outer_force;
  func_name_ = outer_name;
  auto func = make_ref<Function>(h.params, make_ref<SeqExpr>(std::move(blocks), out), ret, h.pure,
                                 h.attrs, span_at(def.pos));
  if (!self.defined()) return emit_named(def.name, func, nullptr, df_var, def.pos);
  Expr value;
  try {
    value = bb_->normalize(func);
  } catch (const Error& e) {
    rethrow_at(e, def.pos);
  }
  bb_->emit_binding(make_ref<VarBinding>(self, value, span_at(def.pos)));
}

void Parser::check_purity(const Expr& v, bool dataflow, Pos pos) {
  auto* c = v.as<Call>();
  if (!c) return;
  bool impure = false;
  std::string what;
  if (auto* op = c->op.as<Op>()) {
    impure = !op->info->pure;
    what = "R." + (op->name.rfind("relax.", 0) == 0 ? op->name.substr(6) : op->name);
  } else if (c->op.is<ExternFunc>()) {
    impure = true;
    what = "the extern function";
  } else if (c->op->struct_info.defined()) {
    if (auto* fs = c->op->struct_info.as<FuncStructInfo>()) impure = !fs->purity;
    what = describe(c->op);
  }
  if (!impure) return;
  if (dataflow)
    error(
        pos,
        what +
            " is impure and not allowed in a dataflow block; move it out of `with R.dataflow():`" +
            std::string(what == "R.call_packed" ? " or use R.call_pure_packed" : ""));
  if (pure_ && !force_pure_)
    error(pos, "function '" + func_name_ + "' is pure but calls " + what +
                   ", which is impure; declare it with @R.function(pure=False)");
}

void Parser::emit_named(const std::string& name, const Expr& value, const NodeP& annotation,
                        bool dataflow_var, Pos pos, const StructInfo& match_sinfo) {
  Expr v;
  try {
    v = bb_->normalize(value);
  } catch (const Error& e) {
    rethrow_at(e, pos);
  }
  check_purity(v, bb_->in_dataflow_block(), pos);
  StructInfo s = match_sinfo.defined() ? match_sinfo : get_struct_info(v);
  if (annotation) {
    StructInfo a = sinfo(annotation);
    BaseCheck check = struct_info_base_check(a, s, bb_->analyzer());
    if (check == BaseCheck::kFail)
      error(annotation->pos, "the annotation " + print_struct_info(a) +
                                 " contradicts the inferred struct info " + print_struct_info(s));
    if (check == BaseCheck::kNeedsRuntimeCheck)
      error(annotation->pos, "the annotation " + print_struct_info(a) +
                                 " cannot be proven from the inferred struct info " +
                                 print_struct_info(s) +
                                 "; use R.match_cast to check it at run time");
    if (!match_sinfo.defined()) s = a;
  }
  Span span = span_at(pos);
  Ref<VarNode> var = dataflow_var ? Ref<VarNode>(make_dataflow_var(name, s, span))
                                  : Ref<VarNode>(make_var(name, s, span));
  Binding b = match_sinfo.defined() ? Binding(make_ref<MatchCast>(var, v, match_sinfo, span))
                                    : Binding(make_ref<VarBinding>(var, v, span));
  bb_->emit_binding(b);
  define(name, Entry::relax_var(var));
}

void Parser::relax_assign(const text::Stmt& s, bool dataflow,
                          const std::vector<std::string>& outputs) {
  if (s.target->kind != NK::kName)
    error(s.target->pos, "expected one variable name on the left of '='");
  const std::string& name = s.target->str;
  if (!s.value) error(s.pos, "expected '= value' after the annotation");
  bool df_var = dataflow && std::find(outputs.begin(), outputs.end(), name) == outputs.end();
  if (is_call_to(s.value, {"R.match_cast", "R.match_shape"})) {
    const text::Node& c = *s.value;
    bool legacy = text::dotted_name(c.a) == "R.match_shape";
    if (c.items.size() != 2)
      error(c.pos, text::dotted_name(c.a) + " takes a value and a " +
                       (legacy ? "shape pattern" : "struct info"));
    Expr v = rexpr(c.items[0]);
    try {
      v = bb_->normalize(v);
    } catch (const Error& e) {
      rethrow_at(e, c.items[0]->pos);
    }
    implicit_vars_ = true;
    StructInfo target;
    if (legacy) {
      const NodeP& pat = c.items[1];
      if (pat->kind != NK::kTuple && pat->kind != NK::kList)
        error(pat->pos, "R.match_shape takes a shape pattern such as (m, n)");
      std::vector<PrimExpr> dims;
      for (const auto& d : pat->items) dims.push_back(int_dim(d, "a shape pattern dimension"));
      const StructInfo& vs = get_struct_info(v);
      if (auto* t = vs.as<TensorStructInfo>())
        target = tensor_sinfo(dims, t->dtype, t->vdevice);
      else if (vs.is<ShapeStructInfo>())
        target = shape_sinfo(dims);
      else
        error(c.items[0]->pos,
              "R.match_shape matches a tensor or a shape, got " + print_struct_info(vs));
    } else {
      target = sinfo(c.items[1]);
    }
    implicit_vars_ = false;
    if (struct_info_base_check(target, get_struct_info(v), bb_->analyzer()) == BaseCheck::kFail)
      error(c.items[1]->pos, "R.match_cast can never succeed: the value is " +
                                 print_struct_info(get_struct_info(v)) +
                                 ", which is incompatible with " + print_struct_info(target));
    emit_named(name, v, s.annotation, df_var, s.pos, target);
    return;
  }
  emit_named(name, rexpr(s.value), s.annotation, df_var, s.pos);
}

void Parser::relax_if(const text::Stmt& s) {
  Expr cond = rexpr(s.value);
  try {
    cond = bb_->normalize_argument(cond);
  } catch (const Error& e) {
    rethrow_at(e, s.value->pos);
  }
  if (s.orelse.empty())
    error(s.pos, "an if in a Relax function needs an else branch that assigns the same variable");
  std::string names[2];
  NodeP ann;
  Expr branches[2];
  for (int k = 0; k < 2; ++k) {
    const auto& body = k == 0 ? s.body : s.orelse;
    const StmtP& last = body.back();
    if (last->kind != SK::kAssign || last->target->kind != NK::kName || !last->value)
      error(last->pos, "the last statement of each branch must assign the if's result (`y = ...`)");
    names[k] = last->target->str;
    if (!ann) ann = last->annotation;
    bb_->begin_scope();
    bb_->begin_binding_block();
    push_scope();
    relax_stmts(std::vector<StmtP>(body.begin(), body.end() - 1), false, {});
    Expr val = rexpr(last->value);
    try {
      val = bb_->normalize(val);
    } catch (const Error& e) {
      rethrow_at(e, last->pos);
    }
    pop_scope();
    std::vector<Block> blocks;
    for (auto& b : bb_->end_scope())
      if (!b->bindings.empty()) blocks.push_back(b);
    branches[k] = make_ref<SeqExpr>(std::move(blocks), val);
  }
  if (names[0] != names[1])
    error(s.orelse.back()->pos, "both branches must assign the same variable ('" + names[0] +
                                    "' and '" + names[1] + "')");
  auto value = make_ref<If>(cond, branches[0], branches[1], StructInfo(), span_at(s.pos));
  emit_named(names[0], value, ann, false, s.pos);
}

void Parser::relax_stmts(const std::vector<StmtP>& list, bool dataflow,
                         const std::vector<std::string>& outputs) {
  for (const auto& sp : list) {
    const text::Stmt& s = *sp;
    try {
      switch (s.kind) {
        case SK::kPass:
          break;
        case SK::kExpr:
          if (is_call_to(s.value, {"R.func_attr"})) break;  // read before the function began
          if (is_call_to(s.value, {"R.output", "R.outputs"}))
            error(s.pos,
                  "R.output is only valid as the last statement of a `with R.dataflow():` block");
          if (s.value->kind == NK::kStr) break;  // a docstring
          emit_named("_", rexpr(s.value), nullptr, dataflow, s.pos);
          break;
        case SK::kAssign:
          if (is_sym_decl(s.value)) {
            declare_sym(s);
          } else if (s.value && s.value->kind == NK::kName && s.target->kind == NK::kName &&
                     s.target->str == "cls") {
            break;  // cls = Module
          } else {
            relax_assign(s, dataflow, outputs);
          }
          break;
        case SK::kWith: {
          if (!is_call_to(s.value, {"R.dataflow"}))
            error(s.value->pos, "expected `with R.dataflow():`");
          if (dataflow) error(s.pos, "dataflow blocks cannot be nested");
          if (s.target) error(s.target->pos, "`with R.dataflow()` takes no `as` target");
          const StmtP& last = s.body.back();
          if (last->kind != SK::kExpr || !is_call_to(last->value, {"R.output", "R.outputs"}))
            error(last->pos,
                  "a dataflow block must end with R.output(...) naming the variables it exports");
          std::vector<std::string> outs;
          for (const auto& o : last->value->items) {
            if (o->kind != NK::kName) error(o->pos, "R.output takes variable names");
            outs.push_back(o->str);
          }
          bb_->begin_dataflow_block();
          push_scope();
          relax_stmts(std::vector<StmtP>(s.body.begin(), s.body.end() - 1), true, outs);
          std::vector<Entry> exported;
          for (size_t i = 0; i < outs.size(); ++i) {
            auto it = scopes_.back().find(outs[i]);
            if (it == scopes_.back().end() || it->second.kind != Entry::kRelaxVar)
              error(last->value->items[i]->pos,
                    "R.output names '" + outs[i] + "', which this dataflow block does not define");
            exported.push_back(it->second);
          }
          pop_scope();
          for (size_t i = 0; i < outs.size(); ++i) define(outs[i], exported[i]);
          bb_->end_block();
          break;
        }
        case SK::kIf:
          if (dataflow) error(s.pos, "control flow (if) is not allowed in a dataflow block");
          relax_if(s);
          break;
        case SK::kReturn:
          error(s.pos, "return must be the last statement of the function");
        case SK::kFuncDef:
          local_function(s, dataflow, outputs);
          break;
        default:
          error(s.pos, "this statement is not valid in a Relax function");
      }
    } catch (const InternalError& e) {
      error(s.pos, "invalid program: " + e.detail());
    }
  }
}

}  // namespace relax::script
