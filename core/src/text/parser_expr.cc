// PrimExpr parsing for both dialects: literals (a bare integer is int64, a bare float
// float32, and either adopts the dtype of the other operand), symbolic and loop variables,
// arithmetic with Python's operators (`//` floordiv, `%` floormod), comparisons, `and`/`or`/
// `not`, buffer loads and the `T.` functions (typed literals, casts, min/max, intrinsics).
// Nodes are built directly, without folding, so what is printed reads back unchanged.
#include <limits>

#include "parser_internal.h"
#include "relax/support/diagnostic.h"
#include "script_common.h"

namespace relax::script {

using namespace tir;
using tir::Block;
using tir::Call;
using tir::Var;

const Entry* Parser::lookup(const std::string& name) const {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto f = it->find(name);
    if (f != it->end()) return &f->second;
  }
  return nullptr;
}

int64_t Parser::int_value(const NodeP& n, bool negate) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  if (n->ival == kMin) {  // the literal 2**63: only its negation is an int64
    if (negate) return kMin;
    error(n->pos, "integer literal " + n->str +
                      " is out of range: an int64 is at most 9223372036854775807");
  }
  return negate ? -n->ival : n->ival;
}

int64_t Parser::int_literal(const NodeP& n, const std::string& what) {
  if (n && n->kind == NK::kInt) return int_value(n, false);
  if (n && n->kind == NK::kUnary && n->str == "-" && n->a && n->a->kind == NK::kInt)
    return int_value(n->a, true);
  error(n ? n->pos : Pos{}, "expected an integer literal for " + what);
}

std::string Parser::string_literal(const NodeP& n, const std::string& what) {
  if (n && n->kind == NK::kStr) return n->str;
  error(n ? n->pos : Pos{}, "expected a string literal for " + what);
}

DataType Parser::dtype_of(const NodeP& n) {
  std::string s;
  if (n && n->kind == NK::kStr) {
    s = n->str;
  } else {
    std::string d = text::dotted_name(n);
    if (d.rfind("T.", 0) == 0) s = d.substr(2);
  }
  if (s == "bool") return DataType::Bool();
  if (auto t = DataType::parse(s); t && !s.empty() && !t->is_void()) return *t;
  error(n ? n->pos : Pos{}, "expected a dtype such as \"float32\" or \"int64\"" +
                                (s.empty() ? std::string() : ", got '" + s + "'"));
}

AttrValue Parser::attr_value(const NodeP& n) {
  switch (n->kind) {
    case NK::kTrue:
      return true;
    case NK::kFalse:
      return false;
    case NK::kNone:
      return std::monostate{};
    case NK::kInt:
      return int_value(n, false);
    case NK::kFloat:
      return n->fval;
    case NK::kStr:
      return n->str;
    case NK::kUnary:
      if (n->str == "-" && n->a && n->a->kind == NK::kInt) return int_value(n->a, true);
      if (n->str == "-" && n->a && n->a->kind == NK::kFloat) return -n->a->fval;
      break;
    case NK::kCall:
      if (text::dotted_name(n->a) == "float" && n->items.size() == 1 &&
          n->items[0]->kind == NK::kStr) {
        const std::string& s = n->items[0]->str;
        if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
        if (s == "inf") return std::numeric_limits<double>::infinity();
        if (s == "-inf") return -std::numeric_limits<double>::infinity();
      }
      break;
    case NK::kDict:
      // A nested dict ({"tir_var_upper_bound": {"n": 4}}) is an Attrs held as an object.
      return Ref<Object>(attr_dict(n));
    case NK::kTuple:
    case NK::kList: {
      bool all_int = true, all_num = true, all_str = true;
      for (const auto& it : n->items) {
        bool is_int = it->kind == NK::kInt ||
                      (it->kind == NK::kUnary && it->str == "-" && it->a->kind == NK::kInt);
        bool is_float = it->kind == NK::kFloat ||
                        (it->kind == NK::kUnary && it->str == "-" && it->a->kind == NK::kFloat);
        all_int &= is_int;
        all_num &= is_int || is_float;
        all_str &= it->kind == NK::kStr;
      }
      if (n->items.empty() || all_int) {
        std::vector<int64_t> v;
        for (const auto& it : n->items) v.push_back(int_literal(it, "a list element"));
        return v;
      }
      if (all_num) {
        std::vector<double> v;
        for (const auto& it : n->items) v.push_back(std::get<double>(attr_value(it)));
        return v;
      }
      if (all_str) {
        std::vector<std::string> v;
        for (const auto& it : n->items) v.push_back(it->str);
        return v;
      }
      std::vector<PrimExpr> v;
      for (const auto& it : n->items) v.push_back(prim_as(it, kDefaultInt));
      return v;
    }
    default:
      break;
  }
  if (looks_prim(n)) return std::vector<PrimExpr>{prim_as(n, kDefaultInt)};
  error(n->pos,
        "expected an attribute value (a number, string, bool, None, a list of them or a dict)");
}

Attrs Parser::attr_dict(const NodeP& n) {
  if (!n || n->kind != NK::kDict)
    error(n ? n->pos : Pos{}, "expected a dict of attributes {\"key\": value}");
  std::vector<std::pair<std::string, AttrValue>> fields;
  for (size_t i = 0; i + 1 < n->items.size(); i += 2) {
    std::string key = string_literal(n->items[i], "an attribute key");
    AttrValue v = attr_value(n->items[i + 1]);
    // A list of floats written with integers: keep the ints (the printer writes what it has).
    fields.emplace_back(key, std::move(v));
  }
  return make_attrs(std::move(fields));
}

bool Parser::looks_prim(const NodeP& n) const {
  if (!n) return false;
  switch (n->kind) {
    case NK::kInt:
    case NK::kFloat:
      return true;
    case NK::kName: {
      const Entry* e = lookup(n->str);
      if (!e) return implicit_vars_;
      return e->kind == Entry::kSymVar;
    }
    case NK::kStr:
      return implicit_vars_;
    case NK::kBinOp:
      return looks_prim(n->a) && looks_prim(n->b);
    case NK::kUnary:
      return looks_prim(n->a);
    case NK::kCall: {
      std::string d = text::dotted_name(n->a);
      return d.rfind("T.", 0) == 0;
    }
    case NK::kSubscript: {
      const Entry* e = n->a->kind == NK::kName ? lookup(n->a->str) : nullptr;
      return e && e->kind == Entry::kBuffer;
    }
    default:
      return false;
  }
}

PrimExpr Parser::coerce(const Typed& x, DataType t, Pos pos) {
  if (!x.untyped || x.e->dtype == t) return x.e;
  if (auto* i = x.e.as<IntImm>()) {
    if (t.is_float()) return make_ref<FloatImm>(t, double(i->value));
    if (t.is_integer_like() && t.lanes == 1) return make_ref<IntImm>(t, i->value);
  }
  if (auto* f = x.e.as<FloatImm>()) {
    if (t.is_float() && t.lanes == 1) return make_ref<FloatImm>(t, f->value);
  }
  return x.e;
}

PrimExpr Parser::int_dim(const NodeP& n, const char* what) {
  PrimExpr e = prim_as(n, kDefaultInt);
  if (!e->dtype.is_int() || e->dtype.lanes != 1)
    error(n->pos, std::string(what) + " must be an integer, got " + e->dtype.to_string());
  return e;
}

PrimExpr Parser::prim_as(const NodeP& n, DataType hint) { return coerce(prim(n), hint, n->pos); }

PrimExpr Parser::binary(const std::string& op, Typed a, Typed b, Pos pos) {
  if (a.untyped && !b.untyped) a.e = coerce(a, b.e->dtype, pos);
  if (b.untyped && !a.untyped) b.e = coerce(b, a.e->dtype, pos);
  if (a.untyped && b.untyped && a.e->dtype != b.e->dtype) {
    // 1 + 0.5: the int literal becomes a float.
    if (a.e->dtype.is_float())
      b.e = coerce(b, a.e->dtype, pos);
    else
      a.e = coerce(a, b.e->dtype, pos);
  }
  DataType ta = a.e->dtype, tb = b.e->dtype;
  if (ta != tb) {
    if (ta.is_int() && tb.is_int() && ta.lanes == tb.lanes) {
      if (ta.bits < tb.bits)
        a.e = make_ref<Cast>(tb, a.e), ta = tb;
      else
        b.e = make_ref<Cast>(ta, b.e), tb = ta;
    } else {
      error(pos, "operands of '" + op + "' have different dtypes: " + ta.to_string() + " and " +
                     tb.to_string() + "; convert one with T.Cast");
    }
  }
  if (ta.is_void() || ta.is_handle())
    error(pos, "operands of '" + op + "' must be numbers, got " + ta.to_string());
  DataType t = ta;
  DataType b1 = DataType::Bool(t.lanes);
  if (op == "and" || op == "or") {
    if (!t.is_bool()) error(pos, "operands of '" + op + "' must be bool, got " + t.to_string());
    if (op == "and") return make_ref<And>(t, a.e, b.e);
    return make_ref<Or>(t, a.e, b.e);
  }
  if (op == "+") return make_ref<Add>(t, a.e, b.e);
  if (op == "-") return make_ref<Sub>(t, a.e, b.e);
  if (op == "*") return make_ref<Mul>(t, a.e, b.e);
  if (op == "/") return make_ref<Div>(t, a.e, b.e);
  if (op == "//") return make_ref<FloorDiv>(t, a.e, b.e);
  if (op == "%") return make_ref<FloorMod>(t, a.e, b.e);
  if (op == "truncmod") return make_ref<Mod>(t, a.e, b.e);
  if (op == "min") return make_ref<Min>(t, a.e, b.e);
  if (op == "max") return make_ref<Max>(t, a.e, b.e);
  if (op == "==") return make_ref<EQ>(b1, a.e, b.e);
  if (op == "!=") return make_ref<NE>(b1, a.e, b.e);
  if (op == "<") return make_ref<LT>(b1, a.e, b.e);
  if (op == "<=") return make_ref<LE>(b1, a.e, b.e);
  if (op == ">") return make_ref<GT>(b1, a.e, b.e);
  if (op == ">=") return make_ref<GE>(b1, a.e, b.e);
  error(pos, "operator '" + op + "' is not supported on scalar expressions");
}

Typed Parser::prim(const NodeP& n) {
  if (!n) error(Pos{}, "expected an expression");
  switch (n->kind) {
    case NK::kInt:
      return {make_ref<IntImm>(kDefaultInt, int_value(n, false)), true};
    case NK::kFloat:
      return {make_ref<FloatImm>(kDefaultFloat, n->fval), true};
    case NK::kTrue:
      return {make_ref<IntImm>(DataType::Bool(), 1), false};
    case NK::kFalse:
      return {make_ref<IntImm>(DataType::Bool(), 0), false};
    case NK::kStr:
    case NK::kName: {
      // A string names a symbolic variable, as TVM prints signatures: R.Tensor(("n", 4)).
      const Entry* e = lookup(n->str);
      if (e && e->kind == Entry::kSymVar) return {e->tvar, false};
      if (e && e->kind == Entry::kBuffer)
        error(n->pos, "buffer '" + n->str + "' used as a scalar; index it (" + n->str +
                          "[i]) or use " + n->str + ".data");
      if (e && e->kind == Entry::kRelaxVar)
        error(n->pos, "'" + n->str + "' is a Relax variable, not a symbolic (T.int64) variable");
      if (e) error(n->pos, "'" + n->str + "' is not a scalar expression");
      if (implicit_vars_) {
        auto v = make_ref<tir::Var>(n->str, kDefaultInt);
        define(n->str, Entry::sym(v));
        return {v, false};
      }
      error(n->pos, "undefined name '" + n->str + "'");
    }
    case NK::kAttr: {
      if (n->str == "data" && n->a->kind == NK::kName) {
        const Entry* e = lookup(n->a->str);
        if (e && e->kind == Entry::kBuffer) return {e->buf->data, false};
      }
      error(n->pos, "expected a scalar expression, got '" + text::dotted_name(n) + "'");
    }
    case NK::kUnary: {
      if (n->str == "-" && n->a && n->a->kind == NK::kInt)
        return {make_ref<IntImm>(kDefaultInt, int_value(n->a, true)), true};
      Typed x = prim(n->a);
      if (n->str == "+") return x;
      if (n->str == "-") {
        if (auto* i = x.e.as<IntImm>(); i && !i->dtype.is_bool()) {
          if (i->value == std::numeric_limits<int64_t>::min())
            error(n->pos, "negating " + std::to_string(i->value) + " overflows " +
                              i->dtype.to_string());
          return {make_ref<IntImm>(i->dtype, -i->value), x.untyped};
        }
        if (auto* f = x.e.as<FloatImm>())
          return {make_ref<FloatImm>(f->dtype, -f->value), x.untyped};
        // tir's negation: 0 - x with the zero of x's dtype (the parser made an IntImm of x's
        // dtype, for a float printed as "0", which read back as another node: a fuzz_rx finding).
        if (x.e->dtype.is_void() || x.e->dtype.is_handle())
          error(n->pos, "operand of '-' must be a number, got " + x.e->dtype.to_string());
        return {-x.e, false};
      }
      if (n->str == "not") {
        if (!x.e->dtype.is_bool())
          error(n->pos, "'not' needs a bool operand, got " + x.e->dtype.to_string());
        return {make_ref<Not>(x.e), false};
      }
      error(n->pos, "operator '" + n->str + "' is not supported on scalar expressions");
    }
    case NK::kBinOp: {
      if (n->str == "**") error(n->pos, "'**' is not supported; use T.pow");
      Typed a = prim(n->a), b = prim(n->b);
      return {binary(n->str, a, b, n->pos), false};
    }
    case NK::kSubscript: {
      Ref<Buffer> buf = buffer_of(n->a);
      std::vector<PrimExpr> idx;
      for (const auto& i : n->items) {
        if (i->kind == NK::kSlice)
          error(i->pos, "a slice is only valid in T.reads/T.writes regions");
        PrimExpr e = prim_as(i, kDefaultInt);
        if (!e->dtype.is_integer_like() || e->dtype.is_bool())
          error(i->pos, "buffer index must be an integer, got " + e->dtype.to_string());
        idx.push_back(e);
      }
      if (idx.size() != buf->shape.size())
        error(n->pos, "buffer '" + buf->name + "' has " + std::to_string(buf->shape.size()) +
                          " dimension(s), indexed with " + std::to_string(idx.size()));
      int lanes = 1;
      for (const auto& i : idx) {
        if (i->dtype.lanes > 1) {
          if (lanes > 1) error(n->pos, "at most one index may be a vector");
          lanes = i->dtype.lanes;
        }
      }
      return {make_ref<BufferLoad>(buf->dtype.with_lanes(lanes), buf, idx), false};
    }
    case NK::kCall:
      break;
    default:
      error(n->pos, "expected a scalar expression");
  }
  // ---- Calls: T.<dtype>(v), casts, min/max, intrinsics.
  std::string fn = text::dotted_name(n->a);
  const auto& args = n->items;
  auto arg = [&](size_t i) -> const NodeP& {
    if (i >= args.size())
      error(n->pos, fn + " expects at least " + std::to_string(i + 1) + " argument(s)");
    return args[i];
  };
  auto kw = [&](const std::string& k) -> NodeP {
    for (const auto& [key, v] : n->kwargs)
      if (key == k) return v;
    return nullptr;
  };
  for (const auto& [key, v] : n->kwargs)
    if (key != "dtype" && key != "where")
      error(v->pos, fn + " has no keyword argument '" + key + "'");
  if (fn.rfind("T.", 0) != 0) {
    if (fn.empty()) error(n->pos, "expected a scalar expression");
    error(n->pos, "unknown function '" + fn + "' in a scalar expression");
  }
  std::string f = fn.substr(2);
  std::optional<DataType> as_dtype =
      f == "bool" ? std::optional<DataType>(DataType::Bool()) : DataType::parse(f);
  if (as_dtype && !as_dtype->is_void() && !as_dtype->is_handle()) {
    DataType t = *as_dtype;
    if (args.size() != 1)
      error(n->pos, fn + "() declares a variable and is only valid as `name = " + fn +
                        "()`; as a value it takes one argument");
    const NodeP& a = args[0];
    if (a->kind == NK::kStr && t.is_float()) {
      double v = a->str == "nan"    ? std::numeric_limits<double>::quiet_NaN()
                 : a->str == "inf"  ? std::numeric_limits<double>::infinity()
                 : a->str == "-inf" ? -std::numeric_limits<double>::infinity()
                                    : (error(a->pos, "expected \"nan\", \"inf\" or \"-inf\""), 0.0);
      return {make_ref<FloatImm>(t, v), false};
    }
    Typed x = prim(a);
    if (x.untyped || x.e.is<IntImm>() || x.e.is<FloatImm>()) {
      if (auto* i = x.e.as<IntImm>()) {
        if (t.is_float()) return {make_ref<FloatImm>(t, double(i->value)), false};
        return {make_ref<IntImm>(t, t.is_bool() ? (i->value != 0) : i->value), false};
      }
      if (auto* fl = x.e.as<FloatImm>()) {
        if (t.is_float()) return {make_ref<FloatImm>(t, fl->value), false};
        return {make_ref<IntImm>(t, int64_t(fl->value)), false};
      }
    }
    return {make_ref<Cast>(t, x.e), false};
  }
  if (f == "min_value" || f == "max_value") return {limit_value(*n, f == "max_value"), false};
  if (f == "Cast" || f == "cast") {
    // T.Cast("float32", x) or T.cast(x, "float32").
    bool dtype_first = arg(0)->kind == NK::kStr || text::dotted_name(arg(0)).rfind("T.", 0) == 0;
    DataType t = dtype_of(dtype_first ? arg(0) : arg(1));
    return {make_ref<Cast>(t, prim(dtype_first ? arg(1) : arg(0)).e), false};
  }
  if (f == "Select") {
    PrimExpr c = prim(arg(0)).e;
    if (!c->dtype.is_bool()) error(arg(0)->pos, "T.Select condition must be bool");
    Typed a = prim(arg(1)), b = prim(arg(2));
    if (a.untyped && !b.untyped) a.e = coerce(a, b.e->dtype, n->pos);
    if (b.untyped && !a.untyped) b.e = coerce(b, a.e->dtype, n->pos);
    if (a.e->dtype != b.e->dtype) error(n->pos, "T.Select arms have different dtypes");
    return {make_ref<Select>(c, a.e, b.e), false};
  }
  if (f == "min" || f == "max" || f == "floordiv" || f == "floormod" || f == "truncdiv" ||
      f == "truncmod") {
    std::string op = f == "floordiv" ? "//" : f == "floormod" ? "%" : f == "truncdiv" ? "/" : f;
    if (args.size() != 2) error(n->pos, fn + " takes 2 arguments");
    return {binary(op, prim(args[0]), prim(args[1]), n->pos), false};
  }
  if (f == "And" || f == "Or")
    return {binary(f == "And" ? "and" : "or", prim(arg(0)), prim(arg(1)), n->pos), false};
  if (f == "Not") {
    PrimExpr x = prim(arg(0)).e;
    if (!x->dtype.is_bool()) error(n->pos, "T.Not needs a bool operand");
    return {make_ref<Not>(x), false};
  }
  if (f == "Let") {
    NodeP where = kw("where");
    if (!where || where->kind != NK::kDict || where->items.size() != 2 ||
        where->items[0]->kind != NK::kName)
      error(n->pos, "expected T.Let(body, where={var: value})");
    PrimExpr value = prim(where->items[1]).e;
    auto v = make_ref<tir::Var>(where->items[0]->str, value->dtype);
    push_scope();
    define(v->name, Entry::sym(v));
    PrimExpr body = prim(arg(0)).e;
    pop_scope();
    return {make_ref<Let>(v, value, body), false};
  }
  if (f == "Ramp") {
    PrimExpr base = prim(arg(0)).e;
    PrimExpr stride = prim_as(arg(1), base->dtype);
    int64_t lanes = int_literal(arg(2), "the lanes of T.Ramp");
    if (lanes < 2 || lanes > 65535 || base->dtype.lanes != 1 || stride->dtype != base->dtype)
      error(n->pos, "T.Ramp needs scalar base and stride of one dtype and 2..65535 lanes");
    return {make_ref<Ramp>(base, stride, int(lanes)), false};
  }
  if (f == "Broadcast") {
    PrimExpr v = prim(arg(0)).e;
    int64_t lanes = int_literal(arg(1), "the lanes of T.Broadcast");
    if (lanes < 2 || lanes > 65535 || v->dtype.lanes != 1)
      error(n->pos, "T.Broadcast needs a scalar and 2..65535 lanes");
    return {make_ref<Broadcast>(v, int(lanes)), false};
  }
  Intrinsic op;
  if (!intrinsic_from_name(f, &op)) error(n->a->pos, "unknown TIR function '" + fn + "'");
  std::vector<PrimExpr> call_args;
  std::string extern_name;
  DataType t = DataType::Void();
  size_t first = 0;
  if (op == Intrinsic::kExtern) {
    t = dtype_of(arg(0));
    extern_name = string_literal(arg(1), "the name of T.call_extern");
    first = 2;
  } else if (op == Intrinsic::kReinterpret) {
    t = dtype_of(arg(0));
    first = 1;
  } else if (op == Intrinsic::kLaunchKernel) {
    extern_name = string_literal(arg(0), "the kernel name of T.launch_kernel");
    first = 1;
  } else if (op == Intrinsic::kStorageSync) {
    if (args.size() != 1) error(n->pos, "T.tvm_storage_sync takes one scope, e.g. \"shared\"");
    extern_name = string_literal(arg(0), "the scope of T.tvm_storage_sync");
    if (extern_name != "shared")
      error(arg(0)->pos, "T.tvm_storage_sync synchronises the \"shared\" scope, got \"" +
                              extern_name + "\"");
    first = 1;
  }
  std::vector<Typed> typed;
  for (size_t i = first; i < args.size(); ++i) typed.push_back(prim(args[i]));
  // Literals adopt the dtype of a typed argument (T.max(x, 0), T.if_then_else(c, x, 0)).
  DataType common = DataType::Void();
  for (size_t i = (op == Intrinsic::kIfThenElse ? 1 : 0); i < typed.size(); ++i)
    if (!typed[i].untyped && !typed[i].e.is<IntImm>() && op != Intrinsic::kLaunchKernel)
      common = typed[i].e->dtype;
  for (auto& x : typed) call_args.push_back(common.is_void() ? x.e : coerce(x, common, n->pos));
  if (NodeP d = kw("dtype")) t = dtype_of(d);
  if (t.is_void()) t = intrinsic_default_dtype(op, call_args);
  if (t.is_void()) error(n->pos, fn + " needs arguments or dtype=");
  return {make_ref<tir::Call>(t, op, std::move(call_args), extern_name), false};
}

PrimExpr Parser::limit_value(const text::Node& n, bool max) {
  // T.min_value("float32") / T.max_value("int32"): the dtype's extreme value as a constant.
  if (n.items.size() != 1) error(n.pos, text::dotted_name(n.a) + " takes one dtype");
  DataType t = dtype_of(n.items[0]);
  if (t.lanes != 1) error(n.items[0]->pos, "expected a scalar dtype");
  if (t.is_bool()) return make_ref<IntImm>(t, max ? 1 : 0);
  if (t.is_float()) {
    // float32's maximum as the printer writes it (shortest float form), so that the constant
    // reads back equal; it rounds to FLT_MAX when converted to float32.
    double v = t.bits == 16   ? 65504.0
               : t.bits == 32 ? 3.4028235e+38
                              : std::numeric_limits<double>::max();
    if (t.bits != 16 && t.bits != 32 && t.bits != 64)
      error(n.items[0]->pos, "no limits known for " + t.to_string());
    return make_ref<FloatImm>(t, max ? v : -v);
  }
  if (t.code == DataType::kInt && t.bits >= 2 && t.bits <= 64) {
    int64_t hi = t.bits == 64 ? INT64_MAX : (int64_t(1) << (t.bits - 1)) - 1;
    return make_ref<IntImm>(t, max ? hi : -hi - 1);
  }
  if (t.code == DataType::kUInt && t.bits <= 63)
    return make_ref<IntImm>(t, max ? (int64_t(1) << t.bits) - 1 : 0);
  error(n.items[0]->pos, "no limits known for " + t.to_string());
}

}  // namespace relax::script
