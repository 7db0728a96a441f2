// Schedule primitives on loops: split, reorder, fuse, annotations, handles.
#include "schedule_test_util.h"

#include <cmath>

namespace relax::tir {
namespace {

using namespace schedule_test;

// ---- split

TEST(ScheduleSplit, DivisibleSplitNestsTheLoops) {
  Ref<PrimFunc> before = parse(kElementwise);
  Schedule s(before);
  auto loops = s.get_loops(s.get_block("B"));
  auto parts = s.split(loops[0], {4, -1});
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(s.get_loops(s.get_block("B")).size(), 3u);
  expect_script(s.func(), R"(
@T.prim_func
def f(A: T.Buffer((16, 8), "float32"), B: T.Buffer((16, 8), "float32")):
    for i_0, i_1, j in T.grid(4, 4, 8):
        with T.block("B"):
            vi = T.axis.spatial(16, i_0 * 4 + i_1)
            vj = T.axis.spatial(8, j)
            B[vi, vj] = A[vi, vj] * T.float32(2)
)");
  expect_same_results(before, s.func());
}

TEST(ScheduleSplit, NonDividingFactorAddsAPredicate) {
  Ref<PrimFunc> before = parse(kElementwise);
  Schedule s(before);
  s.split(s.get_loops(s.get_block("B"))[0], {-1, 5});
  expect_script(s.func(), R"(
@T.prim_func
def f(A: T.Buffer((16, 8), "float32"), B: T.Buffer((16, 8), "float32")):
    for i_0, i_1, j in T.grid(4, 5, 8):
        with T.block("B"):
            vi = T.axis.spatial(16, i_0 * 5 + i_1)
            vj = T.axis.spatial(8, j)
            T.where(i_0 * 5 + i_1 < 16)
            B[vi, vj] = A[vi, vj] * T.float32(2)
)");
  expect_same_results(before, s.func());
}

TEST(ScheduleSplit, ThreeWaySplit) {
  Ref<PrimFunc> before = parse(kElementwise);
  Schedule s(before);
  s.split(s.get_loops(s.get_block("B"))[0], {2, -1, 2});
  expect_script(s.func(), R"(
@T.prim_func
def f(A: T.Buffer((16, 8), "float32"), B: T.Buffer((16, 8), "float32")):
    for i_0, i_1, i_2, j in T.grid(2, 4, 2, 8):
        with T.block("B"):
            vi = T.axis.spatial(16, (i_0 * 4 + i_1) * 2 + i_2)
            vj = T.axis.spatial(8, j)
            B[vi, vj] = A[vi, vj] * T.float32(2)
)");
  expect_same_results(before, s.func());
}

TEST(ScheduleSplit, IllegalFactors) {
  Schedule s(parse(kElementwise));
  LoopRV i = s.get_loops(s.get_block("B"))[0];
  expect_error([&] { s.split(i, {-1, -1}); }, "split: loop i: at most one factor may be -1");
  expect_error([&] { s.split(i, {0, 4}); }, "split: loop i: factor 0 must be positive");
  expect_error(
      [&] {
        s.split(i, {3, 5});
      },
      "split: loop i: the factors' product 15 is less than the extent 16");
  expect_error([&] { s.split(i, {16}); }, "split: loop i: needs at least two factors");
  s.parallel(i);
  expect_error([&] { s.split(i, {4, 4}); }, "split: loop i is parallel");
}

// ---- reorder

TEST(ScheduleReorder, SwapsLoopsOfOneNest) {
  Ref<PrimFunc> before = parse(kMatmul);
  Schedule s(before);
  auto l = s.get_loops(s.get_block("matmul"));
  s.reorder({l[2], l[0]});
  expect_script(s.func(), R"(
@T.prim_func
def f(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    for k, j, i in T.grid(8, 8, 8):
        with T.block("matmul"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)");
  // The sum over k runs in the same order for each element: exact.
  expect_same_results(before, s.func());
}

TEST(ScheduleReorder, LoopsOfDifferentNestsAreRejected) {
  Schedule s(parse(kTwoStage));
  auto a = s.get_loops(s.get_block("Tmp"));
  auto b = s.get_loops(s.get_block("B"));
  expect_error([&] { s.reorder({a[0], b[1]}); }, "are not in one nest");
  expect_error([&] { s.reorder({a[0], a[0]}); }, "reorder: loop i is given twice");
}

TEST(ScheduleReorder, ImperfectNestIsRejected) {
  Schedule s(parse(R"(
@T.prim_func
def f(A: T.Buffer((4, 4), "float32")):
    for i in range(4):
        for j in range(4):
            with T.block("a"):
                vi, vj = T.axis.remap("SS", [i, j])
                A[vi, vj] = T.float32(0)
        for j2 in range(4):
            with T.block("b"):
                vi, vj = T.axis.remap("SS", [i, j2])
                A[vi, vj] = A[vi, vj] + T.float32(1)
)"));
  auto l = s.get_loops(s.get_block("a"));
  expect_error(
      [&] {
        s.reorder({l[1], l[0]});
      },
      "reorder: loop i has a SeqStmt as its body, not a single loop");
}

// ---- fuse

TEST(ScheduleFuse, FusesAdjacentLoops) {
  Ref<PrimFunc> before = parse(kElementwise);
  Schedule s(before);
  auto l = s.get_loops(s.get_block("B"));
  LoopRV fused = s.fuse({l[0], l[1]});
  EXPECT_EQ(fused.var->name, "i_j_fused");
  expect_script(s.func(), R"(
@T.prim_func
def f(A: T.Buffer((16, 8), "float32"), B: T.Buffer((16, 8), "float32")):
    for i_j_fused in range(128):
        with T.block("B"):
            vi = T.axis.spatial(16, i_j_fused // 8)
            vj = T.axis.spatial(8, i_j_fused % 8)
            B[vi, vj] = A[vi, vj] * T.float32(2)
)");
  expect_same_results(before, s.func());
}

TEST(ScheduleFuse, LoopOfExtentZeroGivesAnEmptyLoopWithoutDivisionByZero) {
  Ref<PrimFunc> before = parse(R"(
@T.prim_func
def f(A: T.Buffer((0, 0), "float32"), B: T.Buffer((0, 0), "float32")):
    for i, j in T.grid(0, 0):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
)");
  Schedule s(before);
  auto l = s.get_loops(s.get_block("B"));
  LoopRV fused = s.fuse({l[0], l[1]});
  EXPECT_EQ(fused.var->name, "i_j_fused");
  expect_same_results(before, s.func());
}

TEST(ScheduleFuse, SplitThenFuseRoundTrips) {
  Ref<PrimFunc> before = parse(kMatmul);
  Schedule s(before);
  auto l = s.get_loops(s.get_block("matmul"));
  s.fuse({l[0], l[1], l[2]});
  expect_script(s.func(), R"(
@T.prim_func
def f(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    for i_j_k_fused in range(512):
        with T.block("matmul"):
            vi = T.axis.spatial(8, i_j_k_fused // 64)
            vj = T.axis.spatial(8, i_j_k_fused // 8 % 8)
            vk = T.axis.reduce(8, i_j_k_fused % 8)
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)");
  expect_same_results(before, s.func());
}

TEST(ScheduleFuse, NonAdjacentLoopsAreRejected) {
  Schedule s(parse(kMatmul));
  auto l = s.get_loops(s.get_block("matmul"));
  expect_error(
      [&] {
        s.fuse({l[0], l[2]});
      },
      "fuse: loop k is not the body of loop i; fused loops must be adjacent");
  expect_error([&] { s.fuse({l[0]}); }, "fuse: needs at least two loops");
}

// ---- parallel, vectorize, unroll, bind

TEST(ScheduleAnnotate, ParallelVectorizeUnroll) {
  Ref<PrimFunc> before = parse(kElementwise);
  Schedule s(before);
  auto l = s.get_loops(s.get_block("B"));
  auto parts = s.split(l[0], {-1, 4});
  s.parallel(parts[0]);
  s.unroll(parts[1]);
  s.vectorize(l[1]);
  expect_script(s.func(), R"(
@T.prim_func
def f(A: T.Buffer((16, 8), "float32"), B: T.Buffer((16, 8), "float32")):
    for i_0 in T.parallel(4):
        for i_1 in T.unroll(4):
            for j in T.vectorized(8):
                with T.block("B"):
                    vi = T.axis.spatial(16, i_0 * 4 + i_1)
                    vj = T.axis.spatial(8, j)
                    B[vi, vj] = A[vi, vj] * T.float32(2)
)");
  expect_same_results(before, s.func());
}

TEST(ScheduleAnnotate, BindToThreads) {
  Ref<PrimFunc> before = parse(kElementwise);
  Schedule s(before);
  auto l = s.get_loops(s.get_block("B"));
  s.bind(l[0], "blockIdx.x");
  s.bind(l[1], "threadIdx.x");
  expect_script(s.func(), R"(
@T.prim_func
def f(A: T.Buffer((16, 8), "float32"), B: T.Buffer((16, 8), "float32")):
    for i in T.thread_binding(16, thread="blockIdx.x"):
        for j in T.thread_binding(8, thread="threadIdx.x"):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2)
)");
  expect_same_results(before, s.func());
  expect_error([&] { s.bind(l[0], "threadIdx.y"); }, "bind: loop i is already bound to blockIdx.x");
  expect_error([&] { s.parallel(l[1]); }, "parallel: loop j is already bound to threadIdx.x");
}

TEST(ScheduleAnnotate, IllegalUses) {
  Schedule s(parse(kMatmul));
  auto l = s.get_loops(s.get_block("matmul"));
  expect_error([&] { s.parallel(l[2]); },
               "parallel: loop k binds the reduce iteration variable vk of block matmul");
  expect_error([&] { s.vectorize(l[2]); }, "vectorize: loop k binds the reduce");
  expect_error([&] { s.bind(l[2], "blockIdx.x"); }, "bind: loop k binds the reduce");
  {
    // threadIdx may take a reduce loop: a cross-thread reduction (kernel/gpu_lower.h).
    Schedule t = s;
    t.bind(l[2], "threadIdx.x");
  }
  expect_error([&] { s.bind(l[0], "warp.x"); }, "bind: 'warp.x' is not a thread index");
  s.unroll(l[2]);  // unrolling a reduction loop is fine
  expect_error([&] { s.unroll(l[2]); }, "unroll: loop k is already unroll");
  s.bind(l[0], "threadIdx.x");
  expect_error([&] { s.bind(l[1], "threadIdx.x"); },
               "bind: loop j is inside loop i, which is already bound to threadIdx.x, and what "
               "it runs depends on that loop's variable");

  Schedule sym(parse(R"(
@T.prim_func
def f(a: T.handle, b: T.handle):
    n = T.int64()
    A = T.match_buffer(a, (4, n), "float32")
    B = T.match_buffer(b, (4, n), "float32")
    for i, j in T.grid(4, n):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj]
)"));
  expect_error([&] { sym.vectorize(sym.get_loops(sym.get_block("B"))[1]); },
               "vectorize: loop j has extent n, not a constant");
}

// A loop bound inside a loop of the same tag runs on the same thread index: allowed when what
// runs under it does not depend on the outer loop (each thread copies its share of a tile
// every thread uses) and the extents agree.
TEST(ScheduleAnnotate, BindInsideALoopOfTheSameTag) {
  Ref<PrimFunc> before = parse(R"(
@T.prim_func
def f(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((4,), "float32")):
    for i in range(8):
        for j in range(8):
            with T.block("B"):
                vj = T.axis.spatial(8, j)
                B[vj] = A[vj]
        for k in range(4):
            with T.block("C"):
                vk = T.axis.spatial(4, k)
                C[vk] = A[vk]
)");
  Schedule s(before);
  auto lb = s.get_loops(s.get_block("B"));
  auto lc = s.get_loops(s.get_block("C"));
  s.bind(lb[0], "threadIdx.x");
  s.bind(lb[1], "threadIdx.x");
  expect_error([&] { s.bind(lc[1], "threadIdx.x"); },
               "bind: loop k is inside loop i, which is already bound to threadIdx.x with extent "
               "8 (this loop has 4)");
}

TEST(Schedule, HandlesNameMissingThings) {
  Schedule s(parse(kElementwise));
  expect_error([&] { s.get_block("nope"); }, "get_block: no block named 'nope'");
  auto l = s.get_loops(s.get_block("B"));
  s.fuse({l[0], l[1]});
  expect_error([&] { s.parallel(l[0]); }, "parallel: loop i is not in the function");
}

}  // namespace
}  // namespace relax::tir
