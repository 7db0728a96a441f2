#include "relax/kernel/schedule.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "../../common/error_of.h"
#include "../../common/tensor_compare.h"
#include "interp_test_util.h"
#include "relax/ir/structural_equal.h"
#include "relax/kernel/lower.h"
#include "relax/text/parser.h"
#include "relax/text/printer.h"

namespace relax::tir {
namespace {

using testing::f32_array;
using testing::random_floats;
using testing::values_of;

Ref<PrimFunc> parse(const std::string& text) { return parse_prim_func(text); }

/// Checks `got` against the expected function written as TVMScript.
void expect_script(const Ref<PrimFunc>& got, const std::string& expected_text) {
  Ref<PrimFunc> expected = parse(expected_text);
  auto diff = structural_diff(got, expected);
  EXPECT_FALSE(diff.has_value()) << *diff << "\n--- got:\n"
                                 << print_prim_func(got) << "--- expected:\n"
                                 << print_prim_func(expected);
}

/// The whole lowering, verifier included: every scheduled function must pass it (indices in
/// the loose forms split/fuse/transform_layout leave, such as `i * 8 + j * 4 - i % 4 * 7`,
/// are reported only when provably out of bounds).
Ref<PrimFunc> lower_for_run(const Ref<PrimFunc>& f) { return lower(f); }

/// Runs `before` and `after` (lowered) on the same random float32 arguments and compares
/// every buffer afterwards (exactly, or within rtol = atol = `tol`).
void expect_same_results(const Ref<PrimFunc>& before, const Ref<PrimFunc>& after, double tol = 0) {
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
void expect_error(const std::function<void()>& f, const std::string& needle) {
  std::string e = relax::test::error_of(f);
  EXPECT_NE(e.find(needle), std::string::npos)
      << "want an error containing: " << needle << "\ngot: " << e;
}

// B = A * 2 over 16x8.
const char* kElementwise = R"(
@T.prim_func
def f(A: T.Buffer((16, 8), "float32"), B: T.Buffer((16, 8), "float32")):
    for i, j in T.grid(16, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
)";

// C = A @ B over 8x8, one reduction block.
const char* kMatmul = R"(
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
const char* kTwoStage = R"(
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
  expect_error([&] { s.bind(l[2], "threadIdx.x"); }, "bind: loop k binds the reduce");
  expect_error([&] { s.bind(l[0], "warp.x"); }, "bind: 'warp.x' is not a thread index");
  s.unroll(l[2]);  // unrolling a reduction loop is fine
  expect_error([&] { s.unroll(l[2]); }, "unroll: loop k is already unroll");
  s.bind(l[0], "threadIdx.x");
  expect_error([&] { s.bind(l[1], "threadIdx.x"); },
               "bind: loop j is inside loop i, which is already bound to threadIdx.x");

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

TEST(Schedule, HandlesNameMissingThings) {
  Schedule s(parse(kElementwise));
  expect_error([&] { s.get_block("nope"); }, "get_block: no block named 'nope'");
  auto l = s.get_loops(s.get_block("B"));
  s.fuse({l[0], l[1]});
  expect_error([&] { s.parallel(l[0]); }, "parallel: loop i is not in the function");
}

// ---- compute_inline / reverse_compute_inline

TEST(ScheduleInline, ComputeInlineSubstitutesTheProducer) {
  Ref<PrimFunc> before = parse(kTwoStage);
  Schedule s(before);
  s.compute_inline(s.get_block("Tmp"));
  expect_script(s.func(), R"(
@T.prim_func
def f(A: T.Buffer((16, 8), "float32"), B: T.Buffer((16, 8), "float32")):
    with T.block("root"):
        for i, j in T.grid(16, 8):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2) + T.float32(1)
)");
  expect_same_results(before, s.func());
  expect_error([&] { s.get_block("Tmp"); }, "no block named 'Tmp'");
}

TEST(ScheduleInline, ReverseComputeInlineMovesTheConsumerIntoTheProducer) {
  Ref<PrimFunc> before = parse(kTwoStage);
  Schedule s(before);
  s.reverse_compute_inline(s.get_block("B"));
  expect_script(s.func(), R"(
@T.prim_func
def f(A: T.Buffer((16, 8), "float32"), B: T.Buffer((16, 8), "float32")):
    with T.block("root"):
        for i, j in T.grid(16, 8):
            with T.block("Tmp"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2) + T.float32(1)
)");
  expect_same_results(before, s.func());
}

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

TEST(ScheduleInline, IllegalUses) {
  Schedule s(parse(kMatmulRelu));
  expect_error([&] { s.compute_inline(s.get_block("matmul")); },
               "compute_inline: block matmul is a reduction (it has an init)");
  expect_error([&] { s.compute_inline(s.get_block("relu")); },
               "compute_inline: block relu writes D, an output of the function");
  expect_error([&] { s.reverse_compute_inline(s.get_block("relu")); },
               "reverse_compute_inline: the producer matmul is a reduction");
  Schedule t(parse(kTwoStage));
  expect_error([&] { t.reverse_compute_inline(t.get_block("Tmp")); },
               "reverse_compute_inline: block Tmp reads 0 intermediate buffers");
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
  Schedule w(parse(R"(
@T.prim_func
def f(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), E: T.Buffer((8,), "float32")):
    Tmp = T.alloc_buffer((8,), "float32")
    for i in range(8):
        with T.block("Tmp"):
            vi = T.axis.spatial(8, i)
            Tmp[vi] = A[vi]
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = Tmp[vi]
    for i in range(8):
        with T.block("E"):
            vi = T.axis.spatial(8, i)
            E[vi] = Tmp[vi] * T.float32(3)
)"));
  expect_error([&] { w.reverse_compute_inline(w.get_block("B")); },
               "reverse_compute_inline: Tmp is also read by block E; B must be its only reader");
  w.compute_inline(w.get_block("Tmp"));  // inlines into both readers
  expect_script(w.func(), R"(
@T.prim_func
def f(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), E: T.Buffer((8,), "float32")):
    with T.block("root"):
        for i in range(8):
            with T.block("B"):
                vi = T.axis.spatial(8, i)
                B[vi] = A[vi]
        for i in range(8):
            with T.block("E"):
                vi = T.axis.spatial(8, i)
                E[vi] = A[vi] * T.float32(3)
)");
  expect_error([&] { u.compute_inline(u.get_block("Tmp")); },
               "compute_inline: block Tmp stores to Tmp at indices that are not its iteration "
               "variables");
}

// ---- cache_read / cache_write

TEST(ScheduleCache, CacheReadCopiesBeforeTheNest) {
  Ref<PrimFunc> before = parse(kElementwise);
  Schedule s(before);
  BlockRV copy = s.cache_read(s.get_block("B"), 0, "shared");
  EXPECT_EQ(copy.name, "A_shared");
  expect_script(s.func(), R"(
@T.prim_func
def f(A: T.Buffer((16, 8), "float32"), B: T.Buffer((16, 8), "float32")):
    A_shared = T.alloc_buffer((16, 8), "float32", scope="shared")
    for ax0, ax1 in T.grid(16, 8):
        with T.block("A_shared"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            A_shared[v0, v1] = A[v0, v1]
    for i, j in T.grid(16, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A_shared[vi, vj] * T.float32(2)
)");
  expect_same_results(before, s.func());
}

TEST(ScheduleCache, CacheWriteCopiesBackAfterTheNest) {
  Ref<PrimFunc> before = parse(kMatmul);
  Schedule s(before);
  BlockRV copy = s.cache_write(s.get_block("matmul"), 0, "local");
  EXPECT_EQ(copy.name, "C_local");
  expect_script(s.func(), R"(
@T.prim_func
def f(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    C_local = T.alloc_buffer((8, 8), "float32", scope="local")
    for i, j, k in T.grid(8, 8, 8):
        with T.block("matmul"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C_local[vi, vj] = T.float32(0)
            C_local[vi, vj] = C_local[vi, vj] + A[vi, vk] * B[vk, vj]
    for ax0, ax1 in T.grid(8, 8):
        with T.block("C_local"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            C[v0, v1] = C_local[v0, v1]
)");
  expect_same_results(before, s.func());
}

TEST(ScheduleCache, IllegalUses) {
  Schedule s(parse(kElementwise));
  expect_error([&] { s.cache_read(s.get_block("B"), 3, "shared"); },
               "cache_read: block B has 1 read regions; 3 is out of range");
  expect_error([&] { s.cache_read(s.get_block("B"), 0, "texture"); },
               "cache_read: 'texture' is not a storage scope");
  Schedule t(parse(R"(
@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.block("a"):
            vi = T.axis.spatial(4, i)
            A[vi] = T.float32(0)
    for i in range(4):
        with T.block("b"):
            vi = T.axis.spatial(4, i)
            A[vi] = A[vi] + T.float32(1)
)"));
  expect_error([&] { t.cache_write(t.get_block("a"), 0, "local"); },
               "cache_write: A is written by 2 blocks; a must be its only writer");
  expect_error([&] { t.cache_read(t.get_block("b"), 0, "local"); },
               "cache_read: block b also writes A");
}

// ---- decompose_reduction

TEST(ScheduleReduction, DecomposeMovesTheInitBeforeTheLoop) {
  Ref<PrimFunc> before = parse(kMatmul);
  Schedule s(before);
  auto l = s.get_loops(s.get_block("matmul"));
  BlockRV init = s.decompose_reduction(s.get_block("matmul"), l[1]);
  EXPECT_EQ(init.name, "matmul_init");
  expect_script(s.func(), R"(
@T.prim_func
def f(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    for i in range(8):
        for j_init in range(8):
            with T.block("matmul_init"):
                vi, vj = T.axis.remap("SS", [i, j_init])
                C[vi, vj] = T.float32(0)
        for j, k in T.grid(8, 8):
            with T.block("matmul"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)");
  expect_same_results(before, s.func());
}

TEST(ScheduleReduction, IllegalUses) {
  Schedule s(parse(kMatmul));
  auto l = s.get_loops(s.get_block("matmul"));
  s.reorder({l[2], l[0]});  // k, j, i
  expect_error([&] { s.decompose_reduction(s.get_block("matmul"), l[1]); },
               "decompose_reduction: loop k is above loop j and binds the reduce iteration "
               "variable vk of block matmul");
  Schedule t(parse(kTwoStage));
  expect_error([&] { t.decompose_reduction(t.get_block("B"), t.get_loops(t.get_block("B"))[0]); },
               "decompose_reduction: block B has no init");
  expect_error([&] { t.decompose_reduction(t.get_block("B"), t.get_loops(t.get_block("Tmp"))[0]); },
               "decompose_reduction: block B has no init");
}

// ---- transform_layout

TEST(ScheduleLayout, IntermediateBufferGetsTheNewLayout) {
  Ref<PrimFunc> before = parse(kTwoStage);
  Schedule s(before);
  s.transform_layout(s.get_block("Tmp"), BufferIndex::write(0),
                     IndexMap::from_func(2, [](const std::vector<PrimExpr>& i) {
                       return std::vector<PrimExpr>{floordiv(i[0], 4), i[1], floormod(i[0], 4)};
                     }));
  expect_script(s.func(), R"(
@T.prim_func
def f(A: T.Buffer((16, 8), "float32"), B: T.Buffer((16, 8), "float32")):
    Tmp = T.alloc_buffer((4, 8, 4), "float32")
    for i, j in T.grid(16, 8):
        with T.block("Tmp"):
            vi, vj = T.axis.remap("SS", [i, j])
            Tmp[vi // 4, vj, vi % 4] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = Tmp[vi // 4, vj, vi % 4] + T.float32(1)
)");
  expect_same_results(before, s.func());
}

TEST(ScheduleLayout, ParameterBufferChangesTheSignature) {
  Ref<PrimFunc> before = parse(kElementwise);
  Schedule s(before);
  s.transform_layout(s.get_block("B"), BufferIndex::read(0),
                     IndexMap::from_func(2, [](const std::vector<PrimExpr>& i) {
                       return std::vector<PrimExpr>{i[1], i[0]};
                     }));
  expect_script(s.func(), R"(
@T.prim_func
def f(A: T.Buffer((8, 16), "float32"), B: T.Buffer((16, 8), "float32")):
    for i, j in T.grid(16, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vj, vi] * T.float32(2)
)");
  // Same result when the input is given transposed.
  auto a = random_floats(128, 3);
  std::vector<float> at(128);
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 8; ++c) at[size_t(c * 16 + r)] = a[size_t(r * 8 + c)];
  runtime::NDArray b0 = f32_array({16, 8}, std::vector<float>(128)),
                   b1 = f32_array({16, 8}, std::vector<float>(128));
  interpret(lower_for_run(before), {f32_array({16, 8}, a), b0});
  interpret(lower_for_run(s.func()), {f32_array({8, 16}, at), b1});
  EXPECT_EQ(values_of<float>(b0), values_of<float>(b1));
}

TEST(ScheduleLayout, IllegalMaps) {
  Schedule s(parse(kTwoStage));
  BlockRV tmp = s.get_block("Tmp");
  auto map = [](std::function<std::vector<PrimExpr>(const std::vector<PrimExpr>&)> f) {
    return IndexMap::from_func(2, f);
  };
  expect_error(
      [&] {
        s.transform_layout(tmp, BufferIndex::write(0), map([](const std::vector<PrimExpr>& i) {
                             return std::vector<PrimExpr>{floordiv(i[0], 4), i[1]};
                           }));
      },
      "transform_layout: the map changes the element count of Tmp from 128 to 32");
  expect_error(
      [&] {
        s.transform_layout(tmp, BufferIndex::write(0), map([](const std::vector<PrimExpr>& i) {
                             return std::vector<PrimExpr>{i[0] - 1, i[1]};
                           }));
      },
      "transform_layout: the new index");
  expect_error(
      [&] {
        s.transform_layout(tmp, BufferIndex::write(0), IndexMap::from_func(1, [](const auto& i) {
                             return std::vector<PrimExpr>{i[0]};
                           }));
      },
      "transform_layout: the index map takes 1 indices but Tmp has 2 dimensions");
  expect_error(
      [&] { s.transform_layout(tmp, BufferIndex::read(5), map([](const auto& i) { return i; })); },
      "transform_layout: block Tmp has 1 read regions; 5 is out of range");
}

// ---- Primitives together: a CPU-style matmul schedule keeps the result.

TEST(Schedule, MatmulScheduleKeepsTheResult) {
  Ref<PrimFunc> before = parse(kMatmulRelu);
  Schedule s(before);
  BlockRV mm = s.get_block("matmul");
  auto l = s.get_loops(mm);
  auto i = s.split(l[0], {-1, 4});
  auto j = s.split(l[1], {2, -1});
  s.reorder({i[0], j[0], l[2], i[1], j[1]});
  s.cache_write(mm, 0, "local");
  s.decompose_reduction(mm, l[2]);
  s.reverse_compute_inline(s.get_block("relu"));
  s.parallel(s.fuse({i[0], j[0]}));
  s.vectorize(j[1]);
  s.unroll(i[1]);
  expect_same_results(before, s.func());
}

}  // namespace
}  // namespace relax::tir
