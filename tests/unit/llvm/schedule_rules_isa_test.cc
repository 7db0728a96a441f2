// The default CPU schedule sized for the target's ISA (schedule_rules.h,
// cpu_schedule_options_for; llvm_build.h, BuildOptions::schedule_for): a given vector-bits sizes
// the register tile for that width (512: 4 x 64, four zmm per row; 128: 6 x 8) unless the
// target string gives the knob too; a build without vector-bits takes the width of its target
// machine (AVX-512 on a host that has it, 256 bits for mcpu=x86-64-v3); bad values are refused
// naming the option. Every scheduled function computes bit for bit what the unscheduled one does.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "../../common/error_of.h"
#include "relax/runtime/registry.h"
#include "relax/text/parser.h"
#include "schedule_test_util.h"

namespace relax::tir {
namespace {

using runtime::Value;

using IsaSchedule = ScheduleTest;

/// out (48 x 64) = x (48 x 96) @ w (96 x 64).
Ref<PrimFunc> matmul() {
  return parse_prim_func(R"(
@T.prim_func
def f(x: T.Buffer((48, 96), "float32"), w: T.Buffer((96, 64), "float32"), out: T.Buffer((48, 64), "float32")):
    for i, j, k in T.grid(48, 64, 96):
        with T.block("matmul"):
            v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
            with T.init():
                out[v_i, v_j] = T.float32(0)
            out[v_i, v_j] = out[v_i, v_j] + x[v_i, v_k] * w[v_k, v_j]
)");
}

/// The constant extents of the loops of kind `kind` (the init's and the update's).
std::vector<int64_t> extents(const Ref<PrimFunc>& f, ForKind kind) {
  std::vector<int64_t> out;
  for (const For* l : loops_of_kind(f, kind)) out.push_back(extent_of(l));
  return out;
}

std::vector<runtime::NDArray> matmul_args() {
  return {random_f32({48, 96}, 1), random_f32({96, 64}, 2), poisoned_f32({48, 64})};
}

TEST_F(IsaSchedule, Avx512WidthTakesFourZmmPerRow) {
  Ref<PrimFunc> f = matmul();
  Ref<PrimFunc> s = schedule(f, "vector-bits=512");
  EXPECT_EQ(extents(s, ForKind::kVectorized), (std::vector<int64_t>{64, 64})) << to_string(s);
  EXPECT_EQ(extents(s, ForKind::kUnrolled), (std::vector<int64_t>{4, 4})) << to_string(s);
  expect_same_results(f, s, matmul_args());
}

TEST_F(IsaSchedule, GivenKnobsWinOverTheWidthsSizes) {
  Ref<PrimFunc> f = matmul();
  Ref<PrimFunc> s = schedule(f, "nr=16,vector-bits=512,mr=4");
  EXPECT_EQ(extents(s, ForKind::kVectorized), (std::vector<int64_t>{16, 16})) << to_string(s);
  EXPECT_EQ(extents(s, ForKind::kUnrolled), (std::vector<int64_t>{4, 4})) << to_string(s);
  expect_same_results(f, s, matmul_args());
}

TEST_F(IsaSchedule, NarrowVectorsAndTheAvx2Defaults) {
  Ref<PrimFunc> f = matmul();
  Ref<PrimFunc> narrow = schedule(f, "vector-bits=128");
  EXPECT_EQ(extents(narrow, ForKind::kVectorized), (std::vector<int64_t>{8, 8}))
      << to_string(narrow);
  expect_same_results(f, narrow, matmul_args());
  // Without vector-bits the packed function (no target machine) keeps the 256-bit sizes.
  Ref<PrimFunc> avx2 = schedule(f, "");
  EXPECT_EQ(extents(avx2, ForKind::kVectorized), (std::vector<int64_t>{16, 16}))
      << to_string(avx2);
}

TEST_F(IsaSchedule, APanelOfPartialVectorsGoesAsUnrolledNarrowVectors) {
  // 24 columns at 16 lanes: one panel, as 3 unrolled vectors of 8 (not a <24 x float>).
  Ref<PrimFunc> f = parse_prim_func(R"(
@T.prim_func
def f(x: T.Buffer((16, 32), "float32"), w: T.Buffer((32, 24), "float32"), out: T.Buffer((16, 24), "float32")):
    for i, j, k in T.grid(16, 24, 32):
        with T.block("matmul"):
            v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
            with T.init():
                out[v_i, v_j] = T.float32(0)
            out[v_i, v_j] = out[v_i, v_j] + x[v_i, v_k] * w[v_k, v_j]
)");
  Ref<PrimFunc> s = schedule(f, "vector-bits=512");
  std::vector<int64_t> vec = extents(s, ForKind::kVectorized);
  ASSERT_FALSE(vec.empty()) << to_string(s);
  EXPECT_EQ(vec.back(), 8) << "the update's column loop: " << to_string(s);
  std::vector<int64_t> unrolled = extents(s, ForKind::kUnrolled);
  EXPECT_NE(std::find(unrolled.begin(), unrolled.end(), 3), unrolled.end()) << to_string(s);
  expect_same_results(f, s, {random_f32({16, 32}, 1), random_f32({32, 24}, 2),
                             poisoned_f32({16, 24})});
}

TEST_F(IsaSchedule, BadKnobsAreRefusedNamingTheOption) {
  Ref<PrimFunc> f = matmul();
  std::string e = relax::test::error_of([&] { schedule(f, "vector-bits=4"); });
  EXPECT_NE(e.find("vector-bits=4"), std::string::npos) << e;
  EXPECT_NE(e.find("expected an integer in [8, 2048]"), std::string::npos) << e;
  e = relax::test::error_of([&] { schedule(f, "vector-bits=512,nr=0"); });
  EXPECT_NE(e.find("nr=0"), std::string::npos) << e;
  e = relax::test::error_of([&] { schedule(f, "vector-bits=wide"); });
  EXPECT_NE(e.find("vector-bits=wide"), std::string::npos) << e;
}

/// The optimised LLVM IR of the matmul built for `options` (the width comes from its target
/// machine when options has no vector-bits).
std::string ir_of(const std::string& options) {
  runtime::PackedFunc emit = runtime::Registry::get("relax.backend.llvm.emit_ir");
  EXPECT_TRUE(emit.defined());
  return emit(std::vector<Value>{Value(options), Value("mm"), Value::from_object(matmul())})
      .as_string();
}

TEST_F(IsaSchedule, BuildsTakeTheTargetMachinesWidth) {
#if defined(__x86_64__)
  // x86-64-v3 is AVX2 + FMA: 16-column panels (two ymm), whatever the host has.
  std::string v3 = ir_of("mcpu=x86-64-v3");
  EXPECT_NE(v3.find("<16 x float>"), std::string::npos);
  EXPECT_EQ(v3.find("<64 x float>"), std::string::npos);
  // skylake-avx512: 64-column panels (four zmm); the IR is not run, so any host can build it.
  std::string avx512 = ir_of("mcpu=skylake-avx512");
  EXPECT_NE(avx512.find("<64 x float>"), std::string::npos);
  // The host: whatever its best ISA gives.
  std::string host = ir_of("");
  if (__builtin_cpu_supports("avx512f")) {
    EXPECT_NE(host.find("<64 x float>"), std::string::npos);
  } else if (__builtin_cpu_supports("avx2")) {
    EXPECT_NE(host.find("<16 x float>"), std::string::npos);
  }
  // A given vector-bits wins over the machine's width.
  EXPECT_EQ(ir_of("mcpu=skylake-avx512,vector-bits=256").find("<64 x float>"),
            std::string::npos);
#else
  GTEST_SKIP() << "x86-64 only";
#endif
}

}  // namespace
}  // namespace relax::tir
