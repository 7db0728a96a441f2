// compute_at and reverse_compute_at: before/after scripts, results against the unscheduled
// function in the interpreter, and the uses each refuses.
#include "schedule_test_util.h"

namespace relax::tir {
namespace {

using namespace schedule_test;

// D = relu(A @ B) through an intermediate C.
const char* kMatmulRelu = R"(
@T.prim_func
def f(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), D: T.Buffer((8, 8), "float32")):
    C = T.alloc_buffer((8, 8), "float32")
    for i, j, k in T.grid(8, 8, 8):
        with T.block("matmul"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
    for i, j in T.grid(8, 8):
        with T.block("relu"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = T.max(C[vi, vj], T.float32(0))
)";

// A 1-D stencil: B[i] = Tmp[i] + Tmp[i + 1], Tmp = A * 2.
const char* kStencil = R"(
@T.prim_func
def f(A: T.Buffer((10,), "float32"), B: T.Buffer((9,), "float32")):
    Tmp = T.alloc_buffer((10,), "float32")
    for i in range(10):
        with T.block("Tmp"):
            vi = T.axis.spatial(10, i)
            Tmp[vi] = A[vi] * T.float32(2)
    for i in range(9):
        with T.block("B"):
            vi = T.axis.spatial(9, i)
            T.reads(Tmp[vi:vi + 2])
            T.writes(B[vi])
            B[vi] = Tmp[vi] + Tmp[vi + 1]
)";

TEST(ScheduleComputeAt, ProducerMovesUnderTheConsumerLoop) {
  Ref<PrimFunc> before = parse(kTwoStage);
  Schedule s(before);
  s.compute_at(s.get_block("Tmp"), s.get_loops(s.get_block("B"))[0]);
  expect_script(s.func(), R"(
@T.prim_func
def f(A: T.Buffer((16, 8), "float32"), B: T.Buffer((16, 8), "float32")):
    with T.block("root"):
        Tmp = T.alloc_buffer((16, 8), "float32")
        for i in range(16):
            for ax0 in range(8):
                with T.block("Tmp"):
                    vi, vj = T.axis.remap("SS", [i, ax0])
                    Tmp[vi, vj] = A[vi, vj] * T.float32(2)
            for j in range(8):
                with T.block("B"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    B[vi, vj] = Tmp[vi, vj] + T.float32(1)
)");
  expect_same_results(before, s.func());
}

TEST(ScheduleComputeAt, SplitLoopBindsLoopTimesFactorPlusNewLoop) {
  Ref<PrimFunc> before = parse(kTwoStage);
  Schedule s(before);
  auto i = s.split(s.get_loops(s.get_block("B"))[0], {-1, 3});  // 3 does not divide 16
  s.compute_at(s.get_block("Tmp"), i[0]);
  expect_script(s.func(), R"(
@T.prim_func
def f(A: T.Buffer((16, 8), "float32"), B: T.Buffer((16, 8), "float32")):
    with T.block("root"):
        Tmp = T.alloc_buffer((16, 8), "float32")
        for i_0 in range(6):
            for ax0, ax1 in T.grid(3, 8):
                with T.block("Tmp"):
                    vi = T.axis.spatial(16, i_0 * 3 + ax0)
                    vj = T.axis.spatial(8, ax1)
                    T.where(i_0 * 3 + ax0 < 16)
                    Tmp[vi, vj] = A[vi, vj] * T.float32(2)
            for i_1, j in T.grid(3, 8):
                with T.block("B"):
                    vi = T.axis.spatial(16, i_0 * 3 + i_1)
                    vj = T.axis.spatial(8, j)
                    T.where(i_0 * 3 + i_1 < 16)
                    B[vi, vj] = Tmp[vi, vj] + T.float32(1)
)");
  expect_same_results(before, s.func());
}

TEST(ScheduleComputeAt, StencilComputesTheUnionOfTheReads) {
  Ref<PrimFunc> before = parse(kStencil);
  Schedule s(before);
  auto i = s.split(s.get_loops(s.get_block("B"))[0], {-1, 4});
  s.compute_at(s.get_block("Tmp"), i[0]);
  expect_script(s.func(), R"(
@T.prim_func
def f(A: T.Buffer((10,), "float32"), B: T.Buffer((9,), "float32")):
    with T.block("root"):
        Tmp = T.alloc_buffer((10,), "float32")
        for i_0 in range(3):
            for ax0 in range(5):
                with T.block("Tmp"):
                    vi = T.axis.spatial(10, i_0 * 4 + ax0)
                    T.where(i_0 * 4 + ax0 < 10)
                    Tmp[vi] = A[vi] * T.float32(2)
            for i_1 in range(4):
                with T.block("B"):
                    vi = T.axis.spatial(9, i_0 * 4 + i_1)
                    T.where(i_0 * 4 + i_1 < 9)
                    T.reads(Tmp[vi:vi + 2])
                    T.writes(B[vi])
                    B[vi] = Tmp[vi] + Tmp[vi + 1]
)");
  expect_same_results(before, s.func());
}

TEST(ScheduleComputeAt, ReductionRegeneratesItsReduceLoop) {
  Ref<PrimFunc> before = parse(kMatmulRelu);
  Schedule s(before);
  s.compute_at(s.get_block("matmul"), s.get_loops(s.get_block("relu"))[1]);
  expect_script(s.func(), R"(
@T.prim_func
def f(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), D: T.Buffer((8, 8), "float32")):
    with T.block("root"):
        C = T.alloc_buffer((8, 8), "float32")
        for i, j in T.grid(8, 8):
            for ax0 in range(8):
                with T.block("matmul"):
                    vi, vj, vk = T.axis.remap("SSR", [i, j, ax0])
                    with T.init():
                        C[vi, vj] = T.float32(0)
                    C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
            with T.block("relu"):
                vi, vj = T.axis.remap("SS", [i, j])
                D[vi, vj] = T.max(C[vi, vj], T.float32(0))
)");
  expect_same_results(before, s.func());
}

TEST(ScheduleComputeAt, PreserveUnitLoopsKeepsExtentOneLoops) {
  Ref<PrimFunc> before = parse(kTwoStage);
  Schedule s(before);
  s.compute_at(s.get_block("Tmp"), s.get_loops(s.get_block("B"))[1], true);
  expect_script(s.func(), R"(
@T.prim_func
def f(A: T.Buffer((16, 8), "float32"), B: T.Buffer((16, 8), "float32")):
    with T.block("root"):
        Tmp = T.alloc_buffer((16, 8), "float32")
        for i, j in T.grid(16, 8):
            for ax0, ax1 in T.grid(1, 1):
                with T.block("Tmp"):
                    vi = T.axis.spatial(16, i + ax0)
                    vj = T.axis.spatial(8, j + ax1)
                    Tmp[vi, vj] = A[vi, vj] * T.float32(2)
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = Tmp[vi, vj] + T.float32(1)
)");
  expect_same_results(before, s.func());
}

TEST(ScheduleComputeAt, ReverseComputeAtMovesTheConsumerAfterTheProducer) {
  Ref<PrimFunc> before = parse(kTwoStage);
  Schedule s(before);
  s.reverse_compute_at(s.get_block("B"), s.get_loops(s.get_block("Tmp"))[0]);
  expect_script(s.func(), R"(
@T.prim_func
def f(A: T.Buffer((16, 8), "float32"), B: T.Buffer((16, 8), "float32")):
    with T.block("root"):
        Tmp = T.alloc_buffer((16, 8), "float32")
        for i in range(16):
            for j in range(8):
                with T.block("Tmp"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    Tmp[vi, vj] = A[vi, vj] * T.float32(2)
            for ax0 in range(8):
                with T.block("B"):
                    vi, vj = T.axis.remap("SS", [i, ax0])
                    B[vi, vj] = Tmp[vi, vj] + T.float32(1)
)");
  expect_same_results(before, s.func());
}

TEST(ScheduleComputeAt, ReverseComputeAtFollowsTheReduction) {
  Ref<PrimFunc> before = parse(kMatmulRelu);
  Schedule s(before);
  auto l = s.get_loops(s.get_block("matmul"));
  s.reverse_compute_at(s.get_block("relu"), l[1]);
  expect_script(s.func(), R"(
@T.prim_func
def f(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), D: T.Buffer((8, 8), "float32")):
    with T.block("root"):
        C = T.alloc_buffer((8, 8), "float32")
        for i, j in T.grid(8, 8):
            for k in range(8):
                with T.block("matmul"):
                    vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                    with T.init():
                        C[vi, vj] = T.float32(0)
                    C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
            with T.block("relu"):
                vi, vj = T.axis.remap("SS", [i, j])
                D[vi, vj] = T.max(C[vi, vj], T.float32(0))
)");
  expect_same_results(before, s.func());
  // Under the reduce loop the consumer reruns at each step; the last one sees the sum.
  Schedule t(before);
  t.reverse_compute_at(t.get_block("relu"), t.get_loops(t.get_block("matmul"))[2]);
  expect_same_results(before, t.func());
}

// Tmp -> Tmp2 -> B, and Tmp also read by E.
const char* kChain = R"(
@T.prim_func
def f(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), E: T.Buffer((8,), "float32")):
    Tmp = T.alloc_buffer((8,), "float32")
    Tmp2 = T.alloc_buffer((8,), "float32")
    for i in range(8):
        with T.block("Tmp"):
            vi = T.axis.spatial(8, i)
            Tmp[vi] = A[vi]
    for i in range(8):
        with T.block("Tmp2"):
            vi = T.axis.spatial(8, i)
            Tmp2[vi] = Tmp[vi] * T.float32(2)
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = Tmp2[vi]
    for i in range(8):
        with T.block("E"):
            vi = T.axis.spatial(8, i)
            E[vi] = Tmp[vi] * T.float32(3)
)";

TEST(ScheduleComputeAt, IllegalUses) {
  Schedule s(parse(kChain));
  Ref<PrimFunc> start = s.func();
  auto loop = [&](const char* b) { return s.get_loops(s.get_block(b))[0]; };
  expect_error([&] { s.compute_at(s.get_block("Tmp"), loop("Tmp2")); },
               "compute_at: block E reads Tmp but is not under loop i; every consumer of block "
               "Tmp must be");
  expect_error([&] { s.compute_at(s.get_block("B"), loop("E")); },
               "compute_at: block B writes B, an output of the function");
  expect_error([&] { s.compute_at(s.get_block("Tmp2"), loop("Tmp")); },
               "compute_at: block Tmp2 comes after loop i");
  expect_error([&] { s.compute_at(s.get_block("Tmp2"), loop("Tmp2")); },
               "compute_at: block Tmp2 is already under loop i");
  expect_error([&] { s.compute_at(s.get_block("Tmp2"), loop("E")); },
               "compute_at: block B reads Tmp2 but is not under loop i");
  expect_error([&] { s.reverse_compute_at(s.get_block("Tmp"), loop("B")); },
               "reverse_compute_at: block Tmp comes before loop i");
  expect_error([&] { s.reverse_compute_at(s.get_block("E"), loop("B")); },
               "reverse_compute_at: no block under loop i writes what block E reads");
  expect_error([&] { s.reverse_compute_at(s.get_block("E"), loop("Tmp2")); },
               "reverse_compute_at: no block under loop i writes what block E reads");
  expect_error([&] { s.reverse_compute_at(s.get_block("B"), loop("Tmp")); },
               "reverse_compute_at: block Tmp2 writes a buffer block B reads, between loop i and B");
  EXPECT_TRUE(start.same_as(s.func())) << "a refused primitive changed the schedule";

  // Moving P later would let W overwrite what P reads; moving E earlier would let P see E's
  // output.
  Schedule v(parse(R"(
@T.prim_func
def f(A: T.Buffer((8,), "float32"), E: T.Buffer((8,), "float32")):
    X = T.alloc_buffer((8,), "float32")
    Tmp = T.alloc_buffer((8,), "float32")
    for i in range(8):
        with T.block("X"):
            vi = T.axis.spatial(8, i)
            X[vi] = A[vi]
    for i in range(8):
        with T.block("P"):
            vi = T.axis.spatial(8, i)
            Tmp[vi] = X[vi]
    for i in range(8):
        with T.block("W"):
            vi = T.axis.spatial(8, i)
            X[vi] = E[vi]
    for i in range(8):
        with T.block("E"):
            vi = T.axis.spatial(8, i)
            E[vi] = Tmp[vi]
)"));
  expect_error([&] { v.compute_at(v.get_block("P"), v.get_loops(v.get_block("E"))[0]); },
               "compute_at: block W writes X, which block P reads, between P and the end of "
               "loop i");
  expect_error(
      [&] { v.reverse_compute_at(v.get_block("E"), v.get_loops(v.get_block("P"))[0]); },
      "reverse_compute_at: block W accesses E, which block E writes, between loop i and E");

  Schedule x(parse(R"(
@T.prim_func
def f(A: T.Buffer((8,), "float32"), E: T.Buffer((8,), "float32")):
    Tmp = T.alloc_buffer((8,), "float32")
    for i in range(4):
        with T.block("low"):
            vi = T.axis.spatial(8, i)
            Tmp[vi] = A[vi]
    for i in range(4):
        with T.block("high"):
            vi = T.axis.spatial(8, i + 4)
            Tmp[vi] = A[vi] * T.float32(2)
    for i in range(8):
        with T.block("E"):
            vi = T.axis.spatial(8, i)
            E[vi] = Tmp[vi]
)"));
  expect_error(
      [&] { x.reverse_compute_at(x.get_block("E"), x.get_loops(x.get_block("high"))[0]); },
      "reverse_compute_at: block low also writes Tmp (before loop i); block E can follow only "
      "inputs produced entirely under the loop");

  Schedule r(parse(kMatmulRelu));
  r.decompose_reduction(r.get_block("matmul"), r.get_loops(r.get_block("matmul"))[0]);
  expect_error([&] { r.compute_at(r.get_block("matmul"), r.get_loops(r.get_block("relu"))[0]); },
               "compute_at: block matmul is a reduction without an init");
  Schedule u(parse(R"(
@T.prim_func
def f(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    Tmp = T.alloc_buffer((8,), "float32")
    for i in range(8):
        with T.block("Tmp"):
            vi = T.axis.spatial(8, i)
            Tmp[7 - vi] = A[vi]
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = Tmp[vi]
)"));
  expect_error([&] { u.compute_at(u.get_block("Tmp"), u.get_loops(u.get_block("B"))[0]); },
               "in dimension 0, not at one of its spatial iteration variables");
}

}  // namespace
}  // namespace relax::tir

namespace relax::tir {
namespace {

using namespace schedule_test;

// Softmax over rows of a symbolic count: every stage computed at the row loop of the output
// (what a GPU "block per row" rule does), run for several row counts.
TEST(ScheduleComputeAt, SymbolicSoftmaxStagesMoveToTheRowLoop) {
  Ref<PrimFunc> before = testing::softmax_prim_func(var("n"), 7).func;
  Schedule s(before);
  Ref<PrimFunc> start = s.func();
  auto row = s.get_loops(s.get_block("Y"))[0];
  for (const char* stage : {"sum", "exp", "max"}) s.compute_at(s.get_block(stage), row);
  if (getenv("SCHED_PRINT")) std::cout << print_prim_func(s.func());
  for (const char* stage : {"max", "exp", "sum"}) {
    auto loops = s.get_loops(s.get_block(stage));
    ASSERT_EQ(loops.size(), 2u) << stage;
    EXPECT_TRUE(loops[0].var.same_as(row.var)) << stage;
  }
  for (int64_t n : {1, 3, 5}) {
    auto x = random_floats(size_t(n * 7), 5);
    runtime::NDArray y0 = f32_array({n, 7}, std::vector<float>(size_t(n * 7)));
    runtime::NDArray y1 = f32_array({n, 7}, std::vector<float>(size_t(n * 7)));
    interpret(lower_for_run(before), {f32_array({n, 7}, x), y0});
    interpret(lower_for_run(s.func()), {f32_array({n, 7}, x), y1});
    EXPECT_TRUE(relax::test::tensors_close(y1, y0, 1e-6, 1e-6)) << "n = " << n;
  }
}

}  // namespace
}  // namespace relax::tir
