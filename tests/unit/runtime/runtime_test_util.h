// Shared helpers for the runtime tests: small test kernels, tensor helpers and the
// hand-written executables several tests run.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../../common/error_of.h"
#include "relax/runtime/builtins.h"
#include "relax/runtime/exec_builder.h"
#include "relax/runtime/registry.h"
#include "relax/runtime/vm.h"
#include "relax/support/diagnostic.h"

namespace relax::runtime::testing {

/// A CPU float32 tensor holding `values`.
inline NDArray f32(std::vector<int64_t> shape, std::vector<float> values) {
  NDArray t = NDArray::empty(shape, DataType::Float(32));
  EXPECT_EQ(size_t(t.numel()), values.size());
  std::copy(values.begin(), values.end(), t.data_as<float>());
  return t;
}

/// A CPU float32 tensor of `shape` with element i = start + i.
inline NDArray iota_f32(std::vector<int64_t> shape, float start = 0) {
  NDArray t = NDArray::empty(shape, DataType::Float(32));
  for (int64_t i = 0; i < t.numel(); ++i) t.data_as<float>()[i] = start + float(i);
  return t;
}

inline std::vector<float> values_of(const NDArray& t) {
  return std::vector<float>(t.data_as<float>(), t.data_as<float>() + t.numel());
}

using relax::test::error_of;

/// Registers the "test.*" kernels the executables below call (idempotent).
void register_test_kernels();

/// main(x: R.Tensor((n, m), "float32"), y: R.Tensor((n, m), "float32")) -> x + y, written
/// the way VM codegen lowers it: argument checks, a shape heap, match_shape, a heap
/// computation of the byte size, alloc_storage/alloc_tensor, a DPS kernel call.
Ref<Executable> build_symbolic_add();
/// fact(n) and fib(n), recursive bytecode functions over ints; sum_to(n), a loop with goto.
Ref<Executable> build_int_programs();
/// Calls builtin `name` with `args`, the parameters of main being registers 0..num_params-1;
/// returns main's executable.
Ref<Executable> build_single_call(const std::string& name, std::vector<Arg> args, int num_params,
                                  std::vector<Value> constants = {});

}  // namespace relax::runtime::testing
