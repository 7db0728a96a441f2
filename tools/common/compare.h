// Comparing outputs with references: one tensor comparison (integers and bools exactly, floats
// within atol + rtol * |want|, NaN equal to NaN, float16/bfloat16 widened exactly), used by
// `relax-driver run --check` and relax-conformance.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "relax/runtime/ndarray.h"
#include "relax/runtime/value.h"

namespace relax::tools {

/// Element i of a tensor as a double (NaN for dtypes it cannot show).
double element(const runtime::NDArray& a, int64_t i);
/// Element i of a float tensor as a double (float16/bfloat16 widened exactly).
double float_element(const runtime::NDArray& a, int64_t i);
/// Element i of an integer or bool tensor, exactly.
long double int_element(const runtime::NDArray& a, int64_t i);

/// Writes the verdict for one output to `verdict` ("ok (...)" or "MISMATCH: ..."); returns
/// whether `got` matches `want`.
bool compare_tensor(const runtime::NDArray& got, const runtime::NDArray& want, double rtol,
                    double atol, std::ostream& verdict);

/// The tensors of a result, a tuple flattened in order.
std::vector<runtime::Value> flatten_outputs(const runtime::Value& result);

}  // namespace relax::tools
