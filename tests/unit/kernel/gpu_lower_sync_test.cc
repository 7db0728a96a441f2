// GPU lowering passes that synchronise threads (kernel/gpu_lower.h): cross-thread reductions
// to shared-memory trees and barrier insertion, checked by structure and by running the
// lowered program (run_gpu_program, the interpreter's GPU semantics) against the unscheduled
// function.
#include <gtest/gtest.h>

#include "../../common/error_of.h"
#include "../../common/tensor_compare.h"
#include "interp_test_util.h"
#include "relax/ir/structural_equal.h"
#include "relax/kernel/gpu_lower.h"
#include "relax/kernel/lower.h"
#include "relax/text/parser.h"
#include "relax/text/printer.h"
#include "relax/tir/intrin.h"

namespace relax::tir {
namespace {

using relax::test::error_of;
using testing::f32_array;
using testing::random_floats;
using testing::values_of;

void expect_has(const std::string& text, const std::string& needle) {
  EXPECT_NE(text.find(needle), std::string::npos) << "want: " << needle << "\ngot: " << text;
}

int count_barriers(const Stmt& s) {
  int n = 0;
  post_order_visit(s, [&](const Stmt& x) {
    if (auto* e = x.as<Evaluate>()) n += is_storage_sync(e->value);
  });
  return n;
}

/// Runs the unscheduled `reference` (lowered, interpreted) and `program` on the same random
/// float32 inputs (all buffer parameters) and compares every buffer.
void expect_same(const Ref<PrimFunc>& reference, const GpuProgram& program, double tol = 1e-5) {
  std::vector<InterpArg> a, b;
  std::vector<runtime::NDArray> ra, rb;
  for (size_t i = 0; i < reference->params.size(); ++i) {
    Ref<Buffer> buf = reference->param_buffer(i);
    std::vector<int64_t> shape;
    size_t n = 1;
    for (const auto& d : buf->shape) n *= size_t(shape.emplace_back(*as_const_int(d)));
    auto v = random_floats(n, uint32_t(11 + i), 0.5f, 1.5f);
    ra.push_back(f32_array(shape, v));
    rb.push_back(f32_array(shape, v));
    a.push_back(ra.back());
    b.push_back(rb.back());
  }
  interpret(lower(reference), a);
  run_gpu_program(program, b);
  for (size_t i = 0; i < ra.size(); ++i)
    EXPECT_TRUE(relax::test::tensors_close(rb[i], ra[i], tol, tol)) << "param " << i;
}

/// Row reduction of A (rows x cols) into B with `op` ("+", "*", "max", "min"): the
/// unscheduled form, and one with a block per row (or per `ty` rows) and `threads` threads
/// on the reduce axis.
std::string row_reduce(const std::string& op, int rows, int cols, int threads, int ty,
                       bool scheduled, const std::string& init) {
  std::string r = std::to_string(rows), c = std::to_string(cols);
  std::string update = op == "+" || op == "*" ? "B[vi] = B[vi] " + op + " A[vi, vk]"
                                              : "B[vi] = T." + op + "(B[vi], A[vi, vk])";
  std::string head = "@T.prim_func\ndef reduce(A: T.Buffer((" + r + ", " + c +
                     "), \"float32\"), B: T.Buffer((" + r + ",), \"float32\")):\n" +
                     "    T.func_attr({\"global_symbol\": \"reduce\"})\n";
  std::string block_body = "                with T.init():\n                    B[vi] = " + init +
                           "\n                " + update + "\n";
  if (!scheduled)
    return head + "    for i, k in T.grid(" + r + ", " + c + "):\n" +
           "        with T.block(\"red\"):\n            vi, vk = T.axis.remap(\"SR\", [i, k])\n" +
           "            with T.init():\n                B[vi] = " + init + "\n            " +
           update + "\n";
  std::string t = std::to_string(threads), y = std::to_string(ty);
  std::string ko = std::to_string((cols + threads - 1) / threads);
  return head + "    for bx in T.thread_binding(" + std::to_string((rows + ty - 1) / ty) +
         ", thread=\"blockIdx.x\"):\n" + "      for ty in T.thread_binding(" + y +
         ", thread=\"threadIdx.y\"):\n" + "        for tx in T.thread_binding(" + t +
         ", thread=\"threadIdx.x\"):\n" + "          for ko in range(" + ko + "):\n" +
         "            with T.block(\"red\"):\n" + "                vi = T.axis.spatial(" + r +
         ", bx * " + y + " + ty)\n" + "                vk = T.axis.reduce(" + c + ", ko * " + t +
         " + tx)\n" + "                T.where(bx * " + y + " + ty < " + r + " and ko * " + t +
         " + tx < " + c + ")\n" + block_body;
}

// ---- Cross-thread reduction.

TEST(GpuCrossThreadReduction, SumBecomesASharedTreeWithBarriers) {
  Ref<PrimFunc> f = parse_prim_func(row_reduce("+", 8, 100, 32, 1, true, "T.float32(0)"));
  Ref<PrimFunc> g = lower_cross_thread_reduction(f);
  ASSERT_FALSE(g.same_as(f));
  // 32 threads: store + 5 tree levels + trailing barrier.
  EXPECT_EQ(count_barriers(g->body), 7);
  std::string text = print_prim_func(g, "reduce");
  expect_has(text, "\"shared\"");
  expect_has(text, "\"local\"");
  GpuProgram p = lower_for_gpu(f, GpuLimits{});
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.kernels[0].shared_bytes, 32 * 4);
  expect_same(parse_prim_func(row_reduce("+", 8, 100, 32, 1, false, "T.float32(0)")), p);
}

struct ReduceCase {
  std::string op, init;
  int rows, cols, threads, ty;
};

TEST(GpuCrossThreadReduction, ExpectedTreeForThreeThreads) {
  Ref<PrimFunc> g = lower_cross_thread_reduction(
      parse_prim_func(row_reduce("max", 2, 5, 3, 1, true, "T.float32(0)")));
  // Largest power of two 2: a first step folds slot 2 into slot 0, then one halving step; the
  // init value (0, not max's identity) is combined by thread 0 with the tree's result.
  Ref<PrimFunc> expected = parse_prim_func(R"(
@T.prim_func
def reduce(A: T.Buffer((2, 5), "float32"), B: T.Buffer((2,), "float32")):
    T.func_attr({"global_symbol": "reduce"})
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        red = T.allocate([1, 3], "float32", "shared")
        R = T.Buffer((1, 3), "float32", scope="shared", data=red)
        for ty in T.thread_binding(1, thread="threadIdx.y"):
            for tx in T.thread_binding(3, thread="threadIdx.x"):
                partial = T.allocate([1], "float32", "local")
                P = T.Buffer((1,), "float32", scope="local", data=partial)
                P[0] = T.float32("-inf")
                for ko in range(2):
                    with T.block("red"):
                        vi = T.axis.spatial(2, bx * 1 + ty)
                        vk = T.axis.reduce(5, ko * 3 + tx)
                        T.where(bx * 1 + ty < 2 and ko * 3 + tx < 5)
                        T.reads(P[0], A[vi, vk])
                        T.writes(P[0])
                        P[0] = T.max(P[0], A[vi, vk])
                R[ty, tx] = P[0]
                T.tvm_storage_sync("shared")
                if tx < 1:
                    R[ty, tx] = T.max(R[ty, tx], R[ty, tx + 2])
                T.tvm_storage_sync("shared")
                if tx < 1:
                    R[ty, tx] = T.max(R[ty, tx], R[ty, tx + 1])
                T.tvm_storage_sync("shared")
                if tx == 0 and bx * 1 + ty < 2:
                    B[bx * 1 + ty] = T.max(T.float32(0), R[ty, 0])
                T.tvm_storage_sync("shared")
)");
  auto diff = structural_diff(g, expected);
  EXPECT_FALSE(diff.has_value()) << *diff << "\n" << print_prim_func(g, "reduce");
}

TEST(GpuCrossThreadReduction, EveryReducerAndNonPowerOfTwoThreadCounts) {
  std::vector<ReduceCase> cases = {
      {"+", "T.float32(1.5)", 5, 37, 24, 1},   // init that is not the identity; 24 = 16 + 8
      {"*", "T.float32(1)", 6, 20, 7, 2},      // threadIdx.y groups; 7 threads
      {"max", "T.float32(-3)", 4, 50, 32, 4},  // more rows per block than rows
      {"min", "T.float32(100)", 3, 3, 5, 1},   // more threads than the reduce extent
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.op + " threads=" + std::to_string(c.threads));
    Ref<PrimFunc> sched =
        parse_prim_func(row_reduce(c.op, c.rows, c.cols, c.threads, c.ty, true, c.init));
    GpuProgram p = lower_for_gpu(sched, GpuLimits{});
    expect_same(parse_prim_func(row_reduce(c.op, c.rows, c.cols, c.threads, c.ty, false, c.init)),
                p, 1e-4);
  }
}

TEST(GpuCrossThreadReduction, TwoReductionsUnderOneThreadLoop) {
  // Softmax's first two stages, both reduced by the same threads.
  const char* sched = R"(
@T.prim_func
def stats(A: T.Buffer((4, 20), "float32"), M: T.Buffer((4,), "float32"), S: T.Buffer((4,), "float32")):
    for bx in T.thread_binding(4, thread="blockIdx.x"):
        for tx in T.thread_binding(16, thread="threadIdx.x"):
            for ko in range(2):
                with T.block("mx"):
                    vi = T.axis.spatial(4, bx)
                    vk = T.axis.reduce(20, ko * 16 + tx)
                    T.where(ko * 16 + tx < 20)
                    with T.init():
                        M[vi] = T.float32(-1e30)
                    M[vi] = T.max(M[vi], A[vi, vk])
            for ko in range(2):
                with T.block("sm"):
                    vi = T.axis.spatial(4, bx)
                    vk = T.axis.reduce(20, ko * 16 + tx)
                    T.where(ko * 16 + tx < 20)
                    with T.init():
                        S[vi] = T.float32(0)
                    S[vi] = S[vi] + T.exp(A[vi, vk] - M[vi])
)";
  const char* reference = R"(
@T.prim_func
def stats(A: T.Buffer((4, 20), "float32"), M: T.Buffer((4,), "float32"), S: T.Buffer((4,), "float32")):
    for i, k in T.grid(4, 20):
        with T.block("mx"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                M[vi] = T.float32(-1e30)
            M[vi] = T.max(M[vi], A[vi, vk])
    for i, k in T.grid(4, 20):
        with T.block("sm"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                S[vi] = T.float32(0)
            S[vi] = S[vi] + T.exp(A[vi, vk] - M[vi])
)";
  GpuProgram p = lower_for_gpu(parse_prim_func(sched), GpuLimits{});
  EXPECT_EQ(p.kernels[0].shared_bytes, 2 * 16 * 4);
  expect_same(parse_prim_func(reference), p, 1e-5);
}

TEST(GpuCrossThreadReduction, UnknownReducerIsAnErrorNamingTheBlock) {
  std::string text = row_reduce("+", 8, 100, 32, 1, true, "T.float32(0)");
  text.replace(text.find("B[vi] + A[vi, vk]"), 17, "B[vi] - A[vi, vk]");
  std::string e = error_of([&] { lower_cross_thread_reduction(parse_prim_func(text)); });
  expect_has(e, "lower_cross_thread_reduction: block red");
  expect_has(e, "is not a recognised reducer");
}

TEST(GpuCrossThreadReduction, BlocksWithoutThreadBoundReduceLoopsAreLeftAlone) {
  Ref<PrimFunc> f = parse_prim_func(row_reduce("+", 8, 100, 32, 1, false, "T.float32(0)"));
  EXPECT_TRUE(lower_cross_thread_reduction(f).same_as(f));
}

// ---- Barrier insertion.

/// A 2-step tiled dot product per block: each K step loads a 32-element tile of A into shared
/// memory cooperatively, then every thread reads the whole tile. Needs a barrier after the
/// load (read-after-write) and at the end of the step (the next load overwrites what others
/// still read).
const char* kTiled = R"(
@T.prim_func
def tiled(A: T.Buffer((64,), "float32"), B: T.Buffer((4, 32), "float32")):
    T.func_attr({"global_symbol": "tiled"})
    for bx in T.thread_binding(4, thread="blockIdx.x"):
        s = T.allocate([32], "float32", "shared")
        S = T.Buffer((32,), "float32", data=s, scope="shared")
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            B[bx, tx] = T.float32(0)
            for k in range(2):
                S[tx] = A[k * 32 + tx] * T.Cast("float32", bx + 1)
                for j in range(32):
                    B[bx, tx] = B[bx, tx] + S[j] * T.Cast("float32", j - tx)
)";

TEST(GpuBarriers, ReadAfterWriteAndNextIterationWriteAfterRead) {
  Ref<PrimFunc> f = lower(parse_prim_func(kTiled));
  Ref<PrimFunc> g = insert_barriers(f);
  EXPECT_EQ(count_barriers(g->body), 2);
  std::string text = print_prim_func(g, "tiled");
  // One barrier before the loop over j, one at the end of the k step.
  size_t load = text.find("S[tx] = "), first = text.find("T.tvm_storage_sync", load);
  size_t j = text.find("for j in", load);
  EXPECT_LT(first, j) << text;
  EXPECT_NE(text.find("T.tvm_storage_sync", j), std::string::npos) << text;
  // Idempotent: existing barriers satisfy the pass.
  EXPECT_EQ(count_barriers(insert_barriers(g)->body), 2);
  // Numerically: the program matches a serial reference computed here.
  GpuProgram p = lower_for_gpu(parse_prim_func(kTiled), GpuLimits{});
  auto a = random_floats(64, 9);
  runtime::NDArray b = runtime::NDArray::empty({4, 32}, DataType::Float(32));
  run_gpu_program(p, {f32_array({64}, a), b});
  auto got = values_of<float>(b);
  for (int bx = 0; bx < 4; ++bx)
    for (int tx = 0; tx < 32; ++tx) {
      float want = 0;
      for (int k = 0; k < 2; ++k)
        for (int jj = 0; jj < 32; ++jj)
          want += a[size_t(k * 32 + jj)] * float(bx + 1) * float(jj - tx);
      ASSERT_NEAR(got[size_t(bx * 32 + tx)], want, 1e-3) << bx << " " << tx;
    }
}

TEST(GpuBarriers, NeededInsideDivergentCodeIsAnErrorNamingTheKernel) {
  // Only the first 16 threads run the K steps: their barriers would wait for the others.
  std::string text = R"(
@T.prim_func
def tiled(A: T.Buffer((64,), "float32"), B: T.Buffer((4, 32), "float32")):
    T.func_attr({"global_symbol": "tiled"})
    for bx in T.thread_binding(4, thread="blockIdx.x"):
        s = T.allocate([32], "float32", "shared")
        S = T.Buffer((32,), "float32", data=s, scope="shared")
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            if tx < 16:
                for k in range(2):
                    S[tx] = A[k * 32 + tx]
                    for j in range(16):
                        B[bx, tx] = B[bx, tx] + S[j]
)";
  std::string e = error_of([&] { insert_barriers(lower(parse_prim_func(text))); });
  expect_has(e, "insert_barriers: kernel tiled: shared buffer s needs a barrier");
  expect_has(e, "thread-divergent");
}

}  // namespace
}  // namespace relax::tir
