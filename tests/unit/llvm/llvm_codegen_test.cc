// The LLVM backend against the reference interpreter: each PrimFunc is lowered, compiled by the
// codegen plugin (relax.backend.llvm.build), loaded by the runtime plugin's "llvm-so" loader,
// run on random inputs at several sizes, and compared with tir::interpret on the same inputs.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>

#include "../../common/error_of.h"
#include "llvm_test_util.h"
#include "relax/kernel/interpreter.h"
#include "relax/kernel/lower.h"
#include "relax/op/compute.h"
#include "relax/runtime/module.h"
#include "relax/runtime/registry.h"
#include "relax/tir/intrin.h"
#include "relax/transform/plugin.h"

namespace relax::tir {
namespace {

using runtime::NDArray;
using runtime::Value;

constexpr DataType kF32 = DataType::Float(32);
constexpr DataType kI32 = DataType::Int(32);

class LLVMBackend : public LLVMPluginTest {};

// ---- Kernels.

Ref<PrimFunc> elementwise_add() {
  Ref<Var> n = var("n");
  te::Tensor A = te::placeholder({n}, kF32, "A");
  te::Tensor B = te::placeholder({n}, kF32, "B");
  te::Tensor C = te::compute({n}, [&](const auto& i) { return A(i[0]) + B(i[0]); }, "C");
  return lower(te::create_prim_func({A, B, C}));
}

TEST_F(LLVMBackend, ElementwiseAddWithSymbolicLength) {
  Ref<PrimFunc> f = elementwise_add();
  runtime::Module m = build({{"add", f}});
  for (int64_t n : {1, 7, 64, 1001}) {
    SCOPED_TRACE(n);
    expect_matches_interpreter(m, "add", f,
                               {random_array({n}, kF32, 1), random_array({n}, kF32, 2),
                                NDArray::empty({n}, kF32)});
  }
}

TEST_F(LLVMBackend, MatmulWithReduction) {
  Ref<Var> n = var("n"), m = var("m"), k = var("k");
  te::Tensor A = te::placeholder({n, k}, kF32, "A");
  te::Tensor B = te::placeholder({k, m}, kF32, "B");
  te::Axis r = te::reduce_axis(k, "r");
  te::Tensor C = te::compute(
      {n, m}, [&](const auto& i) { return te::sum(A(i[0], r) * B(r, i[1]), {r}); }, "C");
  Ref<PrimFunc> f = lower(te::create_prim_func({A, B, C}));
  runtime::Module mod = build({{"matmul", f}});
  for (auto [N, M, K] : std::vector<std::array<int64_t, 3>>{{1, 1, 1}, {4, 5, 3}, {17, 33, 9}}) {
    SCOPED_TRACE(N);
    expect_matches_interpreter(mod, "matmul", f,
                               {random_array({N, K}, kF32, 3), random_array({K, M}, kF32, 4),
                                NDArray::empty({N, M}, kF32)},
                               1e-4);
  }
}

TEST_F(LLVMBackend, SoftmaxWithIntermediateBuffers) {
  // max, exp(x - max), sum, divide: four stages, three intermediate buffers of symbolic size
  // (heap allocations in the kernel).
  Ref<Var> n = var("n"), m = var("m");
  te::Tensor A = te::placeholder({n, m}, kF32, "A");
  te::Axis k1 = te::reduce_axis(m, "k1");
  te::Tensor M = te::compute({n}, [&](const auto& i) { return te::max(A(i[0], k1), {k1}); }, "M");
  te::Tensor E = te::compute(
      {n, m}, [&](const auto& i) { return exp(A(i[0], i[1]) - M(i[0])); }, "E");
  te::Axis k2 = te::reduce_axis(m, "k2");
  te::Tensor S = te::compute({n}, [&](const auto& i) { return te::sum(E(i[0], k2), {k2}); }, "S");
  te::Tensor O = te::compute(
      {n, m}, [&](const auto& i) { return truncdiv(E(i[0], i[1]), S(i[0])); }, "O");
  Ref<PrimFunc> f = lower(te::create_prim_func({A, O}));
  runtime::Module mod = build({{"softmax", f}});
  for (auto [N, M_] : std::vector<std::array<int64_t, 2>>{{1, 1}, {3, 10}, {8, 1000}}) {
    SCOPED_TRACE(M_);
    expect_matches_interpreter(mod, "softmax", f,
                               {random_array({N, M_}, kF32, 5), NDArray::empty({N, M_}, kF32)});
  }
}

TEST_F(LLVMBackend, Int8ArithmeticWrapsAround) {
  Ref<Var> n = var("n");
  DataType i8 = DataType::Int(8);
  te::Tensor A = te::placeholder({n}, i8, "A");
  te::Tensor B = te::placeholder({n}, i8, "B");
  te::Tensor C = te::compute(
      {n}, [&](const auto& i) { return A(i[0]) * B(i[0]) + A(i[0]) - int_imm(100, i8); }, "C");
  te::Tensor D = te::compute(
      {n}, [&](const auto& i) { return cast(DataType::Int(32), A(i[0])) * cast(kI32, B(i[0])); },
      "D");
  Ref<PrimFunc> f = lower(te::create_prim_func({A, B, C, D}));
  runtime::Module mod = build({{"wrap", f}});
  for (int64_t len : {5, 300}) {
    expect_matches_interpreter(mod, "wrap", f,
                               {random_array({len}, i8, 6), random_array({len}, i8, 7),
                                NDArray::empty({len}, i8), NDArray::empty({len}, kI32)});
  }
}

TEST_F(LLVMBackend, FloorAndTruncDivisionOfNegatives) {
  Ref<Var> n = var("n");
  te::Tensor A = te::placeholder({n}, kI32, "A");
  te::Tensor B = te::placeholder({n}, kI32, "B");
  // Divisors in [-1000, 1000) with 0 replaced by 7.
  auto divisor = [&](const PrimExpr& i) {
    return select(eq(B(i), int_imm(0, kI32)), int_imm(7, kI32), B(i));
  };
  te::Tensor Q = te::compute({n}, [&](const auto& i) { return floordiv(A(i[0]), divisor(i[0])); }, "Q");
  te::Tensor R = te::compute({n}, [&](const auto& i) { return floormod(A(i[0]), divisor(i[0])); }, "R");
  te::Tensor T = te::compute({n}, [&](const auto& i) { return truncdiv(A(i[0]), divisor(i[0])); }, "T");
  te::Tensor U = te::compute({n}, [&](const auto& i) { return truncmod(A(i[0]), divisor(i[0])); }, "U");
  // Constant divisors (the optimiser's shift/multiply paths).
  te::Tensor V = te::compute(
      {n}, [&](const auto& i) { return floordiv(A(i[0]), int_imm(-4, kI32)) + floormod(A(i[0]), int_imm(3, kI32)); },
      "V");
  Ref<PrimFunc> f = lower(te::create_prim_func({A, B, Q, R, T, U, V}));
  runtime::Module mod = build({{"divs", f}});
  for (int64_t len : {16, 513}) {
    std::vector<Value> args{random_array({len}, kI32, 8), random_array({len}, kI32, 9)};
    for (int j = 0; j < 5; ++j) args.emplace_back(NDArray::empty({len}, kI32));
    expect_matches_interpreter(mod, "divs", f, args);
  }
  // The fixed cases of the semantics, spelled out: -7 // 2 == -4, -7 % 2 == 1, trunc: -3, -1.
  NDArray a = NDArray::empty({1}, kI32), b = NDArray::empty({1}, kI32);
  a.data_as<int32_t>()[0] = -7;
  b.data_as<int32_t>()[0] = 2;
  std::vector<NDArray> outs;
  for (int j = 0; j < 5; ++j) outs.push_back(NDArray::empty({1}, kI32));
  mod->get_function("divs").call(a, b, outs[0], outs[1], outs[2], outs[3], outs[4]);
  EXPECT_EQ(outs[0].data_as<int32_t>()[0], -4);
  EXPECT_EQ(outs[1].data_as<int32_t>()[0], 1);
  EXPECT_EQ(outs[2].data_as<int32_t>()[0], -3);
  EXPECT_EQ(outs[3].data_as<int32_t>()[0], -1);
}

TEST_F(LLVMBackend, ConditionalsSelectAndGuardedLoads) {
  Ref<Var> n = var("n");
  te::Tensor A = te::placeholder({n}, kF32, "A");
  te::Tensor C = te::compute(
      {n},
      [&](const auto& i) {
        return select(gt(A(i[0]), float_imm(0)), A(i[0]) * float_imm(2), -A(i[0]));
      },
      "C");
  // A shifted left by one with zero padding: the guard keeps the load in bounds.
  te::Tensor D = te::compute(
      {n},
      [&](const auto& i) {
        return te::if_then_else(lt(i[0] + 1, n), A(i[0] + 1), float_imm(0));
      },
      "D");
  Ref<PrimFunc> f = lower(te::create_prim_func({A, C, D}));
  runtime::Module mod = build({{"cond", f}});
  for (int64_t len : {1, 2, 100}) {
    expect_matches_interpreter(mod, "cond", f,
                               {random_array({len}, kF32, 10), NDArray::empty({len}, kF32),
                                NDArray::empty({len}, kF32)});
  }
}

TEST_F(LLVMBackend, MathIntrinsicsAndFloat16) {
  Ref<Var> n = var("n");
  DataType f16 = DataType::Float(16);
  te::Tensor A = te::placeholder({n}, kF32, "A");
  te::Tensor H = te::placeholder({n}, f16, "H");
  te::Tensor C = te::compute(
      {n},
      [&](const auto& i) {
        PrimExpr x = A(i[0]);
        return sigmoid(x) + tanh(x) + erf(x) + sqrt(abs(x)) + log(abs(x) + float_imm(1)) +
               floor(x) + round(x * float_imm(3));
      },
      "C");
  te::Tensor D = te::compute(
      {n}, [&](const auto& i) { return H(i[0]) * H(i[0]) + cast(f16, A(i[0])); }, "D");
  Ref<PrimFunc> f = lower(te::create_prim_func({A, H, C, D}));
  runtime::Module mod = build({{"math", f}});
  for (int64_t len : {3, 77}) {
    expect_matches_interpreter(mod, "math", f,
                               {random_array({len}, kF32, 11), random_array({len}, f16, 12),
                                NDArray::empty({len}, kF32), NDArray::empty({len}, f16)},
                               1e-3);
  }
}

TEST_F(LLVMBackend, HandWrittenVectorsLoopKindsAndAllocations) {
  // for i in vectorized(4): C[ramp(i*4, 1, 4)] = A[ramp(i*4, 1, 4)] + broadcast(1, 4)
  // for j in unroll(16): T[j] = C[j] * 2          (T: a 16-element stack allocation)
  // for j in parallel(16): if j % 2 == 0: C[j] = T[15 - j] else: C[j] = T[j]
  Ref<Buffer> A = decl_buffer({int_imm(16)}, kF32, "A");
  Ref<Buffer> C = decl_buffer({int_imm(16)}, kF32, "C");
  Ref<Var> i = var("i"), j = var("j"), j2 = var("j2");
  Ref<Var> t_data = var("T", DataType::Handle());
  Ref<Buffer> T = make_buffer(t_data, kF32, {int_imm(16)}, "T");
  auto ramp = [&](const PrimExpr& base) { return PrimExpr(make_ref<Ramp>(base, int_imm(1), 4)); };
  Stmt vec = make_ref<For>(
      i, int_imm(0), int_imm(4), ForKind::kVectorized,
      buffer_store(C, buffer_load(A, {ramp(i * 4)}) + PrimExpr(make_ref<Broadcast>(float_imm(1), 4)),
                   {ramp(i * 4)}));
  Stmt fill = make_ref<For>(j, int_imm(0), int_imm(16), ForKind::kUnrolled,
                            buffer_store(T, buffer_load(C, {j}) * float_imm(2), {j}));
  Stmt back = make_ref<For>(
      j2, int_imm(0), int_imm(16), ForKind::kParallel,
      make_ref<IfThenElse>(eq(floormod(j2, 2), int_imm(0)),
                           buffer_store(C, buffer_load(T, {int_imm(15) - j2}), {j2}),
                           buffer_store(C, buffer_load(T, {j2}), {j2})));
  Stmt body = make_ref<Allocate>(t_data, kF32, std::vector<PrimExpr>{int_imm(16)}, "global",
                                 seq_stmt({fill, back}));
  Ref<PrimFunc> f = lower(make_prim_func({A, C}, seq_stmt({vec, body})));
  runtime::Module mod = build({{"vec", f}});
  expect_matches_interpreter(mod, "vec", f, {random_array({16}, kF32, 13), NDArray::empty({16}, kF32)});
}

TEST_F(LLVMBackend, SeveralKernelsInOneLibraryAndScalarParameters) {
  Ref<Var> n = var("n");
  Ref<Var> s = var("s", kI32);
  te::Tensor A = te::placeholder({n}, kI32, "A");
  te::Tensor C = te::compute({n}, [&](const auto& i) { return A(i[0]) * s + s; }, "C");
  Ref<PrimFunc> scale = lower(te::create_prim_func({A, C}, {s}));
  ASSERT_EQ(scale->params.size(), 3u);
  Ref<PrimFunc> add = elementwise_add();
  runtime::Module mod = build({{"scale", scale}, {"add", add}}, "opt-level=2");
  expect_matches_interpreter(mod, "scale", scale,
                             {random_array({9}, kI32, 14), NDArray::empty({9}, kI32), Value(int64_t(-3))});
  expect_matches_interpreter(mod, "add", add,
                             {random_array({5}, kF32, 1), random_array({5}, kF32, 2), NDArray::empty({5}, kF32)});
  EXPECT_FALSE(mod->get_function("missing").defined());
}

TEST_F(LLVMBackend, ElementwiseLoopIsVectorisedForTheHost) {
  // -O3 on the host CPU: the loop vectorizer turns the add into vector operations.
  runtime::PackedFunc ir = runtime::Registry::get("relax.backend.llvm.emit_ir");
  std::string text =
      ir(std::vector<Value>{Value(""), Value("add"), Value::from_object(elementwise_add())}).as_string();
  EXPECT_NE(text.find("x float>"), std::string::npos) << text;
  EXPECT_NE(text.find("define i32 @__rx_kernel_add(ptr"), std::string::npos) << text;
}

// ---- The ABI's error paths: a message naming the kernel and the argument, no crash.

TEST_F(LLVMBackend, WrongArgumentsGiveMessages) {
  runtime::Module mod = build({{"add", elementwise_add()}});
  runtime::PackedFunc add = mod->get_function("add");
  auto call_error = [&](const std::vector<Value>& args) {
    return relax::test::error_of([&] { add(args); });
  };
  NDArray a = NDArray::empty({4}, kF32), b = NDArray::empty({4}, kF32), c = NDArray::empty({4}, kF32);
  std::string e = call_error({a, b});
  EXPECT_NE(e.find("kernel 'add': expected 3 arguments"), std::string::npos) << e;
  NDArray wrong = NDArray::empty({4}, kI32);
  e = call_error({a, wrong, c});
  EXPECT_NE(e.find("argument 1 (B"), std::string::npos) << e;
  EXPECT_NE(e.find("expected dtype float32"), std::string::npos) << e;
  e = call_error({a, b, Value(int64_t(3))});
  EXPECT_NE(e.find("argument 2"), std::string::npos) << e;
  EXPECT_NE(e.find("expected a tensor"), std::string::npos) << e;
  e = call_error({a, NDArray::empty({5}, kF32), c});
  EXPECT_NE(e.find("dimension 0 should be n"), std::string::npos) << e;
  e = call_error({a, NDArray::empty({4, 1}, kF32), c});
  EXPECT_NE(e.find("expected rank 1"), std::string::npos) << e;
  // Still callable after the failures.
  EXPECT_NO_THROW(add(std::vector<Value>{a, b, c}));
}

TEST_F(LLVMBackend, BadOptionsAndUnloweredInputAreHandled) {
  runtime::PackedFunc build_fn = runtime::Registry::get("relax.backend.llvm.build");
  std::vector<Value> args{Value("bogus=1"), Value("add"), Value::from_object(elementwise_add())};
  std::string err = relax::test::error_of([&] { build_fn(args); });
  EXPECT_NE(err.find("unknown llvm target option 'bogus'"), std::string::npos) << err;
  // A PrimFunc with blocks is lowered by the backend itself.
  Ref<Var> n = var("n");
  te::Tensor A = te::placeholder({n}, kF32, "A");
  te::Tensor C = te::compute({n}, [&](const auto& i) { return A(i[0]) * float_imm(3); }, "C");
  Ref<PrimFunc> raw = te::create_prim_func({A, C});
  runtime::Module mod = build({{"triple", raw}});
  expect_matches_interpreter(mod, "triple", lower(raw), {random_array({6}, kF32, 15), NDArray::empty({6}, kF32)});
  // The IR dump names the exported symbol.
  runtime::PackedFunc ir = runtime::Registry::get("relax.backend.llvm.emit_ir");
  std::string text = ir(std::vector<Value>{Value(""), Value("triple"), Value::from_object(lower(raw))}).as_string();
  EXPECT_NE(text.find("__rx_kernel_triple"), std::string::npos);
}


// A library loaded after another was released reuses the released one's fd number; it must
// still be its own library (dlopen matched the /proc/self/fd/N name of a library loaded
// earlier while both were open and returned the first one, without the second's kernels).
TEST_F(LLVMBackend, LibrariesLoadedInTurnKeepTheirOwnKernels) {
  Ref<PrimFunc> f = elementwise_add();
  runtime::Module first = build({{"first", f}});
  runtime::Module second = build({{"second", f}});
  EXPECT_TRUE(first->get_function("first").defined());
  EXPECT_FALSE(first->get_function("second").defined());
  ASSERT_TRUE(second->get_function("second").defined());
  EXPECT_FALSE(second->get_function("first").defined());
  {
    runtime::Module third = build({{"third", f}});
    EXPECT_TRUE(third->get_function("third").defined());
  }
  runtime::Module fourth = build({{"fourth", f}});
  EXPECT_TRUE(fourth->get_function("fourth").defined());
  EXPECT_FALSE(fourth->get_function("third").defined());
  expect_matches_interpreter(fourth, "fourth", f,
                             {random_array({9}, kF32, 1), random_array({9}, kF32, 2),
                              NDArray::empty({9}, kF32)});
}

}  // namespace
}  // namespace relax::tir
