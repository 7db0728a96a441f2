#include "relax/kernel/lower.h"

#include <gtest/gtest.h>

#include <cmath>

#include "interp_test_util.h"
#include "relax/op/compute.h"
#include "relax/tir/intrin.h"
#include "relax/tir/stmt_functor.h"
#include "../tir/tir_fixtures.h"

namespace relax::tir {
namespace {

using testing::f32_array;
using testing::kF32;
using testing::random_floats;
using testing::values_of;

int count_blocks(const Stmt& s) {
  int n = 0;
  post_order_visit(s, [&](const Stmt& x) { n += x.is<Block>() || x.is<BlockRealize>(); });
  return n;
}

bool has_problem(const std::vector<std::string>& problems, const std::string& needle) {
  for (const auto& p : problems)
    if (p.find(needle) != std::string::npos) return true;
  return false;
}

std::string joined(const std::vector<std::string>& problems) {
  std::string s;
  for (const auto& p : problems) s += p + "\n";
  return s;
}

// ---- Structure of the lowered form.

TEST(Lower, MatmulBlockBecomesLoopsWithGuardedInit) {
  testing::Matmul m;
  Ref<PrimFunc> f = lower(m.func);
  EXPECT_EQ(count_blocks(f->body), 0);
  EXPECT_TRUE(verify_lowered(f).empty());
  // for i: for j: for k: { if (k == 0) C[i * 16 + j] = 0; C[...] = ... }
  auto* i = f->body.as<For>();
  ASSERT_NE(i, nullptr);
  auto* j = i->body.as<For>();
  ASSERT_NE(j, nullptr);
  auto* k = j->body.as<For>();
  ASSERT_NE(k, nullptr);
  auto* seq = k->body.as<SeqStmt>();
  ASSERT_NE(seq, nullptr);
  ASSERT_EQ(seq->seq.size(), 2u);
  auto* guard = seq->seq[0].as<IfThenElse>();
  ASSERT_NE(guard, nullptr);
  auto* cond = guard->condition.as<EQ>();
  ASSERT_NE(cond, nullptr);
  EXPECT_TRUE(cond->a.same_as(k->loop_var));
  auto* init = guard->then_case.as<BufferStore>();
  ASSERT_NE(init, nullptr);
  EXPECT_EQ(init->buffer->ndim(), 1u);
  EXPECT_TRUE(init->buffer->data.same_as(m.C->data));  // same memory, flat view
  EXPECT_TRUE(is_const_int(init->buffer->shape[0], 256));
  // The buffer map keeps the 2-D parameter buffers.
  EXPECT_TRUE(f->param_buffer(2).same_as(m.C));
}

TEST(Lower, PredicateBecomesIfAndAllocBuffersBecomeAllocates) {
  Ref<Buffer> A = decl_buffer({int_imm(10)}, kF32, "A");
  Ref<Buffer> T = decl_buffer({int_imm(2), int_imm(5)}, kF32, "T");
  Ref<Var> i = var("i"), vi = var("vi");
  // for i in range(12): block(vi = i) where i < 10: A[vi] = 1
  auto inner = make_ref<Block>(
      "b", std::vector<Ref<IterVar>>{make_iter_var(vi, int_imm(12), IterVarType::kSpatial)},
      std::vector<BufferRegion>{}, std::vector<BufferRegion>{BufferRegion::from_point(A, {vi})},
      buffer_store(A, float_imm(1), {vi}));
  Stmt loop =
      make_ref<For>(i, int_imm(0), int_imm(12), ForKind::kSerial,
                    make_ref<BlockRealize>(std::vector<PrimExpr>{i}, lt(i, int_imm(10)), inner));
  auto root =
      make_ref<Block>("root", std::vector<Ref<IterVar>>{}, std::vector<BufferRegion>{},
                      std::vector<BufferRegion>{}, loop, Stmt(), std::vector<Ref<Buffer>>{T});
  Ref<PrimFunc> f = lower(make_prim_func({A}, block_realize({}, root)));
  auto* alloc = f->body.as<Allocate>();
  ASSERT_NE(alloc, nullptr);
  EXPECT_TRUE(alloc->buffer_var.same_as(T->data));
  ASSERT_EQ(alloc->extents.size(), 1u);
  EXPECT_TRUE(is_const_int(alloc->extents[0], 10));
  auto* for_i = alloc->body.as<For>();
  ASSERT_NE(for_i, nullptr);
  EXPECT_TRUE(for_i->body.is<IfThenElse>());

  runtime::NDArray a = f32_array({10}, std::vector<float>(10, 0.f));
  interpret(f, {a});
  for (float x : values_of<float>(a)) EXPECT_EQ(x, 1.f);
}

TEST(Lower, MatchBufferAccessesTheSourceAtTheRegionOffset) {
  Ref<Buffer> A = decl_buffer({int_imm(4), int_imm(4)}, kF32, "A");
  Ref<Var> m = var("m");
  Ref<Buffer> sub = decl_buffer({m, m}, kF32, "sub");
  // block: sub = match_buffer(A[1:3, 2:4]); for x, y < m: sub[x, y] = 7
  Stmt body = serial_for("x", PrimExpr(m), [&](const Ref<Var>& x) {
    return serial_for("y", PrimExpr(m), [&](const Ref<Var>& y) {
      return buffer_store(sub, float_imm(7), {x, y});
    });
  });
  MatchBufferRegion mb{sub, BufferRegion{A,
                                         {Range::from_min_extent(int_imm(1), int_imm(2)),
                                          Range::from_min_extent(int_imm(2), int_imm(2))}}};
  auto blk = make_ref<Block>("m", std::vector<Ref<IterVar>>{}, std::vector<BufferRegion>{},
                             std::vector<BufferRegion>{}, body, Stmt(), std::vector<Ref<Buffer>>{},
                             std::vector<MatchBufferRegion>{mb});
  Ref<PrimFunc> f = lower(make_prim_func({A}, block_realize({}, blk)));
  runtime::NDArray a = f32_array({4, 4}, std::vector<float>(16, 0.f));
  interpret(f, {a});
  auto v = values_of<float>(a);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c)
      EXPECT_EQ(v[size_t(r * 4 + c)], (r >= 1 && r < 3 && c >= 2) ? 7.f : 0.f) << r << c;
}

TEST(Lower, FlattenTurnsARampIntoAFlatRamp) {
  Ref<Buffer> A = decl_buffer({int_imm(3), int_imm(4)}, kF32, "A");
  Ref<Buffer> B = decl_buffer({int_imm(3), int_imm(4)}, kF32, "B");
  // for i: B[i, 0:4] = A[i, 0:4] * 2
  Stmt body = serial_for("i", int_imm(3), [&](const Ref<Var>& i) {
    PrimExpr idx = make_ref<Ramp>(int_imm(0), int_imm(1), 4);
    PrimExpr v = buffer_load(A, {i, idx}) * PrimExpr(make_ref<Broadcast>(float_imm(2), 4));
    return buffer_store(B, v, {i, idx});
  });
  Ref<PrimFunc> f = lower(make_prim_func({A, B}, body));
  auto* loop = f->body.as<For>();
  ASSERT_NE(loop, nullptr);
  auto* store = loop->body.as<BufferStore>();
  ASSERT_NE(store, nullptr);
  auto* ramp = store->indices[0].as<Ramp>();
  ASSERT_NE(ramp, nullptr);
  EXPECT_EQ(ramp->lanes, 4);
  std::vector<float> in = random_floats(12, 1);
  runtime::NDArray a = f32_array({3, 4}, in), b = f32_array({3, 4}, std::vector<float>(12));
  interpret(f, {a, b});
  auto out = values_of<float>(b);
  for (size_t x = 0; x < 12; ++x) EXPECT_EQ(out[x], in[x] * 2);
}

TEST(Lower, SimplifyDropsUnitLoopsAndDecidedConditions) {
  Ref<Buffer> A = decl_buffer({int_imm(4)}, kF32, "A");
  // for i in range(1): for j in range(4): if (i == 0) A[i * 4 + j] = 1
  Stmt body = serial_for("i", int_imm(1), [&](const Ref<Var>& i) {
    return serial_for("j", int_imm(4), [&](const Ref<Var>& j) {
      return make_ref<IfThenElse>(eq(i, int_imm(0)), buffer_store(A, float_imm(1), {i * 4 + j}));
    });
  });
  Ref<PrimFunc> f = lower(make_prim_func({A}, body));
  auto* loop = f->body.as<For>();
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->loop_var->name, "j");
  auto* store = loop->body.as<BufferStore>();
  ASSERT_NE(store, nullptr);
  EXPECT_TRUE(store->indices[0].same_as(loop->loop_var));
}

// ---- The verifier.

TEST(VerifyLowered, ReportsBlocksAndUnflattenedBuffers) {
  testing::Matmul m;
  auto problems = verify_lowered(m.func);
  EXPECT_TRUE(has_problem(problems, "block matmul is left")) << joined(problems);
  problems = verify_lowered(lower_blocks(m.func));
  EXPECT_TRUE(has_problem(problems, "is not flat")) << joined(problems);
  EXPECT_TRUE(verify_lowered(flatten_buffers(lower_blocks(m.func))).empty());
}

TEST(VerifyLowered, ReportsUndefinedAndTwiceDefinedVariables) {
  Ref<Buffer> A = decl_buffer({int_imm(8)}, kF32, "A");
  Ref<Var> stray = var("stray");
  Stmt body = serial_for("i", int_imm(8),
                         [&](const Ref<Var>& i) { return buffer_store(A, float_imm(0), {stray}); });
  auto problems = verify_lowered(make_prim_func({A}, body));
  EXPECT_TRUE(has_problem(problems, "variable stray is used but not defined")) << joined(problems);

  Ref<Var> i = var("i");
  Stmt inner = make_ref<For>(i, int_imm(0), int_imm(2), ForKind::kSerial,
                             buffer_store(A, float_imm(0), {i}));
  Stmt outer = make_ref<For>(i, int_imm(0), int_imm(2), ForKind::kSerial, inner);
  problems = verify_lowered(make_prim_func({A}, outer));
  EXPECT_TRUE(has_problem(problems, "variable i is defined twice")) << joined(problems);
}

TEST(VerifyLowered, ReportsOutOfBoundsAccessesUnlessGuarded) {
  Ref<Buffer> A = decl_buffer({int_imm(16)}, kF32, "A");
  Stmt off_by_one = serial_for(
      "i", int_imm(17), [&](const Ref<Var>& i) { return buffer_store(A, float_imm(0), {i}); });
  auto problems = verify_lowered(make_prim_func({A}, off_by_one));
  EXPECT_TRUE(
      has_problem(problems, "store to A at i reaches [0, 16], out of bounds of its extent 16"))
      << joined(problems);

  Stmt negative = serial_for("i", int_imm(4), [&](const Ref<Var>& i) {
    return buffer_store(A, buffer_load(A, {i - 1}), {i});
  });
  problems = verify_lowered(make_prim_func({A}, negative));
  EXPECT_TRUE(has_problem(problems, "load from A")) << joined(problems);

  Stmt guarded = serial_for("i", int_imm(17), [&](const Ref<Var>& i) {
    return make_ref<IfThenElse>(lt(i, int_imm(16)), buffer_store(A, float_imm(0), {i}));
  });
  EXPECT_TRUE(verify_lowered(make_prim_func({A}, guarded)).empty());
}

TEST(VerifyLowered, ReportsMemoryThatIsNeitherAParameterNorAllocated) {
  Ref<Buffer> A = decl_buffer({int_imm(4)}, kF32, "A");
  Ref<Buffer> T = decl_buffer({int_imm(4)}, kF32, "T");
  Stmt body = serial_for("i", int_imm(4), [&](const Ref<Var>& i) {
    return buffer_store(A, buffer_load(T, {i}), {i});
  });
  auto problems = verify_lowered(make_prim_func({A}, body));
  EXPECT_TRUE(has_problem(problems, "neither a parameter nor allocated")) << joined(problems);
  Stmt alloc = make_ref<Allocate>(T->data, kF32, std::vector<PrimExpr>{int_imm(2), int_imm(2)},
                                  "global", body);
  problems = verify_lowered(make_prim_func({A}, alloc));
  EXPECT_TRUE(has_problem(problems, "has 2 extents")) << joined(problems);
  EXPECT_FALSE(has_problem(problems, "neither a parameter"));
}

// ---- End to end: DSL -> create_prim_func -> lower -> interpreter, against hand-written loops.

TEST(LowerAndRun, ElementwiseAddWithBroadcastSymbolicN) {
  Ref<Var> n = var("n");
  te::Tensor A = te::placeholder({n, 4}, kF32, "A");
  te::Tensor B = te::placeholder({4}, kF32, "B");
  te::Tensor C = te::compute(
      {n, 4}, [&](const auto& i) { return A(i[0], i[1]) + B(i[1]); }, "C");
  Ref<PrimFunc> f = lower(te::create_prim_func({A, B, C}));
  for (int64_t rows : {1, 3, 7}) {
    std::vector<float> a = random_floats(size_t(rows * 4), 2), b = random_floats(4, 3);
    runtime::NDArray c = f32_array({rows, 4}, std::vector<float>(size_t(rows * 4)));
    interpret(f, {f32_array({rows, 4}, a), f32_array({4}, b), c});
    auto out = values_of<float>(c);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t x = 0; x < 4; ++x)
        EXPECT_EQ(out[size_t(r * 4 + x)], a[size_t(r * 4 + x)] + b[size_t(x)]);
  }
}

TEST(LowerAndRun, MatmulSymbolicN) {
  Ref<Var> n = var("n");
  te::Tensor A = te::placeholder({n, 5}, kF32, "A");
  te::Tensor B = te::placeholder({5, 3}, kF32, "B");
  te::Axis k = te::reduce_axis(5, "k");
  te::Tensor C = te::compute(
      {n, 3}, [&](const auto& i) { return te::sum(A(i[0], k) * B(k, i[1]), {k}); }, "C");
  Ref<PrimFunc> f = lower(te::create_prim_func({A, B, C}));
  const int64_t rows = 4;
  std::vector<float> a = random_floats(rows * 5, 4), b = random_floats(15, 5);
  // Garbage in the output: the init must overwrite it.
  runtime::NDArray c = f32_array({rows, 3}, std::vector<float>(rows * 3, 123.f));
  interpret(f, {f32_array({rows, 5}, a), f32_array({5, 3}, b), c});
  auto out = values_of<float>(c);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t col = 0; col < 3; ++col) {
      float acc = 0;
      for (int64_t kk = 0; kk < 5; ++kk) acc += a[size_t(r * 5 + kk)] * b[size_t(kk * 3 + col)];
      EXPECT_FLOAT_EQ(out[size_t(r * 3 + col)], acc);
    }
}

TEST(LowerAndRun, SoftmaxSymbolicN) {
  Ref<Var> n = var("n");
  Ref<PrimFunc> f = lower(testing::softmax_prim_func(n, 8).func);
  const int64_t rows = 3;
  std::vector<float> x = random_floats(rows * 8, 6, -5, 5);
  runtime::NDArray y = f32_array({rows, 8}, std::vector<float>(rows * 8));
  interpret(f, {f32_array({rows, 8}, x), y});
  auto out = values_of<float>(y);
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY;
    for (int64_t c = 0; c < 8; ++c) m = std::max(m, x[size_t(r * 8 + c)]);
    float sum = 0;
    for (int64_t c = 0; c < 8; ++c) sum += std::exp(x[size_t(r * 8 + c)] - m);
    for (int64_t c = 0; c < 8; ++c)
      EXPECT_NEAR(out[size_t(r * 8 + c)], std::exp(x[size_t(r * 8 + c)] - m) / sum, 1e-6);
  }
}

TEST(LowerAndRun, ArgmaxKeepsTheFirstMaximum) {
  te::Tensor X = te::placeholder({3, 4}, kF32, "X");
  te::Axis k = te::reduce_axis(4, "k");
  auto outs = te::compute_multi(
      {3}, [&](const auto& i) { return te::argmax(X(i[0], k), k); }, "argmax");
  Ref<PrimFunc> f = lower(te::create_prim_func({X, outs[0], outs[1]}));
  const float lowest = -3.4028235e38f;
  std::vector<float> x = {1,      5,      5,      2,  //
                          lowest, lowest, lowest, lowest, -1, -3, -0.5f, -2};
  runtime::NDArray idx = testing::array<int64_t>({3}, DataType::Int(64), {9, 9, 9});
  runtime::NDArray val = f32_array({3}, {0, 0, 0});
  interpret(f, {f32_array({3, 4}, x), idx, val});
  EXPECT_EQ(values_of<int64_t>(idx), (std::vector<int64_t>{1, 0, 2}));
  EXPECT_EQ(values_of<float>(val), (std::vector<float>{5, lowest, -0.5f}));
}

TEST(LowerAndRun, PaddedConvolutionWithConditionalReduction) {
  te::Tensor A = te::placeholder({6}, kF32, "A");
  te::Axis k = te::reduce_axis(3, "k");
  te::Tensor B = te::compute(
      {6},
      [&](const auto& i) {
        PrimExpr j = i[0] + k - 1;
        PrimExpr in = logical_and(ge(j, int_imm(0)), lt(j, int_imm(6)));
        return te::sum(te::if_then_else(in, A(j), float_imm(0)), {k},
                       ne(PrimExpr(k.var), int_imm(1)));
      },
      "B");
  Ref<PrimFunc> f = lower(te::create_prim_func({A, B}));
  std::vector<float> a = {1, 2, 3, 4, 5, 6};
  runtime::NDArray b = f32_array({6}, std::vector<float>(6));
  interpret(f, {f32_array({6}, a), b});
  auto out = values_of<float>(b);
  for (int i = 0; i < 6; ++i) {
    float left = i > 0 ? a[size_t(i - 1)] : 0, right = i < 5 ? a[size_t(i + 1)] : 0;
    EXPECT_EQ(out[size_t(i)], left + right) << i;
  }
}

TEST(LowerAndRun, SymbolicScalarParameter) {
  Ref<Var> n = var("n");
  te::Tensor A = te::placeholder({n * 2}, kF32, "A");
  te::Tensor B = te::compute(
      {n}, [&](const auto& i) { return A(i[0] * 2) + A(i[0] * 2 + 1); }, "B");
  Ref<PrimFunc> f = lower(te::create_prim_func({A, B}));
  ASSERT_EQ(f->params.size(), 2u);  // n is B's whole dimension
  runtime::NDArray b = f32_array({3}, {0, 0, 0});
  interpret(f, {f32_array({6}, {1, 2, 3, 4, 5, 6}), b});
  EXPECT_EQ(values_of<float>(b), (std::vector<float>{3, 7, 11}));

  te::Tensor C = te::compute(
      {n * 2}, [&](const auto& i) { return A(i[0]) * A(i[0]); }, "C");
  Ref<PrimFunc> g = lower(te::create_prim_func({A, C}));
  ASSERT_EQ(g->params.size(), 3u);
  runtime::NDArray c = f32_array({4}, {0, 0, 0, 0});
  interpret(g, {f32_array({4}, {1, 2, 3, 4}), c, int64_t(2)});
  EXPECT_EQ(values_of<float>(c), (std::vector<float>{1, 4, 9, 16}));
  // A scalar argument that disagrees with the shapes.
  EXPECT_THROW(interpret(g, {f32_array({4}, {1, 2, 3, 4}), c, int64_t(3)}), relax::Error);
}

}  // namespace
}  // namespace relax::tir
