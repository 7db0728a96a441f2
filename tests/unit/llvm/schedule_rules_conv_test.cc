// The default CPU schedule of NHWC convolutions and pooling
// (plugins/backends/llvm/codegen/schedule_rules_conv.cc and the register-blocked rule), reached
// through relax.backend.llvm.default_schedule: depthwise convolution and pooling vectorise the
// channels with a few output columns unrolled, a dense NHWC conv2d register-blocks the output
// width against the output channels, and each scheduled function computes bit for bit what the
// unscheduled one computes in the interpreter.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "relax/runtime/registry.h"
#include "relax/op/compute.h"
#include "relax/kernel/interpreter.h"
#include "relax/kernel/lower.h"
#include "relax/tir/stmt_functor.h"
#include "relax/transform/plugin.h"
#include "schedule_test_util.h"

namespace relax::tir {
namespace {

using runtime::NDArray;
using runtime::Value;

constexpr DataType kF32 = DataType::Float(32);

using ConvSchedule = ScheduleTest;

/// The extents of the loops of `f` of kind `kind`, outermost first (-1: symbolic).
std::vector<int64_t> extents_of_kind(const Ref<PrimFunc>& f, ForKind kind) {
  std::vector<int64_t> out;
  post_order_visit(f->body, [&](const Stmt& s) {
    if (auto* l = s.as<For>(); l && l->kind == kind) {
      const int64_t* c = as_const_int(l->extent);
      out.insert(out.begin(), c ? *c : -1);
    }
  });
  return out;
}

bool predicated(const Ref<PrimFunc>& f) {
  bool any = false;
  post_order_visit(f->body, [&](const Stmt& st) {
    if (auto* r = st.as<BlockRealize>(); r && !is_const_int(r->predicate, 1)) any = true;
  });
  return any;
}

/// The number of buffers the blocks of `f` allocate.
size_t allocations(const Ref<PrimFunc>& f) {
  size_t n = 0;
  post_order_visit(f->body, [&](const Stmt& st) {
    if (auto* r = st.as<BlockRealize>()) n += r->block->alloc_buffers.size();
  });
  return n;
}


/// Depthwise 3x3 of stride `s` over an already padded NHWC input (what conv2d's pad stage
/// gives the reduction), HWC weights.
Ref<PrimFunc> depthwise(const PrimExpr& n, int64_t oh, int64_t ow, int64_t c, int64_t s) {
  int64_t h = (oh - 1) * s + 3, w = (ow - 1) * s + 3;
  te::Tensor X = te::placeholder({n, int_imm(h), int_imm(w), int_imm(c)}, kF32, "X");
  te::Tensor W = te::placeholder({int_imm(3), int_imm(3), int_imm(c)}, kF32, "W");
  te::Axis kh = te::reduce_axis(3, "kh"), kw = te::reduce_axis(3, "kw");
  te::Tensor Y = te::compute(
      {n, int_imm(oh), int_imm(ow), int_imm(c)},
      [&](const auto& i) {
        return te::sum(
            X(i[0], i[1] * s + PrimExpr(kh), i[2] * s + PrimExpr(kw), i[3]) * W(kh, kw, i[3]),
            {kh, kw});
      },
      "Y");
  return te::create_prim_func({X, W, Y});
}

TEST_F(ConvSchedule, DepthwiseVectorizesChannelsAndUnrollsOutputColumns) {
  // 32 channels in panels of 16 (two vectors), 12 output columns in tiles of 6 (12
  // accumulators), the taps outside both; no predicate.
  Ref<PrimFunc> f = depthwise(int_imm(1), 8, 12, 32, 1);
  Ref<PrimFunc> s = schedule(f);
  EXPECT_EQ(extents_of_kind(s, ForKind::kParallel), (std::vector<int64_t>{1 * 8 * 2 * 2}))
      << to_string(s);
  EXPECT_EQ(extents_of_kind(s, ForKind::kUnrolled), (std::vector<int64_t>{6, 6})) << to_string(s);
  EXPECT_EQ(extents_of_kind(s, ForKind::kVectorized), (std::vector<int64_t>{16, 16}))
      << "the init's channel loop and the update's: " << to_string(s);
  EXPECT_FALSE(predicated(s)) << to_string(s);
  expect_same_results(
      f, s, {random_f32({1, 10, 14, 32}, 1), random_f32({3, 3, 32}, 2), poisoned_f32({1, 8, 12, 32})});
}

TEST_F(ConvSchedule, DepthwisePadIsInlinedWhereAConvsPadIsKept) {
  // A padded stride-2 depthwise conv (pad stage, then the channel-wise reduction over it): the
  // pad's condition depends on the pixel only, so inlined it is tested once per vector of 48
  // channels (as 3 vectors of 16) and the padded copy of the input goes; a dense conv's pad
  // would be tested per multiply-add of the input channels, and stays a buffer.
  constexpr int64_t kH = 9, kW = 11, kC = 48;
  te::Tensor X = te::placeholder({int_imm(1), int_imm(kH), int_imm(kW), int_imm(kC)}, kF32, "X");
  auto pad = [&](const te::Tensor& in, int64_t c) {
    return te::compute(
        {int_imm(1), int_imm(kH + 2), int_imm(kW + 2), int_imm(c)},
        [&](const auto& i) {
          PrimExpr rows = logical_and(ge(i[1], int_imm(1)), lt(i[1], int_imm(kH + 1)));
          PrimExpr cols = logical_and(ge(i[2], int_imm(1)), lt(i[2], int_imm(kW + 1)));
          PrimExpr inside = logical_and(rows, cols);
          return te::if_then_else(inside, in(i[0], i[1] - int_imm(1), i[2] - int_imm(1), i[3]),
                                  float_imm(0, kF32));
        },
        "P");
  };
  te::Tensor P = pad(X, kC);
  te::Tensor W = te::placeholder({int_imm(3), int_imm(3), int_imm(kC)}, kF32, "W");
  te::Axis kh = te::reduce_axis(3, "kh"), kw = te::reduce_axis(3, "kw");
  te::Tensor Y = te::compute(
      {int_imm(1), int_imm(5), int_imm(6), int_imm(kC)},
      [&](const auto& i) {
        return te::sum(P(i[0], i[1] * 2 + PrimExpr(kh), i[2] * 2 + PrimExpr(kw), i[3]) *
                           W(kh, kw, i[3]),
                       {kh, kw});
      },
      "Y");
  Ref<PrimFunc> f = te::create_prim_func({X, W, Y});
  Ref<PrimFunc> s = schedule(f);
  EXPECT_EQ(allocations(s), 0u) << "the pad inlined: " << to_string(s);
  std::vector<int64_t> vec = extents_of_kind(s, ForKind::kVectorized);
  EXPECT_TRUE(std::all_of(vec.begin(), vec.end(), [](int64_t e) { return e == 16; }))
      << to_string(s);
  expect_same_results(f, s,
                      {random_f32({1, kH, kW, kC}, 11), random_f32({3, 3, kC}, 12),
                       poisoned_f32({1, 5, 6, kC})});
  // The 3 x 16 channels of each output column stay accumulators across the 9 taps (the
  // codegen promotes unrolled vectors too): a few stores of each, not one per tap.
  runtime::PackedFunc emit_ir = runtime::Registry::get("relax.backend.llvm.emit_ir");
  ASSERT_TRUE(emit_ir.defined());
  std::string ir = emit_ir(std::vector<Value>{Value("vector-bits=512"), Value("dwpad"),
                                              Value::from_object(f)})
                       .as_string();
  size_t stores = 0;
  for (size_t p = ir.find("store <16 x float>"); p != std::string::npos;
       p = ir.find("store <16 x float>", p + 1))
    ++stores;
  EXPECT_GE(stores, 3u) << ir;
  EXPECT_LE(stores, 3u * 6 * 2) << ir;
  // The dense conv over the same pad: Y2[.., o] = sum P[.., c] * W2[kh, kw, c, o].
  te::Tensor W2 = te::placeholder({int_imm(3), int_imm(3), int_imm(kC), int_imm(16)}, kF32, "W2");
  te::Axis c = te::reduce_axis(kC, "c"), kh2 = te::reduce_axis(3, "kh"),
           kw2 = te::reduce_axis(3, "kw");
  te::Tensor P2 = pad(X, kC);
  te::Tensor Y2 = te::compute(
      {int_imm(1), int_imm(kH), int_imm(kW), int_imm(16)},
      [&](const auto& i) {
        return te::sum(P2(i[0], i[1] + PrimExpr(kh2), i[2] + PrimExpr(kw2), c) *
                           W2(kh2, kw2, c, i[3]),
                       {c, kh2, kw2});
      },
      "Y2");
  Ref<PrimFunc> g = te::create_prim_func({X, W2, Y2});
  Ref<PrimFunc> t = schedule(g);
  EXPECT_EQ(allocations(t), 1u) << "the pad kept: " << to_string(t);
  expect_same_results(g, t,
                      {random_f32({1, kH, kW, kC}, 13), random_f32({3, 3, kC, 16}, 14),
                       poisoned_f32({1, kH, kW, 16})});
}

TEST_F(ConvSchedule, DepthwiseEpilogueRunsInItsTask) {
  // Depthwise 3x3, then bias and relu6 (one elementwise block): the epilogue moves into the
  // channel-wise rule's task loop, over the task's 6 output columns x 16 channels (vectorized);
  // one parallel loop in all.
  te::Tensor X = te::placeholder({int_imm(1), int_imm(10), int_imm(14), int_imm(32)}, kF32, "X");
  te::Tensor W = te::placeholder({int_imm(3), int_imm(3), int_imm(32)}, kF32, "W");
  te::Tensor B = te::placeholder({int_imm(32)}, kF32, "B");
  te::Axis kh = te::reduce_axis(3, "kh"), kw = te::reduce_axis(3, "kw");
  te::Tensor Y = te::compute(
      {int_imm(1), int_imm(8), int_imm(12), int_imm(32)},
      [&](const auto& i) {
        return te::sum(X(i[0], i[1] + PrimExpr(kh), i[2] + PrimExpr(kw), i[3]) * W(kh, kw, i[3]),
                       {kh, kw});
      },
      "Y");
  te::Tensor Z = te::compute(
      {int_imm(1), int_imm(8), int_imm(12), int_imm(32)},
      [&](const auto& i) {
        return min(max(Y(i[0], i[1], i[2], i[3]) + B(i[3]), float_imm(0, kF32)),
                   float_imm(6, kF32));
      },
      "Z");
  Ref<PrimFunc> f = te::create_prim_func({X, W, B, Z});
  Ref<PrimFunc> s = schedule(f);
  EXPECT_EQ(extents_of_kind(s, ForKind::kParallel), (std::vector<int64_t>{1 * 8 * 2 * 2}))
      << to_string(s);
  EXPECT_EQ(extents_of_kind(s, ForKind::kVectorized), (std::vector<int64_t>{16, 16, 16}))
      << "the init's, the update's and the epilogue's channel loops: " << to_string(s);
  expect_same_results(f, s,
                      {random_f32({1, 10, 14, 32}, 3), random_f32({3, 3, 32}, 4),
                       random_f32({32}, 5), poisoned_f32({1, 8, 12, 32})});
}

TEST_F(ConvSchedule, DepthwiseKernelKeepsItsAccumulatorsInRegisters) {
  runtime::PackedFunc emit_ir = runtime::Registry::get("relax.backend.llvm.emit_ir");
  ASSERT_TRUE(emit_ir.defined());
  std::string ir =
      // 256-bit vectors whatever the host has (a build sizes them for the target's ISA).
      emit_ir(std::vector<Value>{Value("vector-bits=256"), Value("dw"),
                                 Value::from_object(depthwise(int_imm(1), 8, 12, 32, 2))})
          .as_string();
  // 6 columns x 2 vectors of accumulators: stored once each (at most twice with the init),
  // not once per tap (9 x 12); every operand read by contiguous vector loads, no gathers.
  auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t p = ir.find(what); p != std::string::npos; p = ir.find(what, p + 1)) ++n;
    return n;
  };
  EXPECT_GE(count("store <16 x float>"), 12u) << ir;
  EXPECT_LE(count("store <16 x float>"), 24u) << ir;
  EXPECT_GE(count("load <16 x float>"), 9u * 2) << ir;
  EXPECT_EQ(count("gather"), 0u) << ir;
}

TEST_F(ConvSchedule, DepthwiseAwkwardChannelsOddWidthAndSymbolicBatch) {
  // 20 channels: no multiple of 8 divides, so one panel of 10 (a full vector and a partial
  // one) rather than a predicate; 13 columns (prime): not tiled; stride 2; batch symbolic.
  Ref<PrimFunc> f = depthwise(var("n"), 5, 13, 20, 2);
  Ref<PrimFunc> s = schedule(f);
  EXPECT_EQ(extents_of_kind(s, ForKind::kVectorized), (std::vector<int64_t>{10, 10}))
      << to_string(s);
  EXPECT_TRUE(extents_of_kind(s, ForKind::kUnrolled).empty()) << to_string(s);
  EXPECT_EQ(extents_of_kind(s, ForKind::kParallel).size(), 1u) << to_string(s);
  EXPECT_FALSE(predicated(s)) << to_string(s);
  for (int64_t n : {1, 2})
    expect_same_results(
        f, s, {random_f32({n, 11, 27, 20}, 3), random_f32({3, 3, 20}, 4), poisoned_f32({n, 5, 13, 20})});
}

TEST_F(ConvSchedule, NhwcMaxPoolVectorizesChannels) {
  te::Tensor X = te::placeholder({int_imm(2), int_imm(9), int_imm(9), int_imm(24)}, kF32, "X");
  te::Axis kh = te::reduce_axis(3, "kh"), kw = te::reduce_axis(3, "kw");
  te::Tensor Y = te::compute(
      {int_imm(2), int_imm(4), int_imm(4), int_imm(24)},
      [&](const auto& i) {
        return te::max(X(i[0], i[1] * 2 + PrimExpr(kh), i[2] * 2 + PrimExpr(kw), i[3]), {kh, kw});
      },
      "Y");
  Ref<PrimFunc> f = te::create_prim_func({X, Y});
  Ref<PrimFunc> s = schedule(f);
  // 24 channels: a panel of 8 (the largest multiple of the lanes up to 16 that divides).
  EXPECT_EQ(extents_of_kind(s, ForKind::kVectorized), (std::vector<int64_t>{8, 8})) << to_string(s);
  EXPECT_EQ(extents_of_kind(s, ForKind::kUnrolled), (std::vector<int64_t>{4, 4})) << to_string(s);
  expect_same_results(f, s, {random_f32({2, 9, 9, 24}, 5), poisoned_f32({2, 4, 4, 24})});
}

TEST_F(ConvSchedule, DenseNhwcConvBlocksTheOutputWidthAgainstTheOutputChannels) {
  // Rows: the output height and width joined (the input is broadcast along the output
  // channels), 49 of them in tiles of 7 (the width's tile, which divides them: no guard);
  // columns: 32 output channels in two panels of 16; parallel over the panels, each a whole
  // row block (its weights serve all 49 rows).
  te::Tensor X = te::placeholder({int_imm(1), int_imm(9), int_imm(9), int_imm(8)}, kF32, "X");
  te::Tensor W = te::placeholder({int_imm(3), int_imm(3), int_imm(8), int_imm(32)}, kF32, "W");
  te::Axis c = te::reduce_axis(8, "c"), kh = te::reduce_axis(3, "kh"),
           kw = te::reduce_axis(3, "kw");
  te::Tensor Y = te::compute(
      {int_imm(1), int_imm(7), int_imm(7), int_imm(32)},
      [&](const auto& i) {
        return te::sum(X(i[0], i[1] + PrimExpr(kh), i[2] + PrimExpr(kw), c) * W(kh, kw, c, i[3]),
                       {c, kh, kw});
      },
      "Y");
  Ref<PrimFunc> f = te::create_prim_func({X, W, Y});
  Ref<PrimFunc> s = schedule(f);
  EXPECT_EQ(extents_of_kind(s, ForKind::kParallel), (std::vector<int64_t>{2})) << to_string(s);
  EXPECT_EQ(extents_of_kind(s, ForKind::kUnrolled), (std::vector<int64_t>{7, 7})) << to_string(s);
  EXPECT_EQ(extents_of_kind(s, ForKind::kVectorized), (std::vector<int64_t>{16, 16}))
      << to_string(s);
  EXPECT_FALSE(predicated(s)) << to_string(s);
  expect_same_results(
      f, s, {random_f32({1, 9, 9, 8}, 6), random_f32({3, 3, 8, 32}, 7), poisoned_f32({1, 7, 7, 32})});
}

TEST_F(ConvSchedule, EpilogueRunsInTheTaskThatComputedItsRowBlock) {
  // A 3x3 conv with a 14 x 14 output, then bias and relu (one elementwise block reading the
  // conv's intermediate): the rows (height and width joined, 196) go in blocks of whole output
  // rows (3 x 14 = 42: 7 tiles of 6), and the epilogue moves into the task loop, where it
  // covers exactly that box: 3 rows x 14 columns x one 16-channel panel, vectorized. One
  // parallel loop in all (no second pass over the intermediate), and the conv accumulates in
  // the output itself, which the epilogue then rewrites in place.
  te::Tensor X = te::placeholder({int_imm(1), int_imm(16), int_imm(16), int_imm(8)}, kF32, "X");
  te::Tensor W = te::placeholder({int_imm(3), int_imm(3), int_imm(8), int_imm(32)}, kF32, "W");
  te::Tensor B = te::placeholder({int_imm(32)}, kF32, "B");
  te::Axis c = te::reduce_axis(8, "c"), kh = te::reduce_axis(3, "kh"),
           kw = te::reduce_axis(3, "kw");
  te::Tensor Y = te::compute(
      {int_imm(1), int_imm(14), int_imm(14), int_imm(32)},
      [&](const auto& i) {
        return te::sum(X(i[0], i[1] + PrimExpr(kh), i[2] + PrimExpr(kw), c) * W(kh, kw, c, i[3]),
                       {c, kh, kw});
      },
      "Y");
  te::Tensor Z = te::compute(
      {int_imm(1), int_imm(14), int_imm(14), int_imm(32)},
      [&](const auto& i) { return max(Y(i[0], i[1], i[2], i[3]) + B(i[3]), float_imm(0, kF32)); },
      "Z");
  Ref<PrimFunc> f = te::create_prim_func({X, W, B, Z});
  Ref<PrimFunc> s = schedule(f);
  EXPECT_EQ(extents_of_kind(s, ForKind::kParallel), (std::vector<int64_t>{2 * 5})) << to_string(s);
  EXPECT_EQ(extents_of_kind(s, ForKind::kVectorized), (std::vector<int64_t>{16, 16, 16}))
      << to_string(s);
  // The epilogue's loops under the task: 3 output rows, 14 columns (and the 16 lanes).
  const For* task = loops_of_kind(s, ForKind::kParallel).at(0);
  std::vector<int64_t> epilogue;
  post_order_visit(task->body, [&](const Stmt& st) {
    if (auto* l = st.as<For>(); l && l->kind == ForKind::kSerial) {
      bool has_z = false;
      post_order_visit(l->body, [&](const Stmt& b) {
        if (auto* r = b.as<BlockRealize>(); r && r->block->name == "Z") has_z = true;
      });
      if (has_z) epilogue.insert(epilogue.begin(), extent_of(l));
    }
  });
  EXPECT_EQ(epilogue, (std::vector<int64_t>{3, 14})) << to_string(s);
  // The write-back is in place: the conv accumulates in Z, and no intermediate is allocated.
  EXPECT_EQ(allocations(s), 0u) << to_string(s);
  expect_same_results(f, s,
                      {random_f32({1, 16, 16, 8}, 8), random_f32({3, 3, 8, 32}, 9),
                       random_f32({32}, 10), poisoned_f32({1, 14, 14, 32})});
}

TEST_F(ConvSchedule, JoinedRowsGoInBlocksThatDivideTheTiles) {
  // A 1x1 conv with a 14 x 14 output in tiles of 4 rows: 196 rows are 49 tiles, which blocks of
  // whole output rows (7 tiles: 2 rows of 14) divide; blocks of 14 tiles would leave a fourth
  // block half empty and a guard on every tile. Seven tasks, no predicate.
  te::Tensor X = te::placeholder({int_imm(1), int_imm(14), int_imm(14), int_imm(32)}, kF32, "X");
  te::Tensor W = te::placeholder({int_imm(32), int_imm(64)}, kF32, "W");
  te::Axis c = te::reduce_axis(32, "c");
  te::Tensor Y = te::compute(
      {int_imm(1), int_imm(14), int_imm(14), int_imm(64)},
      [&](const auto& i) { return te::sum(X(i[0], i[1], i[2], c) * W(c, i[3]), {c}); }, "Y");
  Ref<PrimFunc> f = te::create_prim_func({X, W, Y});
  Ref<PrimFunc> s = schedule(f, "mr=4,nr=64,kc=128,mc=64,vector-bits=512");
  EXPECT_EQ(extents_of_kind(s, ForKind::kParallel), (std::vector<int64_t>{7})) << to_string(s);
  EXPECT_FALSE(predicated(s)) << to_string(s);
  expect_same_results(f, s,
                      {random_f32({1, 14, 14, 32}, 11), random_f32({32, 64}, 12),
                       poisoned_f32({1, 14, 14, 64})});
}

TEST_F(ConvSchedule, WriteBackStaysOutOfPlaceWhereTheEpilogueIsNotElementwise) {
  // A matmul whose result is read transposed (Z[i, j] = Y[j, i] + 1), and one whose result two
  // outputs read: an in-place write-back would overwrite elements still to be read, so the
  // intermediate stays, and the results match the unscheduled function.
  te::Tensor A = te::placeholder({int_imm(32), int_imm(24)}, kF32, "A");
  te::Tensor B = te::placeholder({int_imm(24), int_imm(32)}, kF32, "B");
  auto matmul = [&] {
    te::Axis k = te::reduce_axis(24, "k");
    return te::compute(
        {int_imm(32), int_imm(32)},
        [&](const auto& i) { return te::sum(A(i[0], k) * B(k, i[1]), {k}); }, "Y");
  };
  te::Tensor Y = matmul();
  te::Tensor Z = te::compute(
      {int_imm(32), int_imm(32)},
      [&](const auto& i) { return Y(i[1], i[0]) + float_imm(1, kF32); }, "Z");
  Ref<PrimFunc> f = te::create_prim_func({A, B, Z});
  Ref<PrimFunc> s = schedule(f);
  EXPECT_EQ(allocations(s), 1u) << to_string(s);
  expect_same_results(f, s, {random_f32({32, 24}, 1), random_f32({24, 32}, 2),
                             poisoned_f32({32, 32})});
  te::Tensor Y2 = matmul();
  te::Tensor Z1 = te::compute(
      {int_imm(32), int_imm(32)},
      [&](const auto& i) { return max(Y2(i[0], i[1]), float_imm(0, kF32)); }, "Z1");
  te::Tensor Z2 = te::compute(
      {int_imm(32), int_imm(32)},
      [&](const auto& i) { return Y2(i[0], i[1]) * float_imm(2, kF32); }, "Z2");
  Ref<PrimFunc> f2 = te::create_prim_func({A, B, Z1, Z2});
  Ref<PrimFunc> s2 = schedule(f2);
  EXPECT_EQ(allocations(s2), 1u) << to_string(s2);
  expect_same_results(f2, s2, {random_f32({32, 24}, 3), random_f32({24, 32}, 4),
                               poisoned_f32({32, 32}), poisoned_f32({32, 32})});
}

}  // namespace
}  // namespace relax::tir
