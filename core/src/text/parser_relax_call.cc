// Relax expressions of the parser: names, tuples, indexing, and calls — the script's
// constructors (R.shape, R.const, R.prim_value, ...), the DPS and packed calls (R.call_tir,
// R.call_dps_packed, R.call_packed), op calls with their keyword attributes checked against the
// op's AttrSpecs, and calls of module, local and extern functions. Every call, tuple and tuple
// index built here carries the span of its text, so inference errors raised later by the
// BlockBuilder point at the call. Struct info annotations and constants are in parser_sinfo.cc.
#include <algorithm>

#include "parser_internal.h"
#include "relax/ir/op.h"
#include "relax/text/parser.h"
#include "script_common.h"

namespace relax::script {

namespace {

StructInfo pack(std::vector<StructInfo> out) {
  if (out.size() == 1) return out[0];
  return tuple_sinfo(std::move(out));
}

}  // namespace

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
        for (const auto& it : n->items) vals.push_back(int_dim(it, "a shape value"));
        return make_shape(std::move(vals));
      }
      std::vector<Expr> fs;
      for (const auto& it : n->items) fs.push_back(rexpr(it));
      return make_ref<Tuple>(std::move(fs), StructInfo(), span_at(n->pos));
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
      return make_ref<TupleGetItem>(rexpr(base), int(i), StructInfo(), span_at(n->pos));
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
      return operator_call(*n);
    default:
      error(n->pos, "expected a Relax expression");
  }
}

Expr Parser::relax_call(const text::Node& n) {
  std::string fn = text::dotted_name(n.a);
  if (fn.starts_with("relax.") && !lookup("relax"))
    fn = "R." + fn.substr(6);  // `from tvm import relax`
  Span span = span_at(n.pos);
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
      return make_ref<Tuple>(std::move(fs), StructInfo(), span_at(v->pos));
    }
    Expr e = rexpr(v);
    if (e->struct_info.defined() && e->struct_info.is<TupleStructInfo>()) return e;
    return make_ref<Tuple>(std::vector<Expr>{e}, StructInfo(), span_at(v->pos));
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
    if (NodeP o = kwarg(n, "out_ty")) return pack(sinfo_list(o));  // TVM's newer name
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
      for (const auto& d : shp->items) dims.push_back(int_dim(d, "a shape dimension"));
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
    if (Expr e = script_op(n, f); e.defined()) return e;
    if (f == "const") return constant(n);
    if (f == "shape") {
      allow_kwargs({});
      const NodeP& a = arg(0, "a list of dimensions");
      if (a->kind != NK::kList && a->kind != NK::kTuple)
        error(a->pos, "R.shape takes a list of dimensions");
      std::vector<PrimExpr> vals;
      for (const auto& it : a->items) vals.push_back(int_dim(it, "a shape value"));
      return make_shape(std::move(vals));
    }
    if (f == "prim_value") return make_prim_value(prim_as(arg(0, "a value"), kDefaultInt));
    if (f == "str") return make_string(string_literal(arg(0, "a string"), "R.str"));
    if (f == "dtype") return make_dtype(dtype_of(arg(0, "a dtype")));
    if (f == "tuple") {
      std::vector<Expr> fs;
      for (const auto& it : n.items) fs.push_back(rexpr(it));
      return make_ref<Tuple>(std::move(fs), StructInfo(), span);
    }
    if (f == "ExternFunc")
      return make_extern(string_literal(arg(0, "a function name"), "R.ExternFunc"));
    if (f == "call_tir") {
      allow_kwargs({"out_sinfo", "out_ty", "tir_vars", "dtype"});
      const NodeP& callee = arg(0, "a PrimFunc");
      Expr gv;
      if (callee->kind == NK::kStr) {
        if (!bb_->module().contains(callee->str)) {
          // The RFC's spelling: a name that is no function of the module is a packed function
          // (R.call_dps_packed), as TVM reads it.
          if (kwarg(n, "tir_vars")) error(callee->pos, "tir_vars needs a PrimFunc of the module");
          Expr args = args_tuple(arg(1, "a tuple of arguments"));
          return make_ref<Call>(get_op("relax.call_dps_packed"),
                                std::vector<Expr>{make_extern(callee->str), args}, Attrs(),
                                std::vector<StructInfo>{dps_out(2)}, StructInfo(), span);
        }
        gv = bb_->module().find_global_var(callee->str);
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
                            std::vector<StructInfo>{out}, StructInfo(), span);
    }
    if (f == "call_dps_packed") {
      allow_kwargs({"out_sinfo", "out_ty", "dtype"});
      std::string name = string_literal(arg(0, "a function name"), "the packed function name");
      Expr args = args_tuple(arg(1, "a tuple of arguments"));
      StructInfo out = dps_out(2);
      return make_ref<Call>(get_op("relax.call_dps_packed"),
                            std::vector<Expr>{make_extern(name), args}, Attrs(),
                            std::vector<StructInfo>{out}, StructInfo(), span);
    }
    if (f == "call_py_func") {
      // A pure call of the Python function registered as kPyFuncPrefix + name (parser.h).
      allow_kwargs({"out_sinfo"});
      const NodeP& callee = arg(0, "a Python function (\"name\" or cls.name)");
      std::string name;
      if (callee->kind == NK::kStr)
        name = callee->str;
      else if (callee->kind == NK::kAttr && callee->a && callee->a->kind == NK::kName)
        name = callee->str;
      else
        error(callee->pos, "R.call_py_func names a Python function: \"name\" or cls.name");
      std::vector<Expr> call_args{make_extern(kPyFuncPrefix + name)};
      if (n.items.size() > 1) {
        Expr args = args_tuple(n.items[1]);
        if (const Tuple* t = args.as<Tuple>())
          call_args.insert(call_args.end(), t->fields.begin(), t->fields.end());
        else
          call_args.push_back(args);  // a variable holding a tuple: one argument
      }
      NodeP out = kwarg(n, "out_sinfo");
      if (!out) error(n.pos, "R.call_py_func needs out_sinfo=, the struct info of its result");
      return make_ref<Call>(get_op("relax.call_pure_packed"), std::move(call_args), Attrs(),
                            std::vector<StructInfo>{dps_out(2)}, StructInfo(), span);
    }
    if (f == "call_packed" || f == "call_pure_packed") {
      allow_kwargs({"sinfo_args", "ty_args"});
      std::string name = string_literal(arg(0, "a function name"), "the packed function name");
      std::vector<Expr> args{make_extern(name)};
      for (size_t i = 1; i < n.items.size(); ++i) args.push_back(rexpr(n.items[i]));
      std::vector<StructInfo> sargs;
      if (NodeP s = kwarg(n, "sinfo_args")) sargs = sinfo_list(s);
      if (NodeP s = kwarg(n, "ty_args")) sargs = sinfo_list(s);  // TVM's newer name
      return make_ref<Call>(get_op("relax." + f), std::move(args), Attrs(), std::move(sargs),
                            StructInfo(), span);
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
  // Method-call sugar on a Relax value: `x.astype("float16")` is R.astype(x, "float16").
  if (n.a->kind == NK::kAttr && !is_module_ref(n.a->a)) {
    if (n.a->str != "astype")
      error(n.a->pos, "Relax values have one method, astype (x.astype(\"float16\")); '" + n.a->str +
                          "' is not one");
    text::Node rest = n;
    rest.items.insert(rest.items.begin(), n.a->a);
    return op_call(rest, "relax.astype");
  }
  // A call of a module function, a local function value or an extern function.
  allow_kwargs({"sinfo_args"});
  Expr callee = rexpr(n.a);
  std::vector<Expr> args;
  for (const auto& a : n.items) args.push_back(rexpr(a));
  std::vector<StructInfo> sargs;
  if (NodeP s = kwarg(n, "sinfo_args")) sargs = sinfo_list(s);
  if (Expr dps = direct_prim_func_call(callee, args, n.pos); dps.defined()) return dps;
  return make_ref<Call>(callee, std::move(args), Attrs(), std::move(sargs), StructInfo(), span);
}

bool Parser::is_module_ref(const NodeP& n) const {
  if (n->kind == NK::kAttr) return is_module_ref(n->a);
  if (n->kind != NK::kName) return false;
  const Entry* e = lookup(n->str);
  return e == nullptr || e->kind != Entry::kRelaxVar;
}

Expr Parser::operator_call(const text::Node& n) {
  // TVM's ExprWithOp operators: arithmetic and ordering between two Relax values, and unary
  // minus. A number on either side must be made a constant first, as TVM requires.
  static const std::pair<const char*, const char*> kOps[] = {
      {"+", "add"},           {"-", "subtract"},    {"*", "multiply"},      {"/", "divide"},
      {"//", "floor_divide"}, {"%", "mod"},         {"**", "power"},        {"<", "less"},
      {">", "greater"},       {"<=", "less_equal"}, {">=", "greater_equal"}};
  auto literal = [](const NodeP& x) {
    return x->kind == NK::kInt || x->kind == NK::kFloat || x->kind == NK::kTrue ||
           x->kind == NK::kFalse ||
           (x->kind == NK::kUnary && x->a && (x->a->kind == NK::kInt || x->a->kind == NK::kFloat));
  };
  if (n.kind == NK::kUnary) {
    if (n.str != "-")
      error(n.pos, "operator '" + n.str + "' is not defined on Relax values (only -x is)");
    if (literal(n.a))
      error(n.pos, "a literal as a Relax value must be written R.const(...) or R.prim_value(...)");
    return make_ref<Call>(get_op("relax.negative"), std::vector<Expr>{rexpr(n.a)}, Attrs(),
                          std::vector<StructInfo>{}, StructInfo(), span_at(n.pos));
  }
  const char* op = nullptr;
  for (const auto& [sym, name] : kOps)
    if (n.str == sym) op = name;
  if (!op)
    error(n.pos, "operator '" + n.str +
                     "' is not defined on Relax values; call the op (R.equal, R.logical_and, ...)");
  for (const NodeP& side : {n.a, n.b})
    if (literal(side))
      error(side->pos, "operator '" + n.str +
                           "' on a Relax value: convert the number with "
                           "R.const(...) first");
  return make_ref<Call>(get_op(std::string("relax.") + op),
                        std::vector<Expr>{rexpr(n.a), rexpr(n.b)}, Attrs(),
                        std::vector<StructInfo>{}, StructInfo(), span_at(n.pos));
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
  std::vector<std::pair<std::string, AttrValue>> attrs;
  // TVM's op functions take attributes positionally after the arguments (R.astype(x,
  // "float16"), R.sum(x, [1])): they are read as keywords, in the order of the AttrSpecs.
  std::vector<std::pair<std::string, NodeP>> keywords;
  size_t positional = n.items.size();
  if (!info->variadic && positional > info->arg_names.size()) {
    positional = info->arg_names.size();
    for (size_t i = positional; i < n.items.size(); ++i) {
      size_t a = i - positional;
      if (a >= info->attrs.size())
        error(n.items[i]->pos, shown + " takes " + std::to_string(info->arg_names.size()) +
                                   " argument(s) and " + std::to_string(info->attrs.size()) +
                                   " attribute(s), got " + std::to_string(n.items.size()) +
                                   " positional values");
      keywords.emplace_back(info->attrs[a].name, n.items[i]);
    }
  }
  keywords.insert(keywords.end(), n.kwargs.begin(), n.kwargs.end());
  for (size_t i = 0; i < positional; ++i) {
    // R.to_vdevice(x, "kind:i"): TVMScript gives the destination positionally.
    if (op_name == "relax.to_vdevice" && i == 1 && n.items[i]->kind == NK::kStr) {
      attrs.emplace_back("dst_vdevice", string_literal(n.items[i], "dst_vdevice"));
      continue;
    }
    args.push_back(op_arg(n.items[i], op_name, i));
  }
  std::vector<StructInfo> sargs;
  std::vector<std::pair<size_t, NodeP>> keyword_args;
  for (const auto& [key, v] : keywords) {
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
      if (k < args.size())
        error(v->pos, shown + ": argument '" + key + "' is given twice (by position and name)");
      keyword_args.emplace_back(k, v);
      continue;
    }
    auto spec = std::find_if(info->attrs.begin(), info->attrs.end(),
                             [&k = key](const AttrSpec& s) { return s.name == k; });
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
      // check_call would reject it too, but only at the call; the value is the better place.
      if (!attr_value_fits(spec->kind, value))
        error(v->pos, shown + ": attribute '" + key + "' should be " + attr_kind_name(spec->kind) +
                          ", got " + to_string(value));
    }
    attrs.emplace_back(key, std::move(value));
  }
  // Arguments given by name fill the slots after the positional ones, in any order.
  std::sort(keyword_args.begin(), keyword_args.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [k, v] : keyword_args) {
    if (k != args.size())
      error(v->pos, shown + ": argument '" + info->arg_names[args.size()] +
                        "' is missing before '" + info->arg_names[k] + "'");
    args.push_back(op_arg(v, op_name, k));
  }
  for (const auto& [key, value] : attrs)
    if (auto* ref = std::get_if<std::string>(&value); ref && key == "dst_vdevice")
      check_vdevice(n.pos, *ref, shown);
  return make_ref<Call>(info->op, std::move(args),
                        attrs.empty() ? Attrs() : make_attrs(std::move(attrs)), std::move(sargs),
                        StructInfo(), span_at(n.pos));
}

}  // namespace relax::script
