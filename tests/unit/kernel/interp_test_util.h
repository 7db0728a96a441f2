// NDArray helpers for the tests that run PrimFuncs in the reference interpreter.
#pragma once

#include <cstring>
#include <random>
#include <vector>

#include "relax/runtime/ndarray.h"
#include "relax/op/compute.h"
#include "relax/tir/intrin.h"
#include "relax/kernel/interpreter.h"

namespace relax::tir::testing {

/// The stages of softmax_prim_func and the PrimFunc made from them.
struct Softmax {
  te::Tensor X, max, exp, sum, Y;
  Ref<PrimFunc> func;
};

/// A four-stage softmax over rows of `width` elements with `n` rows: max, exp(x - max), sum,
/// divide. Input X (n, width), output Y (n, width), float32.
inline Softmax softmax_prim_func(const Ref<Var>& n, int64_t width) {
  const DataType f32 = DataType::Float(32);
  te::Tensor X = te::placeholder({n, int_imm(width)}, f32, "X");
  te::Axis k = te::reduce_axis(width, "k");
  te::Tensor mx = te::compute({n}, [&](const auto& i) { return te::max(X(i[0], k), {k}); }, "max");
  te::Tensor e = te::compute(
      {n, int_imm(width)}, [&](const auto& i) { return exp(X(i[0], i[1]) - mx(i[0])); }, "exp");
  te::Axis k2 = te::reduce_axis(width, "k");
  te::Tensor s = te::compute({n}, [&](const auto& i) { return te::sum(e(i[0], k2), {k2}); }, "sum");
  te::Tensor Y = te::compute(
      {n, int_imm(width)}, [&](const auto& i) { return truncdiv(e(i[0], i[1]), s(i[0])); }, "Y");
  return {X, mx, e, s, Y, te::create_prim_func({X, Y})};
}


/// A CPU NDArray holding `values` (converted to T's storage).
template <class T>
runtime::NDArray array(const std::vector<int64_t>& shape, DataType dtype,
                       const std::vector<T>& values) {
  runtime::NDArray a = runtime::NDArray::empty(shape, dtype);
  if (!values.empty()) std::memcpy(a.data(), values.data(), values.size() * sizeof(T));
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
  if (!v.empty()) std::memcpy(v.data(), a.data(), v.size() * sizeof(T));
  return v;
}

}  // namespace relax::tir::testing
