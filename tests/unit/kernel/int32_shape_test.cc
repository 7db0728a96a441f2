// A PrimFunc whose shape variable is int32 (`n = T.int32()`, as TVM's own examples declare it)
// while its other dims, loops and literals are int64: it lowers (strides n * 20 widened to
// int64), runs in the interpreter and on the default GPU schedule, and gives the matmul.
#include <gtest/gtest.h>

#include "interp_test_util.h"
#include "relax/kernel/gpu_lower.h"
#include "relax/kernel/gpu_rules.h"
#include "relax/kernel/interpreter.h"
#include "relax/kernel/lower.h"
#include "relax/text/parser.h"

namespace relax::tir {
namespace {

using testing::f32_array;
using testing::random_floats;
using testing::values_of;

const char* kMatmulN32 = R"(
@T.prim_func
def matmul(var_A: T.handle, var_B: T.handle, var_C: T.handle):
    n = T.int32()
    A = T.match_buffer(var_A, (n, 16), "float32")
    B = T.match_buffer(var_B, (16, 20), "float32")
    C = T.match_buffer(var_C, (n, 20), "float32")
    for i, j, k in T.grid(n, 20, 16):
        with T.block("block"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

TEST(Int32Shape, MatmulLowersAndRuns) {
  Ref<PrimFunc> f = parse_prim_func(kMatmulN32, "<test>");
  const int64_t n = 5;
  std::vector<float> a = random_floats(n * 16, 1), b = random_floats(16 * 20, 2);
  for (bool gpu : {false, true}) {
    runtime::NDArray c = runtime::NDArray::empty({n, 20}, DataType::Float(32));
    std::vector<InterpArg> args{f32_array({n, 16}, a), f32_array({16, 20}, b), c};
    if (gpu) {
      GpuScheduled s = apply_default_gpu_schedule(f, GpuLimits{}, "matmul");
      run_gpu_program(lower_for_gpu(s.func, GpuLimits{}, "matmul"), args);
    } else {
      interpret(lower(f), args);
    }
    std::vector<float> got = values_of<float>(c);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < 20; ++j) {
        float want = 0;
        for (int64_t k = 0; k < 16; ++k) want += a[size_t(i * 16 + k)] * b[size_t(k * 20 + j)];
        ASSERT_NEAR(got[size_t(i * 20 + j)], want, 1e-4) << (gpu ? "gpu " : "") << i << "," << j;
      }
  }
}

}  // namespace
}  // namespace relax::tir
