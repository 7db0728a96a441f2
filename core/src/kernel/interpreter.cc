// The reference interpreter (tir/interpreter.h): the intrinsic calls of the expression
// evaluator (interpreter_eval.h). Statements are executed in interpreter_exec.cc (serially) and
// interpreter_gpu.cc (block regions of thread-bound loops).
#include <cmath>

#include "interpreter_eval.h"
#include "relax/support/diagnostic.h"

namespace relax::tir::interp {

namespace {

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


}  // namespace

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
    case Intrinsic::kStorageSync:
      RX_THROW() << "T.tvm_storage_sync is a statement: it must be the whole value of an "
                 << "Evaluate, not an operand of an expression";
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
      return float_scalar(round_float(t, r));
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
      store_scalar(from, bytes, visit_expr(op->args[0], l));
      return load_scalar(t, bytes);
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
      return float_scalar(round_float(t, apply_float(op->op, x.f)));
    }
  }
}

int64_t eval_int(Env& env, const PrimExpr& e) { return Evaluator(env).eval_int(e); }

}  // namespace relax::tir::interp
