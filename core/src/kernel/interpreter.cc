// The reference interpreter (tir/interpreter.h): binds the arguments (interpreter_args.cc), then
// walks the body.
//
// Expressions are evaluated one lane at a time (Evaluator), statements executed in order
// (Executor). Variables hold one Scalar per lane; memory is a byte range per data variable.
#include "relax/kernel/interpreter.h"

#include <cmath>

#include "interpreter_internal.h"
#include "relax/support/diagnostic.h"
#include "relax/tir/stmt_functor.h"

namespace relax::tir {

namespace {

using interp::convert;
using interp::Env;
using interp::float_scalar;
using interp::int_scalar;
using interp::Memory;
using interp::Scalar;
using interp::wrap;

bool is_unsigned(DataType t) { return t.code == DataType::kUInt; }

/// a < b for two values of dtype t.
bool less(DataType t, Scalar a, Scalar b) {
  if (t.is_float()) return a.f < b.f;
  if (is_unsigned(t)) return uint64_t(a.i) < uint64_t(b.i);
  return a.i < b.i;
}
bool equal(DataType t, Scalar a, Scalar b) { return t.is_float() ? a.f == b.f : a.i == b.i; }

class Evaluator : public ExprFunctor<Scalar(const PrimExpr&, int)> {
 public:
  explicit Evaluator(Env& env) : env_(env) {}

  /// Every lane of `e`.
  std::vector<Scalar> lanes(const PrimExpr& e) {
    std::vector<Scalar> out;
    for (int l = 0; l < e->dtype.lanes; ++l) out.push_back(visit_expr(e, l));
    return out;
  }
  int64_t eval_int(const PrimExpr& e, int lane = 0) {
    RX_ICHECK(e->dtype.is_integer_like()) << "expected an integer, got " << to_string(e);
    return visit_expr(e, lane).i;
  }

  /// The element offset of buffer[indices] at `lane`: the flat index of a 1-D compact
  /// buffer, or elem_offset + sum(index * stride) otherwise.
  int64_t offset(const Buffer& b, const std::vector<PrimExpr>& indices, int lane) {
    if (b.ndim() == 1 && b.strides.empty() && is_const_int(b.elem_offset, 0))
      return eval_int(indices[0], lane);
    std::vector<PrimExpr> strides = effective_strides(b);
    int64_t off = eval_int(b.elem_offset);
    for (size_t d = 0; d < indices.size(); ++d)
      off += eval_int(indices[d], lane) * eval_int(strides[d]);
    return off;
  }

  /// The address of element `index` of `b`, checked against the memory behind it.
  char* address(const Buffer& b, int64_t index, const char* what) {
    auto it = env_.memory.find(b.data.get());
    RX_CHECK(it != env_.memory.end()) << what << " buffer " << b.name << ": its memory ("
                                      << b.data->name << ") is neither a parameter nor allocated";
    int64_t size = b.dtype.bytes();
    int64_t elements = it->second.nbytes / size;
    RX_CHECK(index >= 0 && index < elements)
        << what << " buffer " << b.name << " at index " << index << " is out of bounds ("
        << elements << " elements)";
    return it->second.data + index * size;
  }

  using ExprFunctor::visit_;

  Scalar visit_(const IntImm* op, int) override { return int_scalar(wrap(op->dtype, op->value)); }
  Scalar visit_(const FloatImm* op, int) override {
    return float_scalar(interp::round_float(op->dtype, op->value));
  }
  Scalar visit_(const Var* op, int lane) override {
    auto it = env_.vars.find(op);
    RX_CHECK(it != env_.vars.end())
        << "variable " << op->name << " has no value (it is not defined)";
    return it->second.size() == 1 ? it->second[0] : it->second.at(size_t(lane));
  }

  Scalar visit_(const Add* op, int l) override {
    return arith(
        op, l, [](uint64_t a, uint64_t b) { return a + b; },
        [](double a, double b) { return a + b; });
  }
  Scalar visit_(const Sub* op, int l) override {
    return arith(
        op, l, [](uint64_t a, uint64_t b) { return a - b; },
        [](double a, double b) { return a - b; });
  }
  Scalar visit_(const Mul* op, int l) override {
    return arith(
        op, l, [](uint64_t a, uint64_t b) { return a * b; },
        [](double a, double b) { return a * b; });
  }
  Scalar visit_(const Div* op, int l) override { return divide(op, l, false, false); }
  Scalar visit_(const Mod* op, int l) override { return divide(op, l, true, false); }
  Scalar visit_(const FloorDiv* op, int l) override { return divide(op, l, false, true); }
  Scalar visit_(const FloorMod* op, int l) override { return divide(op, l, true, true); }
  Scalar visit_(const Min* op, int l) override {
    Scalar a = visit_expr(op->a, l), b = visit_expr(op->b, l);
    return less(op->a->dtype, b, a) ? b : a;
  }
  Scalar visit_(const Max* op, int l) override {
    Scalar a = visit_expr(op->a, l), b = visit_expr(op->b, l);
    return less(op->a->dtype, a, b) ? b : a;
  }
  Scalar visit_(const EQ* op, int l) override {
    return cmp(op, l, [](bool lt, bool eq, bool gt) { return eq; });
  }
  Scalar visit_(const NE* op, int l) override {
    return cmp(op, l, [](bool lt, bool eq, bool gt) { return !eq; });
  }
  Scalar visit_(const LT* op, int l) override {
    return cmp(op, l, [](bool lt, bool eq, bool gt) { return lt; });
  }
  Scalar visit_(const LE* op, int l) override {
    return cmp(op, l, [](bool lt, bool eq, bool gt) { return lt || eq; });
  }
  Scalar visit_(const GT* op, int l) override {
    return cmp(op, l, [](bool lt, bool eq, bool gt) { return gt; });
  }
  Scalar visit_(const GE* op, int l) override {
    return cmp(op, l, [](bool lt, bool eq, bool gt) { return gt || eq; });
  }
  Scalar visit_(const And* op, int l) override {
    return int_scalar(visit_expr(op->a, l).i != 0 && visit_expr(op->b, l).i != 0);
  }
  Scalar visit_(const Or* op, int l) override {
    return int_scalar(visit_expr(op->a, l).i != 0 || visit_expr(op->b, l).i != 0);
  }
  Scalar visit_(const Not* op, int l) override { return int_scalar(visit_expr(op->a, l).i == 0); }
  Scalar visit_(const Select* op, int l) override {
    Scalar c = visit_expr(op->condition, l);
    Scalar t = visit_expr(op->true_value, l), f = visit_expr(op->false_value, l);
    return c.i ? t : f;
  }
  Scalar visit_(const Cast* op, int l) override {
    return convert(op->value->dtype.element_of(), op->dtype.element_of(), visit_expr(op->value, l));
  }
  Scalar visit_(const Let* op, int l) override {
    auto [it, fresh] = env_.vars.emplace(op->var.get(), lanes(op->value));
    RX_CHECK(fresh) << "variable " << op->var->name << " is defined twice";
    Scalar r;
    try {
      r = visit_expr(op->body, l);
    } catch (...) {
      env_.vars.erase(op->var.get());
      throw;
    }
    env_.vars.erase(op->var.get());
    return r;
  }
  Scalar visit_(const BufferLoad* op, int l) override {
    const Buffer& b = *op->buffer;
    return interp::load_scalar(b.dtype, address(b, offset(b, op->indices, l), "load from"));
  }
  Scalar visit_(const Ramp* op, int l) override {
    DataType t = op->base->dtype;
    Scalar base = visit_expr(op->base, l), stride = visit_expr(op->stride, l);
    return int_scalar(wrap(t, int64_t(uint64_t(base.i) + uint64_t(stride.i) * uint64_t(l))));
  }
  Scalar visit_(const Broadcast* op, int l) override { return visit_expr(op->value, 0); }
  Scalar visit_(const Call* op, int l) override;

 private:
  template <class IntFn, class FloatFn>
  Scalar arith(const BinaryOp* op, int l, IntFn fi, FloatFn ff) {
    DataType t = op->dtype.element_of();
    Scalar a = visit_expr(op->a, l), b = visit_expr(op->b, l);
    if (t.is_float()) return float_scalar(interp::round_float(t, ff(a.f, b.f)));
    return int_scalar(wrap(t, int64_t(fi(uint64_t(a.i), uint64_t(b.i)))));
  }

  template <class Fn>
  Scalar cmp(const BinaryOp* op, int l, Fn fn) {
    DataType t = op->a->dtype.element_of();
    Scalar a = visit_expr(op->a, l), b = visit_expr(op->b, l);
    bool lt = less(t, a, b), gt = less(t, b, a), eq = equal(t, a, b);
    return int_scalar(fn(lt, eq, gt) ? 1 : 0);
  }

  Scalar divide(const BinaryOp* op, int l, bool mod, bool floor) {
    DataType t = op->dtype.element_of();
    Scalar a = visit_expr(op->a, l), b = visit_expr(op->b, l);
    if (t.is_float()) {
      double r = floor ? (mod ? a.f - std::floor(a.f / b.f) * b.f : std::floor(a.f / b.f))
                       : (mod ? std::fmod(a.f, b.f) : a.f / b.f);
      return float_scalar(interp::round_float(t, r));
    }
    RX_CHECK(b.i != 0) << "integer " << (mod ? "modulo" : "division") << " by zero in "
                       << to_string(PrimExpr(op));
    if (is_unsigned(t)) {
      uint64_t x = uint64_t(a.i), y = uint64_t(b.i);
      return int_scalar(wrap(t, int64_t(mod ? x % y : x / y)));
    }
    if (a.i == std::numeric_limits<int64_t>::min() && b.i == -1)  // the one overflowing case
      return int_scalar(wrap(t, mod ? 0 : a.i));
    int64_t q = a.i / b.i, r = a.i % b.i;
    if (floor && r != 0 && ((r < 0) != (b.i < 0))) {
      q -= 1;
      r += b.i;
    }
    return int_scalar(wrap(t, mod ? r : q));
  }

  Env& env_;
};

double apply_float(Intrinsic op, double x) {
  switch (op) {
    case Intrinsic::kExp:
      return std::exp(x);
    case Intrinsic::kExp2:
      return std::exp2(x);
    case Intrinsic::kLog:
      return std::log(x);
    case Intrinsic::kLog2:
      return std::log2(x);
    case Intrinsic::kLog1p:
      return std::log1p(x);
    case Intrinsic::kSqrt:
      return std::sqrt(x);
    case Intrinsic::kRsqrt:
      return 1.0 / std::sqrt(x);
    case Intrinsic::kSin:
      return std::sin(x);
    case Intrinsic::kCos:
      return std::cos(x);
    case Intrinsic::kTan:
      return std::tan(x);
    case Intrinsic::kAsin:
      return std::asin(x);
    case Intrinsic::kAcos:
      return std::acos(x);
    case Intrinsic::kAtan:
      return std::atan(x);
    case Intrinsic::kSinh:
      return std::sinh(x);
    case Intrinsic::kCosh:
      return std::cosh(x);
    case Intrinsic::kTanh:
      return std::tanh(x);
    case Intrinsic::kAsinh:
      return std::asinh(x);
    case Intrinsic::kAcosh:
      return std::acosh(x);
    case Intrinsic::kAtanh:
      return std::atanh(x);
    case Intrinsic::kErf:
      return std::erf(x);
    case Intrinsic::kSigmoid:
      return 1.0 / (1.0 + std::exp(-x));
    case Intrinsic::kFloor:
      return std::floor(x);
    case Intrinsic::kCeil:
      return std::ceil(x);
    case Intrinsic::kRound:
      return std::nearbyint(x);  // half to even
    case Intrinsic::kTrunc:
      return std::trunc(x);
    case Intrinsic::kFabs:
    case Intrinsic::kAbs:
      return std::fabs(x);
    default:
      RX_IFAIL() << "not a unary float intrinsic: " << intrinsic_name(op);
  }
}

Scalar Evaluator::visit_(const Call* op, int l) {
  const char* name = intrinsic_name(op->op);
  DataType t = op->dtype.element_of();
  auto arg_type = [&](size_t i) { return op->args.at(i)->dtype.element_of(); };
  auto need_args = [&](size_t n) {
    RX_CHECK(op->args.size() == n)
        << name << " takes " << n << " operands, got " << op->args.size();
  };
  switch (op->op) {
    case Intrinsic::kExtern:
      RX_THROW() << "the interpreter cannot call external function '" << op->name << "'";
    case Intrinsic::kIfThenElse: {
      need_args(3);
      Scalar c = visit_expr(op->args[0], l);
      return visit_expr(c.i ? op->args[1] : op->args[2], l);
    }
    case Intrinsic::kLikely:
      need_args(1);
      return visit_expr(op->args[0], l);
    case Intrinsic::kIsNan:
    case Intrinsic::kIsInf:
    case Intrinsic::kIsFinite: {
      need_args(1);
      Scalar x = visit_expr(op->args[0], l);
      if (!arg_type(0).is_float()) return int_scalar(op->op == Intrinsic::kIsFinite);
      bool r = op->op == Intrinsic::kIsNan   ? std::isnan(x.f)
               : op->op == Intrinsic::kIsInf ? std::isinf(x.f)
                                             : std::isfinite(x.f);
      return int_scalar(r);
    }
    case Intrinsic::kPow:
    case Intrinsic::kFmod:
    case Intrinsic::kAtan2: {
      need_args(2);
      RX_CHECK(t.is_float()) << name << " needs float operands, got " << t.to_string();
      double a = visit_expr(op->args[0], l).f, b = visit_expr(op->args[1], l).f;
      double r = op->op == Intrinsic::kPow    ? std::pow(a, b)
                 : op->op == Intrinsic::kFmod ? std::fmod(a, b)
                                              : std::atan2(a, b);
      return float_scalar(interp::round_float(t, r));
    }
    case Intrinsic::kBitwiseAnd:
    case Intrinsic::kBitwiseOr:
    case Intrinsic::kBitwiseXor:
    case Intrinsic::kShiftLeft:
    case Intrinsic::kShiftRight: {
      need_args(2);
      RX_CHECK(t.is_integer_like()) << name << " needs integer operands, got " << t.to_string();
      int64_t a = visit_expr(op->args[0], l).i, b = visit_expr(op->args[1], l).i;
      switch (op->op) {
        case Intrinsic::kBitwiseAnd:
          return int_scalar(wrap(t, a & b));
        case Intrinsic::kBitwiseOr:
          return int_scalar(wrap(t, a | b));
        case Intrinsic::kBitwiseXor:
          return int_scalar(wrap(t, a ^ b));
        default:
          break;
      }
      bool amount_ok =
          is_unsigned(arg_type(1)) ? uint64_t(b) < uint64_t(t.bits) : (b >= 0 && b < t.bits);
      RX_CHECK(amount_ok) << name << " by " << b << " bits on " << t.to_string()
                          << " (the amount must be in [0, " << int(t.bits) << "))";
      if (op->op == Intrinsic::kShiftLeft) return int_scalar(wrap(t, int64_t(uint64_t(a) << b)));
      if (is_unsigned(t)) return int_scalar(wrap(t, int64_t(uint64_t(a) >> b)));
      return int_scalar(wrap(t, a >> b));
    }
    case Intrinsic::kBitwiseNot: {
      need_args(1);
      RX_CHECK(t.is_integer_like()) << name << " needs an integer operand, got " << t.to_string();
      return int_scalar(wrap(t, ~visit_expr(op->args[0], l).i));
    }
    case Intrinsic::kReinterpret: {
      need_args(1);
      DataType from = arg_type(0);
      RX_CHECK(from.bits == t.bits)
          << "reinterpret of " << from.to_string() << " as " << t.to_string()
          << ": the interpreter reinterprets lane by lane, of one width";
      alignas(8) char bytes[8] = {};
      interp::store_scalar(from, bytes, visit_expr(op->args[0], l));
      return interp::load_scalar(t, bytes);
    }
    case Intrinsic::kAbs:
      need_args(1);
      if (!t.is_float()) {
        int64_t x = visit_expr(op->args[0], l).i;
        if (is_unsigned(t)) return int_scalar(x);
        return int_scalar(wrap(t, x < 0 ? int64_t(0 - uint64_t(x)) : x));
      }
      [[fallthrough]];
    default: {
      need_args(1);
      Scalar x = visit_expr(op->args[0], l);
      if (!t.is_float()) {
        // Rounding functions are the identity on integers; the rest need floats.
        switch (op->op) {
          case Intrinsic::kFloor:
          case Intrinsic::kCeil:
          case Intrinsic::kRound:
          case Intrinsic::kTrunc:
            return x;
          default:
            RX_THROW() << name << " needs a float operand, got " << t.to_string();
        }
      }
      return float_scalar(interp::round_float(t, apply_float(op->op, x.f)));
    }
  }
}

class Executor : public StmtFunctor<void(const Stmt&)> {
 public:
  explicit Executor(Env& env) : env_(env), eval_(env) {}
  using StmtFunctor::visit_;

  void visit_(const LetStmt* op) override {
    Scoped scope(env_, op->var.get(), eval_.lanes(op->value));
    visit_stmt(op->body);
  }
  void visit_(const AssertStmt* op) override {
    RX_CHECK(eval_(op->condition, 0).i != 0) << "assertion failed: " << op->message;
    visit_stmt(op->body);
  }
  void visit_(const For* op) override {
    int64_t min = eval_.eval_int(op->min), extent = eval_.eval_int(op->extent);
    DataType t = op->loop_var->dtype;
    Scoped scope(env_, op->loop_var.get(), {int_scalar(min)});
    std::vector<Scalar>& slot = env_.vars.at(op->loop_var.get());
    for (int64_t i = 0; i < extent; ++i) {
      slot[0] = int_scalar(wrap(t, min + i));
      visit_stmt(op->body);
    }
  }
  void visit_(const BufferStore* op) override {
    const Buffer& b = *op->buffer;
    int lanes = op->value->dtype.lanes;
    std::vector<char*> addrs;
    std::vector<Scalar> values;
    for (int l = 0; l < lanes; ++l) {
      values.push_back(eval_(op->value, l));
      addrs.push_back(eval_.address(b, eval_.offset(b, op->indices, l), "store to"));
    }
    for (int l = 0; l < lanes; ++l)
      interp::store_scalar(b.dtype, addrs[size_t(l)], values[size_t(l)]);
  }
  void visit_(const IfThenElse* op) override {
    if (eval_(op->condition, 0).i != 0) {
      visit_stmt(op->then_case);
    } else if (op->else_case.defined()) {
      visit_stmt(op->else_case);
    }
  }
  void visit_(const SeqStmt* op) override {
    for (const auto& s : op->seq) visit_stmt(s);
  }
  void visit_(const Allocate* op) override {
    int64_t n = 1;
    for (const auto& e : op->extents) {
      int64_t x = eval_.eval_int(e);
      RX_CHECK(x >= 0) << "Allocate " << op->buffer_var->name << " with a negative extent " << x;
      n *= x;
    }
    std::vector<char> storage(size_t(n * op->dtype.bytes()), char(0xFF));
    auto [it, fresh] =
        env_.memory.emplace(op->buffer_var.get(), Memory{storage.data(), int64_t(storage.size())});
    RX_CHECK(fresh) << "memory " << op->buffer_var->name << " is allocated twice";
    try {
      visit_stmt(op->body);
    } catch (...) {
      env_.memory.erase(op->buffer_var.get());
      throw;
    }
    env_.memory.erase(op->buffer_var.get());
  }
  void visit_(const Evaluate* op) override {
    for (int l = 0; l < op->value->dtype.lanes; ++l) eval_(op->value, l);
  }
  void visit_(const Block* op) override {
    RX_THROW() << "the interpreter runs lowered PrimFuncs; block " << op->name
               << " is left (run tir::lower)";
  }
  void visit_(const BlockRealize* op) override { visit_(op->block.get()); }

 private:
  /// Binds a variable for the duration of a scope.
  struct Scoped {
    Env& env;
    const Var* var;
    Scoped(Env& env, const Var* var, std::vector<Scalar> value) : env(env), var(var) {
      RX_CHECK(env.vars.emplace(var, std::move(value)).second)
          << "variable " << var->name << " is defined twice";
    }
    ~Scoped() { env.vars.erase(var); }
  };

  Env& env_;
  Evaluator eval_;
};

}  // namespace

int64_t interp::eval_int(Env& env, const PrimExpr& e) { return Evaluator(env).eval_int(e); }

void interpret(const Ref<PrimFunc>& func, const std::vector<InterpArg>& args) {
  RX_CHECK(func.defined()) << "interpret of an undefined PrimFunc";
  Env env;
  interp::bind_args(*func, args, env);
  Executor exec(env);
  exec(func->body);
}

}  // namespace relax::tir
