// Scalar values of the reference interpreter and their arithmetic (interpreter_value.cc).
#pragma once

#include <cstdint>

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

}  // namespace relax::tir::interp
