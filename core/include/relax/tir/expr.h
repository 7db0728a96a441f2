// Scalar expressions (PrimExpr): the symbolic integer arithmetic of Relax shapes and the
// expression language of the kernel IR.
//
// Semantics:
//  - Integer arithmetic wraps at the width of the dtype (two's complement). Shapes use int64.
//  - Div and Mod truncate toward zero (C semantics); FloorDiv and FloorMod round toward
//    negative infinity (Python semantics; what shapes use: `(h + 2) // 2`). For floats, Div is
//    true division and FloorDiv is floor(a / b).
//  - Comparisons and logic produce bool (uint1), with the lanes of their operands.
//  - Select evaluates both arms; use the `if_then_else` intrinsic to guard a side effect.
//  - Evaluation has no side effects except through intrinsic calls the kernel IR marks impure.
//  - Var is compared by identity; two variables with one name are different variables.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "relax/support/dtype.h"
#include "relax/support/kinds.h"
#include "relax/support/object.h"

namespace relax::tir {

/// The one node list of PrimExpr. Binary nodes share the BinaryOp layout.
#define RELAX_PRIM_EXPR_NODES(X) \
  X(IntImm)                      \
  X(FloatImm)                    \
  X(Var)                         \
  X(Add)                         \
  X(Sub)                         \
  X(Mul)                         \
  X(Div)                         \
  X(Mod)                         \
  X(FloorDiv)                    \
  X(FloorMod)                    \
  X(Min)                         \
  X(Max)                         \
  X(EQ)                          \
  X(NE)                          \
  X(LT)                          \
  X(LE)                          \
  X(GT)                          \
  X(GE)                          \
  X(And)                         \
  X(Or)                          \
  X(Not)                         \
  X(Select)                      \
  X(Cast)                        \
  X(Let)                         \
  X(Call)                        \
  X(BufferLoad)                  \
  X(Ramp)                        \
  X(Broadcast)

/// The binary nodes, in the order of the list above (for code that treats them alike).
#define RELAX_PRIM_EXPR_BINARY_NODES(X) \
  X(Add, "+") X(Sub, "-") X(Mul, "*") X(Div, "/") X(Mod, "%") X(FloorDiv, "//") X(FloorMod, "%%") \
  X(Min, "min") X(Max, "max") X(EQ, "==") X(NE, "!=") X(LT, "<") X(LE, "<=") X(GT, ">")          \
  X(GE, ">=") X(And, "&&") X(Or, "||")

enum class PrimExprKind : uint32_t {
  kFirst = kPrimExprKindBase - 1,
#define RELAX_X(Name) k##Name,
  RELAX_PRIM_EXPR_NODES(RELAX_X)
#undef RELAX_X
  kLast
};

/// Name of a PrimExpr kind, e.g. "Add".
const char* prim_expr_kind_name(uint32_t kind);

struct Buffer;  // tir/buffer.h

/// Base of every scalar expression.
struct PrimExprNode : Object {
  static constexpr uint32_t kKindFirst = uint32_t(PrimExprKind::kFirst) + 1;
  static constexpr uint32_t kKindLast = uint32_t(PrimExprKind::kLast) - 1;
  /// The result type.
  const DataType dtype;

 protected:
  PrimExprNode(PrimExprKind kind, DataType dtype) : Object(uint32_t(kind)), dtype(dtype) {}
};
using PrimExpr = Ref<PrimExprNode>;

#define RELAX_PRIM_EXPR_KIND(Name) static constexpr uint32_t kKind = uint32_t(PrimExprKind::k##Name)

/// Integer (or bool) constant.
struct IntImm : PrimExprNode {
  RELAX_PRIM_EXPR_KIND(IntImm);
  const int64_t value;
  IntImm(DataType dtype, int64_t value) : PrimExprNode(PrimExprKind::kIntImm, dtype), value(value) {}
};

/// Floating-point constant.
struct FloatImm : PrimExprNode {
  RELAX_PRIM_EXPR_KIND(FloatImm);
  const double value;
  FloatImm(DataType dtype, double value) : PrimExprNode(PrimExprKind::kFloatImm, dtype), value(value) {}
};

/// A symbolic variable (a shape dimension, a loop index, a scalar parameter).
/// Handle-typed variables name buffer data pointers.
struct Var : PrimExprNode {
  RELAX_PRIM_EXPR_KIND(Var);
  const std::string name;
  Var(std::string name, DataType dtype = DataType::Int(64))
      : PrimExprNode(PrimExprKind::kVar, dtype), name(std::move(name)) {}
};

/// Common layout of the binary nodes.
struct BinaryOp : PrimExprNode {
  static constexpr uint32_t kKindFirst = uint32_t(PrimExprKind::kAdd);
  static constexpr uint32_t kKindLast = uint32_t(PrimExprKind::kOr);
  const PrimExpr a;
  const PrimExpr b;

 protected:
  BinaryOp(PrimExprKind kind, DataType dtype, PrimExpr a, PrimExpr b)
      : PrimExprNode(kind, dtype), a(std::move(a)), b(std::move(b)) {}
};

#define RELAX_X(Name, Symbol)                                      \
  struct Name : BinaryOp {                                         \
    RELAX_PRIM_EXPR_KIND(Name);                                    \
    Name(DataType dtype, PrimExpr a, PrimExpr b)                   \
        : BinaryOp(PrimExprKind::k##Name, dtype, std::move(a), std::move(b)) {} \
  };
RELAX_PRIM_EXPR_BINARY_NODES(RELAX_X)
#undef RELAX_X

/// Logical negation.
struct Not : PrimExprNode {
  RELAX_PRIM_EXPR_KIND(Not);
  const PrimExpr a;
  explicit Not(PrimExpr a) : PrimExprNode(PrimExprKind::kNot, a->dtype), a(std::move(a)) {}
};

/// `condition ? true_value : false_value`, both arms evaluated.
struct Select : PrimExprNode {
  RELAX_PRIM_EXPR_KIND(Select);
  const PrimExpr condition;
  const PrimExpr true_value;
  const PrimExpr false_value;
  Select(PrimExpr c, PrimExpr t, PrimExpr f)
      : PrimExprNode(PrimExprKind::kSelect, t->dtype), condition(std::move(c)), true_value(std::move(t)),
        false_value(std::move(f)) {}
};

/// Conversion to `dtype`.
struct Cast : PrimExprNode {
  RELAX_PRIM_EXPR_KIND(Cast);
  const PrimExpr value;
  Cast(DataType dtype, PrimExpr value) : PrimExprNode(PrimExprKind::kCast, dtype), value(std::move(value)) {}
};

/// `let var = value in body`.
struct Let : PrimExprNode {
  RELAX_PRIM_EXPR_KIND(Let);
  const Ref<Var> var;
  const PrimExpr value;
  const PrimExpr body;
  Let(Ref<Var> var, PrimExpr value, PrimExpr body)
      : PrimExprNode(PrimExprKind::kLet, body->dtype), var(std::move(var)), value(std::move(value)),
        body(std::move(body)) {}
};

/// The intrinsics a Call may name. Backends map each to their math library or instruction;
/// kExtern calls the function named by Call::name. kStorageSync ("tvm_storage_sync", TVM's
/// spelling) is the workgroup barrier: an int32 call with no operands whose Call::name is the
/// storage scope it synchronises ("shared"), used as the whole value of an Evaluate; every
/// thread of a block waits there until all threads of the block reach it, and shared-memory
/// writes before it are visible to every thread of the block after it (tir/intrin.h).
#define RELAX_TIR_INTRINSICS(X)                                                                   \
  X(Extern, "call_extern") X(Exp, "exp") X(Exp2, "exp2") X(Log, "log") X(Log2, "log2")             \
  X(LaunchKernel, "launch_kernel")                                                                \
  X(Log1p, "log1p") X(Sqrt, "sqrt") X(Rsqrt, "rsqrt") X(Sin, "sin") X(Cos, "cos") X(Tan, "tan")    \
  X(Asin, "asin") X(Acos, "acos") X(Atan, "atan") X(Atan2, "atan2") X(Sinh, "sinh")                \
  X(Cosh, "cosh") X(Tanh, "tanh") X(Asinh, "asinh") X(Acosh, "acosh") X(Atanh, "atanh")            \
  X(Erf, "erf") X(Sigmoid, "sigmoid") X(Floor, "floor") X(Ceil, "ceil") X(Round, "round")          \
  X(Trunc, "trunc") X(Fabs, "fabs") X(Pow, "pow") X(Fmod, "fmod") X(IsNan, "isnan")                \
  X(IsInf, "isinf") X(IsFinite, "isfinite") X(Abs, "abs") X(IfThenElse, "if_then_else")            \
  X(BitwiseAnd, "bitwise_and") X(BitwiseOr, "bitwise_or") X(BitwiseXor, "bitwise_xor")            \
  X(BitwiseNot, "bitwise_not") X(ShiftLeft, "shift_left") X(ShiftRight, "shift_right")            \
  X(Reinterpret, "reinterpret") X(Likely, "likely") X(StorageSync, "tvm_storage_sync")

enum class Intrinsic : uint16_t {
#define RELAX_X(Name, Str) k##Name,
  RELAX_TIR_INTRINSICS(RELAX_X)
#undef RELAX_X
};

/// Script name of an intrinsic, e.g. "exp".
const char* intrinsic_name(Intrinsic op);
/// Finds an intrinsic by its script name; false when there is none.
bool intrinsic_from_name(std::string_view name, Intrinsic* out);

/// A call to an intrinsic, or to an external function by name (op == kExtern).
struct Call : PrimExprNode {
  RELAX_PRIM_EXPR_KIND(Call);
  const Intrinsic op;
  /// The callee's name for kExtern, the kernel's for kLaunchKernel, the storage scope for
  /// kStorageSync; empty otherwise.
  const std::string name;
  const std::vector<PrimExpr> args;
  Call(DataType dtype, Intrinsic op, std::vector<PrimExpr> args, std::string name = {})
      : PrimExprNode(PrimExprKind::kCall, dtype), op(op), name(std::move(name)), args(std::move(args)) {}
};

/// Reads buffer[indices]. With a Ramp as the last index it reads a vector.
struct BufferLoad : PrimExprNode {
  RELAX_PRIM_EXPR_KIND(BufferLoad);
  const Ref<Buffer> buffer;
  const std::vector<PrimExpr> indices;
  BufferLoad(DataType dtype, Ref<Buffer> buffer, std::vector<PrimExpr> indices)
      : PrimExprNode(PrimExprKind::kBufferLoad, dtype), buffer(std::move(buffer)), indices(std::move(indices)) {}
};

/// The vector base, base + stride, ..., base + (lanes - 1) * stride.
struct Ramp : PrimExprNode {
  RELAX_PRIM_EXPR_KIND(Ramp);
  const PrimExpr base;
  const PrimExpr stride;
  const int lanes;
  Ramp(PrimExpr base, PrimExpr stride, int lanes)
      : PrimExprNode(PrimExprKind::kRamp, base->dtype.with_lanes(lanes)), base(std::move(base)),
        stride(std::move(stride)), lanes(lanes) {}
};

/// A scalar repeated over `lanes` lanes.
struct Broadcast : PrimExprNode {
  RELAX_PRIM_EXPR_KIND(Broadcast);
  const PrimExpr value;
  const int lanes;
  Broadcast(PrimExpr value, int lanes)
      : PrimExprNode(PrimExprKind::kBroadcast, value->dtype.with_lanes(lanes)), value(std::move(value)),
        lanes(lanes) {}
};

#undef RELAX_PRIM_EXPR_KIND

// ---- Construction helpers. They check dtypes (an InternalError on mismatch: building
// ill-typed IR is a bug) and fold constants, so shape arithmetic written with them stays small.

/// An int64 constant (the type of shape dimensions).
PrimExpr int_imm(int64_t value, DataType dtype = DataType::Int(64));
PrimExpr float_imm(double value, DataType dtype = DataType::Float(32));
PrimExpr bool_imm(bool value);
/// A fresh symbolic variable.
Ref<Var> var(std::string name, DataType dtype = DataType::Int(64));

PrimExpr operator+(PrimExpr a, PrimExpr b);
PrimExpr operator-(PrimExpr a, PrimExpr b);
PrimExpr operator*(PrimExpr a, PrimExpr b);
PrimExpr operator-(PrimExpr a);
PrimExpr operator+(PrimExpr a, int64_t b);
PrimExpr operator-(PrimExpr a, int64_t b);
PrimExpr operator*(PrimExpr a, int64_t b);
PrimExpr operator+(int64_t a, PrimExpr b);
PrimExpr operator-(int64_t a, PrimExpr b);
PrimExpr operator*(int64_t a, PrimExpr b);
/// Truncating division (C); for floats, true division.
PrimExpr truncdiv(PrimExpr a, PrimExpr b);
PrimExpr truncmod(PrimExpr a, PrimExpr b);
/// Flooring division (Python `//`).
PrimExpr floordiv(PrimExpr a, PrimExpr b);
PrimExpr floordiv(PrimExpr a, int64_t b);
PrimExpr floormod(PrimExpr a, PrimExpr b);
PrimExpr floormod(PrimExpr a, int64_t b);
PrimExpr min(PrimExpr a, PrimExpr b);
PrimExpr max(PrimExpr a, PrimExpr b);
// Comparisons are named functions: `==` on handles means identity (see Ref).
PrimExpr eq(PrimExpr a, PrimExpr b);
PrimExpr ne(PrimExpr a, PrimExpr b);
PrimExpr lt(PrimExpr a, PrimExpr b);
PrimExpr le(PrimExpr a, PrimExpr b);
PrimExpr gt(PrimExpr a, PrimExpr b);
PrimExpr ge(PrimExpr a, PrimExpr b);
PrimExpr logical_and(PrimExpr a, PrimExpr b);
PrimExpr logical_or(PrimExpr a, PrimExpr b);
PrimExpr logical_not(PrimExpr a);
PrimExpr select(PrimExpr cond, PrimExpr t, PrimExpr f);
/// Conversion; returns `value` itself when it already has `dtype`.
PrimExpr cast(DataType dtype, PrimExpr value);

/// The value of an integer constant, or nothing.
const int64_t* as_const_int(const PrimExpr& e);
/// True when `e` is the integer constant `value`.
bool is_const_int(const PrimExpr& e, int64_t value);

/// A short readable form ("(n * 4)", "floordiv(h, 2)"), for messages; the script printer
/// (ir/printer.h) writes the TVMScript form.
std::string to_string(const PrimExpr& e);

}  // namespace relax::tir
