// GPU lowering (kernel/gpu_lower.h): the launch intrinsic, host/device split, narrowing, the
// GPU verifier and run_gpu_program, on hand-written thread-bound TVMScript kernels. Cross-
// thread reductions and barriers: gpu_lower_sync_test.cc.
#include "relax/kernel/gpu_lower.h"

#include <gtest/gtest.h>

#include "../../common/error_of.h"
#include "interp_test_util.h"
#include "relax/ir/structural_equal.h"
#include "relax/kernel/lower.h"
#include "relax/text/parser.h"
#include "relax/text/printer.h"

namespace relax::tir {
namespace {

using relax::test::error_of;
using testing::f32_array;
using testing::random_floats;
using testing::values_of;

constexpr DataType kF32 = DataType::Float(32);

void expect_script(const Ref<PrimFunc>& got, const std::string& expected_text) {
  Ref<PrimFunc> expected = parse_prim_func(expected_text);
  auto diff = structural_diff(got, expected);
  EXPECT_FALSE(diff.has_value()) << *diff << "\n--- got:\n"
                                 << print_prim_func(got) << "--- expected:\n"
                                 << print_prim_func(expected);
}

void expect_has(const std::string& text, const std::string& needle) {
  EXPECT_NE(text.find(needle), std::string::npos) << "want: " << needle << "\ngot: " << text;
}

const char* kScale = R"(
@T.prim_func
def scale(A: T.Buffer((1000,), "float32"), B: T.Buffer((1000,), "float32")):
    T.func_attr({"global_symbol": "scale"})
    for bx in T.thread_binding(4, thread="blockIdx.x"):
        for tx in T.thread_binding(256, thread="threadIdx.x"):
            if bx * 256 + tx < 1000:
                B[bx * 256 + tx] = A[bx * 256 + tx] * T.float32(2)
)";

const char* kAddSymbolic = R"(
@T.prim_func
def add(a: T.handle, b: T.handle, c: T.handle):
    T.func_attr({"global_symbol": "add"})
    n = T.int64()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    C = T.match_buffer(c, (n,), "float32")
    for bx in T.thread_binding((n + 127) // 128, thread="blockIdx.x"):
        for tx in T.thread_binding(128, thread="threadIdx.x"):
            if bx * 128 + tx < n:
                C[bx * 128 + tx] = A[bx * 128 + tx] + B[bx * 128 + tx]
)";

// ---- The launch intrinsic.

TEST(GpuLaunch, PrintsAndParsesBack) {
  const char* text = R"(
@T.prim_func
def host(A: T.Buffer((64,), "float32"), n: T.int64):
    T.evaluate(T.launch_kernel("host_kernel0", n // 32, 1, 1, 32, 1, 1, A.data, n * 2))
)";
  Ref<PrimFunc> f = parse_prim_func(text);
  auto* call = f->body.as<Evaluate>()->value.as<Call>();
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->op, Intrinsic::kLaunchKernel);
  EXPECT_EQ(call->name, "host_kernel0");
  ASSERT_EQ(call->args.size(), 8u);
  EXPECT_TRUE(call->args[6]->dtype.is_handle());
  std::string printed = print_prim_func(f, "host");
  expect_has(printed, "T.launch_kernel(\"host_kernel0\", n // 32, 1, 1, 32, 1, 1, A.data, n * 2)");
  EXPECT_FALSE(structural_diff(parse_prim_func(printed), f).has_value()) << printed;
}

// ---- Host/device split.

TEST(GpuSplit, OneNestBecomesOneKernelAndALaunch) {
  GpuProgram p = split_host_device(lower(parse_prim_func(kScale)));
  ASSERT_EQ(p.kernels.size(), 1u);
  const GpuKernel& k = p.kernels[0];
  EXPECT_EQ(k.name, "scale_kernel0");
  EXPECT_TRUE(is_const_int(k.grid[0], 4) && is_const_int(k.grid[1], 1) &&
              is_const_int(k.grid[2], 1));
  EXPECT_TRUE(is_const_int(k.block[0], 256) && is_const_int(k.block[1], 1));
  EXPECT_EQ(k.shared_bytes, 0);
  ASSERT_EQ(k.args.size(), 2u);
  EXPECT_TRUE(k.args[0].buffer.same_as(p.host->params[0]));
  EXPECT_TRUE(k.args[1].buffer.same_as(p.host->params[1]));
  expect_script(p.host, R"(
@T.prim_func
def scale(A: T.Buffer((1000,), "float32"), B: T.Buffer((1000,), "float32")):
    T.func_attr({"global_symbol": "scale"})
    T.evaluate(T.launch_kernel("scale_kernel0", 4, 1, 1, 256, 1, 1, A.data, B.data))
)");
  // The kernel keeps the thread-bound nest; its parameters are the host's buffers.
  auto* bx = k.func->body.as<For>();
  ASSERT_NE(bx, nullptr);
  EXPECT_EQ(bx->thread_tag, "blockIdx.x");
  EXPECT_TRUE(k.func->param_buffer(0).same_as(p.host->param_buffer(0)));
  std::string text = to_string(p);
  expect_has(text, "kernel scale_kernel0 grid(4, 1, 1) block(256, 1, 1) shared 0 bytes args(A, B)");
}

TEST(GpuSplit, SymbolicGridRunsInTheInterpreter) {
  GpuProgram p = split_host_device(lower(parse_prim_func(kAddSymbolic)));
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(to_string(p.kernels[0].grid[0]),
            to_string(parse_prim_func(kAddSymbolic)->body.as<For>()->extent));
  for (int64_t n : {1, 127, 128, 300}) {
    auto a = random_floats(size_t(n), 1), b = random_floats(size_t(n), 2);
    runtime::NDArray c = runtime::NDArray::empty({n}, kF32);
    run_gpu_program(p, {f32_array({n}, a), f32_array({n}, b), c});
    auto got = values_of<float>(c);
    for (size_t i = 0; i < size_t(n); ++i) ASSERT_EQ(got[i], a[i] + b[i]) << n << " " << i;
  }
}

TEST(GpuSplit, TwoKernelsShareAGlobalWorkspace) {
  GpuProgram p = split_host_device(lower(parse_prim_func(R"(
@T.prim_func
def two(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), s: T.int64):
    T.func_attr({"global_symbol": "two"})
    w = T.allocate([64], "float32", "global")
    W = T.Buffer((64,), "float32", data=w)
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            W[bx * 32 + tx] = A[bx * 32 + tx] + T.Cast("float32", s)
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            B[63 - bx * 32 - tx] = W[bx * 32 + tx] * T.float32(2)
)")));
  ASSERT_EQ(p.kernels.size(), 2u);
  EXPECT_EQ(p.kernels[1].name, "two_kernel1");
  // Kernel 0: A, then the workspace w, then the scalar s (buffers before scalars).
  ASSERT_EQ(p.kernels[0].args.size(), 3u);
  EXPECT_EQ(p.kernels[0].args[1].buffer->name, "w");
  EXPECT_TRUE(p.kernels[0].args[2].scalar.defined());
  auto* alloc = p.host->body.as<Allocate>();
  ASSERT_NE(alloc, nullptr);
  EXPECT_EQ(alloc->scope, "global");
  auto a = random_floats(64, 3);
  runtime::NDArray b = runtime::NDArray::empty({64}, kF32);
  run_gpu_program(p, {f32_array({64}, a), b, int64_t(3)});
  auto got = values_of<float>(b);
  for (size_t i = 0; i < 64; ++i) ASSERT_EQ(got[63 - i], (a[i] + 3) * 2) << i;
}

TEST(GpuSplit, SharedMemoryAboveTheNestMovesIntoTheKernel) {
  // A root block's alloc_buffer lowers to an Allocate above the blockIdx loop.
  GpuProgram p = lower_for_gpu(parse_prim_func(R"(
@T.prim_func
def rev(A: T.Buffer((3, 32), "float32"), B: T.Buffer((3, 32), "float32")):
    T.func_attr({"global_symbol": "rev"})
    s = T.allocate([32], "float32", "shared")
    S = T.Buffer((32,), "float32", data=s, scope="shared")
    for bx in T.thread_binding(3, thread="blockIdx.x"):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            S[tx] = A[bx, tx]
            B[bx, tx] = S[31 - tx]
)"),
                               GpuLimits{});
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.kernels[0].shared_bytes, 128);
  auto* bx = p.kernels[0].func->body.as<For>();
  ASSERT_NE(bx, nullptr);
  auto* alloc = bx->body.as<Allocate>();
  ASSERT_NE(alloc, nullptr);
  EXPECT_EQ(alloc->scope, "shared");
  std::string dump = to_string(p);
  expect_has(dump, "kernel rev_kernel0 grid(3, 1, 1) block(32, 1, 1) shared 128 bytes args(A, B)");
  expect_has(dump, "tvm_storage_sync(\"shared\")");  // between the write and the read
  auto a = random_floats(96, 8);
  runtime::NDArray b = runtime::NDArray::empty({3, 32}, kF32);
  run_gpu_program(p, {f32_array({3, 32}, a), b});
  auto got = values_of<float>(b);
  for (size_t r = 0; r < 3; ++r)
    for (size_t t = 0; t < 32; ++t) ASSERT_EQ(got[r * 32 + t], a[r * 32 + 31 - t]);
}

TEST(GpuSplit, StatementOutsideThreadLoopsIsAnErrorNamingTheKernel) {
  std::string e = error_of([] {
    split_host_device(lower(parse_prim_func(R"(
@T.prim_func
def serial(A: T.Buffer((64,), "float32")):
    T.func_attr({"global_symbol": "serial"})
    for i in range(2):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            A[i * 32 + tx] = T.float32(1)
)")));
  });
  expect_has(e, "function serial, before kernel serial_kernel0");
  expect_has(e, "statement outside any thread-bound loop");
}

// ---- The verifier.

TEST(GpuVerify, NamesTheKernelAndTheLimit) {
  GpuProgram p = split_host_device(lower(parse_prim_func(R"(
@T.prim_func
def big(A: T.Buffer((70000, 2048), "float32")):
    T.func_attr({"global_symbol": "big"})
    s = T.allocate([16384], "float32", "shared")
    S = T.Buffer((16384,), "float32", data=s, scope="shared")
    for by in T.thread_binding(70000, thread="blockIdx.y"):
        A[by, 0] = T.float32(0)
        for tx in T.thread_binding(2048, thread="threadIdx.x"):
            S[tx] = T.float32(1)
            A[by, tx] = S[tx]
        for tx2 in T.thread_binding(1024, thread="threadIdx.x"):
            A[by, tx2] = T.float32(2)
)")));
  GpuLimits limits;
  limits.target = "test-gpu";
  std::string all;
  for (const auto& m : verify_gpu(p, limits)) all += m + "\n";
  expect_has(all,
             "kernel big_kernel0: threadIdx.x = 2048 threads exceeds the limit of 1024 threads per "
             "block in x (target test-gpu)");
  expect_has(all, "kernel big_kernel0: 2048 threads per block exceeds the limit of 1024");
  expect_has(all,
             "kernel big_kernel0: 65536 bytes of shared memory exceeds the limit of 49152 bytes");
  expect_has(
      all,
      "kernel big_kernel0: the grid size blockIdx.y = 70000 exceeds the limit of 65535 blocks");
  expect_has(
      all, "kernel big_kernel0: threadIdx.x is bound with extent 2048 and again with extent 1024");
  expect_has(all, "the store to global buffer A is outside every threadIdx loop");
  std::string e = error_of([] {
    lower_for_gpu(parse_prim_func(R"(
@T.prim_func
def wide(A: T.Buffer((4096,), "float32")):
    for tx in T.thread_binding(4096, thread="threadIdx.x"):
        A[tx] = T.float32(0)
)"),
                  GpuLimits{});
  });
  expect_has(e, "lower_for_gpu: function main breaks the GPU limits");
  expect_has(e, "kernel main_kernel0: 4096 threads per block exceeds the limit of 1024");
}

TEST(GpuVerify, SymbolicGridIsCheckedOnTheHost) {
  GpuLimits limits;
  limits.max_grid = {4, 65535, 65535};
  GpuProgram p = lower_for_gpu(parse_prim_func(kAddSymbolic), limits);
  runtime::NDArray c = runtime::NDArray::empty({1000}, kF32);
  std::string e = error_of([&] {
    run_gpu_program(p, {f32_array({1000}, random_floats(1000, 1)),
                        f32_array({1000}, random_floats(1000, 2)), c});
  });
  expect_has(e, "kernel add_kernel0: the grid size blockIdx.x = ");
  expect_has(e, "exceeds the limit of 4 blocks");
  runtime::NDArray small = runtime::NDArray::empty({500}, kF32);
  run_gpu_program(
      p, {f32_array({500}, random_floats(500, 1)), f32_array({500}, random_floats(500, 2)), small});
}

// ---- Narrowing.

int count_int64_loops(const Stmt& s) {
  int n = 0;
  post_order_visit(s, [&](const Stmt& x) {
    if (auto* f = x.as<For>()) n += f->loop_var->dtype == DataType::Int(64);
  });
  return n;
}

TEST(GpuNarrow, StaticShapesNarrowWithoutChecks) {
  Ref<PrimFunc> f = lower(parse_prim_func(kScale));
  ASSERT_GT(count_int64_loops(f->body), 0);
  NarrowResult r = narrow_indices(f);
  EXPECT_TRUE(r.checks.empty());
  EXPECT_EQ(count_int64_loops(r.func->body), 0);
  auto* bx = r.func->body.as<For>();
  ASSERT_NE(bx, nullptr);
  EXPECT_EQ(bx->extent->dtype, DataType::Int(32));
  auto a = random_floats(1000, 4);
  runtime::NDArray b = runtime::NDArray::empty({1000}, kF32);
  run_gpu_program(split_host_device(r.func), {f32_array({1000}, a), b});
  auto got = values_of<float>(b);
  for (size_t i = 0; i < 1000; ++i) ASSERT_EQ(got[i], a[i] * 2);
}

TEST(GpuNarrow, SymbolicShapesGetHostChecks) {
  NarrowResult r = narrow_indices(lower(parse_prim_func(kAddSymbolic)));
  EXPECT_EQ(count_int64_loops(r.func->body), 0);
  ASSERT_EQ(r.checks.size(), 3u);
  EXPECT_EQ(r.checks[0].message,
            "kernel add: dimension n of buffer A (shape (n,)) exceeds the 32-bit index range: the "
            "buffer must hold fewer than 2^31 elements");
  // n + 127 may pass 2^31 - 1: the grid extent is computed in int64, then cast. The tail
  // guard's bx * 128 + tx is at most 2^31 - 1 (bx < 2^24): it compares in int32.
  auto* bx = r.func->body.as<For>();
  ASSERT_NE(bx, nullptr);
  auto* extent = bx->extent.as<Cast>();
  ASSERT_NE(extent, nullptr) << to_string(r.func);
  EXPECT_EQ(extent->dtype, DataType::Int(32));
  EXPECT_EQ(extent->value->dtype, DataType::Int(64));
  auto* guard = bx->body.as<For>()->body.as<IfThenElse>();
  ASSERT_NE(guard, nullptr);
  EXPECT_EQ(guard->condition.as<LT>()->a->dtype, DataType::Int(32)) << to_string(r.func);
  GpuProgram p = split_host_device(r.func, r.checks);
  auto* a = p.host->body.as<AssertStmt>();
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->message, r.checks[0].message);
  auto x = random_floats(77, 5), y = random_floats(77, 6);
  runtime::NDArray c = runtime::NDArray::empty({77}, kF32);
  run_gpu_program(p, {f32_array({77}, x), f32_array({77}, y), c});
  auto got = values_of<float>(c);
  for (size_t i = 0; i < 77; ++i) ASSERT_EQ(got[i], x[i] + y[i]);
}

TEST(GpuNarrow, UnprovenComparisonsStayInt64) {
  GpuProgram p = lower_for_gpu(parse_prim_func(R"(
@T.prim_func
def flat(a: T.handle, b: T.handle):
    T.func_attr({"global_symbol": "flat"})
    n = T.int64()
    m = T.int64()
    A = T.match_buffer(a, (n, m), "float32")
    B = T.match_buffer(b, (n, m), "float32")
    for bx in T.thread_binding((n * m + 63) // 64, thread="blockIdx.x"):
        for tx in T.thread_binding(64, thread="threadIdx.x"):
            if bx * 64 + tx < n * m:
                B[(bx * 64 + tx) // m, (bx * 64 + tx) % m] = A[(bx * 64 + tx) // m, (bx * 64 + tx) % m] + T.float32(1)
)"),
                               GpuLimits{});
  // The grid check first, then the narrowing's.
  auto* a = p.host->body.as<AssertStmt>();
  ASSERT_NE(a, nullptr);
  expect_has(a->message, "kernel flat_kernel0: the grid size blockIdx.x = ");
  a = a->body.as<AssertStmt>();
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->message,
            "kernel flat: dimension n, m of buffer A (shape (n, m)) exceeds the 32-bit "
            "index range: the buffer must hold fewer than 2^31 elements");
  const Stmt& body = p.kernels[0].func->body;
  auto* guard = body.as<For>()->body.as<For>()->body.as<IfThenElse>();
  ASSERT_NE(guard, nullptr);
  EXPECT_EQ(guard->condition.as<LT>()->b->dtype, DataType::Int(64)) << to_string(p);
  EXPECT_EQ(count_int64_loops(body), 0);
  for (auto [n, m] : {std::pair<int64_t, int64_t>{5, 7}, {1, 1}, {3, 64}}) {
    auto x = random_floats(size_t(n * m), 7);
    runtime::NDArray y = runtime::NDArray::empty({n, m}, kF32);
    run_gpu_program(p, {f32_array({n, m}, x), y});
    auto got = values_of<float>(y);
    for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(got[i], x[i] + 1) << n << "x" << m;
  }
}

TEST(GpuNarrow, IndexStoredAsInt64DataIsCastBack) {
  Ref<PrimFunc> f = lower(parse_prim_func(R"(
@T.prim_func
def iota(B: T.Buffer((100,), "int64")):
    for tx in T.thread_binding(100, thread="threadIdx.x"):
        B[tx] = tx * 3
)"));
  NarrowResult r = narrow_indices(f);
  EXPECT_EQ(count_int64_loops(r.func->body), 0);
  runtime::NDArray b = runtime::NDArray::empty({100}, DataType::Int(64));
  run_gpu_program(split_host_device(r.func), {b});
  auto got = values_of<int64_t>(b);
  for (int64_t i = 0; i < 100; ++i) ASSERT_EQ(got[size_t(i)], i * 3);
}

TEST(GpuNarrow, DataDependentOrWideIndicesStayInt64) {
  Ref<PrimFunc> gather = lower(parse_prim_func(R"(
@T.prim_func
def gather(A: T.Buffer((100,), "float32"), I: T.Buffer((10,), "int64"), B: T.Buffer((10,), "float32")):
    for tx in T.thread_binding(10, thread="threadIdx.x"):
        B[tx] = A[I[tx]]
)"));
  EXPECT_TRUE(narrow_indices(gather).func.same_as(gather));
  Ref<PrimFunc> wide = lower(parse_prim_func(R"(
@T.prim_func
def wide(A: T.Buffer((100000, 100000), "float32")):
    for bx in T.thread_binding(100000, thread="blockIdx.x"):
        for tx in T.thread_binding(1, thread="threadIdx.x"):
            A[bx, 7] = T.float32(0)
)"));
  EXPECT_TRUE(narrow_indices(wide).func.same_as(wide));
}

// ---- Loop-invariant index arithmetic.

// Column sums of an (n, 8, m) tensor, one thread per (row, column): after lowering, the
// reduction loop's flat indices divide by the symbolic m.
const char* kColumnSums = R"(
@T.prim_func
def colsum(a: T.handle, b: T.handle, n: T.int64, m: T.int64):
    T.func_attr({"global_symbol": "colsum"})
    A = T.match_buffer(a, (n, 8, m), "float32")
    B = T.match_buffer(b, (n, m), "float32")
    for bx in T.thread_binding((n * m + 63) // 64, thread="blockIdx.x"):
        for tx in T.thread_binding(64, thread="threadIdx.x"):
            for k in T.serial(8):
                if bx * 64 + tx < n * m:
                    B[(bx * 64 + tx) // m, (bx * 64 + tx) % m] = B[(bx * 64 + tx) // m, (bx * 64 + tx) % m] + A[(bx * 64 + tx) // m, k, (bx * 64 + tx) % m]
)";

/// The divisions by a non-constant in `s`.
int variable_divisions(const Stmt& s) {
  struct Count : StmtExprVisitor {
    int n = 0;
    using StmtExprVisitor::visit_;
    void visit_(const FloorDiv* op) override {
      n += !op->b.is<IntImm>();
      StmtExprVisitor::visit_(op);
    }
    void visit_(const FloorMod* op) override {
      n += !op->b.is<IntImm>();
      StmtExprVisitor::visit_(op);
    }
  } c;
  c.visit_stmt(s);
  return c.n;
}

TEST(GpuHoist, DivisionsTheLoopRepeatsMoveBeforeIt) {
  Ref<PrimFunc> lowered = lower(parse_prim_func(kColumnSums));
  Ref<PrimFunc> h = hoist_invariant_index_arithmetic(lowered);
  // Under the thread loops: lets, then the k loop, whose body divides by nothing but constants.
  const Stmt* at = &h->body;
  for (auto* f = at->as<For>(); f && f->kind == ForKind::kThreadBinding; f = at->as<For>())
    at = &f->body;
  int lets = 0;
  while (auto* l = at->as<LetStmt>()) {
    EXPECT_EQ(l->var->name, "inv" + std::to_string(lets++));
    at = &l->body;
  }
  auto* k = at->as<For>();
  ASSERT_NE(k, nullptr) << print_prim_func(h);
  EXPECT_EQ(k->loop_var->name, "k");
  EXPECT_GE(lets, 2) << print_prim_func(h);
  EXPECT_GT(variable_divisions(lowered->body), 0);
  EXPECT_EQ(variable_divisions(k->body), 0) << print_prim_func(h);
  // The same expression once: B's index is one let, read and written through it.
  std::string text = print_prim_func(h);
  expect_has(text, "B_1[inv0] = B_1[inv0] + A_1[k * m + inv1 + inv2]");
  // Nothing to move: the same function back.
  Ref<PrimFunc> scale = parse_prim_func(kScale);
  EXPECT_TRUE(hoist_invariant_index_arithmetic(scale).same_as(scale));
  // The same results, including shapes where the last block's threads fall outside.
  for (auto [n, m] : {std::pair<int64_t, int64_t>{1, 1}, {3, 5}, {7, 33}, {2, 64}}) {
    auto a = random_floats(size_t(n * 8 * m), 3);
    std::vector<std::vector<float>> got;
    for (const Ref<PrimFunc>& g : {lowered, h}) {
      runtime::NDArray b = f32_array({n, m}, std::vector<float>(size_t(n * m), 1.0f));
      run_gpu_program(split_host_device(g), {f32_array({n, 8, m}, a), b, n, m});
      got.push_back(values_of<float>(b));
    }
    EXPECT_EQ(got[0], got[1]) << n << "x" << m;
  }
}

}  // namespace
}  // namespace relax::tir
