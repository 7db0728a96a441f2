#include "relax/kernel/interpreter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "../../common/error_of.h"
#include "../tir/tir_fixtures.h"
#include "interp_test_util.h"
#include "relax/kernel/lower.h"
#include "relax/tir/intrin.h"

namespace relax::tir {
namespace {

using relax::test::error_of;
using testing::array;
using testing::f32_array;
using testing::kF32;
using testing::values_of;

constexpr DataType kI8 = DataType::Int(8), kU8 = DataType::UInt(8), kI32 = DataType::Int(32),
                   kI64 = DataType::Int(64), kF16 = DataType::Float(16), kBool = DataType::Bool();

/// for i in range(n): Out[i] = fn(A[i], B[i]) over 1-D buffers.
Ref<PrimFunc> binary_func(DataType in, DataType out, int64_t n,
                          const std::function<PrimExpr(PrimExpr, PrimExpr)>& fn) {
  Ref<Buffer> A = decl_buffer({int_imm(n)}, in, "A"), B = decl_buffer({int_imm(n)}, in, "B");
  Ref<Buffer> C = decl_buffer({int_imm(n)}, out, "C");
  Stmt body = serial_for("i", int_imm(n), [&](const Ref<Var>& i) {
    return buffer_store(C, fn(buffer_load(A, {i}), buffer_load(B, {i})), {i});
  });
  return make_prim_func({A, B, C}, body);
}

Ref<PrimFunc> unary_func(DataType in, DataType out, int64_t n,
                         const std::function<PrimExpr(PrimExpr)>& fn) {
  Ref<Buffer> A = decl_buffer({int_imm(n)}, in, "A");
  Ref<Buffer> C = decl_buffer({int_imm(n)}, out, "C");
  Stmt body = serial_for("i", int_imm(n), [&](const Ref<Var>& i) {
    return buffer_store(C, fn(buffer_load(A, {i})), {i});
  });
  return make_prim_func({A, C}, body);
}

template <class In, class Out>
std::vector<Out> run_binary(DataType in, DataType out, const std::vector<In>& a,
                            const std::vector<In>& b,
                            const std::function<PrimExpr(PrimExpr, PrimExpr)>& fn) {
  auto n = int64_t(a.size());
  runtime::NDArray c = runtime::NDArray::empty({n}, out);
  interpret(binary_func(in, out, n, fn), {array({n}, in, a), array({n}, in, b), c});
  return values_of<Out>(c);
}

template <class In, class Out>
std::vector<Out> run_unary(DataType in, DataType out, const std::vector<In>& a,
                           const std::function<PrimExpr(PrimExpr)>& fn) {
  auto n = int64_t(a.size());
  runtime::NDArray c = runtime::NDArray::empty({n}, out);
  interpret(unary_func(in, out, n, fn), {array({n}, in, a), c});
  return values_of<Out>(c);
}

// ---- Integer semantics.

TEST(Interpreter, Int8WrapsAround) {
  auto add = run_binary<int8_t, int8_t>(kI8, kI8, {100, -100, 127}, {100, -100, 1},
                                        [](auto a, auto b) { return a + b; });
  EXPECT_EQ(add, (std::vector<int8_t>{-56, 56, -128}));
  auto mul = run_binary<int8_t, int8_t>(kI8, kI8, {16, -128}, {16, -1},
                                        [](auto a, auto b) { return a * b; });
  EXPECT_EQ(mul, (std::vector<int8_t>{0, -128}));
  // -128 / -1 overflows to -128; abs(-128) is -128.
  auto div = run_binary<int8_t, int8_t>(kI8, kI8, {-128}, {-1},
                                        [](auto a, auto b) { return truncdiv(a, b); });
  EXPECT_EQ(div, (std::vector<int8_t>{-128}));
  EXPECT_EQ((run_unary<int8_t, int8_t>(kI8, kI8, {-128, -5}, [](auto a) { return abs(a); })),
            (std::vector<int8_t>{-128, 5}));
  // int32 -> int8 casts wrap.
  auto cast8 =
      run_unary<int32_t, int8_t>(kI32, kI8, {300, -129, 255}, [](auto a) { return cast(kI8, a); });
  EXPECT_EQ(cast8, (std::vector<int8_t>{44, 127, -1}));
  auto i32 = run_binary<int32_t, int32_t>(kI32, kI32, {std::numeric_limits<int32_t>::max()}, {1},
                                          [](auto a, auto b) { return a + b; });
  EXPECT_EQ(i32[0], std::numeric_limits<int32_t>::min());
}

TEST(Interpreter, Uint8IsUnsigned) {
  auto sub = run_binary<uint8_t, uint8_t>(kU8, kU8, {3, 250}, {5, 10},
                                          [](auto a, auto b) { return a - b; });
  EXPECT_EQ(sub, (std::vector<uint8_t>{254, 240}));
  auto add =
      run_binary<uint8_t, uint8_t>(kU8, kU8, {250}, {10}, [](auto a, auto b) { return a + b; });
  EXPECT_EQ(add[0], 4);
  auto div = run_binary<uint8_t, uint8_t>(kU8, kU8, {200, 255}, {3, 16},
                                          [](auto a, auto b) { return floordiv(a, b); });
  EXPECT_EQ(div, (std::vector<uint8_t>{66, 15}));
  auto gt8 = run_binary<uint8_t, uint8_t>(kU8, kBool, {200, 1}, {100, 2},
                                          [](auto a, auto b) { return gt(a, b); });
  EXPECT_EQ(gt8, (std::vector<uint8_t>{1, 0}));
  auto mx = run_binary<uint8_t, uint8_t>(kU8, kU8, {200}, {100},
                                         [](auto a, auto b) { return max(a, b); });
  EXPECT_EQ(mx[0], 200);
  auto to_f = run_unary<uint8_t, float>(kU8, kF32, {255}, [](auto a) { return cast(kF32, a); });
  EXPECT_EQ(to_f[0], 255.f);
}

TEST(Interpreter, BoolLogicAndCasts) {
  auto r =
      run_binary<uint8_t, uint8_t>(kBool, kBool, {1, 1, 0, 0}, {1, 0, 1, 0},
                                   [](auto a, auto b) { return logical_and(a, logical_not(b)); });
  EXPECT_EQ(r, (std::vector<uint8_t>{0, 1, 0, 0}));
  auto o = run_binary<uint8_t, uint8_t>(kBool, kBool, {1, 0}, {0, 0},
                                        [](auto a, auto b) { return logical_or(a, b); });
  EXPECT_EQ(o, (std::vector<uint8_t>{1, 0}));
  auto to_i =
      run_unary<uint8_t, int32_t>(kBool, kI32, {1, 0}, [](auto a) { return cast(kI32, a); });
  EXPECT_EQ(to_i, (std::vector<int32_t>{1, 0}));
  auto from_f = run_unary<float, uint8_t>(kF32, kBool, {0.f, -0.5f, NAN},
                                          [](auto a) { return cast(kBool, a); });
  EXPECT_EQ(from_f, (std::vector<uint8_t>{0, 1, 1}));
  auto sel = run_binary<uint8_t, int32_t>(kBool, kI32, {1, 0}, {0, 0}, [](auto a, auto) {
    return select(a, int_imm(7, kI32), int_imm(-7, kI32));
  });
  EXPECT_EQ(sel, (std::vector<int32_t>{7, -7}));
}

TEST(Interpreter, Int64DivisionOfNegatives) {
  std::vector<int64_t> a = {-7, 7, -7, 7, -8}, b = {2, -2, -2, 2, 4};
  auto fd =
      run_binary<int64_t, int64_t>(kI64, kI64, a, b, [](auto x, auto y) { return floordiv(x, y); });
  EXPECT_EQ(fd, (std::vector<int64_t>{-4, -4, 3, 3, -2}));
  auto fm =
      run_binary<int64_t, int64_t>(kI64, kI64, a, b, [](auto x, auto y) { return floormod(x, y); });
  EXPECT_EQ(fm, (std::vector<int64_t>{1, -1, -1, 1, 0}));
  auto td =
      run_binary<int64_t, int64_t>(kI64, kI64, a, b, [](auto x, auto y) { return truncdiv(x, y); });
  EXPECT_EQ(td, (std::vector<int64_t>{-3, -3, 3, 3, -2}));
  auto tm =
      run_binary<int64_t, int64_t>(kI64, kI64, a, b, [](auto x, auto y) { return truncmod(x, y); });
  EXPECT_EQ(tm, (std::vector<int64_t>{-1, 1, -1, 1, 0}));
  std::string err = error_of([] {
    run_binary<int64_t, int64_t>(kI64, kI64, {1}, {0},
                                 [](auto x, auto y) { return floordiv(x, y); });
  });
  EXPECT_NE(err.find("division by zero"), std::string::npos) << err;
}

TEST(Interpreter, BitOperationsAndShifts) {
  auto sr = run_binary<int8_t, int8_t>(kI8, kI8, {-128, 64}, {1, 6},
                                       [](auto a, auto b) { return shift_right(a, b); });
  EXPECT_EQ(sr, (std::vector<int8_t>{-64, 1}));
  auto srl = run_binary<uint8_t, uint8_t>(kU8, kU8, {128}, {1},
                                          [](auto a, auto b) { return shift_right(a, b); });
  EXPECT_EQ(srl[0], 64);
  auto sl = run_binary<int8_t, int8_t>(kI8, kI8, {1, 3}, {7, 6},
                                       [](auto a, auto b) { return shift_left(a, b); });
  EXPECT_EQ(sl, (std::vector<int8_t>{-128, -64}));
  auto bits = run_binary<int32_t, int32_t>(kI32, kI32, {0b1100}, {0b1010}, [](auto a, auto b) {
    return bitwise_xor(bitwise_and(a, b), bitwise_or(a, b));
  });
  EXPECT_EQ(bits[0], 0b0110);
  EXPECT_EQ(
      (run_unary<uint8_t, uint8_t>(kU8, kU8, {0x0F}, [](auto a) { return bitwise_not(a); }))[0],
      0xF0);
  std::string err = error_of([] {
    run_binary<int32_t, int32_t>(kI32, kI32, {1}, {32},
                                 [](auto a, auto b) { return shift_left(a, b); });
  });
  EXPECT_NE(err.find("shift_left by 32 bits"), std::string::npos) << err;
}

// ---- Floats.

TEST(Interpreter, Float16RoundsToNearestEven) {
  // float32 -> float16 casts.
  std::vector<float> in = {1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f, 65519.f, 65520.f,
                           0x1p-25f,        3 * 0x1p-25f,        -2.5f};
  auto out = run_unary<float, uint16_t>(kF32, kF16, in, [](auto a) { return cast(kF16, a); });
  std::vector<float> back;
  for (uint16_t h : out) back.push_back(half_to_float(h));
  EXPECT_EQ(back[0], 1.0f);
  EXPECT_EQ(back[1], 1.0f + 0x1p-9f);
  EXPECT_EQ(back[2], 65504.f);
  EXPECT_TRUE(std::isinf(back[3]));
  EXPECT_EQ(back[4], 0.f);
  EXPECT_EQ(back[5], 0x1p-23f);
  EXPECT_EQ(back[6], -2.5f);
  EXPECT_EQ(out[0], 0x3C00);
  EXPECT_EQ(out[6], 0xC100);
  // float16 arithmetic rounds after each operation: 2048 + 1 == 2048, 2048 + 3 == 2052.
  std::vector<uint16_t> a = {float_to_half(2048), float_to_half(2048)},
                        b = {float_to_half(1), float_to_half(3)};
  auto sum = run_binary<uint16_t, uint16_t>(kF16, kF16, a, b, [](auto x, auto y) { return x + y; });
  EXPECT_EQ(half_to_float(sum[0]), 2048.f);
  EXPECT_EQ(half_to_float(sum[1]), 2052.f);
  // exp in float16: e rounds to 2.71875.
  auto e =
      run_unary<uint16_t, uint16_t>(kF16, kF16, {float_to_half(1)}, [](auto x) { return exp(x); });
  EXPECT_EQ(half_to_float(e[0]), 2.71875f);
}

TEST(Interpreter, Float32RoundsAfterEveryOperation) {
  auto r = run_binary<float, float>(kF32, kF32, {1e8f}, {1.f},
                                    [](auto a, auto b) { return (a + b) - a; });
  EXPECT_EQ(r[0], 0.f);
  auto d = run_binary<float, float>(kF32, kF32, {1.f, -1.f, 0.f}, {0.f, 0.f, 0.f},
                                    [](auto a, auto b) { return truncdiv(a, b); });
  EXPECT_TRUE(std::isinf(d[0]) && d[0] > 0);
  EXPECT_TRUE(std::isinf(d[1]) && d[1] < 0);
  EXPECT_TRUE(std::isnan(d[2]));
  auto fd = run_binary<float, float>(kF32, kF32, {-7.f}, {2.f},
                                     [](auto a, auto b) { return floordiv(a, b); });
  EXPECT_EQ(fd[0], -4.f);
  auto fm = run_binary<float, float>(kF32, kF32, {-7.f}, {2.f},
                                     [](auto a, auto b) { return floormod(a, b); });
  EXPECT_EQ(fm[0], 1.f);
}

TEST(Interpreter, FloatToIntCastsTruncate) {
  auto r = run_unary<float, int32_t>(kF32, kI32, {2.7f, -2.7f, NAN},
                                     [](auto a) { return cast(kI32, a); });
  EXPECT_EQ(r, (std::vector<int32_t>{2, -2, 0}));
  auto u = run_unary<float, uint8_t>(kF32, kU8, {255.9f}, [](auto a) { return cast(kU8, a); });
  EXPECT_EQ(u[0], 255);
}

TEST(Interpreter, MathIntrinsics) {
  std::vector<float> x = {2.5f, 3.5f, -2.5f, 0.4f};
  auto rnd = run_unary<float, float>(kF32, kF32, x, [](auto a) { return round(a); });
  EXPECT_EQ(rnd, (std::vector<float>{2, 4, -2, 0}));
  auto sig = run_unary<float, float>(kF32, kF32, {0.f, 2.f}, [](auto a) { return sigmoid(a); });
  EXPECT_EQ(sig[0], 0.5f);
  EXPECT_FLOAT_EQ(sig[1], float(1 / (1 + std::exp(-2.0))));
  auto rs = run_unary<float, float>(kF32, kF32, {4.f}, [](auto a) { return rsqrt(a); });
  EXPECT_EQ(rs[0], 0.5f);
  auto nan =
      run_unary<float, uint8_t>(kF32, kBool, {NAN, 1.f, INFINITY}, [](auto a) { return isnan(a); });
  EXPECT_EQ(nan, (std::vector<uint8_t>{1, 0, 0}));
  auto fin = run_unary<float, uint8_t>(kF32, kBool, {NAN, 1.f, INFINITY},
                                       [](auto a) { return isfinite(a); });
  EXPECT_EQ(fin, (std::vector<uint8_t>{0, 1, 0}));
  auto p = run_binary<float, float>(kF32, kF32, {2.f, 9.f}, {10.f, 0.5f},
                                    [](auto a, auto b) { return pow(a, b); });
  EXPECT_EQ(p, (std::vector<float>{1024.f, 3.f}));
  auto bitsf =
      run_unary<float, int32_t>(kF32, kI32, {1.f}, [](auto a) { return reinterpret(kI32, a); });
  EXPECT_EQ(bitsf[0], 0x3F800000);
  auto ext = error_of([] {
    run_unary<float, float>(kF32, kF32, {1.f}, [](auto a) {
      return PrimExpr(make_ref<Call>(kF32, Intrinsic::kExtern, std::vector<PrimExpr>{a}, "my_fn"));
    });
  });
  EXPECT_NE(ext.find("my_fn"), std::string::npos) << ext;
}

// ---- Vectors and guarded evaluation.

TEST(Interpreter, VectorsRunLaneByLane) {
  Ref<Buffer> A = decl_buffer({int_imm(8)}, kF32, "A"), B = decl_buffer({int_imm(4)}, kF32, "B");
  // B[0:4] = A[ramp(1, 2, 4)] + broadcast(10)
  PrimExpr v = buffer_load(A, {make_ref<Ramp>(int_imm(1), int_imm(2), 4)}) +
               PrimExpr(make_ref<Broadcast>(float_imm(10), 4));
  Stmt body = buffer_store(B, v, {make_ref<Ramp>(int_imm(0), int_imm(1), 4)});
  runtime::NDArray b = f32_array({4}, {0, 0, 0, 0});
  interpret(make_prim_func({A, B}, body), {f32_array({8}, {0, 1, 2, 3, 4, 5, 6, 7}), b});
  EXPECT_EQ(values_of<float>(b), (std::vector<float>{11, 13, 15, 17}));
}

TEST(Interpreter, IfThenElseGuardsPerLaneButSelectEvaluatesBoth) {
  Ref<Buffer> A = decl_buffer({int_imm(4)}, kF32, "A"), B = decl_buffer({int_imm(6)}, kF32, "B");
  // B[i] = if_then_else(i < 4, A[i], -1) for i in 0..5, as one 6-lane vector store.
  PrimExpr idx = make_ref<Ramp>(int_imm(0), int_imm(1), 6);
  PrimExpr in = lt(idx, PrimExpr(make_ref<Broadcast>(int_imm(4), 6)));
  PrimExpr guarded = make_ref<Call>(
      DataType::Float(32, 6), Intrinsic::kIfThenElse,
      std::vector<PrimExpr>{in, buffer_load(A, {idx}), make_ref<Broadcast>(float_imm(-1), 6)});
  runtime::NDArray b = f32_array({6}, std::vector<float>(6));
  interpret(make_prim_func({A, B}, buffer_store(B, guarded, {idx})),
            {f32_array({4}, {1, 2, 3, 4}), b});
  EXPECT_EQ(values_of<float>(b), (std::vector<float>{1, 2, 3, 4, -1, -1}));

  PrimExpr both =
      make_ref<Select>(in, buffer_load(A, {idx}), make_ref<Broadcast>(float_imm(-1), 6));
  std::string err = error_of([&] {
    interpret(make_prim_func({A, B}, buffer_store(B, both, {idx})),
              {f32_array({4}, {1, 2, 3, 4}), b});
  });
  EXPECT_NE(err.find("load from buffer A at index 4 is out of bounds (4 elements)"),
            std::string::npos)
      << err;
}

TEST(Interpreter, AllocatedMemoryStartsAsNaN) {
  Ref<Buffer> B = decl_buffer({int_imm(2)}, kF32, "B");
  Ref<Buffer> T = decl_buffer({int_imm(2)}, kF32, "T");
  Stmt body =
      make_ref<Allocate>(T->data, kF32, std::vector<PrimExpr>{int_imm(2)}, "global",
                         seq_stmt({buffer_store(T, float_imm(5), {int_imm(0)}),
                                   buffer_store(B, buffer_load(T, {int_imm(0)}), {int_imm(0)}),
                                   buffer_store(B, buffer_load(T, {int_imm(1)}), {int_imm(1)})}));
  runtime::NDArray b = f32_array({2}, {0, 0});
  interpret(make_prim_func({B}, body), {b});
  auto out = values_of<float>(b);
  EXPECT_EQ(out[0], 5.f);
  EXPECT_TRUE(std::isnan(out[1]));
}

// ---- Arguments.

TEST(Interpreter, ShapeMismatchNamesTheParameterAndBothShapes) {
  testing::ExpFunc f;  // X, Y: (n,)
  std::string err = error_of([&] {
    interpret(f.func, {f32_array({3}, {1, 2, 3}), f32_array({4}, {0, 0, 0, 0})});
  });
  EXPECT_NE(err.find("parameter Y"), std::string::npos) << err;
  EXPECT_NE(err.find("(n,) = (3,)"), std::string::npos) << err;
  EXPECT_NE(err.find("got (4,)"), std::string::npos) << err;

  testing::Matmul m;  // 16x16 float32
  err = error_of([&] {
    runtime::NDArray ok = f32_array({16, 16}, std::vector<float>(256));
    interpret(m.func, {f32_array({16, 8}, std::vector<float>(128)), ok, ok});
  });
  EXPECT_NE(err.find("parameter A"), std::string::npos) << err;
  EXPECT_NE(err.find("(16, 16)"), std::string::npos) << err;
  EXPECT_NE(err.find("(16, 8)"), std::string::npos) << err;

  err = error_of([&] { interpret(f.func, {f32_array({3}, {1, 2, 3})}); });
  EXPECT_NE(err.find("takes 2 arguments, got 1"), std::string::npos) << err;
  err = error_of([&] {
    interpret(f.func, {array<int32_t>({3}, kI32, {1, 2, 3}), f32_array({3}, {0, 0, 0})});
  });
  EXPECT_NE(err.find("dtype float32, got an NDArray of int32"), std::string::npos) << err;
  err = error_of([&] { interpret(f.func, {int64_t(3), f32_array({3}, {0, 0, 0})}); });
  EXPECT_NE(err.find("parameter X is a buffer"), std::string::npos) << err;
}

TEST(Interpreter, RunsTheRfcExpFunction) {
  testing::ExpFunc f;
  runtime::NDArray y = f32_array({3}, {0, 0, 0});
  interpret(f.func, {f32_array({3}, {0, 1, -1}), y});
  auto out = values_of<float>(y);
  EXPECT_EQ(out[0], 1.f);
  EXPECT_EQ(out[1], float(std::exp(1.0)));
  EXPECT_EQ(out[2], float(std::exp(-1.0)));
}

TEST(Interpreter, RejectsBlocks) {
  testing::Matmul m;
  runtime::NDArray a = f32_array({16, 16}, std::vector<float>(256));
  std::string err = error_of([&] { interpret(m.func, {a, a, a}); });
  EXPECT_NE(err.find("block matmul is left"), std::string::npos) << err;
}

TEST(Interpreter, MultiDimensionalBuffersWithoutFlattening) {
  // Blocks lowered but buffers left 2-D: the interpreter computes the offsets itself.
  testing::Matmul m;
  Ref<PrimFunc> f = lower_blocks(m.func);
  std::vector<float> a = testing::random_floats(256, 7), b = testing::random_floats(256, 8);
  runtime::NDArray c = f32_array({16, 16}, std::vector<float>(256));
  interpret(f, {f32_array({16, 16}, a), f32_array({16, 16}, b), c});
  auto out = values_of<float>(c);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) {
      float acc = 0;
      for (int k = 0; k < 16; ++k) acc += a[size_t(i * 16 + k)] * b[size_t(k * 16 + j)];
      EXPECT_FLOAT_EQ(out[size_t(i * 16 + j)], acc);
    }
}

TEST(HalfConversion, RoundTripsAndSpecialValues) {
  for (float f : {0.f, -0.f, 1.f, -2.f, 0.5f, 65504.f, 0x1p-24f, 0x1p-14f, 1234.f, 1.5f})
    EXPECT_EQ(half_to_float(float_to_half(f)), f) << f;
  EXPECT_EQ(float_to_half(INFINITY), 0x7C00);
  EXPECT_TRUE(std::isnan(half_to_float(float_to_half(NAN))));
  EXPECT_EQ(float_to_half(-0.f), 0x8000);
  EXPECT_EQ(bfloat16_to_float(float_to_bfloat16(1.0f + 0x1p-8f)), 1.0f);  // tie to even
  EXPECT_EQ(bfloat16_to_float(float_to_bfloat16(3.0f)), 3.0f);
}

}  // namespace
}  // namespace relax::tir
