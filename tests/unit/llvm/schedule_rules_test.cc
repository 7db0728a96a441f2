// The LLVM backend's default CPU schedule (plugins/backends/llvm/codegen/schedule_rules.h),
// reached through the codegen plugin's relax.backend.llvm.default_schedule: for each kernel the
// scheduled function has the parallel / vectorized loops the rules promise, still lowers and
// verifies, and computes bit for bit what the unscheduled function computes in the interpreter.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "relax/text/parser.h"
#include "relax/runtime/module.h"
#include "relax/runtime/registry.h"
#include "relax/op/compute.h"
#include "relax/kernel/interpreter.h"
#include "relax/tir/intrin.h"
#include "relax/kernel/lower.h"
#include "relax/tir/stmt_functor.h"
#include "relax/transform/plugin.h"
#include "schedule_test_util.h"

namespace relax::tir {
namespace {

using runtime::NDArray;
using runtime::Value;

constexpr DataType kF32 = DataType::Float(32);

using DefaultSchedule = ScheduleTest;

bool has_block(const Ref<PrimFunc>& f, const std::string& name) {
  bool found = false;
  post_order_visit(f->body, [&](const Stmt& s) {
    if (auto* b = s.as<Block>(); b && b->name == name) found = true;
  });
  return found;
}

TEST_F(DefaultSchedule, ElementwiseAddIsFusedSplitParallelAndVectorized) {
  te::Tensor A = te::placeholder({int_imm(64), int_imm(100)}, kF32, "A");
  te::Tensor B = te::placeholder({int_imm(64), int_imm(100)}, kF32, "B");
  te::Tensor C = te::compute(
      {int_imm(64), int_imm(100)}, [&](const auto& i) { return A(i[0], i[1]) + B(i[0], i[1]); },
      "C");
  Ref<PrimFunc> f = te::create_prim_func({A, B, C});
  Ref<PrimFunc> s = schedule(f);
  auto par = loops_of_kind(s, ForKind::kParallel);
  auto vec = loops_of_kind(s, ForKind::kVectorized);
  ASSERT_EQ(par.size(), 1u) << to_string(s);
  ASSERT_EQ(vec.size(), 1u) << to_string(s);
  EXPECT_EQ(extent_of(par[0]), 64 * 100 / 8);  // one fused loop, 8 f32 lanes
  EXPECT_EQ(extent_of(vec[0]), 8);
  EXPECT_TRUE(loops_of_kind(s, ForKind::kSerial).empty()) << to_string(s);
  expect_same_results(f, s,
                      {random_f32({64, 100}, 1), random_f32({64, 100}, 2), poisoned_f32({64, 100})});
}

TEST_F(DefaultSchedule, ElementwiseWithSymbolicExtentSplitsWithAPredicate) {
  Ref<Var> n = var("n");
  te::Tensor A = te::placeholder({n, int_imm(3)}, kF32, "A");
  te::Tensor C = te::compute(
      {n, int_imm(3)}, [&](const auto& i) { return exp(A(i[0], i[1])); }, "C");
  Ref<PrimFunc> f = te::create_prim_func({A, C});
  Ref<PrimFunc> s = schedule(f);
  auto par = loops_of_kind(s, ForKind::kParallel);
  auto vec = loops_of_kind(s, ForKind::kVectorized);
  ASSERT_EQ(par.size(), 1u) << to_string(s);
  ASSERT_EQ(vec.size(), 1u) << to_string(s);
  EXPECT_EQ(extent_of(par[0]), -1);  // ceildiv(n * 3, 8)
  EXPECT_EQ(extent_of(vec[0]), 8);
  for (int64_t len : {1, 5, 37})
    expect_same_results(f, s, {random_f32({len, 3}, 3), poisoned_f32({len, 3})});
}

TEST_F(DefaultSchedule, RowReductionIsParallelOverRowsOnly) {
  Ref<Var> n = var("n");
  te::Tensor A = te::placeholder({n, int_imm(77)}, kF32, "A");
  te::Axis k = te::reduce_axis(77, "k");
  te::Tensor S = te::compute(
      {n}, [&](const auto& i) { return te::sum(A(i[0], k), {k}); }, "S");
  Ref<PrimFunc> f = te::create_prim_func({A, S});
  Ref<PrimFunc> s = schedule(f);
  auto par = loops_of_kind(s, ForKind::kParallel);
  ASSERT_EQ(par.size(), 1u) << to_string(s);
  EXPECT_TRUE(par[0]->extent.same_as(n)) << to_string(s);
  EXPECT_EQ(loops_of_kind(s, ForKind::kSerial).size(), 1u) << "the reduce loop stays serial";
  for (int64_t len : {1, 6}) expect_same_results(f, s, {random_f32({len, 77}, 4), poisoned_f32({len})});
}

TEST_F(DefaultSchedule, ReductionToAScalarStaysSerial) {
  // No spatial loop: running the reduce loop in parallel would race (it would need rfactor).
  te::Tensor A = te::placeholder({int_imm(50)}, kF32, "A");
  te::Axis k = te::reduce_axis(50, "k");
  te::Tensor S = te::compute(
      {}, [&](const auto&) { return te::sum(A(k), {k}); }, "S");
  Ref<PrimFunc> f = te::create_prim_func({A, S});
  Ref<PrimFunc> s = schedule(f);
  EXPECT_TRUE(loops_of_kind(s, ForKind::kParallel).empty()) << to_string(s);
  EXPECT_TRUE(loops_of_kind(s, ForKind::kVectorized).empty()) << to_string(s);
  expect_same_results(f, s, {random_f32({50}, 5), poisoned_f32({})});
}

Ref<PrimFunc> batch_matmul(const PrimExpr& b, int64_t n, int64_t m, int64_t k) {
  te::Tensor A = te::placeholder({b, int_imm(n), int_imm(k)}, kF32, "A");
  te::Tensor B = te::placeholder({b, int_imm(k), int_imm(m)}, kF32, "B");
  te::Axis r = te::reduce_axis(k, "r");
  te::Tensor C = te::compute(
      {b, int_imm(n), int_imm(m)},
      [&](const auto& i) { return te::sum(A(i[0], i[1], r) * B(i[0], r, i[2]), {r}); }, "C");
  return te::create_prim_func({A, B, C});
}

Ref<PrimFunc> matmul(const PrimExpr& m, int64_t k, int64_t n) {
  te::Tensor A = te::placeholder({m, int_imm(k)}, kF32, "A");
  te::Tensor B = te::placeholder({int_imm(k), int_imm(n)}, kF32, "B");
  te::Axis r = te::reduce_axis(k, "r");
  te::Tensor C = te::compute(
      {m, int_imm(n)}, [&](const auto& i) { return te::sum(A(i[0], r) * B(r, i[1]), {r}); }, "C");
  return te::create_prim_func({A, B, C});
}

TEST_F(DefaultSchedule, MatmulIsRegisterBlocked) {
  Ref<PrimFunc> f = matmul(int_imm(64), 48, 80);
  Ref<PrimFunc> s = schedule(f, "mr=4,nr=16,kc=32,mc=16");
  auto par = loops_of_kind(s, ForKind::kParallel);
  auto vec = loops_of_kind(s, ForKind::kVectorized);
  auto unrolled = loops_of_kind(s, ForKind::kUnrolled);
  ASSERT_EQ(par.size(), 1u) << to_string(s);
  // 80 columns in 5 panels of 16; 64 rows in 4 blocks of 4 tiles of 4 rows.
  EXPECT_EQ(extent_of(par[0]), 5 * 4) << to_string(s);
  ASSERT_EQ(vec.size(), 2u) << "the init's column loop and the update's: " << to_string(s);
  EXPECT_EQ(extent_of(vec[0]), 16);
  EXPECT_EQ(extent_of(vec[1]), 16);
  ASSERT_EQ(unrolled.size(), 2u) << "the init's row-in-tile loop and the update's: "
                                 << to_string(s);
  EXPECT_EQ(extent_of(unrolled[1]), 4);
  // k = 48 in chunks of 24 (the divisor of 48 in [kc / 2, kc]): ko, tile, k in chunk.
  std::vector<int64_t> serial;
  for (const For* l : loops_of_kind(s, ForKind::kSerial)) serial.push_back(extent_of(l));
  std::sort(serial.begin(), serial.end());
  EXPECT_EQ(serial, (std::vector<int64_t>{2, 4, 4, 24})) << "ko, the init's tile loop and the "
                                                          << "update's, k in chunk: "
                                                          << to_string(s);
  EXPECT_TRUE(has_block(s, "C_init")) << to_string(s);
  expect_same_results(f, s, {random_f32({64, 48}, 6), random_f32({48, 80}, 7), poisoned_f32({64, 80})});
}

TEST_F(DefaultSchedule, MatmulKernelKeepsItsTileInRegistersWithFusedMultiplyAdds) {
  // The codegen's side of the register-blocked rule: the tile lives in vector phis across the
  // k loop (promote_accumulator + alias scopes), and mul/add may contract into FMAs.
  runtime::PackedFunc emit_ir = runtime::Registry::get("relax.backend.llvm.emit_ir");
  ASSERT_TRUE(emit_ir.defined());
  Ref<PrimFunc> f = matmul(int_imm(64), 48, 80);
  std::string ir = emit_ir(std::vector<Value>{Value("mr=4,nr=16"), Value("mm"),
                                              Value::from_object(f)})
                       .as_string();
  EXPECT_NE(ir.find("phi <16 x float>"), std::string::npos) << ir;
  EXPECT_NE(ir.find("fmul contract <16 x float>"), std::string::npos) << ir;
  EXPECT_NE(ir.find("!alias.scope"), std::string::npos) << ir;
}

TEST_F(DefaultSchedule, OneColumnTileKeepsItsRowsInRegisters) {
  // One output column (a convolution with one output channel) over symbolic rows: no vector
  // loop, eight guarded rows. The rows still accumulate in scalar registers across k (phis),
  // not through memory under the guard.
  runtime::PackedFunc emit_ir = runtime::Registry::get("relax.backend.llvm.emit_ir");
  ASSERT_TRUE(emit_ir.defined());
  Ref<PrimFunc> f = matmul(var("m"), 32, 1);
  std::string ir = emit_ir(std::vector<Value>{Value("mr=8,nr=16"), Value("gemv"),
                                              Value::from_object(f)})
                       .as_string();
  EXPECT_NE(ir.find("phi float"), std::string::npos) << ir;
  Ref<PrimFunc> s = schedule(f, "mr=8,nr=16");
  for (int64_t rows : {1, 7, 13, 40})
    expect_same_results(
        f, s, {random_f32({rows, 32}, 24), random_f32({32, 1}, 25), poisoned_f32({rows, 1})});
}

TEST_F(DefaultSchedule, MatmulTailsAndSymbolicRowsArePredicated) {
  // No tile size divides 37 rows or 29 columns: the splits add predicates (masked vector
  // lanes); k = 300 goes in chunks of 150.
  Ref<PrimFunc> f = matmul(int_imm(37), 300, 29);
  Ref<PrimFunc> s = schedule(f, "mr=4,nr=16");
  EXPECT_EQ(loops_of_kind(s, ForKind::kUnrolled).size(), 2u) << to_string(s);
  EXPECT_EQ(loops_of_kind(s, ForKind::kVectorized).size(), 2u) << to_string(s);
  expect_same_results(f, s,
                      {random_f32({37, 300}, 20), random_f32({300, 29}, 21), poisoned_f32({37, 29})});
  Ref<PrimFunc> g = matmul(var("m"), 20, 24);
  Ref<PrimFunc> t = schedule(g, "mr=6,nr=8");
  EXPECT_EQ(loops_of_kind(t, ForKind::kParallel).size(), 1u) << to_string(t);
  for (int64_t rows : {1, 7, 13})
    expect_same_results(g, t,
                        {random_f32({rows, 20}, 22), random_f32({20, 24}, 23), poisoned_f32({rows, 24})});
}

TEST_F(DefaultSchedule, ColumnsNoLaneMultipleDividesTakeTheLargestDivisorNotAPredicate) {
  // 28 columns (ResNet's 28 x 28 stage), nr = 16, 8 lanes: neither 8 nor 16 divides 28, so the
  // panel is 14 (a full vector and a partial one) rather than a predicated 16; the rows, 8 of
  // them per tile, need no predicate either.
  Ref<PrimFunc> f = matmul(int_imm(16), 20, 28);
  Ref<PrimFunc> s = schedule(f, "mr=8,nr=16");
  auto vec = loops_of_kind(s, ForKind::kVectorized);
  ASSERT_EQ(vec.size(), 2u) << to_string(s);
  EXPECT_EQ(extent_of(vec[0]), 14) << to_string(s);
  EXPECT_EQ(extent_of(vec[1]), 14) << to_string(s);
  bool predicated = false;
  post_order_visit(s->body, [&](const Stmt& st) {
    if (auto* r = st.as<BlockRealize>(); r && !is_const_int(r->predicate, 1)) predicated = true;
  });
  EXPECT_FALSE(predicated) << to_string(s);
  expect_same_results(f, s, {random_f32({16, 20}, 30), random_f32({20, 28}, 31), poisoned_f32({16, 28})});
}

TEST_F(DefaultSchedule, SequenceFirstMatmulBlocksTheConstantRowsNotTheSymbolicBatch) {
  // (seq, batch, hidden) x (hidden, n), BERT's layout: both seq and batch could be the rows;
  // the symbolic batch (1 at run time) would leave one valid row per tile, so the 32 constant
  // sequence rows are blocked instead and no split needs a predicate.
  PrimExpr b = var("b");
  te::Tensor X = te::placeholder({int_imm(32), b, int_imm(20)}, kF32, "X");
  te::Tensor W = te::placeholder({int_imm(20), int_imm(24)}, kF32, "W");
  te::Axis k = te::reduce_axis(20, "k");
  te::Tensor Y = te::compute(
      {int_imm(32), b, int_imm(24)},
      [&](const auto& i) { return te::sum(X(i[0], i[1], k) * W(k, i[2]), {k}); }, "Y");
  Ref<PrimFunc> f = te::create_prim_func({X, W, Y});
  Ref<PrimFunc> s = schedule(f, "mr=8,nr=8");
  auto unrolled = loops_of_kind(s, ForKind::kUnrolled);
  ASSERT_EQ(unrolled.size(), 2u) << to_string(s);
  EXPECT_EQ(extent_of(unrolled[1]), 8) << to_string(s);
  bool predicated = false;
  post_order_visit(s->body, [&](const Stmt& st) {
    if (auto* r = st.as<BlockRealize>(); r && !is_const_int(r->predicate, 1)) predicated = true;
  });
  EXPECT_FALSE(predicated) << to_string(s);
  for (int64_t batch : {1, 3})
    expect_same_results(f, s,
                        {random_f32({32, batch, 20}, 40), random_f32({20, 24}, 41),
                         poisoned_f32({32, batch, 24})});
}

TEST_F(DefaultSchedule, Conv2dIsRegisterBlockedOverRowsAndVectorizedAlongTheWidth) {
  // NCHW conv2d 3x3: rows are output rows, columns the output width (contiguous), k the
  // input channels (kh, kw inside it).
  te::Tensor X = te::placeholder({int_imm(1), int_imm(3), int_imm(12), int_imm(20)}, kF32, "X");
  te::Tensor W = te::placeholder({int_imm(4), int_imm(3), int_imm(3), int_imm(3)}, kF32, "W");
  te::Axis c = te::reduce_axis(3, "c"), kh = te::reduce_axis(3, "kh"),
           kw = te::reduce_axis(3, "kw");
  te::Tensor Y = te::compute(
      {int_imm(1), int_imm(4), int_imm(10), int_imm(18)},
      [&](const auto& i) {
        return te::sum(X(i[0], c, i[2] + PrimExpr(kh), i[3] + PrimExpr(kw)) * W(i[1], c, kh, kw),
                       {c, kh, kw});
      },
      "Y");
  Ref<PrimFunc> f = te::create_prim_func({X, W, Y});
  Ref<PrimFunc> s = schedule(f, "mr=4,nr=16");
  EXPECT_EQ(loops_of_kind(s, ForKind::kParallel).size(), 1u) << to_string(s);
  EXPECT_EQ(loops_of_kind(s, ForKind::kUnrolled).size(), 2u) << to_string(s);
  EXPECT_EQ(loops_of_kind(s, ForKind::kVectorized).size(), 2u) << to_string(s);
  expect_same_results(f, s,
                      {random_f32({1, 3, 12, 20}, 24), random_f32({4, 3, 3, 3}, 25),
                       poisoned_f32({1, 4, 10, 18})});
}

TEST_F(DefaultSchedule, RegisterBlockingOffFallsBackToTheTiledRule) {
  Ref<PrimFunc> f = matmul(int_imm(64), 48, 80);
  Ref<PrimFunc> s = schedule(f, "register-blocking=0");
  auto par = loops_of_kind(s, ForKind::kParallel);
  auto vec = loops_of_kind(s, ForKind::kVectorized);
  ASSERT_EQ(par.size(), 1u) << to_string(s);
  // 64 rows in tiles of 32, 80 columns in tiles of 20 (the divisor of 80 closest to 32).
  EXPECT_EQ(extent_of(par[0]), 2 * 4) << to_string(s);
  ASSERT_EQ(vec.size(), 2u) << "the init's column loop and the update's: " << to_string(s);
  EXPECT_EQ(extent_of(vec[0]), 20);
  EXPECT_TRUE(loops_of_kind(s, ForKind::kUnrolled).empty()) << to_string(s);
  EXPECT_TRUE(has_block(s, "C_init")) << to_string(s);
  expect_same_results(f, s, {random_f32({64, 48}, 6), random_f32({48, 80}, 7), poisoned_f32({64, 80})});
}

TEST_F(DefaultSchedule, BatchMatmulWithSymbolicBatchIsParallelOverBatchAndTiles) {
  Ref<Var> b = var("b");
  Ref<PrimFunc> f = batch_matmul(b, 40, 24, 8);
  Ref<PrimFunc> s = schedule(f);
  auto par = loops_of_kind(s, ForKind::kParallel);
  ASSERT_EQ(par.size(), 1u) << to_string(s);
  EXPECT_EQ(extent_of(par[0]), -1) << "batch x row tiles: " << to_string(s);
  EXPECT_FALSE(loops_of_kind(s, ForKind::kVectorized).empty()) << to_string(s);
  for (int64_t batch : {1, 3})
    expect_same_results(
        f, s,
        {random_f32({batch, 40, 8}, 8), random_f32({batch, 8, 24}, 9), poisoned_f32({batch, 40, 24})});
}

TEST_F(DefaultSchedule, SoftmaxSchedulesEachBlock) {
  Ref<Var> n = var("n");
  te::Tensor X = te::placeholder({n, int_imm(16)}, kF32, "X");
  te::Axis k = te::reduce_axis(16, "k");
  te::Tensor mx = te::compute(
      {n}, [&](const auto& i) { return te::max(X(i[0], k), {k}); }, "max");
  te::Tensor e = te::compute(
      {n, int_imm(16)}, [&](const auto& i) { return exp(X(i[0], i[1]) - mx(i[0])); }, "exp");
  te::Axis k2 = te::reduce_axis(16, "k2");
  te::Tensor sm = te::compute(
      {n}, [&](const auto& i) { return te::sum(e(i[0], k2), {k2}); }, "sum");
  te::Tensor Y = te::compute(
      {n, int_imm(16)}, [&](const auto& i) { return truncdiv(e(i[0], i[1]), sm(i[0])); }, "Y");
  Ref<PrimFunc> f = te::create_prim_func({X, Y});
  Ref<PrimFunc> s = schedule(f);
  // max and sum: parallel over rows; exp and divide: parallel and vectorized.
  EXPECT_EQ(loops_of_kind(s, ForKind::kParallel).size(), 4u) << to_string(s);
  EXPECT_EQ(loops_of_kind(s, ForKind::kVectorized).size(), 2u) << to_string(s);
  for (int64_t rows : {1, 7})
    expect_same_results(f, s, {random_f32({rows, 16}, 10), poisoned_f32({rows, 16})});
}

TEST_F(DefaultSchedule, BlocksThatParallelLoopsWouldRaceOnStaySerial) {
  // Both blocks claim a spatial axis the primitives would accept as parallel, but "total"
  // adds every iteration into one element and "scan" reads the element the previous iteration
  // wrote; the independent "copy" block next to them is still scheduled.
  Ref<PrimFunc> f = parse_prim_func(R"(
@T.prim_func
def f(A: T.Buffer((64,), "float32"), B: T.Buffer((1,), "float32"), C: T.Buffer((64,), "float32"), D: T.Buffer((64,), "float32")):
    for i in T.serial(64):
        with T.block("total"):
            v = T.axis.spatial(64, i)
            B[0] = B[0] + A[v]
    for i in T.serial(63):
        with T.block("scan"):
            v = T.axis.spatial(63, i)
            C[v + 1] = C[v] + A[v + 1]
    for i in T.serial(64):
        with T.block("copy"):
            v = T.axis.spatial(64, i)
            D[v] = A[v]
)");
  Ref<PrimFunc> s = schedule(f);
  EXPECT_EQ(loops_of_kind(s, ForKind::kSerial).size(), 2u) << to_string(s);
  EXPECT_EQ(loops_of_kind(s, ForKind::kParallel).size(), 1u) << to_string(s);
  EXPECT_EQ(loops_of_kind(s, ForKind::kVectorized).size(), 1u) << to_string(s);
  NDArray b = poisoned_f32({1}), c = random_f32({64}, 13);
  std::memset(b.data(), 0, b.nbytes());
  expect_same_results(f, s, {random_f32({64}, 14), b, c, poisoned_f32({64})});
}

TEST_F(DefaultSchedule, LeavesScheduledAndLoweredFunctionsAlone) {
  Ref<PrimFunc> f = batch_matmul(int_imm(2), 8, 8, 8);
  Ref<PrimFunc> s = schedule(f);
  EXPECT_FALSE(s.same_as(f));
  EXPECT_TRUE(schedule(s).same_as(s)) << "applying the rules twice changes nothing";
  Ref<PrimFunc> lowered = lower(f);
  EXPECT_TRUE(schedule(lowered).same_as(lowered)) << "a lowered function has no blocks";
}

TEST_F(DefaultSchedule, BuildAppliesItUnlessScheduleIsNone) {
  Ref<PrimFunc> f = batch_matmul(var("b"), 33, 17, 5);
  runtime::PackedFunc build = runtime::Registry::get("relax.backend.llvm.build");
  ASSERT_TRUE(build.defined());
  std::vector<NDArray> args{random_f32({2, 33, 5}, 11), random_f32({2, 5, 17}, 12),
                            poisoned_f32({2, 33, 17})};
  std::vector<InterpArg> want;
  for (const NDArray& a : args) want.emplace_back(a.copy());
  interpret(lower(f), want);
  for (const char* options : {"", "schedule=default", "schedule=none", "mr=3,nr=8,kc=2,mc=6",
                              "register-blocking=0,tile=8"}) {
    SCOPED_TRACE(options);
    runtime::Tuple lib =
        build(std::vector<Value>{Value(options), Value("bmm"), Value::from_object(f)}).as_tuple();
    const std::string& bytes = lib[1].as_string();
    runtime::Module m = runtime::load_module(
        lib[0].as_string(), {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
    NDArray out = poisoned_f32({2, 33, 17});
    m->get_function("bmm")(std::vector<Value>{Value(args[0]), Value(args[1]), Value(out)});
    EXPECT_TRUE(relax::test::tensors_close(out, std::get<NDArray>(want[2]), 0, 1e-4));
  }
  try {
    build(std::vector<Value>{Value("schedule=fast"), Value("bmm"), Value::from_object(f)});
    ADD_FAILURE() << "schedule=fast was accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("schedule=fast: expected default or none"),
              std::string::npos)
        << e.what();
  }
  try {
    build(std::vector<Value>{Value("mr=0"), Value("bmm"), Value::from_object(f)});
    ADD_FAILURE() << "mr=0 was accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("llvm target option mr=0: expected an integer in [1, 16]"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace relax::tir
