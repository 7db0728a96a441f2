// Typed builders of intrinsic calls (tir/intrin.h).
#include "relax/tir/intrin.h"

#include "relax/support/diagnostic.h"

namespace relax::tir {

namespace {

/// Operand count of each intrinsic; -1 for call_extern (any).
int arity(Intrinsic op) {
  switch (op) {
    case Intrinsic::kExtern:
    case Intrinsic::kLaunchKernel:
      return -1;
    case Intrinsic::kStorageSync:
      return 0;
    case Intrinsic::kAtan2:
    case Intrinsic::kPow:
    case Intrinsic::kFmod:
    case Intrinsic::kBitwiseAnd:
    case Intrinsic::kBitwiseOr:
    case Intrinsic::kBitwiseXor:
    case Intrinsic::kShiftLeft:
    case Intrinsic::kShiftRight:
      return 2;
    case Intrinsic::kIfThenElse:
      return 3;
    default:
      return 1;
  }
}

bool is_float_math(Intrinsic op) {
  switch (op) {
    case Intrinsic::kAbs:
    case Intrinsic::kIsNan:
    case Intrinsic::kIsInf:
    case Intrinsic::kIsFinite:
    case Intrinsic::kIfThenElse:
    case Intrinsic::kLikely:
    case Intrinsic::kReinterpret:
    case Intrinsic::kExtern:
    case Intrinsic::kLaunchKernel:
    case Intrinsic::kStorageSync:
    case Intrinsic::kBitwiseAnd:
    case Intrinsic::kBitwiseOr:
    case Intrinsic::kBitwiseXor:
    case Intrinsic::kBitwiseNot:
    case Intrinsic::kShiftLeft:
    case Intrinsic::kShiftRight:
      return false;
    default:
      return true;
  }
}

bool is_bit_op(Intrinsic op) {
  switch (op) {
    case Intrinsic::kBitwiseAnd:
    case Intrinsic::kBitwiseOr:
    case Intrinsic::kBitwiseXor:
    case Intrinsic::kBitwiseNot:
    case Intrinsic::kShiftLeft:
    case Intrinsic::kShiftRight:
      return true;
    default:
      return false;
  }
}

}  // namespace

PrimExpr call_intrin(Intrinsic op, std::vector<PrimExpr> args) {
  RX_ICHECK(op != Intrinsic::kExtern && op != Intrinsic::kReinterpret &&
            op != Intrinsic::kLaunchKernel && op != Intrinsic::kStorageSync)
      << intrinsic_name(op) << " needs its result type: build the Call directly";
  const char* name = intrinsic_name(op);
  RX_ICHECK(int(args.size()) == arity(op))
      << name << " takes " << arity(op) << " operands, got " << args.size();
  for (const auto& a : args) RX_ICHECK(a.defined()) << name << " of an undefined operand";
  DataType t = args[0]->dtype;
  if (op == Intrinsic::kIfThenElse) {
    RX_ICHECK(t.is_bool()) << "if_then_else condition must be bool, got " << t.to_string();
    RX_ICHECK(args[1]->dtype == args[2]->dtype)
        << "if_then_else arms differ in type: " << args[1]->dtype.to_string() << " vs "
        << args[2]->dtype.to_string();
    RX_ICHECK(t.lanes == 1 || t.lanes == args[1]->dtype.lanes)
        << "if_then_else condition lanes do not match its arms";
    t = args[1]->dtype;
  } else {
    for (const auto& a : args)
      RX_ICHECK(a->dtype == t) << name << ": operand types differ: " << t.to_string() << " vs "
                               << a->dtype.to_string();
  }
  if (is_float_math(op)) {
    RX_ICHECK(t.is_float()) << name << " needs a float operand, got " << t.to_string();
  }
  if (is_bit_op(op)) {
    RX_ICHECK(t.is_integer_like()) << name << " needs integer operands, got " << t.to_string();
  }
  if (op == Intrinsic::kIsNan || op == Intrinsic::kIsInf || op == Intrinsic::kIsFinite)
    t = DataType::Bool(t.lanes);
  return make_ref<Call>(t, op, std::move(args));
}

PrimExpr launch_kernel(const std::string& name, const std::vector<PrimExpr>& grid_and_block,
                       const std::vector<PrimExpr>& args) {
  RX_ICHECK(!name.empty()) << "launch_kernel needs a kernel name";
  RX_ICHECK(grid_and_block.size() == 6) << "launch_kernel takes 3 grid and 3 block sizes";
  std::vector<PrimExpr> all = grid_and_block;
  for (const auto& e : grid_and_block)
    RX_ICHECK(e.defined() && e->dtype.is_integer_like() && e->dtype.lanes == 1)
        << "launch_kernel " << name << ": grid and block sizes must be integer scalars";
  for (const auto& a : args) {
    RX_ICHECK(a.defined() && a->dtype.lanes == 1 && (a->dtype.is_handle() || a->dtype.is_integer_like()))
        << "launch_kernel " << name << ": arguments are handles and integer scalars";
    all.push_back(a);
  }
  return make_ref<Call>(DataType::Int(32), Intrinsic::kLaunchKernel, std::move(all), name);
}

#define RELAX_UNARY(fn, Name) \
  PrimExpr fn(PrimExpr x) { return call_intrin(Intrinsic::k##Name, {std::move(x)}); }
RELAX_UNARY(exp, Exp)
RELAX_UNARY(exp2, Exp2)
RELAX_UNARY(log, Log)
RELAX_UNARY(log2, Log2)
RELAX_UNARY(log1p, Log1p)
RELAX_UNARY(sqrt, Sqrt)
RELAX_UNARY(rsqrt, Rsqrt)
RELAX_UNARY(sin, Sin)
RELAX_UNARY(cos, Cos)
RELAX_UNARY(tan, Tan)
RELAX_UNARY(asin, Asin)
RELAX_UNARY(acos, Acos)
RELAX_UNARY(atan, Atan)
RELAX_UNARY(sinh, Sinh)
RELAX_UNARY(cosh, Cosh)
RELAX_UNARY(tanh, Tanh)
RELAX_UNARY(asinh, Asinh)
RELAX_UNARY(acosh, Acosh)
RELAX_UNARY(atanh, Atanh)
RELAX_UNARY(erf, Erf)
RELAX_UNARY(sigmoid, Sigmoid)
RELAX_UNARY(floor, Floor)
RELAX_UNARY(ceil, Ceil)
RELAX_UNARY(round, Round)
RELAX_UNARY(trunc, Trunc)
RELAX_UNARY(abs, Abs)
RELAX_UNARY(isnan, IsNan)
RELAX_UNARY(isinf, IsInf)
RELAX_UNARY(isfinite, IsFinite)
RELAX_UNARY(bitwise_not, BitwiseNot)
#undef RELAX_UNARY

#define RELAX_BINARY(fn, Name)                                            \
  PrimExpr fn(PrimExpr a, PrimExpr b) {                                   \
    return call_intrin(Intrinsic::k##Name, {std::move(a), std::move(b)}); \
  }
RELAX_BINARY(pow, Pow)
RELAX_BINARY(fmod, Fmod)
RELAX_BINARY(atan2, Atan2)
RELAX_BINARY(bitwise_and, BitwiseAnd)
RELAX_BINARY(bitwise_or, BitwiseOr)
RELAX_BINARY(bitwise_xor, BitwiseXor)
RELAX_BINARY(shift_left, ShiftLeft)
RELAX_BINARY(shift_right, ShiftRight)
#undef RELAX_BINARY

PrimExpr reinterpret(DataType dtype, PrimExpr x) {
  RX_ICHECK(x.defined()) << "reinterpret of an undefined operand";
  RX_ICHECK(dtype.bits * dtype.lanes == x->dtype.bits * x->dtype.lanes)
      << "reinterpret changes the width: " << x->dtype.to_string() << " to " << dtype.to_string();
  return make_ref<Call>(dtype, Intrinsic::kReinterpret, std::vector<PrimExpr>{std::move(x)});
}

PrimExpr storage_sync(std::string scope) {
  RX_CHECK(scope == "shared") << "tvm_storage_sync synchronises the \"shared\" scope (the "
                              << "threads of a block), got \"" << scope << "\"";
  return make_ref<Call>(DataType::Int(32), Intrinsic::kStorageSync, std::vector<PrimExpr>{},
                        std::move(scope));
}

bool is_storage_sync(const PrimExpr& e) {
  auto* c = e.as<Call>();
  return c && c->op == Intrinsic::kStorageSync;
}

}  // namespace relax::tir
