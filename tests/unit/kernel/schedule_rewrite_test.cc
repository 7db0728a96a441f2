// Schedule primitives that rewrite blocks and buffers: inline, cache, reduction, layout.
#include "schedule_test_util.h"

#include <cmath>

namespace relax::tir {
namespace {

using namespace schedule_test;

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
