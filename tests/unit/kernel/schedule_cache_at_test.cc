// cache_read / cache_write at a loop, set_scope, and a GPU-style schedule (shared and local
// buffers, thread-bound loops) run in the interpreter and through the text format.
#include "schedule_test_util.h"

namespace relax::tir {
namespace {

using namespace schedule_test;

/// print -> parse gives the same function.
void expect_round_trip(const Ref<PrimFunc>& f) {
  std::string text = print_prim_func(f);
  Ref<PrimFunc> back = parse(text);
  auto diff = structural_diff(f, back);
  EXPECT_FALSE(diff.has_value()) << *diff << "\n" << text;
}

TEST(ScheduleCacheAt, CacheReadCopiesTheRegionOfOneIteration) {
  Ref<PrimFunc> before = parse(kElementwise);
  Schedule s(before);
  auto i = s.split(s.get_loops(s.get_block("B"))[0], {-1, 4});
  BlockRV copy = s.cache_read(s.get_block("B"), 0, "shared", i[0]);
  EXPECT_EQ(copy.name, "A_shared");
  expect_script(s.func(), R"(
@T.prim_func
def f(A: T.Buffer((16, 8), "float32"), B: T.Buffer((16, 8), "float32")):
    with T.block("root"):
        A_shared = T.alloc_buffer((4, 8), "float32", scope="shared")
        for i_0 in range(4):
            for ax0, ax1 in T.grid(4, 8):
                with T.block("A_shared"):
                    v0, v1 = T.axis.remap("SS", [ax0, ax1])
                    A_shared[v0, v1] = A[i_0 * 4 + v0, v1]
            for i_1, j in T.grid(4, 8):
                with T.block("B"):
                    vi = T.axis.spatial(16, i_0 * 4 + i_1)
                    vj = T.axis.spatial(8, j)
                    B[vi, vj] = A_shared[vi - i_0 * 4, vj] * T.float32(2)
)");
  expect_same_results(before, s.func());
  expect_round_trip(s.func());
}

TEST(ScheduleCacheAt, CacheWriteCopiesBackAtTheEndOfTheLoop) {
  Ref<PrimFunc> before = parse(kMatmul);
  Schedule s(before);
  BlockRV mm = s.get_block("matmul");
  BlockRV copy = s.cache_write(mm, 0, "local", s.get_loops(mm)[1]);
  EXPECT_EQ(copy.name, "C_local");
  expect_script(s.func(), R"(
@T.prim_func
def f(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    with T.block("root"):
        C_local = T.alloc_buffer((1, 1), "float32", scope="local")
        for i, j in T.grid(8, 8):
            for k in range(8):
                with T.block("matmul"):
                    vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                    with T.init():
                        C_local[vi - i, vj - j] = T.float32(0)
                    C_local[vi - i, vj - j] = C_local[vi - i, vj - j] + A[vi, vk] * B[vk, vj]
            for ax0, ax1 in T.grid(1, 1):
                with T.block("C_local"):
                    v0, v1 = T.axis.remap("SS", [ax0, ax1])
                    C[i + v0, j + v1] = C_local[v0, v1]
)");
  expect_same_results(before, s.func());
}

TEST(ScheduleCacheAt, RegionPastTheBufferIsMasked) {
  Ref<PrimFunc> before = parse(kElementwise);
  Schedule s(before);
  auto i = s.split(s.get_loops(s.get_block("B"))[0], {-1, 3});  // the last tile has 1 row
  s.cache_read(s.get_block("B"), 0, "local", i[0]);
  s.cache_write(s.get_block("B"), 0, "local", i[0]);
  expect_script(s.func(), R"(
@T.prim_func
def f(A: T.Buffer((16, 8), "float32"), B: T.Buffer((16, 8), "float32")):
    with T.block("root"):
        A_local = T.alloc_buffer((3, 8), "float32", scope="local")
        B_local = T.alloc_buffer((3, 8), "float32", scope="local")
        for i_0 in range(6):
            for ax0, ax1 in T.grid(3, 8):
                with T.block("A_local"):
                    v0, v1 = T.axis.remap("SS", [ax0, ax1])
                    T.where(i_0 * 3 + ax0 < 16)
                    A_local[v0, v1] = A[i_0 * 3 + v0, v1]
            for i_1, j in T.grid(3, 8):
                with T.block("B"):
                    vi = T.axis.spatial(16, i_0 * 3 + i_1)
                    vj = T.axis.spatial(8, j)
                    T.where(i_0 * 3 + i_1 < 16)
                    B_local[vi - i_0 * 3, vj] = A_local[vi - i_0 * 3, vj] * T.float32(2)
            for ax0, ax1 in T.grid(3, 8):
                with T.block("B_local"):
                    v0, v1 = T.axis.remap("SS", [ax0, ax1])
                    T.where(i_0 * 3 + ax0 < 16)
                    B[i_0 * 3 + v0, v1] = B_local[v0, v1]
)");
  expect_same_results(before, s.func());
}

TEST(ScheduleCacheAt, IllegalUses) {
  Schedule s(parse(kMatmul));
  Ref<PrimFunc> start = s.func();
  BlockRV mm = s.get_block("matmul");
  auto l = s.get_loops(mm);
  expect_error([&] { s.cache_write(mm, 0, "local", l[2]); },
               "cache_write: loop k (at or above loop k) binds the reduce iteration variable vk "
               "of block matmul; the block would read the cache across iterations of it");
  expect_error([&] { s.cache_read(mm, 1, "warp", l[0]); },
               "cache_read: 'warp' is not a storage scope");
  expect_error([&] { s.cache_read(mm, 0, "shared", l[0]); },
               "cache_read: block matmul also writes C");
  EXPECT_TRUE(start.same_as(s.func()));
  Schedule t(parse(kTwoStage));
  expect_error([&] { t.cache_read(t.get_block("B"), 0, "shared", t.get_loops(t.get_block("Tmp"))[0]); },
               "cache_read: loop i does not enclose block B");
  t.compute_at(t.get_block("Tmp"), t.get_loops(t.get_block("B"))[0]);
  expect_error(
      [&] { t.cache_write(t.get_block("Tmp"), 0, "local", t.get_loops(t.get_block("B"))[0]); },
      "cache_write: block B reads Tmp under loop i; the copy back at the end of the loop would "
      "come too late for it");
}

// ---- set_scope

TEST(ScheduleSetScope, IntermediateBufferChangesScope) {
  Ref<PrimFunc> before = parse(kTwoStage);
  Schedule s(before);
  s.set_scope(s.get_block("Tmp"), 0, "shared");
  expect_script(s.func(), R"(
@T.prim_func
def f(A: T.Buffer((16, 8), "float32"), B: T.Buffer((16, 8), "float32")):
    Tmp = T.alloc_buffer((16, 8), "float32", scope="shared")
    for i, j in T.grid(16, 8):
        with T.block("Tmp"):
            vi, vj = T.axis.remap("SS", [i, j])
            Tmp[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = Tmp[vi, vj] + T.float32(1)
)");
  expect_same_results(before, s.func());
}

TEST(ScheduleSetScope, IllegalUses) {
  Schedule s(parse(kTwoStage));
  expect_error([&] { s.set_scope(s.get_block("B"), 0, "shared"); },
               "set_scope: B (written by block B) is a parameter of the function");
  expect_error([&] { s.set_scope(s.get_block("Tmp"), 0, "texture"); },
               "set_scope: 'texture' is not a storage scope");
  expect_error([&] { s.set_scope(s.get_block("Tmp"), 1, "local"); },
               "set_scope: block Tmp has 1 write regions; 1 is out of range");
}

// ---- A GPU-style matmul schedule: tiles on blocks and threads, operands staged in shared
// memory per K step, the accumulator in a local buffer.

TEST(ScheduleGpu, TiledMatmulKeepsTheResultAndRoundTrips) {
  Ref<PrimFunc> before = parse(kMatmul);
  Schedule s(before);
  BlockRV mm = s.get_block("matmul");
  auto l = s.get_loops(mm);
  auto i = s.split(l[0], {-1, 4});
  auto j = s.split(l[1], {-1, 4});
  auto k = s.split(l[2], {-1, 2});
  s.reorder({i[0], j[0], i[1], j[1], k[0], k[1]});
  s.bind(i[0], "blockIdx.y");
  s.bind(j[0], "blockIdx.x");
  s.bind(i[1], "threadIdx.y");
  s.bind(j[1], "threadIdx.x");
  // The shared tiles span the block's threads (threadIdx loops relaxed); the accumulator is
  // one element per thread.
  s.cache_read(mm, 1, "shared", k[0]);
  s.cache_read(mm, 2, "shared", k[0]);
  s.cache_write(mm, 0, "local", j[1]);
  expect_script(s.func(), R"(
@T.prim_func
def f(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    with T.block("root"):
        A_shared = T.alloc_buffer((4, 2), "float32", scope="shared")
        B_shared = T.alloc_buffer((2, 4), "float32", scope="shared")
        C_local = T.alloc_buffer((1, 1), "float32", scope="local")
        for i_0 in T.thread_binding(2, thread="blockIdx.y"):
            for j_0 in T.thread_binding(2, thread="blockIdx.x"):
                for i_1 in T.thread_binding(4, thread="threadIdx.y"):
                    for j_1 in T.thread_binding(4, thread="threadIdx.x"):
                        for k_0 in range(4):
                            for ax0, ax1 in T.grid(2, 4):
                                with T.block("B_shared"):
                                    v0, v1 = T.axis.remap("SS", [ax0, ax1])
                                    B_shared[v0, v1] = B[k_0 * 2 + v0, j_0 * 4 + v1]
                            for ax0, ax1 in T.grid(4, 2):
                                with T.block("A_shared"):
                                    v0, v1 = T.axis.remap("SS", [ax0, ax1])
                                    A_shared[v0, v1] = A[i_0 * 4 + v0, k_0 * 2 + v1]
                            for k_1 in range(2):
                                with T.block("matmul"):
                                    vi = T.axis.spatial(8, i_0 * 4 + i_1)
                                    vj = T.axis.spatial(8, j_0 * 4 + j_1)
                                    vk = T.axis.reduce(8, k_0 * 2 + k_1)
                                    with T.init():
                                        C_local[vi - (i_0 * 4 + i_1), vj - (j_0 * 4 + j_1)] = T.float32(0)
                                    C_local[vi - (i_0 * 4 + i_1), vj - (j_0 * 4 + j_1)] = C_local[vi - (i_0 * 4 + i_1), vj - (j_0 * 4 + j_1)] + A_shared[vi - i_0 * 4, vk - k_0 * 2] * B_shared[vk - k_0 * 2, vj - j_0 * 4]
                        for ax0, ax1 in T.grid(1, 1):
                            with T.block("C_local"):
                                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                                C[i_0 * 4 + i_1 + v0, j_0 * 4 + j_1 + v1] = C_local[v0, v1]
)");
  expect_same_results(before, s.func());
  expect_round_trip(s.func());
}

// TVM's spelling of the same accumulator: a whole-buffer local cache whose write-back block
// moves under the thread loop.
TEST(ScheduleGpu, WriteBackMovesUnderTheThreadLoop) {
  Ref<PrimFunc> before = parse(kMatmul);
  Schedule s(before);
  BlockRV mm = s.get_block("matmul");
  auto l = s.get_loops(mm);
  auto i = s.split(l[0], {-1, 4});
  s.bind(i[0], "blockIdx.x");
  s.bind(i[1], "threadIdx.x");
  BlockRV back = s.cache_write(mm, 0, "local");
  s.reverse_compute_at(back, l[1]);
  expect_script(s.func(), R"(
@T.prim_func
def f(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    with T.block("root"):
        C_local = T.alloc_buffer((8, 8), "float32", scope="local")
        for i_0 in T.thread_binding(2, thread="blockIdx.x"):
            for i_1 in T.thread_binding(4, thread="threadIdx.x"):
                for j in range(8):
                    for k in range(8):
                        with T.block("matmul"):
                            vi = T.axis.spatial(8, i_0 * 4 + i_1)
                            vj, vk = T.axis.remap("SR", [j, k])
                            with T.init():
                                C_local[vi, vj] = T.float32(0)
                            C_local[vi, vj] = C_local[vi, vj] + A[vi, vk] * B[vk, vj]
                    with T.block("C_local"):
                        v0 = T.axis.spatial(8, i_0 * 4 + i_1)
                        v1 = T.axis.spatial(8, j)
                        C[v0, v1] = C_local[v0, v1]
)");
  expect_same_results(before, s.func());
}

// TVM's spelling of a shared tile: a whole-buffer shared cache computed at the K loop spans
// the block's threads (threadIdx loops relaxed); a local one stays per thread.
TEST(ScheduleGpu, SharedProducerComputedAtSpansTheThreads) {
  Ref<PrimFunc> before = parse(kMatmul);
  Schedule s(before);
  BlockRV mm = s.get_block("matmul");
  auto l = s.get_loops(mm);
  auto i = s.split(l[0], {-1, 4});
  s.bind(i[0], "blockIdx.x");
  s.bind(i[1], "threadIdx.x");
  BlockRV a = s.cache_read(mm, 1, "shared");
  BlockRV b = s.cache_read(mm, 2, "local");
  s.compute_at(a, l[2]);
  s.compute_at(b, l[2]);
  expect_script(s.func(), R"(
@T.prim_func
def f(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    with T.block("root"):
        A_shared = T.alloc_buffer((8, 8), "float32", scope="shared")
        B_local = T.alloc_buffer((8, 8), "float32", scope="local")
        for i_0 in T.thread_binding(2, thread="blockIdx.x"):
            for i_1 in T.thread_binding(4, thread="threadIdx.x"):
                for j, k in T.grid(8, 8):
                    with T.block("B_local"):
                        v0, v1 = T.axis.remap("SS", [k, j])
                        B_local[v0, v1] = B[v0, v1]
                    for ax0 in range(4):
                        with T.block("A_shared"):
                            v0 = T.axis.spatial(8, i_0 * 4 + ax0)
                            v1 = T.axis.spatial(8, k)
                            A_shared[v0, v1] = A[v0, v1]
                    with T.block("matmul"):
                        vi = T.axis.spatial(8, i_0 * 4 + i_1)
                        vj, vk = T.axis.remap("SR", [j, k])
                        with T.init():
                            C[vi, vj] = T.float32(0)
                        C[vi, vj] = C[vi, vj] + A_shared[vi, vk] * B_local[vk, vj]
)");
  expect_same_results(before, s.func());
}

TEST(ScheduleGpu, SharedLocalAndThreadBindingRoundTrip) {
  Ref<PrimFunc> f = parse(R"(
@T.prim_func
def f(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    A_shared = T.alloc_buffer((16,), "float32", scope="shared")
    acc = T.alloc_buffer((1,), "float32", scope="local")
    for bx in T.thread_binding(4, thread="blockIdx.x"):
        for tx in T.thread_binding(16, thread="threadIdx.x"):
            with T.block("load"):
                v = T.axis.spatial(64, bx * 16 + tx)
                A_shared[v - bx * 16] = A[v]
            with T.block("acc"):
                v = T.axis.spatial(64, bx * 16 + tx)
                acc[0] = A_shared[v - bx * 16] * T.float32(2)
            with T.block("store"):
                v = T.axis.spatial(64, bx * 16 + tx)
                B[v] = acc[0]
)");
  expect_round_trip(f);
  expect_same_results(f, f);
}

}  // namespace
}  // namespace relax::tir
