// The reference interpreter's internals: scalar values and their arithmetic
// (interpreter_value.cc), and the environment a PrimFunc runs in, with the binding of its
// arguments (interpreter_args.cc) and the evaluation of integer expressions (interpreter.cc).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "relax/kernel/interpreter.h"
#include "relax/support/dtype.h"

namespace relax::tir::interp {

/// One lane of a value. Its dtype is known from the expression that produced it. Integers are
/// kept normalised in `i`: signed ones sign-extended from their width, unsigned ones
/// zero-extended (uint64 as its bit pattern), bool as 0 or 1. Floats are kept in `f`, already
/// rounded to their dtype.
struct Scalar {
  int64_t i = 0;
  double f = 0;
};

/// A Scalar holding the integer `v` (already normalised), or the float `v` (already rounded).
inline Scalar int_scalar(int64_t v) { return Scalar{v, 0}; }
inline Scalar float_scalar(double v) { return Scalar{0, v}; }

/// `v` wrapped to the width of the integer dtype `t` (normalised as above).
int64_t wrap(DataType t, int64_t v);
/// `v` rounded to the float dtype `t` (float16/bfloat16: nearest even; float64: itself).
double round_float(DataType t, double v);
/// Conversion of a value of dtype `from` to dtype `to` (the semantics of Cast).
Scalar convert(DataType from, DataType to, Scalar v);
/// Reads / writes one element of scalar dtype `t` at `p`.
Scalar load_scalar(DataType t, const void* p);
void store_scalar(DataType t, void* p, Scalar v);
/// True when `v` of dtype `t` is non-zero (bool semantics).
inline bool truthy(DataType t, Scalar v) { return t.is_float() ? v.f != 0 : v.i != 0; }

/// The memory behind a data variable: a parameter's NDArray or an Allocate's storage.
/// `thread_private` marks a "local" Allocate made outside any block region: each thread of a
/// block region inside it works on its own copy (interpreter_gpu.cc).
struct Memory {
  char* data;
  int64_t nbytes;
  bool thread_private = false;
};

/// The state of a running PrimFunc: the lanes of each bound variable, the memory of each data
/// variable.
struct Env {
  std::unordered_map<const Var*, std::vector<Scalar>> vars;
  std::unordered_map<const Var*, Memory> memory;
};

/// The integer expression `e` evaluated (lane 0) with the variables bound in `env`.
int64_t eval_int(Env& env, const PrimExpr& e);
/// Binds `args` to the parameters of `f` in `env`: scalars and the symbolic dimensions and
/// strides that are plain variables (at their first occurrence), after checking every dtype,
/// shape and stride; maps each buffer's memory.
void bind_args(const PrimFunc& f, const std::vector<InterpArg>& args, Env& env);

}  // namespace relax::tir::interp
