// The Relax half of the parser: functions, bindings, dataflow blocks, if/else, struct info
// annotations and expressions. Everything is built through the BlockBuilder; bindings keep the
// names written in the text (the value is normalised, then bound with emit_binding to a var of
// that name). Errors from inference are reported at the statement that caused them.
#include <algorithm>
#include <cstring>
#include <unordered_set>

#include "parser_internal.h"
#include "relax/arith/analyzer.h"
#include "relax/ir/op.h"
#include "relax/text/printer.h"
#include "relax/ir/struct_info_analysis.h"
#include "relax/runtime/ndarray.h"
#include "script_common.h"

namespace relax::script {

namespace {

NodeP kwarg(const text::Node& n, const std::string& key) {
  for (const auto& [k, v] : n.kwargs)
    if (k == key) return v;
  return nullptr;
}

bool is_call_to(const NodeP& n, std::initializer_list<const char*> names) {
  if (!n || n->kind != NK::kCall) return false;
  std::string d = text::dotted_name(n->a);
  for (const char* x : names)
    if (d == x) return true;
  return false;
}

StructInfo pack(std::vector<StructInfo> out) {
  if (out.size() == 1) return out[0];
  return tuple_sinfo(std::move(out));
}

}  // namespace

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

// Struct info annotations and constants are parsed in parser_sinfo.cc.

Expr Parser::rexpr(const NodeP& n) {
  switch (n->kind) {
    case NK::kName: {
      const Entry* e = lookup(n->str);
      if (!e) error(n->pos, "undefined variable '" + n->str + "'");
      switch (e->kind) {
        case Entry::kRelaxVar:
          return e->rvar;
        case Entry::kGlobal:
          return global_var(e->global, n->pos);
        case Entry::kSymVar:
          error(n->pos, "'" + n->str +
                            "' is a symbolic variable, not a Relax value; use R.prim_value(" +
                            n->str + ") or R.shape([" + n->str + "])");
        default:
          error(n->pos, "'" + n->str + "' is not a Relax value");
      }
    }
    case NK::kAttr: {
      if (n->a->kind == NK::kName) {
        const Entry* e = lookup(n->a->str);
        if (e && e->kind == Entry::kModuleAlias) return global_var(n->str, n->pos);
      }
      // An op as a value (an argument, not a call): R.add, R.nn.relu.
      std::string d = text::dotted_name(n);
      if (d.rfind("R.", 0) == 0) {
        if (OpInfo* info = OpRegistry::global().find("relax." + d.substr(2))) return info->op;
        error(n->pos, "'" + d + "' is not a Relax value: there is no op 'relax." + d.substr(2) +
                          "' (an op used as a value is written R.<op name>, e.g. R.add)");
      }
      error(n->pos, "'" + d + "' is not a Relax value");
    }
    case NK::kTuple:
    case NK::kList: {
      bool all_prim = !n->items.empty();
      for (const auto& it : n->items) all_prim &= looks_prim(it);
      if (all_prim) {
        std::vector<PrimExpr> vals;
        for (const auto& it : n->items) {
          PrimExpr v = prim_as(it, kDefaultInt);
          if (!v->dtype.is_int()) error(it->pos, "a shape value must be an integer");
          vals.push_back(v);
        }
        return make_shape(std::move(vals));
      }
      std::vector<Expr> fs;
      for (const auto& it : n->items) fs.push_back(rexpr(it));
      return make_tuple(std::move(fs));
    }
    case NK::kSubscript: {
      const NodeP& base = n->a;
      if (base->kind == NK::kSubscript && base->a->kind == NK::kName &&
          base->a->str == "metadata") {
        int64_t i = int_literal(n->items[0], "a metadata index");
        if (i < 0 || size_t(i) >= metadata_.size())
          error(n->items[0]->pos, "metadata[\"relax.expr.Constant\"] has no entry " +
                                      std::to_string(i) +
                                      " (the metadata "
                                      "section has " +
                                      std::to_string(metadata_.size()) + ")");
        return metadata_[size_t(i)];
      }
      if (n->items.size() != 1) error(n->pos, "a tuple is indexed with one integer");
      int64_t i = int_literal(n->items[0], "a tuple index");
      if (i < 0 || i > INT32_MAX) error(n->items[0]->pos, "tuple index out of range");
      return make_ref<TupleGetItem>(rexpr(base), int(i));
    }
    case NK::kStr:
      return make_string(n->str);
    case NK::kCall:
      return relax_call(*n);
    case NK::kInt:
    case NK::kFloat:
    case NK::kTrue:
    case NK::kFalse:
      error(n->pos, "a literal as a Relax value must be written R.const(...) or R.prim_value(...)");
    case NK::kBinOp:
    case NK::kUnary:
      error(n->pos,
            "operators are not defined on Relax values; call the op (R.add, R.multiply, ...)");
    default:
      error(n->pos, "expected a Relax expression");
  }
}

Expr Parser::relax_call(const text::Node& n) {
  std::string fn = text::dotted_name(n.a);
  auto arg = [&](size_t i, const char* what) -> const NodeP& {
    if (i >= n.items.size()) error(n.pos, fn + " needs " + what);
    return n.items[i];
  };
  auto sinfo_list = [&](const NodeP& v) {
    std::vector<StructInfo> out;
    if (v->kind == NK::kList || v->kind == NK::kTuple) {
      for (const auto& it : v->items) out.push_back(sinfo(it));
    } else {
      out.push_back(sinfo(v));
    }
    return out;
  };
  auto args_tuple = [&](const NodeP& v) -> Expr {
    if (v->kind == NK::kList || v->kind == NK::kTuple) {
      std::vector<Expr> fs;
      for (const auto& it : v->items) fs.push_back(rexpr(it));
      return make_tuple(std::move(fs));
    }
    Expr e = rexpr(v);
    if (e->struct_info.defined() && e->struct_info.is<TupleStructInfo>()) return e;
    return make_tuple({e});
  };
  auto allow_kwargs = [&](std::initializer_list<const char*> allowed) {
    for (const auto& [k, v] : n.kwargs) {
      bool ok = false;
      for (const char* a : allowed) ok |= k == a;
      if (!ok) error(v->pos, fn + " has no keyword argument '" + k + "'");
    }
  };
  // Output struct info of a DPS call: out_sinfo=..., or the RFC's (shape, dtype=...).
  auto dps_out = [&](size_t shape_arg) {
    if (NodeP o = kwarg(n, "out_sinfo")) return pack(sinfo_list(o));
    if (n.items.size() <= shape_arg) error(n.pos, fn + " needs out_sinfo=");
    const NodeP& shp = n.items[shape_arg];
    NodeP dt = kwarg(n, "dtype");
    if (!dt) {
      if (n.items.size() > shape_arg + 1)
        dt = n.items[shape_arg + 1];
      else
        return pack(sinfo_list(shp));  // out_sinfo given positionally
    }
    DataType t = dtype_of(dt);
    std::vector<PrimExpr> dims;
    if (shp->kind == NK::kTuple || shp->kind == NK::kList) {
      for (const auto& d : shp->items) dims.push_back(prim_as(d, kDefaultInt));
    } else {
      Expr s = rexpr(shp);
      const ShapeStructInfo* ss =
          s->struct_info.defined() ? s->struct_info.as<ShapeStructInfo>() : nullptr;
      if (ss && ss->values) {
        dims = *ss->values;
      } else if (auto v = s.as_ref<VarNode>(); v && bb_->lookup_binding(v).is<ShapeExpr>()) {
        dims = bb_->lookup_binding(v).as<ShapeExpr>()->values;
      } else {
        error(shp->pos,
              fn + ": the output shape must be symbolic dimensions known at compile time, but '" +
                  text::dotted_name(shp) +
                  "' is a shape computed at run time; give it symbolic dimensions "
                  "first with R.match_cast(" +
                  text::dotted_name(shp) + ", R.Shape([k]))");
      }
    }
    return tensor_sinfo(dims, t);
  };
  if (fn.rfind("R.", 0) == 0) {
    std::string f = fn.substr(2);
    if (f == "const") return constant(n);
    if (f == "shape") {
      allow_kwargs({});
      const NodeP& a = arg(0, "a list of dimensions");
      if (a->kind != NK::kList && a->kind != NK::kTuple)
        error(a->pos, "R.shape takes a list of dimensions");
      std::vector<PrimExpr> vals;
      for (const auto& it : a->items) vals.push_back(prim_as(it, kDefaultInt));
      return make_shape(std::move(vals));
    }
    if (f == "prim_value") return make_prim_value(prim_as(arg(0, "a value"), kDefaultInt));
    if (f == "str") return make_string(string_literal(arg(0, "a string"), "R.str"));
    if (f == "dtype") return make_dtype(dtype_of(arg(0, "a dtype")));
    if (f == "tuple") {
      std::vector<Expr> fs;
      for (const auto& it : n.items) fs.push_back(rexpr(it));
      return make_tuple(std::move(fs));
    }
    if (f == "ExternFunc")
      return make_extern(string_literal(arg(0, "a function name"), "R.ExternFunc"));
    if (f == "call_tir") {
      allow_kwargs({"out_sinfo", "tir_vars", "dtype"});
      const NodeP& callee = arg(0, "a PrimFunc");
      Expr gv;
      if (callee->kind == NK::kStr) {
        if (bb_->module().contains(callee->str))
          gv = bb_->module().find_global_var(callee->str);
        else
          gv = make_ref<GlobalVar>(callee->str);
      } else {
        gv = rexpr(callee);
        if (!gv.is<GlobalVar>())
          error(callee->pos, "R.call_tir calls a PrimFunc of the module (cls.name)");
      }
      Expr args = args_tuple(arg(1, "a tuple of arguments"));
      StructInfo out = dps_out(2);
      std::vector<Expr> call_args{gv, args};
      if (NodeP tv = kwarg(n, "tir_vars")) {
        Expr s = rexpr(tv);
        if (!s.is<ShapeExpr>()) error(tv->pos, "tir_vars must be R.shape([...])");
        call_args.push_back(s);
      }
      return make_ref<Call>(get_op("relax.call_tir"), std::move(call_args), Attrs(),
                            std::vector<StructInfo>{out});
    }
    if (f == "call_dps_packed") {
      allow_kwargs({"out_sinfo", "dtype"});
      std::string name = string_literal(arg(0, "a function name"), "the packed function name");
      Expr args = args_tuple(arg(1, "a tuple of arguments"));
      StructInfo out = dps_out(2);
      return make_ref<Call>(get_op("relax.call_dps_packed"),
                            std::vector<Expr>{make_extern(name), args}, Attrs(),
                            std::vector<StructInfo>{out});
    }
    if (f == "call_packed" || f == "call_pure_packed") {
      allow_kwargs({"sinfo_args"});
      std::string name = string_literal(arg(0, "a function name"), "the packed function name");
      std::vector<Expr> args{make_extern(name)};
      for (size_t i = 1; i < n.items.size(); ++i) args.push_back(rexpr(n.items[i]));
      std::vector<StructInfo> sargs;
      if (NodeP s = kwarg(n, "sinfo_args")) sargs = sinfo_list(s);
      return make_ref<Call>(get_op("relax." + f), std::move(args), Attrs(), std::move(sargs));
    }
    if (f == "op") {
      // R.op("name"): an op outside the relax. namespace used as a value.
      allow_kwargs({});
      if (n.items.size() != 1) error(n.pos, "R.op takes one op name");
      std::string name = string_literal(n.items[0], "the op name");
      if (OpInfo* info = OpRegistry::global().find(name)) return info->op;
      error(n.items[0]->pos, "unknown op '" + name + "'");
    }
    if (f == "call_op") {
      std::string name = string_literal(arg(0, "an op name"), "the op name");
      text::Node rest = n;
      rest.items.erase(rest.items.begin());
      return op_call(rest, name);
    }
    if (f == "match_cast" || f == "match_shape")
      error(n.pos,
            fn + " must be the whole right-hand side of a binding: `y = " + fn + "(x, ...)`");
    if (f == "output" || f == "outputs")
      error(n.pos, fn + " is only valid as the last statement of a `with R.dataflow():` block");
    if (f == "dot") return op_call(n, "relax.matmul");  // the RFC's name for matmul
    return op_call(n, "relax." + f);
  }
  // A call of a module function, a local function value or an extern function.
  allow_kwargs({"sinfo_args"});
  Expr callee = rexpr(n.a);
  std::vector<Expr> args;
  for (const auto& a : n.items) args.push_back(rexpr(a));
  std::vector<StructInfo> sargs;
  if (NodeP s = kwarg(n, "sinfo_args")) sargs = sinfo_list(s);
  return make_ref<Call>(callee, std::move(args), Attrs(), std::move(sargs));
}

Expr Parser::op_call(const text::Node& n, const std::string& op_name) {
  OpInfo* info = OpRegistry::global().find(op_name);
  if (!info) {
    try {
      get_op(op_name);
    } catch (const Error& e) {
      error(n.a->pos, e.message());
    }
    error(n.a->pos, "unknown op '" + op_name + "'");
  }
  std::string shown = "R." + (op_name.rfind("relax.", 0) == 0 ? op_name.substr(6) : op_name);
  std::vector<Expr> args;
  for (const auto& a : n.items) args.push_back(rexpr(a));
  std::vector<std::pair<std::string, AttrValue>> attrs;
  std::vector<StructInfo> sargs;
  for (const auto& [key, v] : n.kwargs) {
    if (key == "sinfo_args") {
      if (v->kind == NK::kList || v->kind == NK::kTuple) {
        for (const auto& it : v->items) sargs.push_back(sinfo(it));
      } else {
        sargs.push_back(sinfo(v));
      }
      continue;
    }
    auto an = std::find(info->arg_names.begin(), info->arg_names.end(), key);
    if (an != info->arg_names.end()) {
      size_t k = size_t(an - info->arg_names.begin());
      if (k != args.size())
        error(v->pos, shown + ": argument '" + key + "' given by keyword out of order");
      args.push_back(rexpr(v));
      continue;
    }
    auto spec = std::find_if(info->attrs.begin(), info->attrs.end(),
                             [&](const AttrSpec& s) { return s.name == key; });
    if (spec == info->attrs.end()) {
      std::string valid;
      for (const auto& s : info->attrs) valid += (valid.empty() ? "" : ", ") + s.name;
      error(v->pos,
            shown + " has no attribute '" + key + "'; " +
                (valid.empty() ? std::string("it takes none") : "valid attributes: " + valid));
    }
    AttrValue value;
    if (v->kind == NK::kNone) {
      value = std::monostate{};
    } else {
      switch (spec->kind) {
        case AttrSpec::Kind::kDType:
          value = dtype_of(v);
          break;
        case AttrSpec::Kind::kPrimExprs: {
          if (v->kind != NK::kList && v->kind != NK::kTuple)
            error(v->pos, shown + ": '" + key + "' should be a list of dimensions");
          std::vector<PrimExpr> xs;
          for (const auto& it : v->items) xs.push_back(prim_as(it, kDefaultInt));
          value = xs;
          break;
        }
        case AttrSpec::Kind::kFloat: {
          value = attr_value(v);
          if (auto* i = std::get_if<int64_t>(&value)) value = double(*i);
          break;
        }
        case AttrSpec::Kind::kFloats: {
          value = attr_value(v);
          if (auto* is = std::get_if<std::vector<int64_t>>(&value))
            value = std::vector<double>(is->begin(), is->end());
          break;
        }
        case AttrSpec::Kind::kObject:
          error(v->pos, shown + ": attribute '" + key + "' cannot be written in the text format");
        default:
          value = attr_value(v);
      }
    }
    attrs.emplace_back(key, std::move(value));
  }
  return make_ref<Call>(info->op, std::move(args),
                        attrs.empty() ? Attrs() : make_attrs(std::move(attrs)), std::move(sargs));
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
  implicit_vars_ = true;
  for (const auto& p : def.params) {
    if (!p.annotation) error(p.pos, "parameter '" + p.name + "' needs a struct info annotation");
    for (const auto& q : h.params)
      if (q->name == p.name) error(p.pos, "parameter '" + p.name + "' is repeated");
    h.params.push_back(make_var(p.name, sinfo(p.annotation)));
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
  bb_->begin_function(def.name, h.params, h.pure, h.attrs);
  relax_stmts(std::vector<StmtP>(def.body.begin(), def.body.end() - 1), false, {});
  const text::Stmt& r = *def.body.back();
  Expr out = rexpr(r.value);
  try {
    bb_->end_function(out, h.ret);
  } catch (const Error& e) {
    error(def.ret ? def.ret->pos : r.pos, e.message());
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
  bool outer_pure = pure_;
  std::string outer_name = func_name_;
  push_scope();
  FuncHeader h = func_header(def);
  bb_->begin_scope(h.params);
  bb_->begin_binding_block();
  relax_stmts(std::vector<StmtP>(def.body.begin(), def.body.end() - 1), false, {});
  const text::Stmt& r = *def.body.back();
  Expr out;
  try {
    out = bb_->normalize(rexpr(r.value));
  } catch (const Error& e) {
    error(r.value->pos, e.message());
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
  func_name_ = outer_name;
  auto func =
      make_ref<Function>(h.params, make_ref<SeqExpr>(std::move(blocks), out), ret, h.pure, h.attrs);
  bool df_var = dataflow && std::find(outputs.begin(), outputs.end(), def.name) == outputs.end();
  emit_named(def.name, func, nullptr, df_var, def.pos);
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
  if (pure_)
    error(pos, "function '" + func_name_ + "' is pure but calls " + what +
                   ", which is impure; declare it with @R.function(pure=False)");
}

void Parser::emit_named(const std::string& name, const Expr& value, const NodeP& annotation,
                        bool dataflow_var, Pos pos, const StructInfo& match_sinfo) {
  Expr v;
  try {
    v = bb_->normalize(value);
  } catch (const Error& e) {
    error(pos, e.message());
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
  Ref<VarNode> var =
      dataflow_var ? Ref<VarNode>(make_dataflow_var(name, s)) : Ref<VarNode>(make_var(name, s));
  Binding b = match_sinfo.defined() ? Binding(make_ref<MatchCast>(var, v, match_sinfo))
                                    : Binding(make_ref<VarBinding>(var, v));
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
    Expr v;
    try {
      v = bb_->normalize(rexpr(c.items[0]));
    } catch (const Error& e) {
      error(c.items[0]->pos, e.message());
    }
    implicit_vars_ = true;
    StructInfo target;
    if (legacy) {
      const NodeP& pat = c.items[1];
      if (pat->kind != NK::kTuple && pat->kind != NK::kList)
        error(pat->pos, "R.match_shape takes a shape pattern such as (m, n)");
      std::vector<PrimExpr> dims;
      for (const auto& d : pat->items) dims.push_back(prim_as(d, kDefaultInt));
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
  Expr cond;
  try {
    cond = bb_->normalize_argument(rexpr(s.value));
  } catch (const Error& e) {
    error(s.value->pos, e.message());
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
    Expr val;
    try {
      val = bb_->normalize(rexpr(last->value));
    } catch (const Error& e) {
      error(last->pos, e.message());
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
  emit_named(names[0], make_ref<If>(cond, branches[0], branches[1]), ann, false, s.pos);
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
