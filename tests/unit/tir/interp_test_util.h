// NDArray helpers for the tests that run PrimFuncs in the reference interpreter.
#pragma once

#include <cstring>
#include <random>
#include <vector>

#include "relax/runtime/ndarray.h"
#include "relax/tir/interpreter.h"

namespace relax::tir::testing {

/// A CPU NDArray holding `values` (converted to T's storage).
template <class T>
runtime::NDArray array(const std::vector<int64_t>& shape, DataType dtype,
                       const std::vector<T>& values) {
  runtime::NDArray a = runtime::NDArray::empty(shape, dtype);
  std::memcpy(a.data(), values.data(), values.size() * sizeof(T));
  return a;
}

inline runtime::NDArray f32_array(const std::vector<int64_t>& shape,
                                  const std::vector<float>& values) {
  return array(shape, DataType::Float(32), values);
}

/// Deterministic pseudo-random floats in [lo, hi).
inline std::vector<float> random_floats(size_t n, uint32_t seed, float lo = -1, float hi = 1) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(gen);
  return v;
}

template <class T>
std::vector<T> values_of(const runtime::NDArray& a) {
  std::vector<T> v(size_t(a.numel()));
  std::memcpy(v.data(), a.data(), v.size() * sizeof(T));
  return v;
}

}  // namespace relax::tir::testing
