// Helpers of the schedule tests (schedule_test.cc, schedule_rewrite_test.cc): expected
// scripts, running a function before and after scheduling on the same random inputs, error
// expectations, and the small kernels the tests schedule.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "../../common/error_of.h"
#include "../../common/tensor_compare.h"
#include "interp_test_util.h"
#include "relax/ir/structural_equal.h"
#include "relax/kernel/lower.h"
#include "relax/kernel/schedule.h"
#include "relax/text/parser.h"
#include "relax/text/printer.h"

namespace relax::tir::schedule_test {

using testing::f32_array;
using testing::random_floats;
using testing::values_of;

inline Ref<PrimFunc> parse(const std::string& text) { return parse_prim_func(text); }

/// Checks `got` against the expected function written as TVMScript.
inline void expect_script(const Ref<PrimFunc>& got, const std::string& expected_text) {
  Ref<PrimFunc> expected = parse(expected_text);
  auto diff = structural_diff(got, expected);
  EXPECT_FALSE(diff.has_value()) << *diff << "\n--- got:\n"
                                 << print_prim_func(got) << "--- expected:\n"
                                 << print_prim_func(expected);
}

/// The whole lowering, verifier included: every scheduled function must pass it (indices in
/// the loose forms split/fuse/transform_layout leave, such as `i * 8 + j * 4 - i % 4 * 7`,
/// are reported only when provably out of bounds).
inline Ref<PrimFunc> lower_for_run(const Ref<PrimFunc>& f) { return lower(f); }

/// Runs `before` and `after` (lowered) on the same random float32 arguments and compares
/// every buffer afterwards (exactly, or within rtol = atol = `tol`).
inline void expect_same_results(const Ref<PrimFunc>& before, const Ref<PrimFunc>& after, double tol = 0) {
  std::vector<InterpArg> a, b;
  std::vector<runtime::NDArray> arrays_a, arrays_b;
  for (size_t i = 0; i < before->params.size(); ++i) {
    Ref<Buffer> buf = before->param_buffer(i);
    ASSERT_TRUE(buf.defined());
    std::vector<int64_t> shape;
    size_t n = 1;
    for (const auto& d : buf->shape) {
      shape.push_back(*as_const_int(d));
      n *= size_t(shape.back());
    }
    auto values = random_floats(n, uint32_t(17 + i));
    arrays_a.push_back(f32_array(shape, values));
    arrays_b.push_back(f32_array(shape, values));
    a.push_back(arrays_a.back());
    b.push_back(arrays_b.back());
  }
  interpret(lower_for_run(before), a);
  interpret(lower_for_run(after), b);
  for (size_t i = 0; i < arrays_a.size(); ++i)
    EXPECT_TRUE(relax::test::tensors_close(arrays_b[i], arrays_a[i], tol, tol)) << "param " << i;
}

/// Expects `f` to throw a relax::Error whose message contains `needle`.
inline void expect_error(const std::function<void()>& f, const std::string& needle) {
  std::string e = relax::test::error_of(f);
  EXPECT_NE(e.find(needle), std::string::npos)
      << "want an error containing: " << needle << "\ngot: " << e;
}

// B = A * 2 over 16x8.
inline const char* kElementwise = R"(
@T.prim_func
def f(A: T.Buffer((16, 8), "float32"), B: T.Buffer((16, 8), "float32")):
    for i, j in T.grid(16, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
)";

// C = A @ B over 8x8, one reduction block.
inline const char* kMatmul = R"(
@T.prim_func
def f(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    for i, j, k in T.grid(8, 8, 8):
        with T.block("matmul"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

// Tmp = A * 2; B = Tmp + 1 (Tmp an intermediate).
inline const char* kTwoStage = R"(
@T.prim_func
def f(A: T.Buffer((16, 8), "float32"), B: T.Buffer((16, 8), "float32")):
    Tmp = T.alloc_buffer((16, 8), "float32")
    for i, j in T.grid(16, 8):
        with T.block("Tmp"):
            vi, vj = T.axis.remap("SS", [i, j])
            Tmp[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = Tmp[vi, vj] + T.float32(1)
)";

}  // namespace relax::tir::schedule_test
