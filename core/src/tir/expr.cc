#include "relax/tir/expr.h"

#include <cmath>
#include <sstream>

#include "relax/support/diagnostic.h"
#include "relax/tir/buffer.h"

namespace relax::tir {

const char* prim_expr_kind_name(uint32_t kind) {
  switch (PrimExprKind(kind)) {
#define RELAX_X(Name) \
  case PrimExprKind::k##Name: return #Name;
    RELAX_PRIM_EXPR_NODES(RELAX_X)
#undef RELAX_X
    default: return "<not a PrimExpr>";
  }
}

const char* intrinsic_name(Intrinsic op) {
  switch (op) {
#define RELAX_X(Name, Str) \
  case Intrinsic::k##Name: return Str;
    RELAX_TIR_INTRINSICS(RELAX_X)
#undef RELAX_X
  }
  return "<unknown intrinsic>";
}

bool intrinsic_from_name(std::string_view name, Intrinsic* out) {
#define RELAX_X(Name, Str)    \
  if (name == Str) {          \
    *out = Intrinsic::k##Name; \
    return true;              \
  }
  RELAX_TIR_INTRINSICS(RELAX_X)
#undef RELAX_X
  return false;
}

PrimExpr int_imm(int64_t value, DataType dtype) {
  RX_ICHECK(dtype.is_integer_like()) << "int_imm of type " << dtype.to_string();
  return make_ref<IntImm>(dtype, value);
}
PrimExpr float_imm(double value, DataType dtype) {
  RX_ICHECK(dtype.is_float()) << "float_imm of type " << dtype.to_string();
  return make_ref<FloatImm>(dtype, value);
}
PrimExpr bool_imm(bool value) { return make_ref<IntImm>(DataType::Bool(), value ? 1 : 0); }
Ref<Var> var(std::string name, DataType dtype) { return make_ref<Var>(std::move(name), dtype); }

const int64_t* as_const_int(const PrimExpr& e) {
  if (auto* imm = e.as<IntImm>()) return &imm->value;
  return nullptr;
}
bool is_const_int(const PrimExpr& e, int64_t value) {
  auto* v = as_const_int(e);
  return v && *v == value;
}

namespace {

/// The operands of a binary operation, of one type. Integers of the same signedness but
/// different widths (an int32 shape variable of hand-written TVMScript beside the int64
/// constants of a buffer shape) are matched as TVM does: the narrower is widened.
void check_same_type(const char* op, PrimExpr& a, PrimExpr& b) {
  RX_ICHECK(a.defined() && b.defined()) << op << " of an undefined operand";
  DataType x = a->dtype, y = b->dtype;
  bool integers = (x.code == DataType::kInt || x.code == DataType::kUInt) && x.code == y.code &&
                  x.lanes == 1 && y.lanes == 1 && !x.is_bool() && !y.is_bool();
  if (integers && x.bits != y.bits) {
    if (x.bits < y.bits)
      a = cast(y, a);
    else
      b = cast(x, b);
  }
  RX_ICHECK(a->dtype == b->dtype) << op << ": operand types differ: " << a->dtype.to_string() << " ("
                                  << to_string(a) << ") vs " << b->dtype.to_string() << " (" << to_string(b)
                                  << ")";
}

// The IR's integer semantics (tir/expr.h): arithmetic wraps at the width of the dtype. The
// folds below compute in uint64 (defined behaviour) and wrap, as the interpreter does, so
// constant folding never overflows a C++ int64_t.

/// `v` wrapped to the width of `t`: unsigned types zero-extend, signed ones sign-extend.
int64_t wrap_to(DataType t, uint64_t v) {
  if (t.bits >= 64 || t.bits == 0) return int64_t(v);
  uint64_t mask = (uint64_t(1) << t.bits) - 1;
  if (t.code == DataType::kUInt) return int64_t(v & mask);
  int shift = 64 - t.bits;
  return int64_t(v << shift) >> shift;
}

uint64_t add_int(int64_t a, int64_t b) { return uint64_t(a) + uint64_t(b); }
uint64_t sub_int(int64_t a, int64_t b) { return uint64_t(a) - uint64_t(b); }
uint64_t mul_int(int64_t a, int64_t b) { return uint64_t(a) * uint64_t(b); }
// Truncating and flooring division on int64 (b != 0); INT64_MIN / -1 wraps to INT64_MIN.
int64_t truncdiv_int(int64_t a, int64_t b) { return b == -1 ? int64_t(0 - uint64_t(a)) : a / b; }
int64_t truncmod_int(int64_t a, int64_t b) { return b == -1 ? 0 : a % b; }
int64_t floordiv_int(int64_t a, int64_t b) {
  if (b == -1) return int64_t(0 - uint64_t(a));
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t floormod_int(int64_t a, int64_t b) {
  if (b == -1) return 0;
  int64_t r = a % b;
  return r != 0 && (r < 0) != (b < 0) ? r + b : r;
}

/// Folds an integer binary operation on two constants; null when either side is not one. `fn`
/// must be defined for all int64 operands; its result is wrapped to the dtype's width.
template <class Fn>
PrimExpr fold_int(const PrimExpr& a, const PrimExpr& b, Fn fn) {
  auto* x = a.as<IntImm>();
  auto* y = b.as<IntImm>();
  if (!x || !y) return {};
  return make_ref<IntImm>(a->dtype, wrap_to(a->dtype, uint64_t(fn(x->value, y->value))));
}

template <class Fn>
PrimExpr fold_float(const PrimExpr& a, const PrimExpr& b, Fn fn) {
  auto* x = a.as<FloatImm>();
  auto* y = b.as<FloatImm>();
  if (!x || !y) return {};
  return make_ref<FloatImm>(a->dtype, fn(x->value, y->value));
}

template <class Fn>
PrimExpr fold_compare(const PrimExpr& a, const PrimExpr& b, Fn fn) {
  if (auto* x = a.as<IntImm>())
    if (auto* y = b.as<IntImm>()) return bool_imm(fn(x->value, y->value));
  if (auto* x = a.as<FloatImm>())
    if (auto* y = b.as<FloatImm>()) return bool_imm(fn(x->value, y->value));
  return {};
}

DataType bool_like(const PrimExpr& a) { return DataType::Bool(a->dtype.lanes); }

}  // namespace

PrimExpr operator+(PrimExpr a, PrimExpr b) {
  check_same_type("+", a, b);
  if (auto r = fold_int(a, b, add_int)) return r;
  if (auto r = fold_float(a, b, [](double x, double y) { return x + y; })) return r;
  if (is_const_int(b, 0)) return a;
  if (is_const_int(a, 0)) return b;
  return make_ref<Add>(a->dtype, std::move(a), std::move(b));
}
PrimExpr operator-(PrimExpr a, PrimExpr b) {
  check_same_type("-", a, b);
  if (auto r = fold_int(a, b, sub_int)) return r;
  if (auto r = fold_float(a, b, [](double x, double y) { return x - y; })) return r;
  if (is_const_int(b, 0)) return a;
  return make_ref<Sub>(a->dtype, std::move(a), std::move(b));
}
PrimExpr operator*(PrimExpr a, PrimExpr b) {
  check_same_type("*", a, b);
  if (auto r = fold_int(a, b, mul_int)) return r;
  if (auto r = fold_float(a, b, [](double x, double y) { return x * y; })) return r;
  if (is_const_int(b, 1)) return a;
  if (is_const_int(a, 1)) return b;
  return make_ref<Mul>(a->dtype, std::move(a), std::move(b));
}
PrimExpr operator-(PrimExpr a) {
  if (auto* x = a.as<IntImm>())
    return make_ref<IntImm>(a->dtype, wrap_to(a->dtype, 0 - uint64_t(x->value)));
  if (auto* x = a.as<FloatImm>()) return make_ref<FloatImm>(a->dtype, -x->value);
  DataType t = a->dtype;
  PrimExpr zero = t.is_float() ? PrimExpr(make_ref<FloatImm>(t, 0.0)) : PrimExpr(make_ref<IntImm>(t, 0));
  return make_ref<Sub>(t, zero, std::move(a));
}
PrimExpr operator+(PrimExpr a, int64_t b) { DataType t = a->dtype; return std::move(a) + int_imm(b, t); }
PrimExpr operator-(PrimExpr a, int64_t b) { DataType t = a->dtype; return std::move(a) - int_imm(b, t); }
PrimExpr operator*(PrimExpr a, int64_t b) { DataType t = a->dtype; return std::move(a) * int_imm(b, t); }
PrimExpr operator+(int64_t a, PrimExpr b) { DataType t = b->dtype; return int_imm(a, t) + std::move(b); }
PrimExpr operator-(int64_t a, PrimExpr b) { DataType t = b->dtype; return int_imm(a, t) - std::move(b); }
PrimExpr operator*(int64_t a, PrimExpr b) { DataType t = b->dtype; return int_imm(a, t) * std::move(b); }

PrimExpr truncdiv(PrimExpr a, PrimExpr b) {
  check_same_type("truncdiv", a, b);
  if (auto* y = b.as<IntImm>()) {
    RX_ICHECK(y->value != 0) << "division by constant zero: " << to_string(a) << " / 0";
    if (y->value == 1) return a;
  }
  if (auto r = fold_int(a, b, truncdiv_int)) return r;
  if (auto r = fold_float(a, b, [](double x, double y) { return x / y; })) return r;
  return make_ref<Div>(a->dtype, std::move(a), std::move(b));
}
PrimExpr truncmod(PrimExpr a, PrimExpr b) {
  check_same_type("truncmod", a, b);
  if (auto* y = b.as<IntImm>()) {
    RX_ICHECK(y->value != 0) << "modulo by constant zero";
  }
  if (auto r = fold_int(a, b, truncmod_int)) return r;
  return make_ref<Mod>(a->dtype, std::move(a), std::move(b));
}
PrimExpr floordiv(PrimExpr a, PrimExpr b) {
  check_same_type("floordiv", a, b);
  if (auto* y = b.as<IntImm>()) {
    RX_ICHECK(y->value != 0) << "division by constant zero: " << to_string(a) << " // 0";
    if (y->value == 1) return a;
  }
  if (auto r = fold_int(a, b, floordiv_int)) return r;
  if (auto r = fold_float(a, b, [](double x, double y) { return std::floor(x / y); })) return r;
  return make_ref<FloorDiv>(a->dtype, std::move(a), std::move(b));
}
PrimExpr floordiv(PrimExpr a, int64_t b) { DataType t = a->dtype; return floordiv(std::move(a), int_imm(b, t)); }
PrimExpr floormod(PrimExpr a, PrimExpr b) {
  check_same_type("floormod", a, b);
  if (auto* y = b.as<IntImm>()) {
    RX_ICHECK(y->value != 0) << "modulo by constant zero";
    if (y->value == 1) return int_imm(0, a->dtype);
  }
  if (auto r = fold_int(a, b, floormod_int)) return r;
  return make_ref<FloorMod>(a->dtype, std::move(a), std::move(b));
}
PrimExpr floormod(PrimExpr a, int64_t b) { DataType t = a->dtype; return floormod(std::move(a), int_imm(b, t)); }
PrimExpr min(PrimExpr a, PrimExpr b) {
  check_same_type("min", a, b);
  if (auto r = fold_int(a, b, [](int64_t x, int64_t y) { return std::min(x, y); })) return r;
  if (auto r = fold_float(a, b, [](double x, double y) { return std::min(x, y); })) return r;
  if (a.same_as(b)) return a;
  return make_ref<Min>(a->dtype, std::move(a), std::move(b));
}
PrimExpr max(PrimExpr a, PrimExpr b) {
  check_same_type("max", a, b);
  if (auto r = fold_int(a, b, [](int64_t x, int64_t y) { return std::max(x, y); })) return r;
  if (auto r = fold_float(a, b, [](double x, double y) { return std::max(x, y); })) return r;
  if (a.same_as(b)) return a;
  return make_ref<Max>(a->dtype, std::move(a), std::move(b));
}

#define RELAX_COMPARE(fn, Node, op)                                                   \
  PrimExpr fn(PrimExpr a, PrimExpr b) {                                               \
    check_same_type(#fn, a, b);                                                       \
    if (auto r = fold_compare(a, b, [](auto x, auto y) { return x op y; })) return r; \
    DataType t = bool_like(a);                                                        \
    return make_ref<Node>(t, std::move(a), std::move(b));                             \
  }
RELAX_COMPARE(eq, EQ, ==)
RELAX_COMPARE(ne, NE, !=)
RELAX_COMPARE(lt, LT, <)
RELAX_COMPARE(le, LE, <=)
RELAX_COMPARE(gt, GT, >)
RELAX_COMPARE(ge, GE, >=)
#undef RELAX_COMPARE

PrimExpr logical_and(PrimExpr a, PrimExpr b) {
  RX_ICHECK(a->dtype.is_bool() && b->dtype.is_bool()) << "logical_and needs bool operands";
  if (auto* x = a.as<IntImm>()) return x->value ? b : a;
  if (auto* y = b.as<IntImm>()) return y->value ? a : b;
  return make_ref<And>(a->dtype, std::move(a), std::move(b));
}
PrimExpr logical_or(PrimExpr a, PrimExpr b) {
  RX_ICHECK(a->dtype.is_bool() && b->dtype.is_bool()) << "logical_or needs bool operands";
  if (auto* x = a.as<IntImm>()) return x->value ? a : b;
  if (auto* y = b.as<IntImm>()) return y->value ? b : a;
  return make_ref<Or>(a->dtype, std::move(a), std::move(b));
}
PrimExpr logical_not(PrimExpr a) {
  RX_ICHECK(a->dtype.is_bool()) << "logical_not needs a bool operand";
  if (auto* x = a.as<IntImm>()) return bool_imm(!x->value);
  return make_ref<Not>(std::move(a));
}
PrimExpr select(PrimExpr cond, PrimExpr t, PrimExpr f) {
  RX_ICHECK(cond->dtype.is_bool()) << "select condition must be bool, got " << cond->dtype.to_string();
  check_same_type("select", t, f);
  if (auto* c = cond.as<IntImm>()) return c->value ? t : f;
  return make_ref<Select>(std::move(cond), std::move(t), std::move(f));
}
PrimExpr cast(DataType dtype, PrimExpr value) {
  if (value->dtype == dtype) return value;
  if (auto* x = value.as<IntImm>()) {
    if (dtype.is_bool()) return bool_imm(x->value != 0);
    if (dtype.is_integer_like() && dtype.is_scalar())
      return make_ref<IntImm>(dtype, wrap_to(dtype, uint64_t(x->value)));
    if (dtype.is_float() && dtype.is_scalar()) return make_ref<FloatImm>(dtype, double(x->value));
  }
  if (auto* x = value.as<FloatImm>()) {
    if (dtype.is_float() && dtype.is_scalar()) return make_ref<FloatImm>(dtype, x->value);
  }
  return make_ref<Cast>(dtype, std::move(value));
}

// ---- to_string

namespace {
void print(std::ostream& os, const PrimExpr& e, int parent_prec = 0);

/// Binding strength of an infix operator; calls such as min() bind tightest (0 = none).
int precedence(std::string_view sym) {
  if (sym == "||") return 1;
  if (sym == "&&") return 2;
  if (sym == "==" || sym == "!=" || sym == "<" || sym == "<=" || sym == ">" || sym == ">=") return 3;
  if (sym == "+" || sym == "-") return 4;
  if (sym == "*" || sym == "//" || sym == "%%") return 5;
  return 0;
}

void print_binary(std::ostream& os, const BinaryOp& n, std::string_view sym, int parent_prec) {
  int prec = precedence(sym);
  if (prec == 0) {
    // min/max and the truncating division print as calls.
    os << (sym == "/" ? "truncdiv" : sym == "%" ? "truncmod" : sym) << "(";
    print(os, n.a);
    os << ", ";
    print(os, n.b);
    os << ")";
    return;
  }
  // Left-associative: the right operand needs parentheses at equal precedence.
  bool parens = prec <= parent_prec;
  if (parens) os << "(";
  print(os, n.a, prec - 1);
  os << " " << (sym == "%%" ? "%" : sym) << " ";
  print(os, n.b, prec);
  if (parens) os << ")";
}

void print_args(std::ostream& os, const std::vector<PrimExpr>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (i) os << ", ";
    print(os, args[i]);
  }
}

void print(std::ostream& os, const PrimExpr& e, int parent_prec) {
  if (!e.defined()) {
    os << "<null>";
    return;
  }
  switch (PrimExprKind(e->kind())) {
    case PrimExprKind::kIntImm: {
      auto* n = e.as<IntImm>();
      if (n->dtype.is_bool()) {
        os << (n->value ? "True" : "False");
      } else {
        os << n->value;
      }
      return;
    }
    case PrimExprKind::kFloatImm: os << e.as<FloatImm>()->value; return;
    case PrimExprKind::kVar: os << e.as<Var>()->name; return;
#define RELAX_X(Name, Symbol)                         \
  case PrimExprKind::k##Name:                         \
    print_binary(os, *static_cast<const BinaryOp*>(e.get()), Symbol, parent_prec); \
    return;
      RELAX_PRIM_EXPR_BINARY_NODES(RELAX_X)
#undef RELAX_X
    case PrimExprKind::kNot: os << "!"; print(os, e.as<Not>()->a); return;
    case PrimExprKind::kSelect: {
      auto* n = e.as<Select>();
      os << "select(";
      print_args(os, {n->condition, n->true_value, n->false_value});
      os << ")";
      return;
    }
    case PrimExprKind::kCast: {
      auto* n = e.as<Cast>();
      os << n->dtype.to_string() << "(";
      print(os, n->value);
      os << ")";
      return;
    }
    case PrimExprKind::kLet: {
      auto* n = e.as<Let>();
      os << "(let " << n->var->name << " = ";
      print(os, n->value);
      os << " in ";
      print(os, n->body);
      os << ")";
      return;
    }
    case PrimExprKind::kCall: {
      auto* n = e.as<Call>();
      os << (n->op == Intrinsic::kExtern ? n->name : intrinsic_name(n->op)) << "(";
      if (n->op == Intrinsic::kStorageSync) os << '"' << n->name << '"';
      if (n->op == Intrinsic::kLaunchKernel) os << '"' << n->name << "\", ";
      print_args(os, n->args);
      os << ")";
      return;
    }
    case PrimExprKind::kBufferLoad: {
      auto* n = e.as<BufferLoad>();
      os << (n->buffer.defined() ? n->buffer->name : std::string("<null buffer>")) << "[";
      print_args(os, n->indices);
      os << "]";
      return;
    }
    case PrimExprKind::kRamp: {
      auto* n = e.as<Ramp>();
      os << "ramp(";
      print_args(os, {n->base, n->stride});
      os << ", " << n->lanes << ")";
      return;
    }
    case PrimExprKind::kBroadcast: {
      auto* n = e.as<Broadcast>();
      os << "broadcast(";
      print(os, n->value);
      os << ", " << n->lanes << ")";
      return;
    }
    default: os << "<" << prim_expr_kind_name(e->kind()) << ">";
  }
}
}  // namespace

std::string to_string(const PrimExpr& e) {
  std::ostringstream os;
  print(os, e);
  return os.str();
}

}  // namespace relax::tir
