// Unary, binary, where, clip and astype: legalised, lowered and run in the interpreter against
// loops over the inputs, with static and symbolic shapes.
#include <cmath>

#include "op_test_util.h"

namespace relax::ops_test {
namespace {

struct UnaryCase {
  const char* name;
  Expr (*build)(Expr);
  double (*ref)(double);
  double lo, hi;
  DataType in = kF32, out = kF32;
};

double sigmoid_ref(double x) { return 1 / (1 + std::exp(-x)); }
double rsqrt_ref(double x) { return 1 / std::sqrt(x); }
double sign_ref(double x) { return x > 0 ? 1 : (x < 0 ? -1 : 0); }
double neg_ref(double x) { return -x; }
double square_ref(double x) { return x * x; }
double round_ref(double x) { return std::nearbyint(x); }
double isnan_ref(double x) { return std::isnan(x); }
double isfinite_ref(double x) { return std::isfinite(x); }
double isinf_ref(double x) { return std::isinf(x); }
double not_ref(double x) { return x == 0; }
double bitnot_ref(double x) { return double(~int64_t(x)); }
double id_ref(double x) { return x; }
double fabs_ref(double x) { return std::fabs(x); }

const UnaryCase kUnary[] = {
    {"exp", op::exp, [](double x) { return std::exp(x); }, -2, 2},
    {"log", op::log, [](double x) { return std::log(x); }, 0.1, 4},
    {"sqrt", op::sqrt, [](double x) { return std::sqrt(x); }, 0, 4},
    {"rsqrt", op::rsqrt, rsqrt_ref, 0.1, 4},
    {"sin", op::sin, [](double x) { return std::sin(x); }, -3, 3},
    {"cos", op::cos, [](double x) { return std::cos(x); }, -3, 3},
    {"tan", op::tan, [](double x) { return std::tan(x); }, -1, 1},
    {"asin", op::asin, [](double x) { return std::asin(x); }, -0.9, 0.9},
    {"acos", op::acos, [](double x) { return std::acos(x); }, -0.9, 0.9},
    {"atan", op::atan, [](double x) { return std::atan(x); }, -3, 3},
    {"sinh", op::sinh, [](double x) { return std::sinh(x); }, -2, 2},
    {"cosh", op::cosh, [](double x) { return std::cosh(x); }, -2, 2},
    {"tanh", op::tanh, [](double x) { return std::tanh(x); }, -3, 3},
    {"asinh", op::asinh, [](double x) { return std::asinh(x); }, -3, 3},
    {"acosh", op::acosh, [](double x) { return std::acosh(x); }, 1, 4},
    {"atanh", op::atanh, [](double x) { return std::atanh(x); }, -0.9, 0.9},
    {"sigmoid", op::sigmoid, sigmoid_ref, -4, 4},
    {"erf", op::erf, [](double x) { return std::erf(x); }, -2, 2},
    {"floor", op::floor, [](double x) { return std::floor(x); }, -5, 5},
    {"ceil", op::ceil, [](double x) { return std::ceil(x); }, -5, 5},
    {"round", op::round, round_ref, -5, 5},
    {"trunc", op::trunc, [](double x) { return std::trunc(x); }, -5, 5},
    {"abs", op::abs, fabs_ref, -5, 5},
    {"negative", op::negative, neg_ref, -5, 5},
    {"square", op::square, square_ref, -5, 5},
    {"sign", op::sign, sign_ref, -5, 5},
    {"isnan", op::isnan, isnan_ref, -5, 5, kF32, kBool},
    {"isinf", op::isinf, isinf_ref, -5, 5, kF32, kBool},
    {"isfinite", op::isfinite, isfinite_ref, -5, 5, kF32, kBool},
    {"abs_i32", op::abs, fabs_ref, -50, 50, kI32, kI32},
    {"negative_i32", op::negative, neg_ref, -50, 50, kI32, kI32},
    {"sign_i32", op::sign, sign_ref, -3, 3, kI32, kI32},
    {"floor_i32", op::floor, id_ref, -50, 50, kI32, kI32},
    {"logical_not", op::logical_not, not_ref, 0, 1, kBool, kBool},
    {"bitwise_not", op::bitwise_not, bitnot_ref, -100, 100, kI32, kI32},
};

class Unary : public ::testing::TestWithParam<UnaryCase> {};

void run_unary(const UnaryCase& c, bool symbolic) {
  OpRunner r;
  Ref<tir::Var> n = tir::var("n");
  auto x = symbolic ? r.param("x", {PrimExpr(n), int_imm(3)}, c.in)
                    : r.param("x", std::vector<int64_t>{2, 3}, c.in);
  std::vector<int64_t> shape = {symbolic ? 5 : 2, 3};
  runtime::NDArray xa = random(shape, c.in, 7, c.lo, c.hi);
  if (c.in.is_float()) {  // exact special values for the predicates and rounding ties
    Host h = host_of(xa);
    h.data[0] = 2.5;
    h.data[1] = -0.5;
    if (c.out.is_bool()) {
      h.data[2] = NAN;
      h.data[3] = INFINITY;
    }
    xa = array_of(shape, c.in, h.data);
  }
  runtime::NDArray y = r.run1(c.build(x), {{x, xa}});
  ASSERT_EQ(y.dtype(), c.out);
  Host h = host_of(xa);
  std::vector<double> want;
  for (double v : h.data) want.push_back(c.ref(v));
  EXPECT_TRUE(tensor_close_to(y, shape, want, 1e-6, 1e-6));
}

TEST_P(Unary, StaticShape) { run_unary(GetParam(), false); }
TEST_P(Unary, SymbolicShape) { run_unary(GetParam(), true); }

INSTANTIATE_TEST_SUITE_P(Ops, Unary, ::testing::ValuesIn(kUnary),
                         [](const auto& info) { return std::string(info.param.name); });

struct BinaryCase {
  const char* name;
  Expr (*build)(Expr, Expr);
  double (*ref)(double, double);
  DataType in = kF32, out = kF32;
  double lo = -4, hi = 4;
  /// Keep the second operand away from zero (divisions).
  bool nonzero_rhs = false;
};

const BinaryCase kBinary[] = {
    {"add", op::add, [](double a, double b) { return a + b; }},
    {"subtract", op::subtract, [](double a, double b) { return a - b; }},
    {"multiply", op::multiply, [](double a, double b) { return a * b; }},
    {"divide", op::divide, [](double a, double b) { return a / b; }, kF32, kF32, -4, 4, true},
    {"floor_divide", op::floor_divide, [](double a, double b) { return std::floor(a / b); }, kF32,
     kF32, -4, 4, true},
    {"power", op::power, [](double a, double b) { return std::pow(a, b); }, kF32, kF32, 0.5, 3},
    {"mod", op::mod, [](double a, double b) { return std::fmod(a, b); }, kF32, kF32, -4, 4, true},
    {"floor_mod", op::floor_mod, [](double a, double b) { return a - std::floor(a / b) * b; }, kF32,
     kF32, -4, 4, true},
    {"maximum", op::maximum, [](double a, double b) { return std::max(a, b); }},
    {"minimum", op::minimum, [](double a, double b) { return std::min(a, b); }},
    {"equal", op::equal, [](double a, double b) { return double(a == b); }, kI32, kBool, -2, 2},
    {"not_equal", op::not_equal, [](double a, double b) { return double(a != b); }, kI32, kBool, -2,
     2},
    {"less", op::less, [](double a, double b) { return double(a < b); }, kF32, kBool},
    {"less_equal", op::less_equal, [](double a, double b) { return double(a <= b); }, kI32, kBool,
     -2, 2},
    {"greater", op::greater, [](double a, double b) { return double(a > b); }, kF32, kBool},
    {"greater_equal", op::greater_equal, [](double a, double b) { return double(a >= b); }, kI32,
     kBool, -2, 2},
    {"logical_and", op::logical_and, [](double a, double b) { return double(a && b); }, kBool,
     kBool},
    {"logical_or", op::logical_or, [](double a, double b) { return double(a || b); }, kBool, kBool},
    {"logical_xor", op::logical_xor,
     [](double a, double b) { return double((a != 0) != (b != 0)); }, kBool, kBool},
    {"bitwise_and", op::bitwise_and,
     [](double a, double b) { return double(int64_t(a) & int64_t(b)); }, kI32, kI32, -100, 100},
    {"bitwise_or", op::bitwise_or,
     [](double a, double b) { return double(int64_t(a) | int64_t(b)); }, kI32, kI32, -100, 100},
    {"bitwise_xor", op::bitwise_xor,
     [](double a, double b) { return double(int64_t(a) ^ int64_t(b)); }, kI32, kI32, -100, 100},
    {"left_shift", op::left_shift,
     [](double a, double b) { return double(int64_t(a) << int64_t(b)); }, kI32, kI32, 0, 7},
    {"right_shift", op::right_shift,
     [](double a, double b) { return double(int64_t(a) >> int64_t(b)); }, kI32, kI32, 0, 7},
    {"add_i32", op::add, [](double a, double b) { return a + b; }, kI32, kI32, -100, 100},
    {"divide_i32", op::divide, [](double a, double b) { return std::trunc(a / b); }, kI32, kI32,
     -20, 20, true},
    {"floor_divide_i32", op::floor_divide, [](double a, double b) { return std::floor(a / b); },
     kI32, kI32, -20, 20, true},
    {"mod_i32", op::mod, [](double a, double b) { return std::fmod(a, b); }, kI32, kI32, -20, 20,
     true},
    {"floor_mod_i32", op::floor_mod, [](double a, double b) { return a - std::floor(a / b) * b; },
     kI32, kI32, -20, 20, true},
};

class Binary : public ::testing::TestWithParam<BinaryCase> {};

/// a (a_shape) op b (b_shape) broadcast to out_shape.
void run_binary(const BinaryCase& c, bool symbolic) {
  OpRunner r;
  Ref<tir::Var> n = tir::var("n");
  std::vector<int64_t> as = {2, 3, 4}, bs = {3, 1}, os = {2, 3, 4};
  Ref<Var> a, b;
  if (symbolic) {
    as = {5, 4};
    bs = {4};
    os = {5, 4};
    a = r.param("a", {PrimExpr(n), int_imm(4)}, c.in);
    b = r.param("b", {int_imm(4)}, c.in);
  } else {
    a = r.param("a", as, c.in);
    b = r.param("b", bs, c.in);
  }
  runtime::NDArray aa = random(as, c.in, 11, c.lo, c.hi), ba = random(bs, c.in, 12, c.lo, c.hi);
  if (c.nonzero_rhs) {
    Host h = host_of(ba);
    for (auto& v : h.data)
      if (std::abs(v) < 0.5) v = v < 0 ? -1.5 : 1.5;
    ba = array_of(bs, c.in, h.data);
  }
  runtime::NDArray y = r.run1(c.build(a, b), {{a, aa}, {b, ba}});
  ASSERT_EQ(y.dtype(), c.out);
  Host ha = host_of(aa), hb = host_of(ba);
  std::vector<double> want;
  for (int64_t f = 0; f < numel(os); ++f) {
    auto idx = unravel(f, os);
    want.push_back(
        c.ref(ha[size_t(broadcast_offset(idx, as))], hb[size_t(broadcast_offset(idx, bs))]));
  }
  EXPECT_TRUE(tensor_close_to(y, os, want, 1e-5, 1e-5));
}

TEST_P(Binary, StaticShapeBroadcast) { run_binary(GetParam(), false); }
TEST_P(Binary, SymbolicShapeBroadcast) { run_binary(GetParam(), true); }

INSTANTIATE_TEST_SUITE_P(Ops, Binary, ::testing::ValuesIn(kBinary),
                         [](const auto& info) { return std::string(info.param.name); });

void run_where(bool symbolic) {
  OpRunner r;
  Ref<tir::Var> n = tir::var("n");
  std::vector<int64_t> cs = {3, 1}, as = {3, 4}, bs = {4};
  auto c = symbolic ? r.param("c", {PrimExpr(n), int_imm(1)}, kBool) : r.param("c", cs, kBool);
  auto a = symbolic ? r.param("a", {PrimExpr(n), int_imm(4)}, kF32) : r.param("a", as, kF32);
  auto b = r.param("b", bs, kF32);
  auto ca = random(cs, kBool, 1), aa = random(as, kF32, 2), ba = random(bs, kF32, 3);
  runtime::NDArray y = r.run1(op::where(c, a, b), {{c, ca}, {a, aa}, {b, ba}});
  Host hc = host_of(ca), ha = host_of(aa), hb = host_of(ba);
  std::vector<double> want;
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 4; ++j)
      want.push_back(hc[size_t(i)] != 0 ? ha[size_t(i * 4 + j)] : hb[size_t(j)]);
  EXPECT_TRUE(tensor_close_to(y, {3, 4}, want));
}

TEST(Where, StaticShape) { run_where(false); }
TEST(Where, SymbolicShape) { run_where(true); }

void run_clip_astype(bool symbolic) {
  OpRunner r;
  Ref<tir::Var> n = tir::var("n");
  auto x =
      symbolic ? r.param("x", {PrimExpr(n)}, kF32) : r.param("x", std::vector<int64_t>{16}, kF32);
  auto xa = random({16}, kF32, 5, -3, 3);
  Host h = host_of(xa);
  runtime::NDArray y = r.run1(op::clip(x, tir::float_imm(-1), tir::float_imm(2)), {{x, xa}});
  std::vector<double> want;
  for (double v : h.data) want.push_back(std::min(std::max(v, -1.0), 2.0));
  EXPECT_TRUE(tensor_close_to(y, {16}, want));

  OpRunner r2;
  auto x2 =
      symbolic ? r2.param("x", {PrimExpr(n)}, kF32) : r2.param("x", std::vector<int64_t>{16}, kF32);
  runtime::NDArray z = r2.run1(op::astype(x2, kI32), {{x2, xa}});
  ASSERT_EQ(z.dtype(), kI32);
  want.clear();
  for (double v : h.data) want.push_back(std::trunc(float(v)));
  EXPECT_TRUE(tensor_close_to(z, {16}, want, 0, 0));
}

TEST(ClipAstype, StaticShape) { run_clip_astype(false); }
TEST(ClipAstype, SymbolicShape) { run_clip_astype(true); }

TEST(ElementwiseInfer, ResultTypesAndErrors) {
  OpRunner r;
  Ref<tir::Var> n = tir::var("n");
  auto f = r.param("f", {PrimExpr(n), int_imm(4)}, kF32);
  auto i = r.param("i", {PrimExpr(n), int_imm(4)}, kI32);
  auto b = r.param("b", {PrimExpr(n), int_imm(4)}, kBool);
  EXPECT_EQ(r.infer(op::isnan(f)), "Tensor((n, 4), bool)");
  EXPECT_EQ(r.infer(op::less(f, f)), "Tensor((n, 4), bool)");
  EXPECT_EQ(r.infer(op::astype(f, DataType::Float(16))), "Tensor((n, 4), float16)");
  EXPECT_EQ(r.infer(op::where(b, i, i)), "Tensor((n, 4), int32)");
  EXPECT_ERROR_HAS(op::log(i), "relax.log: needs a floating-point tensor, got int32");
  EXPECT_ERROR_HAS(op::logical_not(f), "relax.logical_not: needs a bool tensor, got float32");
  EXPECT_ERROR_HAS(op::bitwise_not(f), "relax.bitwise_not: needs an integer tensor, got float32");
  EXPECT_ERROR_HAS(op::power(i, i), "relax.power: needs floating-point operands, got int32");
  EXPECT_ERROR_HAS(op::logical_and(i, i), "relax.logical_and: needs bool operands, got int32");
  EXPECT_ERROR_HAS(op::left_shift(f, f), "relax.left_shift: needs integer operands, got float32");
  EXPECT_ERROR_HAS(op::maximum(f, i), "relax.maximum: operand dtypes differ: float32 and int32");
  EXPECT_ERROR_HAS(op::where(i, f, f), "relax.where: 'condition' must be a bool tensor, got int32");
  EXPECT_ERROR_HAS(op::clip(f, tir::float_imm(2), tir::float_imm(1)),
                   "relax.clip: min (2) is greater than max (1)");
  EXPECT_ERROR_HAS(call_op("relax.astype", {f}), "relax.astype: attribute 'dtype' is required");
}

}  // namespace
}  // namespace relax::ops_test
