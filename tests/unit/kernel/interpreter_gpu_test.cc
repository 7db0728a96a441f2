// GPU semantics of the reference interpreter (tir/interpreter.h): thread-bound loops, block
// regions, shared/local/global scopes and the T.tvm_storage_sync barrier, on kernels written
// by hand in TVMScript, parsed, lowered and run.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numeric>

#include "../../common/error_of.h"
#include "interp_test_util.h"
#include "relax/kernel/interpreter.h"
#include "relax/kernel/lower.h"
#include "relax/text/parser.h"
#include "relax/tir/intrin.h"

namespace relax::tir {
namespace {

using relax::test::error_of;
using testing::array;
using testing::f32_array;
using testing::random_floats;
using testing::values_of;

constexpr DataType kF32 = DataType::Float(32), kI32 = DataType::Int(32),
                   kI64 = DataType::Int(64);

Ref<PrimFunc> kernel(const std::string& text) { return lower(parse_prim_func(text)); }

/// Expects `message` to contain every piece.
void expect_pieces(const std::string& message, const std::vector<std::string>& pieces) {
  for (const auto& p : pieces)
    EXPECT_NE(message.find(p), std::string::npos) << p << "\n" << message;
}

// ---- Grids without barriers.

const char* kAddTail = R"(
@T.prim_func
def add(a: T.handle, b: T.handle, c: T.handle):
    T.func_attr({"global_symbol": "add"})
    n = T.int32()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    C = T.match_buffer(c, (n,), "float32")
    for bx in T.thread_binding((n + 255) // 256, thread="blockIdx.x"):
        for tx in T.thread_binding(256, thread="threadIdx.x"):
            if bx * 256 + tx < n:
                C[bx * 256 + tx] = A[bx * 256 + tx] + B[bx * 256 + tx]
)";

TEST(InterpreterGpu, ElementwiseOnBlocksAndThreadsWithTail) {
  Ref<PrimFunc> f = kernel(kAddTail);
  for (int64_t n : {1, 255, 256, 1000}) {
    auto a = random_floats(size_t(n), 1), b = random_floats(size_t(n), 2);
    runtime::NDArray c = runtime::NDArray::empty({n}, kF32);
    interpret(f, {f32_array({n}, a), f32_array({n}, b), c});
    std::vector<float> got = values_of<float>(c);
    for (size_t i = 0; i < size_t(n); ++i)
      ASSERT_EQ(got[i], a[i] + b[i]) << "n=" << n << " i=" << i;
  }
  // Without the tail predicate the last block's extra threads store out of bounds.
  std::string text = kAddTail;
  text.replace(text.find("            if bx * 256 + tx < n:\n"), 34, "            if True:\n");
  Ref<PrimFunc> no_tail = lower(parse_prim_func(text));
  runtime::NDArray c = runtime::NDArray::empty({300}, kF32);
  std::string e = error_of([&] {
    interpret(no_tail, {f32_array({300}, random_floats(300, 3)),
                        f32_array({300}, random_floats(300, 4)), c});
  });
  expect_pieces(e, {"out of bounds"});
}

TEST(InterpreterGpu, TwoDimensionalGridWithThreadIdxY) {
  Ref<PrimFunc> f = kernel(R"(
@T.prim_func
def transpose(A: T.Buffer((20, 30), "float32"), B: T.Buffer((30, 20), "float32")):
    for by in T.thread_binding(3, thread="blockIdx.y"):
        for bx in T.thread_binding(4, thread="blockIdx.x"):
            for ty in T.thread_binding(8, thread="threadIdx.y"):
                for tx in T.thread_binding(8, thread="threadIdx.x"):
                    if by * 8 + ty < 20 and bx * 8 + tx < 30:
                        B[bx * 8 + tx, by * 8 + ty] = A[by * 8 + ty, bx * 8 + tx]
)");
  auto a = random_floats(600, 5);
  runtime::NDArray b = runtime::NDArray::empty({30, 20}, kF32);
  interpret(f, {f32_array({20, 30}, a), b});
  std::vector<float> got = values_of<float>(b);
  for (int i = 0; i < 20; ++i)
    for (int j = 0; j < 30; ++j) ASSERT_EQ(got[size_t(j * 20 + i)], a[size_t(i * 30 + j)]);
}

// ---- Shared memory and barriers.

/// Sums each row of A (rows x 1000) with 128 threads per block: strided partial sums into
/// shared memory, then a tree with a barrier per level. `shared_at_top` allocates the shared
/// buffer outside the blockIdx loop (as lowering a root-block alloc_buffer does).
std::string tree_sum(int rows, bool shared_at_top) {
  std::string alloc =
      "buf = T.allocate([128], \"float32\", \"shared\")\n"
      "S = T.Buffer((128,), \"float32\", data=buf, scope=\"shared\")\n";
  auto indent = [](const std::string& s, int n) {
    std::string out, pad(size_t(n), ' ');
    size_t start = 0;
    while (start < s.size()) {
      size_t end = s.find('\n', start);
      out += pad + s.substr(start, end - start + 1);
      start = end + 1;
    }
    return out;
  };
  std::string r = std::to_string(rows);
  return "@T.prim_func\n"
         "def tree_sum(A: T.Buffer((" +
         r + ", 1000), \"float32\"), Out: T.Buffer((" + r +
         ",), \"float32\")):\n"
         "    T.func_attr({\"global_symbol\": \"tree_sum\"})\n" +
         (shared_at_top ? indent(alloc, 4) : "") + "    for bx in T.thread_binding(" + r +
         ", thread=\"blockIdx.x\"):\n" + (shared_at_top ? "" : indent(alloc, 8)) +
         R"(        for tx in T.thread_binding(128, thread="threadIdx.x"):
            S[tx] = T.float32(0)
            for k in range(8):
                if k * 128 + tx < 1000:
                    S[tx] = S[tx] + A[bx, k * 128 + tx]
            T.tvm_storage_sync("shared")
            for level in range(7):
                if tx < T.shift_right(64, level):
                    S[tx] = S[tx] + S[tx + T.shift_right(64, level)]
                T.tvm_storage_sync("shared")
            if tx == 0:
                Out[bx] = S[0]
)";
}

/// The serial reference: one loop per row.
const char* kSerialSum = R"(
@T.prim_func
def serial_sum(A: T.Buffer((3, 1000), "float32"), Out: T.Buffer((3,), "float32")):
    for i in range(3):
        Out[i] = T.float32(0)
        for k in range(1000):
            Out[i] = Out[i] + A[i, k]
)";

TEST(InterpreterGpu, SharedMemoryTreeReductionOneBlock) {
  Ref<PrimFunc> f = kernel(tree_sum(1, false));
  // Small integers: every order of summation is exact, so the tree equals the serial sum.
  std::vector<float> a(1000);
  for (size_t i = 0; i < a.size(); ++i) a[i] = float(int(i % 17) - 8);
  runtime::NDArray out = runtime::NDArray::empty({1}, kF32);
  interpret(f, {f32_array({1, 1000}, a), out});
  EXPECT_EQ(values_of<float>(out)[0], std::accumulate(a.begin(), a.end(), 0.0f));
}

TEST(InterpreterGpu, SharedMemoryTreeReductionSeveralBlocksMatchesSerial) {
  Ref<PrimFunc> serial = kernel(kSerialSum);
  std::vector<float> a = random_floats(3000, 7);
  runtime::NDArray want = runtime::NDArray::empty({3}, kF32);
  interpret(serial, {f32_array({3, 1000}, a), want});
  for (bool at_top : {false, true}) {
    Ref<PrimFunc> f = kernel(tree_sum(3, at_top));
    runtime::NDArray out = runtime::NDArray::empty({3}, kF32);
    interpret(f, {f32_array({3, 1000}, a), out});
    for (size_t i = 0; i < 3; ++i)
      EXPECT_NEAR(values_of<float>(out)[i], values_of<float>(want)[i], 1e-3) << "row " << i;
  }
}

TEST(InterpreterGpu, MatmulWithCooperativelyLoadedSharedTiles) {
  Ref<PrimFunc> f = kernel(R"(
@T.prim_func
def matmul(A: T.Buffer((32, 16), "float32"), B: T.Buffer((16, 24), "float32"), C: T.Buffer((32, 24), "float32")):
    T.func_attr({"global_symbol": "matmul"})
    for by in T.thread_binding(4, thread="blockIdx.y"):
        for bx in T.thread_binding(3, thread="blockIdx.x"):
            a_tile = T.allocate([64], "float32", "shared")
            As = T.Buffer((8, 8), "float32", data=a_tile, scope="shared")
            b_tile = T.allocate([64], "float32", "shared")
            Bs = T.Buffer((8, 8), "float32", data=b_tile, scope="shared")
            for ty in T.thread_binding(8, thread="threadIdx.y"):
                for tx in T.thread_binding(8, thread="threadIdx.x"):
                    acc_data = T.allocate([1], "float32", "local")
                    acc = T.Buffer((1,), "float32", data=acc_data, scope="local")
                    acc[0] = T.float32(0)
                    for ko in range(2):
                        As[ty, tx] = A[by * 8 + ty, ko * 8 + tx]
                        Bs[ty, tx] = B[ko * 8 + ty, bx * 8 + tx]
                        T.tvm_storage_sync("shared")
                        for ki in range(8):
                            acc[0] = acc[0] + As[ty, ki] * Bs[ki, tx]
                        T.tvm_storage_sync("shared")
                    C[by * 8 + ty, bx * 8 + tx] = acc[0]
)");
  auto a = random_floats(32 * 16, 11), b = random_floats(16 * 24, 12);
  runtime::NDArray c = runtime::NDArray::empty({32, 24}, kF32);
  interpret(f, {f32_array({32, 16}, a), f32_array({16, 24}, b), c});
  std::vector<float> got = values_of<float>(c);
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 24; ++j) {
      float want = 0;  // the kernel's order: k ascending, rounded to float32 each step
      for (int k = 0; k < 16; ++k) want = want + a[size_t(i * 16 + k)] * b[size_t(k * 24 + j)];
      ASSERT_NEAR(got[size_t(i * 24 + j)], want, 1e-5) << i << ", " << j;
    }
}

std::string reverse_kernel(bool with_barrier) {
  return std::string(R"(
@T.prim_func
def reverse(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        buf = T.allocate([128], "float32", "shared")
        S = T.Buffer((128,), "float32", data=buf, scope="shared")
        for tx in T.thread_binding(128, thread="threadIdx.x"):
            S[tx] = A[bx * 128 + tx]
)") + (with_barrier ? "            T.tvm_storage_sync(\"shared\")\n" : "") +
         "            B[bx * 128 + tx] = S[127 - tx]\n";
}

TEST(InterpreterGpu, TheBarrierMattersWhenReversingThroughSharedMemory) {
  std::vector<float> a(256);
  std::iota(a.begin(), a.end(), 0.0f);
  runtime::NDArray b = runtime::NDArray::empty({256}, kF32);
  interpret(kernel(reverse_kernel(true)), {f32_array({256}, a), b});
  std::vector<float> got = values_of<float>(b);
  for (int i = 0; i < 256; ++i) ASSERT_EQ(got[size_t(i)], float((i / 128) * 128 + 127 - i % 128));
  // Without it, thread 0 reads S[127] before thread 127 wrote it: fresh shared memory (NaN).
  interpret(kernel(reverse_kernel(false)), {f32_array({256}, a), b});
  got = values_of<float>(b);
  EXPECT_TRUE(std::isnan(got[0]));
  EXPECT_EQ(got[127], 0.0f);  // thread 127 runs last and sees S[0]
}

TEST(InterpreterGpu, SharedIsPerBlockLocalIsPerThread) {
  // `acc` is "local" allocated outside the grid (as a root alloc_buffer lowers): each thread
  // has its own copy even across the barrier; S[0] written by thread 0 is seen by all.
  Ref<PrimFunc> f = kernel(R"(
@T.prim_func
def scopes(Out: T.Buffer((4, 64), "int64")):
    acc_data = T.allocate([1], "int64", "local")
    acc = T.Buffer((1,), "int64", data=acc_data, scope="local")
    for bx in T.thread_binding(4, thread="blockIdx.x"):
        buf = T.allocate([1], "int64", "shared")
        S = T.Buffer((1,), "int64", data=buf, scope="shared")
        for tx in T.thread_binding(64, thread="threadIdx.x"):
            acc[0] = tx
            if tx == 0:
                S[0] = bx * 1000
            T.tvm_storage_sync("shared")
            Out[bx, tx] = acc[0] + S[0]
)");
  runtime::NDArray out = runtime::NDArray::empty({4, 64}, kI64);
  interpret(f, {out});
  std::vector<int64_t> got = values_of<int64_t>(out);
  for (int bx = 0; bx < 4; ++bx)
    for (int tx = 0; tx < 64; ++tx) ASSERT_EQ(got[size_t(bx * 64 + tx)], bx * 1000 + tx);
}

TEST(InterpreterGpu, GlobalInsideTheGridIsOnePerKernelCall) {
  // G outlives each block (blocks run in order, so block 3 sees the sum of 0..3), and a new
  // call starts with fresh memory (block 0 resets it).
  Ref<PrimFunc> f = kernel(R"(
@T.prim_func
def per_call(Out: T.Buffer((4,), "int64")):
    for bx in T.thread_binding(4, thread="blockIdx.x"):
        buf = T.allocate([1], "int64", "global")
        G = T.Buffer((1,), "int64", data=buf)
        for tx in T.thread_binding(8, thread="threadIdx.x"):
            if tx == 0:
                if bx == 0:
                    G[0] = T.int64(0)
                G[0] = G[0] + bx
                Out[bx] = G[0]
)");
  for (int call = 0; call < 2; ++call) {
    runtime::NDArray out = runtime::NDArray::empty({4}, kI64);
    interpret(f, {out});
    EXPECT_EQ(values_of<int64_t>(out), (std::vector<int64_t>{0, 1, 3, 6}));
  }
}

TEST(InterpreterGpu, BlockFormWithSharedAllocBufferLowersAndRuns) {
  // alloc_buffer(scope="shared") in the root block lowers to an Allocate outside the grid.
  Ref<PrimFunc> f = kernel(R"(
@T.prim_func
def rev(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    with T.block("root"):
        S = T.alloc_buffer((64,), "float32", scope="shared")
        for tx in T.thread_binding(64, thread="threadIdx.x"):
            with T.block("load"):
                v = T.axis.spatial(64, tx)
                S[v] = A[v]
            T.tvm_storage_sync("shared")
            with T.block("store"):
                v = T.axis.spatial(64, tx)
                B[v] = S[63 - v]
)");
  std::vector<float> a = random_floats(64, 21);
  runtime::NDArray b = runtime::NDArray::empty({64}, kF32);
  interpret(f, {f32_array({64}, a), b});
  std::vector<float> got = values_of<float>(b);
  for (size_t i = 0; i < 64; ++i) ASSERT_EQ(got[i], a[63 - i]);
}

// ---- Thread extents.

TEST(InterpreterGpu, LoopsOfOneTagWithDifferentExtentsShareTheThreads) {
  // The block has 64 threads; the second loop runs on threads 0..15 only.
  Ref<PrimFunc> f = kernel(R"(
@T.prim_func
def two_loops(Out: T.Buffer((64,), "int64"), Small: T.Buffer((16,), "int64")):
    for tx in T.thread_binding(64, thread="threadIdx.x"):
        Out[tx] = tx * 2
    for tx in T.thread_binding(16, thread="threadIdx.x"):
        Small[tx] = tx + 100
)");
  runtime::NDArray out = runtime::NDArray::empty({64}, kI64),
                   small = runtime::NDArray::empty({16}, kI64);
  interpret(f, {out, small});
  for (int i = 0; i < 64; ++i) ASSERT_EQ(values_of<int64_t>(out)[size_t(i)], 2 * i);
  for (int i = 0; i < 16; ++i) ASSERT_EQ(values_of<int64_t>(small)[size_t(i)], i + 100);
}

TEST(InterpreterGpu, ThreadExtentErrors) {
  runtime::NDArray out = runtime::NDArray::empty({64}, kI64);
  // An extent that depends on a loop inside the block.
  std::string e = error_of([&] {
    interpret(kernel(R"(
@T.prim_func
def inner_extent(Out: T.Buffer((64,), "int64")):
    T.func_attr({"global_symbol": "inner_extent"})
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        for i in range(4):
            for tx in T.thread_binding(i + 1, thread="threadIdx.x"):
                Out[tx] = i
)"),
              {out});
  });
  expect_pieces(e, {"kernel 'inner_extent'", "thread loop tx (threadIdx.x)", "must be known",
                    "blockIdx loop bx (blockIdx.x)", "variable i has no value"});
  // Too many threads.
  e = error_of([&] {
    interpret(kernel(R"(
@T.prim_func
def big(Out: T.Buffer((64,), "int64")):
    T.func_attr({"global_symbol": "big"})
    for ty in T.thread_binding(64, thread="threadIdx.y"):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            Out[ty] = tx
)"),
              {out});
  });
  expect_pieces(e, {"kernel 'big'", "32 x 64 x 1 threads", "at most 1024"});
  // A loop of a tag nested in a loop of the same tag runs on the same thread index (TVM's
  // meaning; the cooperative copies of gpu.matmul.shared): only Out[9 * t] is written.
  {
    std::vector<int64_t> init(64, -1);
    runtime::NDArray nested = runtime::NDArray::empty({64}, kI64);
    std::memcpy(nested.data(), init.data(), 64 * sizeof(int64_t));
    interpret(kernel(R"(
@T.prim_func
def nested(Out: T.Buffer((64,), "int64")):
    for tx in T.thread_binding(8, thread="threadIdx.x"):
        for tx2 in T.thread_binding(8, thread="threadIdx.x"):
            Out[tx * 8 + tx2] = tx
)"),
              {nested});
    const auto* got = static_cast<const int64_t*>(nested.data());
    for (int64_t i = 0; i < 64; ++i) EXPECT_EQ(got[i], i % 9 == 0 ? i / 9 : -1) << i;
  }
  // A thread loop around a blockIdx loop.
  e = error_of([&] {
    interpret(kernel(R"(
@T.prim_func
def inverted(Out: T.Buffer((64,), "int64")):
    for tx in T.thread_binding(8, thread="threadIdx.x"):
        for bx in T.thread_binding(8, thread="blockIdx.x"):
            Out[bx * 8 + tx] = tx
)"),
              {out});
  });
  expect_pieces(e, {"thread loop tx (threadIdx.x) encloses a blockIdx loop"});
}

// ---- Barrier errors.

TEST(InterpreterGpu, DivergentBarriersAreErrorsNamingTheThreads) {
  runtime::NDArray a = f32_array({64}, random_floats(64, 31)),
                   b = runtime::NDArray::empty({64}, kF32);
  std::string e = error_of([&] {
    interpret(kernel(R"(
@T.prim_func
def early_exit(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    T.func_attr({"global_symbol": "early_exit"})
    for tx in T.thread_binding(64, thread="threadIdx.x"):
        if tx < 32:
            T.tvm_storage_sync("shared")
        B[tx] = A[tx]
)"),
              {a, b});
  });
  expect_pieces(e, {"kernel 'early_exit'", "threads (0, 0, 0), (1, 0, 0)", "and 26 more",
                    "wait at barrier #1", "threads (32, 0, 0)", "finished without reaching"});
  e = error_of([&] {
    interpret(kernel(R"(
@T.prim_func
def two_barriers(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    T.func_attr({"global_symbol": "two_barriers"})
    for tx in T.thread_binding(64, thread="threadIdx.x"):
        if tx % 2 == 0:
            T.tvm_storage_sync("shared")
        else:
            T.tvm_storage_sync("shared")
        B[tx] = A[tx]
)"),
              {a, b});
  });
  expect_pieces(e, {"kernel 'two_barriers'", "divergent barrier", "threads (0, 0, 0), (2, 0, 0)",
                    "at barrier #1", "threads (1, 0, 0), (3, 0, 0)", "at barrier #2"});
}

TEST(InterpreterGpu, AnErrorInAThreadUnwindsTheOthersAndPropagates) {
  // Thread 5 loads out of bounds after the barrier while the others are suspended there or
  // about to run; the error comes out and the interpreter runs the next kernel normally.
  Ref<PrimFunc> bad = kernel(R"(
@T.prim_func
def bad(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for tx in T.thread_binding(64, thread="threadIdx.x"):
        buf = T.allocate([64], "float32", "local")
        L = T.Buffer((64,), "float32", data=buf, scope="local")
        L[tx] = A[tx]
        T.tvm_storage_sync("shared")
        B[tx] = A[T.Select(tx == 5, tx + 100, tx)]
        T.tvm_storage_sync("shared")
)");
  runtime::NDArray a = f32_array({64}, random_floats(64, 41)),
                   b = runtime::NDArray::empty({64}, kF32);
  std::string e = error_of([&] { interpret(bad, {a, b}); });
  expect_pieces(e, {"load from buffer A", "index 105", "out of bounds"});
  std::vector<float> x(256);
  std::iota(x.begin(), x.end(), 0.0f);
  runtime::NDArray y = runtime::NDArray::empty({256}, kF32);
  interpret(kernel(reverse_kernel(true)), {f32_array({256}, x), y});
  EXPECT_EQ(values_of<float>(y)[0], 127.0f);
}

// ---- The intrinsic.

TEST(InterpreterGpu, StorageSyncBuilderAndMisuse) {
  PrimExpr s = storage_sync();
  EXPECT_TRUE(is_storage_sync(s));
  EXPECT_EQ(s->dtype, kI32);
  EXPECT_EQ(to_string(s), "tvm_storage_sync(\"shared\")");
  expect_pieces(error_of([] { storage_sync("local"); }),
                {"tvm_storage_sync synchronises the \"shared\" scope", "got \"local\""});
  // As an operand of an expression it is an error; outside any block region it is a no-op.
  Ref<Buffer> out = decl_buffer({int_imm(1)}, kI32, "Out");
  Ref<PrimFunc> inside = make_prim_func({out}, buffer_store(out, s + 1, {int_imm(0)}));
  runtime::NDArray o = runtime::NDArray::empty({1}, kI32);
  expect_pieces(error_of([&] { interpret(inside, {o}); }), {"T.tvm_storage_sync is a statement"});
  Ref<PrimFunc> alone = make_prim_func(
      {out}, seq_stmt({make_ref<Evaluate>(s), buffer_store(out, int_imm(7, kI32), {int_imm(0)})}));
  interpret(alone, {o});
  EXPECT_EQ(values_of<int32_t>(o)[0], 7);
}

}  // namespace
}  // namespace relax::tir
