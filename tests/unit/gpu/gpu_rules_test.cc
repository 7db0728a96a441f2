// The default GPU rules on hand-written kernels: which rule takes which block, the limits they
// honour (threads, grid), the single-thread last resort and its warning, and hand schedules
// left alone. Results are checked against the unscheduled function in the interpreter.
#include <gtest/gtest.h>

#include "../../common/tensor_compare.h"
#include "relax/arith/analyzer.h"
#include "relax/kernel/gpu_lower.h"
#include "relax/kernel/gpu_rules.h"
#include "relax/kernel/interpreter.h"
#include "relax/kernel/lower.h"
#include "relax/runtime/ndarray.h"
#include "relax/text/parser.h"
#include "relax/tir/stmt_functor.h"

namespace relax::tir {
namespace {

Ref<PrimFunc> parse(const std::string& text) { return parse_prim_func(text, "<test>"); }

const char* kAdd = R"(
@T.prim_func
def add(A: T.Buffer((1000,), "float32"), B: T.Buffer((1000,), "float32"), C: T.Buffer((1000,), "float32")):
    for i in range(1000):
        with T.block("add"):
            vi = T.axis.spatial(1000, i)
            C[vi] = A[vi] + B[vi]
)";

// Each element depends on the one before: not safe to run concurrently.
const char* kScan = R"(
@T.prim_func
def scan(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for i in range(64):
        with T.block("scan"):
            vi = T.axis.opaque(64, i)
            B[vi] = T.if_then_else(vi == 0, A[vi], B[vi - 1] + A[vi])
)";

const char* kRowSum = R"(
@T.prim_func
def row_sum(A: T.Buffer((4, 300), "float32"), B: T.Buffer((4,), "float32")):
    for i, k in T.grid(4, 300):
        with T.block("sum"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]
)";

/// The extents of the loops bound to `tag`.
std::vector<int64_t> bound_extents(const Ref<PrimFunc>& f, const std::string& tag) {
  std::vector<int64_t> out;
  post_order_visit(f->body, [&](const Stmt& s) {
    if (auto* l = s.as<For>(); l && l->kind == ForKind::kThreadBinding && l->thread_tag == tag)
      out.push_back(as_const_int(l->extent) ? *as_const_int(l->extent) : -1);
  });
  return out;
}

runtime::NDArray filled(std::vector<int64_t> shape, float start) {
  runtime::NDArray a = runtime::NDArray::empty(shape, DataType::Float(32));
  auto* p = static_cast<float*>(a.data());
  for (int64_t i = 0; i < a.numel(); ++i) p[i] = start + float(i % 17) * 0.25f;
  return a;
}

/// Runs `f` (unscheduled) and `g` (lowered for the GPU) on the same inputs (all parameters but
/// the last) and compares the last.
void expect_same(const Ref<PrimFunc>& f, const Ref<PrimFunc>& g,
                 const std::vector<std::vector<int64_t>>& shapes) {
  std::vector<InterpArg> a, b;
  for (size_t i = 0; i < shapes.size(); ++i) {
    bool out = i + 1 == shapes.size();
    a.emplace_back(filled(shapes[i], out ? -1.0f : float(i)));
    b.emplace_back(filled(shapes[i], out ? -2.0f : float(i)));
  }
  interpret(lower(f), a);
  run_gpu_program(lower_for_gpu(g, GpuLimits{}, "g"), b);
  EXPECT_TRUE(test::tensors_close(std::get<runtime::NDArray>(a.back()),
                                  std::get<runtime::NDArray>(b.back()), 1e-5, 1e-5));
}

TEST(GpuRules, InjectiveBindsBlocksAndThreads) {
  Ref<PrimFunc> f = parse(kAdd);
  GpuScheduled s = apply_default_gpu_schedule(f, GpuLimits{}, "add");
  EXPECT_EQ(s.report.summary(), "add: gpu.injective");
  EXPECT_TRUE(s.report.warnings.empty());
  EXPECT_TRUE(is_gpu_scheduled(s.func));
  EXPECT_FALSE(is_gpu_scheduled(f));
  EXPECT_EQ(bound_extents(s.func, "threadIdx.x"), std::vector<int64_t>{256});
  EXPECT_EQ(bound_extents(s.func, "blockIdx.x"), std::vector<int64_t>{4});
  expect_same(f, s.func, {{1000}, {1000}, {1000}});
}

TEST(GpuRules, GridLimitGivesAGridStrideLoop) {
  Ref<PrimFunc> f = parse(kAdd);
  GpuLimits l;
  l.max_threads_per_block = 64;
  l.max_grid = {5, 1, 1};
  GpuScheduled s = apply_default_gpu_schedule(f, l, "add");
  EXPECT_EQ(bound_extents(s.func, "threadIdx.x"), std::vector<int64_t>{64});
  EXPECT_EQ(bound_extents(s.func, "blockIdx.x"), std::vector<int64_t>{5});
  expect_same(f, s.func, {{1000}, {1000}, {1000}});
}

const char* kAddN = R"(
@T.prim_func
def add(a: T.handle, b: T.handle, c: T.handle):
    n = T.int64()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    C = T.match_buffer(c, (n,), "float32")
    for i in range(n):
        with T.block("add"):
            vi = T.axis.spatial(n, i)
            C[vi] = A[vi] + B[vi]
)";

// A symbolic extent under a grid limit: the grid is sized by the data (a few blocks for a
// small tensor, the limit and a grid-stride loop for a large one), never the limit always.
TEST(GpuRules, SymbolicGridIsSizedByTheData) {
  Ref<PrimFunc> f = parse(kAddN);
  GpuLimits l;
  l.max_threads_per_block = 64;
  l.max_grid = {5, 1, 1};
  GpuScheduled s = apply_default_gpu_schedule(f, l, "add");
  GpuProgram p = lower_for_gpu(s.func, l, "add");
  ASSERT_EQ(p.kernels.size(), 1u);
  const PrimExpr& grid = p.kernels[0].grid[0];
  auto blocks_for = [&](int64_t n) {
    PrimExpr e = substitute(grid, [&](const Var* v) {
      return v->name == "n" ? PrimExpr(int_imm(n, v->dtype)) : PrimExpr();
    });
    arith::Analyzer ana;
    const int64_t* c = as_const_int(ana.simplify(e));
    return c ? *c : int64_t(-1);
  };
  EXPECT_EQ(blocks_for(1), 1) << to_string(grid);
  EXPECT_EQ(blocks_for(100), 2) << to_string(grid);
  EXPECT_EQ(blocks_for(1000), 5) << to_string(grid);
  EXPECT_EQ(blocks_for(0), 1) << to_string(grid);
  for (int64_t n : {1, 100, 320, 1000}) expect_same(f, s.func, {{n}, {n}, {n}});
}

TEST(GpuRules, LongRowsReduceAcrossThreads) {
  Ref<PrimFunc> f = parse(kRowSum);
  GpuScheduled s = apply_default_gpu_schedule(f, GpuLimits{}, "row_sum");
  EXPECT_EQ(s.report.summary(), "sum: gpu.reduction");
  EXPECT_EQ(bound_extents(s.func, "blockIdx.x"), std::vector<int64_t>{4});
  EXPECT_EQ(bound_extents(s.func, "threadIdx.x"), std::vector<int64_t>{256});
  expect_same(f, s.func, {{4, 300}, {4}});
}

TEST(GpuRules, SequentialBlocksRunOnOneThreadWithAWarning) {
  Ref<PrimFunc> f = parse(kScan);
  GpuScheduled s = apply_default_gpu_schedule(f, GpuLimits{}, "scan");
  EXPECT_EQ(s.report.summary(), "scan: gpu.single_thread");
  EXPECT_TRUE(s.report.single_thread());
  ASSERT_EQ(s.report.warnings.size(), 1u);
  EXPECT_NE(s.report.warnings[0].find("kernel scan: block scan runs on a single GPU thread"),
            std::string::npos)
      << s.report.warnings[0];
  EXPECT_EQ(bound_extents(s.func, "threadIdx.x"), std::vector<int64_t>{1});
  expect_same(f, s.func, {{64}, {64}});
}

TEST(GpuRules, HandSchedulesAreKept) {
  Ref<PrimFunc> f = parse(kAdd);
  GpuScheduled once = apply_default_gpu_schedule(f, GpuLimits{}, "add");
  GpuScheduled twice = apply_default_gpu_schedule(once.func, GpuLimits{}, "add");
  EXPECT_EQ(twice.func.get(), once.func.get());
  EXPECT_TRUE(twice.report.blocks.empty());
}

TEST(GpuRules, RuleNamesAreListedInOrder) {
  const auto& names = gpu_rule_names();
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.front(), "gpu.general_reduction");
  EXPECT_EQ(names.back(), "gpu.single_thread");
}

}  // namespace
}  // namespace relax::tir

namespace relax::tir {
namespace {

const char* kMatmul = R"(
@T.prim_func
def mm(A: T.Buffer((64, 40), "float32"), B: T.Buffer((40, 48), "float32"), C: T.Buffer((64, 48), "float32")):
    for i, j, k in T.grid(64, 48, 40):
        with T.block("mm"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

TEST(GpuRules, MatmulTilesGoThroughSharedMemory) {
  Ref<PrimFunc> f = parse(kMatmul);
  GpuScheduled s = apply_default_gpu_schedule(f, GpuLimits{}, "mm");
  EXPECT_EQ(s.report.summary(), "mm: gpu.matmul.shared");
  GpuProgram p = lower_for_gpu(s.func, GpuLimits{}, "mm");
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.kernels[0].shared_bytes, 2 * 16 * 16 * 4);
  expect_same(f, s.func, {{64, 40}, {40, 48}, {64, 48}});
  // A device with too little shared memory for the tiles gets the plain rule.
  GpuLimits small;
  small.max_shared_memory_bytes = 1024;
  EXPECT_EQ(apply_default_gpu_schedule(f, small, "mm").report.summary(), "mm: gpu.matmul");
}

/// The names of the "local" buffers the blocks of `f` allocate.
std::vector<std::string> local_buffers(const Ref<PrimFunc>& f) {
  std::vector<std::string> out;
  post_order_visit(f->body, [&](const Stmt& s) {
    if (auto* b = s.as<Block>())
      for (const Ref<Buffer>& buf : b->alloc_buffers)
        if (buf->scope == "local") out.push_back(buf->name);
  });
  return out;
}

// Each thread of the plain matmul and of a serial reduction accumulates in a register and
// stores its output once, instead of loading and storing global memory at every step.
TEST(GpuRules, ReductionsAccumulateInRegisters) {
  Ref<PrimFunc> f = parse(kMatmul);
  GpuLimits small;
  small.max_shared_memory_bytes = 1024;
  GpuScheduled s = apply_default_gpu_schedule(f, small, "mm");
  EXPECT_EQ(s.report.summary(), "mm: gpu.matmul");
  EXPECT_EQ(local_buffers(s.func), std::vector<std::string>{"C_local"});
  expect_same(f, s.func, {{64, 40}, {40, 48}, {64, 48}});

  Ref<PrimFunc> rows = parse(R"(
@T.prim_func
def row_sum(A: T.Buffer((300, 8), "float32"), B: T.Buffer((300,), "float32")):
    for i, k in T.grid(300, 8):
        with T.block("sum"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]
)");
  GpuScheduled r = apply_default_gpu_schedule(rows, GpuLimits{}, "row_sum");
  EXPECT_EQ(r.report.summary(), "sum: gpu.reduction.serial");
  EXPECT_EQ(local_buffers(r.func), std::vector<std::string>{"B_local"});
  expect_same(rows, r.func, {{300, 8}, {300}});
}

}  // namespace
}  // namespace relax::tir
