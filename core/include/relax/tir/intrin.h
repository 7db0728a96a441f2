// Builders for intrinsic calls (tir::Call), checked and typed: the math library of the compute
// DSL and of hand-written TIR. The semantics of each intrinsic are those the reference
// interpreter implements (tir/interpreter.h).
#pragma once

#include <string>
#include <vector>

#include "relax/tir/expr.h"

namespace relax::tir {

/// A call of `op` with the result type its operands imply: bool for isnan/isinf/isfinite, the
/// type of the first operand (the second for if_then_else) otherwise. Checks the operand
/// count and that operands that must agree in type do (an InternalError otherwise).
PrimExpr call_intrin(Intrinsic op, std::vector<PrimExpr> args);

/// `T.launch_kernel("name", grid_x, grid_y, grid_z, block_x, block_y, block_z, args...)`:
/// the host-side launch of a device kernel (kernel/gpu_lower.h); int32, impure. Grid and block
/// sizes are integer scalars; args are handles and integer scalars.
PrimExpr launch_kernel(const std::string& name, const std::vector<PrimExpr>& grid_and_block,
                       const std::vector<PrimExpr>& args);

// Float math, one operand (typed like it).
PrimExpr exp(PrimExpr x);
PrimExpr exp2(PrimExpr x);
PrimExpr log(PrimExpr x);
PrimExpr log2(PrimExpr x);
PrimExpr log1p(PrimExpr x);
PrimExpr sqrt(PrimExpr x);
PrimExpr rsqrt(PrimExpr x);
PrimExpr sin(PrimExpr x);
PrimExpr cos(PrimExpr x);
PrimExpr tan(PrimExpr x);
PrimExpr asin(PrimExpr x);
PrimExpr acos(PrimExpr x);
PrimExpr atan(PrimExpr x);
PrimExpr sinh(PrimExpr x);
PrimExpr cosh(PrimExpr x);
PrimExpr tanh(PrimExpr x);
PrimExpr asinh(PrimExpr x);
PrimExpr acosh(PrimExpr x);
PrimExpr atanh(PrimExpr x);
PrimExpr erf(PrimExpr x);
PrimExpr sigmoid(PrimExpr x);
PrimExpr floor(PrimExpr x);
PrimExpr ceil(PrimExpr x);
/// Round half to even (IEEE nearbyint; NumPy's and ONNX's round).
PrimExpr round(PrimExpr x);
PrimExpr trunc(PrimExpr x);
/// |x| for ints (wrapping: abs(INT_MIN) is INT_MIN) and floats.
PrimExpr abs(PrimExpr x);
PrimExpr isnan(PrimExpr x);
PrimExpr isinf(PrimExpr x);
PrimExpr isfinite(PrimExpr x);
PrimExpr pow(PrimExpr x, PrimExpr y);
PrimExpr fmod(PrimExpr x, PrimExpr y);
PrimExpr atan2(PrimExpr y, PrimExpr x);
// Integer bit operations (operands of one type; shifts by an amount in [0, bits)).
PrimExpr bitwise_and(PrimExpr a, PrimExpr b);
PrimExpr bitwise_or(PrimExpr a, PrimExpr b);
PrimExpr bitwise_xor(PrimExpr a, PrimExpr b);
PrimExpr bitwise_not(PrimExpr a);
PrimExpr shift_left(PrimExpr a, PrimExpr b);
/// Arithmetic for signed types, logical for unsigned ones.
PrimExpr shift_right(PrimExpr a, PrimExpr b);
/// The bits of `x` read as `dtype` (same total width).
PrimExpr reinterpret(DataType dtype, PrimExpr x);

/// The workgroup barrier `T.tvm_storage_sync(scope)`: an int32 Call of kStorageSync with no
/// operands and `scope` as its name, to be used as `Evaluate(storage_sync())`. The only scope
/// is "shared" (a relax::Error names any other). GPU code generators emit a workgroup barrier
/// with workgroup-memory semantics; CPU code generators reject it.
PrimExpr storage_sync(std::string scope = "shared");
/// True when `e` is a call of tvm_storage_sync.
bool is_storage_sync(const PrimExpr& e);

}  // namespace relax::tir
