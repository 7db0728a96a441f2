// rfactor: before/after scripts, results against the unscheduled function in the
// interpreter for each reducer, and the uses it refuses.
#include "schedule_test_util.h"

namespace relax::tir {
namespace {

using namespace schedule_test;

// B[i] = sum_k A[i, k] over 4x16.
const char* kRowSum = R"(
@T.prim_func
def f(A: T.Buffer((4, 16), "float32"), B: T.Buffer((4,), "float32")):
    for i, k in T.grid(4, 16):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]
)";

/// kRowSum with the update `B[vi] = <update>` and init `B[vi] = <init>`.
std::string row_reduction(const std::string& init, const std::string& update) {
  return R"(
@T.prim_func
def f(A: T.Buffer((4, 16), "float32"), B: T.Buffer((4,), "float32")):
    for i, k in T.grid(4, 16):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = )" + init + R"(
            B[vi] = )" + update + "\n";
}

TEST(ScheduleRfactor, InnerLoopBecomesTheFactorDimension) {
  Ref<PrimFunc> before = parse(kRowSum);
  Schedule s(before);
  auto k = s.split(s.get_loops(s.get_block("B"))[1], {-1, 4});
  BlockRV rf = s.rfactor(k[1], 0);
  EXPECT_EQ(rf.name, "B_rf");
  expect_script(s.func(), R"(
@T.prim_func
def f(A: T.Buffer((4, 16), "float32"), B: T.Buffer((4,), "float32")):
    with T.block("root"):
        B_rf = T.alloc_buffer((4, 4), "float32")
        for i, k_0, k_1 in T.grid(4, 4, 4):
            with T.block("B_rf"):
                vi, vk_0, vk_1 = T.axis.remap("SRS", [i, k_0, k_1])
                with T.init():
                    B_rf[vk_1, vi] = T.float32(0)
                B_rf[vk_1, vi] = B_rf[vk_1, vi] + A[vi, vk_0 * 4 + vk_1]
        for i, k_1 in T.grid(4, 4):
            with T.block("B"):
                vi, vk_1 = T.axis.remap("SR", [i, k_1])
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] + B_rf[vk_1, vi]
)");
  expect_same_results(before, s.func(), 1e-5);
}

TEST(ScheduleRfactor, PartialSplitGuardsTheUpdate) {
  Ref<PrimFunc> before = parse(kRowSum);
  Schedule s(before);
  auto k = s.split(s.get_loops(s.get_block("B"))[1], {-1, 5});  // 5 does not divide 16
  s.rfactor(k[0], -1);
  expect_script(s.func(), R"(
@T.prim_func
def f(A: T.Buffer((4, 16), "float32"), B: T.Buffer((4,), "float32")):
    with T.block("root"):
        B_rf = T.alloc_buffer((4, 4), "float32")
        for i, k_0, k_1 in T.grid(4, 4, 5):
            with T.block("B_rf"):
                vi, vk_0, vk_1 = T.axis.remap("SSR", [i, k_0, k_1])
                with T.init():
                    B_rf[vi, vk_0] = T.float32(0)
                if vk_0 * 5 + vk_1 < 16:
                    B_rf[vi, vk_0] = B_rf[vi, vk_0] + A[vi, vk_0 * 5 + vk_1]
        for i, k_0 in T.grid(4, 4):
            with T.block("B"):
                vi, vk_0 = T.axis.remap("SR", [i, k_0])
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] + B_rf[vi, vk_0]
)");
  expect_same_results(before, s.func(), 1e-5);
}

TEST(ScheduleRfactor, EachReducerKeepsTheResult) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"T.float32(0)", "A[vi, vk] + B[vi]"},
      {"T.float32(1)", "B[vi] * (A[vi, vk] * T.float32(0.5) + T.float32(1))"},
      {"T.float32(-3)", "T.max(B[vi], A[vi, vk])"},
      {"T.float32(5)", "T.min(A[vi, vk], B[vi])"},
      {"T.float32(2)", "B[vi] + A[vi, vk]"},  // a non-identity init is applied once
  };
  for (const auto& [init, update] : cases) {
    Ref<PrimFunc> before = parse(row_reduction(init, update));
    for (int axis : {0, 1}) {
      Schedule s(before);
      auto l = s.get_loops(s.get_block("B"));
      auto k = s.split(l[1], {-1, 4});
      s.rfactor(k[axis], axis);
      expect_same_results(before, s.func(), 1e-5);
    }
  }
}

// The cross-thread form a GPU reduction rule starts from: the factor loop bound to threads.
TEST(ScheduleRfactor, FactorLoopCanBeBoundToThreads) {
  Ref<PrimFunc> before = parse(kRowSum);
  Schedule s(before);
  auto l = s.get_loops(s.get_block("B"));
  auto k = s.split(l[1], {-1, 8});
  s.reorder({k[1], k[0]});
  BlockRV rf = s.rfactor(k[1], 0);
  s.bind(s.get_loops(rf)[0], "blockIdx.x");
  s.bind(s.get_loops(rf)[1], "threadIdx.x");
  s.compute_at(s.get_block("B_rf"), s.get_loops(s.get_block("B"))[0]);
  expect_same_results(before, s.func(), 1e-5);
}

// Block per row: softmax's stages at the row loop, the sum factored over threads; the
// write-back lands inside the row loop, before the block that reads the sum.
TEST(ScheduleRfactor, WriteBackStaysInsideTheSharedRowLoop) {
  Ref<PrimFunc> before = testing::softmax_prim_func(var("n"), 7).func;
  Schedule s(before);
  auto row = s.get_loops(s.get_block("Y"))[0];
  for (const char* stage : {"sum", "exp", "max"}) s.compute_at(s.get_block(stage), row);
  auto k = s.split(s.get_loops(s.get_block("sum"))[1], {-1, 4});
  BlockRV rf = s.rfactor(k[1], 0);
  s.bind(row, "blockIdx.x");
  s.bind(s.get_loops(rf)[2], "threadIdx.x");
  if (getenv("SCHED_PRINT")) std::cout << print_prim_func(s.func());
  auto wb_loops = s.get_loops(s.get_block("sum"));
  ASSERT_EQ(wb_loops.size(), 2u);
  EXPECT_TRUE(wb_loops[0].var.same_as(row.var));
  for (int64_t n : {1, 4}) {
    auto x = random_floats(size_t(n * 7), 9);
    runtime::NDArray y0 = f32_array({n, 7}, std::vector<float>(size_t(n * 7)));
    runtime::NDArray y1 = f32_array({n, 7}, std::vector<float>(size_t(n * 7)));
    interpret(lower_for_run(before), {f32_array({n, 7}, x), y0});
    interpret(lower_for_run(s.func()), {f32_array({n, 7}, x), y1});
    EXPECT_TRUE(relax::test::tensors_close(y1, y0, 1e-5, 1e-5)) << "n = " << n;
  }
}

TEST(ScheduleRfactor, IllegalUses) {
  Schedule s(parse(row_reduction("T.float32(0)", "B[vi] - A[vi, vk]")));
  Ref<PrimFunc> start = s.func();
  auto l = s.get_loops(s.get_block("B"));
  expect_error([&] { s.rfactor(l[1], 0); },
               "rfactor: the update of block B, B[...] = B[vi] - A[vi, vk], is not a "
               "supported reducer: rfactor supports sum (+), product (*), max and min");
  EXPECT_TRUE(start.same_as(s.func()));
  Schedule t(parse(kRowSum));
  l = t.get_loops(t.get_block("B"));
  expect_error([&] { t.rfactor(l[0], 0); },
               "rfactor: loop i binds a spatial iteration variable of block B");
  expect_error([&] { t.rfactor(l[1], 2); },
               "rfactor: factor_axis 2 is out of range for the 1-dimensional buffer B "
               "(expected -2..1)");
  Schedule u(parse(kTwoStage));
  expect_error([&] { u.rfactor(u.get_loops(u.get_block("B"))[1], 0); },
               "rfactor: block B has no init; it is not a reduction block");
  Schedule w(parse(kMatmul));
  auto m = w.get_loops(w.get_block("matmul"));
  w.fuse({m[1], m[2]});
  expect_error([&] { w.rfactor(w.get_loops(w.get_block("matmul"))[1], 0); },
               "rfactor: loop j_k_fused binds both spatial and reduce iteration variables");
  Schedule x(parse(R"(
@T.prim_func
def f(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4,), "float32"), E: T.Buffer((4, 4), "float32")):
    for k in range(4):
        for i, k2 in T.grid(4, 2):
            with T.block("B"):
                vi = T.axis.spatial(4, i)
                vk = T.axis.reduce(8, k * 2 + k2)
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] + A[vi, vk]
        for i in range(4):
            with T.block("E"):
                vi, vk = T.axis.remap("SS", [i, k])
                E[vi, vk] = A[vi, vk]
)"));
  expect_error([&] { x.rfactor(x.get_loops(x.get_block("B"))[2], 0); },
               "rfactor: loop k binds a reduce iteration variable of block B and holds other "
               "blocks; the write-back would run at each of its iterations");
}

}  // namespace
}  // namespace relax::tir
