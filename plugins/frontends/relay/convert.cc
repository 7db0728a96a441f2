// Relay syntax tree -> Relax module, through the BlockBuilder.
//
// Before any IR is built, the whole program is checked: every operator must have a converter
// (all unsupported ops reported in one error, each with its lines), every @global called must
// be defined, every meta[relay.Constant][N] must be in the metadata section. Defs using ADTs
// (GlobalDef::adt: the prelude TVM adds to modules) are skipped; @main using one, or a def
// calling one, is the error, naming the ADT feature's place.
//
// Then each def becomes a Relax function (a bare `fn` program: "main"):
//  - parameter types become struct info: `?` dims fresh symbolic variables, named dims one
//    variable per name within the function; a parameter needs a type;
//  - the body's bindings (let and the graph form `%0 = ...;`) are emitted in one dataflow block
//    when the function has no `if`, in a binding block otherwise (Relax Ifs cannot sit in
//    dataflow blocks); `if` becomes a Relax If whose branches are SeqExprs;
//  - a local `fn` bound by let (a closure) is lifted to a module function named
//    "<outer>_<name>" whose parameters are its own followed by the values it captures; calls of
//    it pass those values. A closure that calls itself (or a def calling itself or another def
//    later in an order) is declared first, which needs its return type annotated. Closures
//    are only called, never passed as values;
//  - type annotations (let, return types) are checked against the inferred struct info:
//    dtype, rank and every static dim; a contradiction names both types;
//  - parameters and calls carry the place of their text (Span), so that errors raised later
//    (by passes, the well-formed checker) can name file:line:column of the Relay program.
// Defs are converted callees first; recursive ones are declared ahead from their annotations.
#include <cmath>
#include <cstdio>
#include <functional>
#include <set>

#include "convert.h"
#include "relax/arith/analyzer.h"
#include "relax/ir/struct_info.h"
#include "relax/ir/struct_info_analysis.h"
#include "relax/support/diagnostic.h"

namespace relax::relay_frontend {

namespace {

/// A literal's value as written back in a message (17 significant digits).
std::string literal_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

using NK = Node::Kind;

/// A Relay name as a Relax identifier: "0" -> "v0", "a.b" -> "a_b".
std::string ident(const std::string& name) {
  std::string s;
  for (char c : name) s += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) s = "v" + s;
  return s;
}

/// A Relay global name as a Relax function name: an identifier of the text format, not one of
/// its keywords (Relay allows "@1a", "@conv1.fc" and "@class"; "def 1a(" would not read back):
/// "v1a", "conv1_fc", "class_".
std::string function_ident(const std::string& name) {
  static const std::set<std::string> kKeywords = {
      "def",   "class",  "if",  "elif",   "else",  "for",    "in",     "with",   "as",
      "return", "pass",  "assert", "and", "or",    "not",    "lambda", "while",  "import",
      "from",  "True",   "False", "None", "is",    "del",    "global", "yield"};
  std::string s = ident(name);
  if (kKeywords.count(s)) s += "_";
  return s;
}

/// Visits every node below `n` (nested functions included).
void walk(const NodeP& n, const std::function<void(const Node&)>& f) {
  if (!n) return;
  // Let chains iteratively (they are as long as the program).
  const Node* cur = n.get();
  while (cur) {
    f(*cur);
    for (const NodeP& c : {cur->a, cur->c}) walk(c, f);
    for (const NodeP& c : cur->args) walk(c, f);
    cur = cur->b.get();
  }
}

/// Whether the body `n` has an `if` outside nested functions.
bool contains_if(const NodeP& n) {
  for (const Node* cur = n.get(); cur; cur = cur->b.get()) {
    if (cur->kind == NK::kFunc) return false;
    if (cur->kind == NK::kIf) return true;
    for (const NodeP& c : {cur->a, cur->c}) {
      if (c && c->kind != NK::kFunc && contains_if(c)) return true;
    }
    for (const NodeP& c : cur->args) {
      if (contains_if(c)) return true;
    }
  }
  return false;
}

/// The local names `n` reads that it does not bind, in first-use order.
void free_locals(const Node& n, std::set<std::string> bound, std::vector<std::string>& out) {
  const Node* cur = &n;
  while (cur) {
    switch (cur->kind) {
      case NK::kVar:
        if (!bound.count(cur->name) && std::find(out.begin(), out.end(), cur->name) == out.end()) out.push_back(cur->name);
        return;
      case NK::kFunc: {
        std::set<std::string> inner = bound;
        for (const Param& p : cur->params) inner.insert(p.name);
        free_locals(*cur->a, inner, out);
        return;
      }
      case NK::kLet:
        if (cur->a->kind == NK::kFunc) bound.insert(cur->name);  // a closure may call itself
        free_locals(*cur->a, bound, out);
        bound.insert(cur->name);
        cur = cur->b.get();
        continue;
      default:
        for (const NodeP& c : {cur->a, cur->b, cur->c}) {
          if (c) free_locals(*c, bound, out);
        }
        for (const NodeP& c : cur->args) free_locals(*c, bound, out);
        return;
    }
  }
}

class Converter {
 public:
  Converter(const Source& src, const Program& prog) : src_(src), prog_(prog) {}

  IRModule run() {
    check();
    for (const GlobalDef& d : prog_.defs) defs_[d.name] = &d;
    // Module function names: a def's own name where the text format can spell it, else an
    // identifier made of it (kept apart from the names that are taken as they are).
    for (const GlobalDef& d : prog_.defs)
      if (function_ident(d.name) == d.name) used_names_.insert(d.name);
    for (const GlobalDef& d : prog_.defs)
      function_names_[d.name] =
          function_ident(d.name) == d.name ? d.name : unique_global(function_ident(d.name));
    // Defs with a return type can be called before they are built (recursion).
    for (const GlobalDef& d : prog_.defs) {
      if (!d.fn->type || d.adt) continue;
      dim_vars_.clear();
      StructInfo s = func_type(*d.fn, d.name);
      globals_[d.name] = bb_.declare_function(function_names_.at(d.name), s);
    }
    std::set<std::string> active;
    for (const GlobalDef& d : prog_.defs) {
      if (!d.adt) visit_def(d, active);
    }
    return bb_.get_module();
  }

 private:
  struct Closure {
    Ref<GlobalVar> gv;
    std::vector<std::string> captures;
    size_t num_params = 0;
  };
  struct Value {
    Expr expr;
    std::shared_ptr<Closure> closure;
  };

  // ---- Phase 1: the checks before any IR.

  void check() {
    std::map<std::string, std::vector<Loc>> unknown;
    const OpTable& table = op_table();
    std::set<std::string> defined;
    for (const GlobalDef& d : prog_.defs) {
      if (!defined.insert(d.name).second) src_.error(d.loc, "@" + d.name + " is defined twice");
    }
    std::map<std::string, const GlobalDef*> by_name;
    for (const GlobalDef& d : prog_.defs) by_name[d.name] = &d;
    auto adt_error = [&](const AdtUse& use, const std::string& how) {
      src_.error(use.loc, "not supported: ADT " + use.what + how +
                              " (algebraic data types, polymorphic functions and match are not converted to Relax)");
    };
    if (auto it = by_name.find("main"); it != by_name.end() && it->second->adt) adt_error(*it->second->adt, " in @main");
    for (const GlobalDef& d : prog_.defs) {
      if (d.adt) continue;  // not converted unless used (then the use is the error)
      walk(d.fn, [&](const Node& n) {
        if (n.kind == NK::kGlobal && by_name.count(n.name) && by_name[n.name]->adt) {
          adt_error(*by_name[n.name]->adt, " in @" + n.name + ", which @" + d.name + " uses at line " + std::to_string(n.loc.line));
        }
        if (n.kind == NK::kCall && n.a->kind == NK::kOp && !table.count(n.a->name)) {
          unknown[n.a->name].push_back(n.loc);
        }
        if (n.kind == NK::kGlobal && !defined.count(n.name)) src_.error(n.loc, "unknown global @" + n.name);
        if (n.kind == NK::kMeta && size_t(n.index) >= prog_.constants.size()) {
          src_.error(n.loc, "meta[relay.Constant][" + std::to_string(n.index) + "] but the " +
                                (prog_.has_metadata ? "#[metadata] section holds " + std::to_string(prog_.constants.size()) + " constants"
                                                    : "text has no #[metadata] section"));
        }
      });
    }
    if (unknown.empty()) return;
    std::string msg = "unsupported Relay operators (" + std::to_string(unknown.size()) + "):";
    for (const auto& [name, locs] : unknown) {
      msg += " " + name + " (line";
      for (size_t k = 0; k < locs.size() && k < 5; ++k) msg += (k ? ", " : " ") + std::to_string(locs[k].line);
      msg += locs.size() > 5 ? ", ...)" : ")";
      msg += ";";
    }
    msg.pop_back();
    src_.error(unknown.begin()->second[0], msg);
  }

  // ---- Defs, callees first.

  void visit_def(const GlobalDef& d, std::set<std::string>& active) {
    if (built_.count(d.name)) return;
    if (active.count(d.name)) {
      src_.error(d.loc, "@" + d.name + " is recursive (directly or through other defs): annotate its return type (-> T) so that calls can be typed before it is built");
    }
    active.insert(d.name);
    walk(d.fn, [&](const Node& n) {
      if (n.kind == NK::kGlobal && !built_.count(n.name) && !globals_.count(n.name)) visit_def(*defs_.at(n.name), active);
    });
    active.erase(d.name);
    built_.insert(d.name);
    Ref<GlobalVar> gv = build_function(function_names_.at(d.name), *d.fn, {});
    globals_[d.name] = gv;
  }

  // ---- Types.

  StructInfo sinfo_of(const Type& t, const std::string& hint, bool any_unknown) {
    switch (t.kind) {
      case Type::Kind::kTensor: {
        DataType dt = *DataType::parse(t.dtype);
        std::vector<PrimExpr> dims;
        for (size_t k = 0; k < t.dims.size(); ++k) {
          const Dim& d = t.dims[k];
          if (d.any() && any_unknown) return tensor_sinfo(dt, int(t.dims.size()));
          if (d.value >= 0) {
            dims.push_back(tir::int_imm(d.value));
          } else if (!d.name.empty()) {
            auto [it, added] = dim_vars_.try_emplace(d.name);
            if (added) it->second = tir::var(ident(d.name));
            dims.push_back(it->second);
          } else {
            dims.push_back(tir::var(hint + "_dim" + std::to_string(k)));
          }
        }
        return tensor_sinfo(std::move(dims), dt);
      }
      case Type::Kind::kTuple: {
        std::vector<StructInfo> fields;
        for (size_t k = 0; k < t.fields.size(); ++k) fields.push_back(sinfo_of(*t.fields[k], hint + "_" + std::to_string(k), any_unknown));
        return tuple_sinfo(std::move(fields));
      }
      case Type::Kind::kFunc: {
        std::vector<StructInfo> params;
        for (const TypeP& p : t.fields) params.push_back(sinfo_of(*p, hint, true));
        return func_sinfo(std::move(params), t.ret ? sinfo_of(*t.ret, hint, true) : object_sinfo());
      }
      case Type::Kind::kIncomplete: return object_sinfo();
    }
    return object_sinfo();
  }

  /// The struct info a declaration of `fn` gives its calls (parameters and return annotated).
  StructInfo func_type(const Node& fn, const std::string& name, const std::vector<StructInfo>& extra = {}) {
    std::vector<StructInfo> params;
    for (const Param& p : fn.params) {
      if (!p.type) src_.error(p.loc, "parameter %" + p.name + " of " + name + " needs a type annotation");
      params.push_back(sinfo_of(*p.type, ident(p.name), false));
    }
    params.insert(params.end(), extra.begin(), extra.end());
    return func_sinfo(std::move(params), sinfo_of(*fn.type, "ret", true));
  }

  static bool matches(const Type& t, const StructInfo& s) {
    switch (t.kind) {
      case Type::Kind::kIncomplete: return true;
      case Type::Kind::kFunc: return s.as<FuncStructInfo>() != nullptr;
      case Type::Kind::kTuple: {
        const auto* ts = s.as<TupleStructInfo>();
        if (!ts || ts->fields.size() != t.fields.size()) return false;
        for (size_t k = 0; k < t.fields.size(); ++k) {
          if (!matches(*t.fields[k], ts->fields[k])) return false;
        }
        return true;
      }
      case Type::Kind::kTensor: {
        const auto* ts = s.as<TensorStructInfo>();
        if (!ts) return false;
        if (!ts->dtype.is_void() && ts->dtype != *DataType::parse(t.dtype)) return false;
        if (ts->ndim >= 0 && size_t(ts->ndim) != t.dims.size()) return false;
        if (!ts->shape) return true;
        for (size_t k = 0; k < t.dims.size(); ++k) {
          const int64_t* c = tir::as_const_int((*ts->shape)[k]);
          if (t.dims[k].value >= 0 && c && *c != t.dims[k].value) return false;
        }
        return true;
      }
    }
    return true;
  }

  void check_type(const Type& t, const Expr& e, const std::string& what) {
    const StructInfo& s = get_struct_info(e);
    if (!matches(t, s)) {
      src_.error(t.loc, "type annotation " + type_string(t) + " of " + what + " contradicts the inferred type " + to_string(s));
    }
  }

  // ---- Functions.

  std::string unique_global(const std::string& hint) {
    std::string name = hint;
    for (int k = 1; used_names_.count(name); ++k) name = hint + "_" + std::to_string(k);
    used_names_.insert(name);
    return name;
  }

  /// Builds `fn` as module function `name`; `captures` (closures) become trailing parameters.
  Ref<GlobalVar> build_function(const std::string& name, const Node& fn,
                                const std::vector<std::pair<std::string, Expr>>& captures) {
    auto saved_dims = dim_vars_;
    dim_vars_.clear();
    env_.emplace_back();
    std::vector<Ref<Var>> params;
    for (const Param& p : fn.params) {
      if (!p.type) src_.error(p.loc, "parameter %" + p.name + " of " + name + " needs a type annotation");
      Ref<Var> v = make_var(ident(p.name), sinfo_of(*p.type, ident(p.name), false), span(p.loc));
      params.push_back(v);
      env_.back()[p.name] = {v, nullptr};
    }
    for (const auto& [cname, outer] : captures) {
      Ref<Var> v = make_var(ident(cname), get_struct_info(outer));
      params.push_back(v);
      env_.back()[cname] = {v, nullptr};
    }
    std::string saved_fn = current_fn_;
    current_fn_ = name;
    bool dataflow = !contains_if(fn.a);
    bb_.begin_function(name, params);
    if (dataflow) bb_.begin_dataflow_block();
    else bb_.begin_binding_block();
    NodeP tail = bindings(fn.a);
    Expr out = dataflow && tail->kind == NK::kCall ? call(*tail, "out", true) : expr(tail, "out");
    StructInfo ret;
    if (fn.type) {
      check_type(*fn.type, out, "the result of " + name);
      // The annotation is the function's type in Relay, and calls built before the function
      // (recursion, a def declared ahead) were typed with it: where the body's struct info
      // says less than it (an op whose result shape is not inferred), the annotation stays the
      // function's result, or the printed callers would claim more than the callee.
      StructInfo declared = sinfo_of(*fn.type, "ret", true);
      if (struct_info_base_check(declared, get_struct_info(out), bb_.analyzer()) != BaseCheck::kPass)
        ret = declared;
    }
    if (dataflow && !(out.is<Var>() || out.is<Constant>())) out = bb_.emit_output(out, "out");
    Ref<GlobalVar> gv = bb_.end_function(out, ret);
    current_fn_ = saved_fn;
    env_.pop_back();
    dim_vars_ = saved_dims;
    return gv;
  }

  /// Lifts the closure `fn` bound to %`name`: a module function taking its captures last.
  std::shared_ptr<Closure> lift(const std::string& name, const Node& fn, const TypeP& let_type) {
    std::vector<std::string> free;
    std::set<std::string> bound;
    for (const Param& p : fn.params) bound.insert(p.name);
    free_locals(*fn.a, bound, free);
    bool recursive = std::find(free.begin(), free.end(), name) != free.end();
    auto closure = std::make_shared<Closure>();
    closure->num_params = fn.params.size();
    std::vector<std::pair<std::string, Expr>> captures;
    auto add = [&](const std::string& c) {
      if (std::find(closure->captures.begin(), closure->captures.end(), c) != closure->captures.end()) return;
      const Value* v = find(c);
      if (!v || !v->expr.defined()) return;
      closure->captures.push_back(c);
      captures.emplace_back(c, v->expr);
    };
    for (const std::string& f : free) {
      if (f == name) continue;
      const Value* v = find(f);
      if (v && v->closure) {
        for (const std::string& c : v->closure->captures) add(c);
      } else {
        add(f);
      }
    }
    std::string gname = unique_global(ident(current_fn_ + "_" + name));
    StructInfo declared;  // a recursive function's annotated result
    if (recursive) {
      const Type* ret = fn.type.get();
      if (!ret && let_type && let_type->kind == Type::Kind::kFunc) ret = let_type->ret.get();
      if (!ret) src_.error(fn.loc, "the recursive local function %" + name + " needs its return type annotated (fn (...) -> T { ... })");
      std::vector<StructInfo> extra;
      for (const auto& c : captures) extra.push_back(get_struct_info(c.second));
      auto saved = dim_vars_;
      dim_vars_.clear();
      std::vector<StructInfo> params;
      for (const Param& p : fn.params) {
        if (!p.type) src_.error(p.loc, "parameter %" + p.name + " of %" + name + " needs a type annotation");
        params.push_back(sinfo_of(*p.type, ident(p.name), false));
      }
      params.insert(params.end(), extra.begin(), extra.end());
      declared = sinfo_of(*ret, "ret", true);
      StructInfo sinfo = func_sinfo(std::move(params), declared);
      dim_vars_ = saved;
      closure->gv = bb_.declare_function(gname, sinfo);
      env_.back()[name] = {Expr(), closure};
    }
    closure->gv = build_function(gname, fn, captures);
    if (declared.defined()) {
      // The recursive calls were typed with the declared result: the body must give it (as
      // Relay's type checker requires; e.g. two branches of different shapes do not).
      auto* f = bb_.module().lookup(closure->gv->name).as<Function>();
      StructInfo built = f ? f->ret_struct_info : declared;
      arith::Analyzer ana;
      if (struct_info_base_check(declared, built, ana) != BaseCheck::kPass ||
          struct_info_base_check(built, declared, ana) == BaseCheck::kFail)
        src_.error(fn.loc, "the recursive local function %" + name + " is declared to return " +
                               to_string(declared) + " but its body gives " + to_string(built));
    }
    return closure;
  }

  // ---- Expressions.

  const Value* find(const std::string& name) const {
    for (auto it = env_.rbegin(); it != env_.rend(); ++it) {
      auto f = it->find(name);
      if (f != it->end()) return &f->second;
    }
    return nullptr;
  }

  const Value& lookup(const Node& n) const {
    const Value* v = find(n.name);
    if (!v) src_.error(n.loc, "unknown variable %" + n.name);
    return *v;
  }

  /// The place `loc` of the text, for the IR built from it (later errors can name it).
  Span span(Loc loc) const { return Span(SourceSpan{src_.file(), loc.line, loc.col, loc.line, loc.col}); }

  /// `e` with the place `loc` when it is a call without one (the op builders give none).
  Expr placed(const Expr& e, Loc loc) const {
    const auto* c = e.as<Call>();
    if (!c || c->span.defined()) return e;
    return make_ref<Call>(c->op, c->args, c->attrs, c->sinfo_args, StructInfo{}, span(loc));
  }

  /// Binds `e` (unless a leaf); with `output` (a function's result in a dataflow block), to a
  /// variable visible after the block.
  Expr bind(const Expr& e, const std::string& hint, bool output = false) {
    if (is_leaf(e)) return e;
    if (output) return bb_.emit_output(e, ident(hint));
    return bb_.emit(e, ident(hint.empty() ? "lv" : hint));
  }

  /// Runs `body`, placing a relax::Error without a place (raised by the BlockBuilder) at `n`.
  template <class F>
  Expr at(const Node& n, const std::string& what, F&& body) {
    try {
      return body();
    } catch (const Error& e) {
      if (e.message().rfind(src_.file() + ":", 0) == 0) throw;
      src_.error(n.loc, what + ": " + e.message());
    }
  }

  Expr expr(const NodeP& np, const std::string& hint) {
    const Node& n = *np;
    switch (n.kind) {
      case NK::kVar: {
        const Value& v = lookup(n);
        if (v.closure) src_.error(n.loc, "the local function %" + n.name + " is used as a value; only calls of local functions are supported");
        return v.expr;
      }
      case NK::kGlobal: return globals_.at(n.name);
      case NK::kLiteral: {
        DataType dt = *DataType::parse(n.dtype);
        if (dt.is_int() || dt.is_uint()) {
          // The range of the literal's type (the double holds every such literal exactly
          // enough to decide: 2^63 and 2^64 are powers of two).
          double lo = dt.is_int() ? -std::ldexp(1.0, dt.bits - 1) : 0;
          double hi = std::ldexp(1.0, dt.is_int() ? dt.bits - 1 : dt.bits);
          if (!(n.number >= lo && n.number < hi))
            src_.error(n.loc, "the literal " + literal_text(n.number) + " is out of range for " + n.dtype);
        }
        return bb_.normalize(scalar_const(n.number, dt));
      }
      case NK::kMeta: return bb_.normalize(make_constant(prog_.constants[size_t(n.index)]));
      case NK::kOp: src_.error(n.loc, "the operator " + n.name + " is used as a value; operators can only be called");
      case NK::kCall: return call(n, hint);
      case NK::kTuple: {
        std::vector<Expr> fields;
        for (const NodeP& f : n.args) fields.push_back(expr(f, ""));
        return bb_.normalize(make_tuple(std::move(fields)));
      }
      case NK::kProj: {
        Expr t = expr(n.a, "");
        const auto* ts = get_struct_info(t).as<TupleStructInfo>();
        if (!ts) src_.error(n.loc, "projection ." + std::to_string(n.index) + " of a value that is not a tuple: " + to_string(get_struct_info(t)));
        if (n.index < 0 || size_t(n.index) >= ts->fields.size()) {
          src_.error(n.loc, "projection ." + std::to_string(n.index) + " of a tuple of " + std::to_string(ts->fields.size()) + " fields");
        }
        if (const auto* tup = t.as<Tuple>()) return tup->fields[size_t(n.index)];
        return bind(make_ref<TupleGetItem>(t, int(n.index)), hint);
      }
      case NK::kLet: return let(np, hint);
      case NK::kIf: return if_expr(n, hint);
      case NK::kFunc: src_.error(n.loc, "a function value must be bound by let and called (closures are lifted); function values are not supported here");
    }
    return Expr();
  }

  Expr let(const NodeP& np, const std::string& hint) { return expr(bindings(np), hint); }

  /// Converts the bindings of a let chain; returns the expression after them.
  NodeP bindings(const NodeP& np) {
    const Node* cur = np.get();
    for (; cur->kind == NK::kLet; cur = cur->b.get()) {
      const Node& n = *cur;
      if (n.name.empty()) {
        expr(n.a, "");
        continue;
      }
      if (n.a->kind == NK::kFunc) {
        auto c = lift(n.name, *n.a, n.type);
        env_.back()[n.name] = {Expr(), c};
        continue;
      }
      Expr v = expr(n.a, n.name);
      if (n.type) check_type(*n.type, v, "%" + n.name);
      env_.back()[n.name] = {v, nullptr};
    }
    return NodeP(np, cur);
  }

  Expr branch(const NodeP& body) {
    env_.emplace_back();
    bb_.begin_scope();
    bb_.begin_binding_block();
    Expr r = bb_.normalize(expr(body, "br"));
    std::vector<Block> blocks;
    for (auto& b : bb_.end_scope()) {
      if (!b->bindings.empty()) blocks.push_back(b);
    }
    env_.pop_back();
    return make_ref<SeqExpr>(std::move(blocks), r);
  }

  Expr if_expr(const Node& n, const std::string& hint) {
    Expr cond = expr(n.a, "cond");
    const TensorStructInfo* t = tensor_info(cond);
    if (!t || t->ndim != 0 || !t->dtype.is_bool()) {
      src_.error(n.a->loc, "the condition of 'if' must be a bool scalar (Tensor[(), bool]), got " + to_string(get_struct_info(cond)));
    }
    Expr then_b = branch(n.b);
    Expr else_b = branch(n.c);
    // Relay types an if only when its branches unify (a dtype, rank or dimension that differs
    // fails); Relax would take their common base (a tensor of unknown dtype), which then
    // contradicts the declared result of the function.
    const StructInfo& ts = get_struct_info(then_b);
    const StructInfo& es = get_struct_info(else_b);
    if (struct_info_base_check(ts, es, bb_.analyzer()) == BaseCheck::kFail) {
      src_.error(n.loc, "the branches of 'if' have different types: " + to_string(ts) + " and " + to_string(es));
    }
    return at(n, "if", [&] { return bind(make_ref<If>(cond, then_b, else_b), hint.empty() ? "if" : hint); });
  }

  Expr call(const Node& n, const std::string& hint, bool output = false) {
    const Node& callee = *n.a;
    if (callee.kind == NK::kOp) {
      std::vector<Expr> args;
      for (const NodeP& a : n.args) args.push_back(expr(a, ""));
      return at(n, callee.name, [&] {
        OpCall oc(src_, n, bb_, std::move(args));
        return bind(placed(op_table().at(callee.name)(oc), n.loc), hint, output);
      });
    }
    std::vector<Expr> args;
    for (const NodeP& a : n.args) args.push_back(expr(a, ""));
    if (!n.attrs.empty()) src_.error(n.loc, "attributes are only allowed on operator calls");
    if (callee.kind == NK::kGlobal) {
      const Node& fn = *defs_.at(callee.name)->fn;
      if (fn.params.size() != args.size()) {
        src_.error(n.loc, "@" + callee.name + " takes " + std::to_string(fn.params.size()) + " arguments, got " + std::to_string(args.size()));
      }
      return at(n, "call of @" + callee.name, [&] { return bind(make_ref<Call>(globals_.at(callee.name), args, Attrs{}, std::vector<StructInfo>{}, StructInfo{}, span(n.loc)), hint, output); });
    }
    if (callee.kind == NK::kVar) {
      const Value& v = lookup(callee);
      if (!v.closure) src_.error(n.loc, "%" + callee.name + " is not a function: " + to_string(get_struct_info(v.expr)));
      if (v.closure->num_params != args.size()) {
        src_.error(n.loc, "%" + callee.name + " takes " + std::to_string(v.closure->num_params) + " arguments, got " + std::to_string(args.size()));
      }
      for (const std::string& c : v.closure->captures) args.push_back(lookup(Node{NK::kVar, n.loc, c}).expr);
      return at(n, "call of %" + callee.name, [&] { return bind(make_ref<Call>(v.closure->gv, args, Attrs{}, std::vector<StructInfo>{}, StructInfo{}, span(n.loc)), hint, output); });
    }
    if (callee.kind == NK::kFunc) {
      auto c = lift("lambda", callee, nullptr);
      for (const std::string& name : c->captures) args.push_back(lookup(Node{NK::kVar, n.loc, name}).expr);
      return at(n, "call", [&] { return bind(make_ref<Call>(c->gv, args, Attrs{}, std::vector<StructInfo>{}, StructInfo{}, span(n.loc)), hint, output); });
    }
    src_.error(n.loc, "this expression cannot be called (expected an operator, @global, local function or fn)");
  }

  const Source& src_;
  const Program& prog_;
  BlockBuilder bb_;
  std::map<std::string, const GlobalDef*> defs_;
  std::map<std::string, Ref<GlobalVar>> globals_;
  std::map<std::string, std::string> function_names_;  ///< Relay global name -> module name
  std::set<std::string> built_;
  std::set<std::string> used_names_;
  std::vector<std::map<std::string, Value>> env_;
  std::map<std::string, Ref<tir::Var>> dim_vars_;
  std::string current_fn_;
};

}  // namespace

IRModule convert_program(const Source& src, const Program& prog) { return Converter(src, prog).run(); }

}  // namespace relax::relay_frontend
