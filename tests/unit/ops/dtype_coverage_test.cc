// Representative ops in the narrow dtypes (float16, int8, uint8, bool) against plain loops:
// float16 results exact in half compare with the reference rounded to half (op_test_util.h's
// own IEEE conversion), the rest within float16 tolerances; integer results wrap like C's
// fixed-width unsigned arithmetic.
#include <cmath>

#include "op_test_util.h"

namespace relax::ops_test {
namespace {

const DataType kHalf = DataType::Float(16), kI8 = DataType::Int(8), kU8 = DataType::UInt(8);

/// `v` wrapped to `bits` bits (two's complement when `is_signed`).
double wrap(double v, int bits, bool is_signed) {
  auto u = uint64_t(int64_t(v)) & ((uint64_t(1) << bits) - 1);
  if (is_signed && (u >> (bits - 1))) return double(int64_t(u) - (int64_t(1) << bits));
  return double(u);
}

TEST(DtypeCoverage, HalfConversionRoundsToNearestEven) {
  // Ties between neighbours (1 + 2^-11 lies halfway between 1 and 1 + 2^-10), the largest
  // finite value, the overflow threshold and the subnormal grid.
  EXPECT_EQ(round_to_half(1 + 0x1p-11), 1.0);
  EXPECT_EQ(round_to_half(1 + 3 * 0x1p-11), 1 + 0x1p-9);
  EXPECT_EQ(round_to_half(65519.0), 65504.0);
  EXPECT_TRUE(std::isinf(round_to_half(65520.0)));
  EXPECT_EQ(round_to_half(0x1p-25), 0.0);                // tie with zero: even
  EXPECT_EQ(round_to_half(3 * 0x1p-25), 0x1p-23);        // tie: 1.5 ulps to 2 ulps
  EXPECT_EQ(round_to_half(0x1p-14 - 0x1p-26), 0x1p-14);  // rounds up into the normals
  EXPECT_EQ(double_to_half(-2.0), 0xC000);
  EXPECT_EQ(half_to_double(0x3C00), 1.0);
  EXPECT_EQ(half_to_double(0x0001), 0x1p-24);
  EXPECT_TRUE(std::isnan(half_to_double(0x7E00)));
}

TEST(DtypeCoverage, HalfUnary) {
  struct Case {
    const char* name;
    Expr (*build)(Expr);
    double (*ref)(double);
    double lo, hi;
    bool exact;  // correctly rounded in half
  };
  const Case cases[] = {
      {"exp", op::exp, [](double x) { return std::exp(x); }, -3, 3, false},
      {"sqrt", op::sqrt, [](double x) { return std::sqrt(x); }, 0, 9, true},
      {"abs", op::abs, [](double x) { return std::fabs(x); }, -9, 9, true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    OpRunner r;
    Ref<tir::Var> n = tir::var("n");
    auto x = r.param("x", {PrimExpr(n), int_imm(8)}, kHalf);
    auto xa = random({3, 8}, kHalf, 1, c.lo, c.hi);
    auto out = r.run1(c.build(x), {{x, xa}});
    ASSERT_EQ(out.dtype(), kHalf);
    std::vector<double> want;
    for (double v : host_of(xa).data) want.push_back(round_to_half(c.ref(v)));
    if (c.exact)
      EXPECT_TRUE(tensor_close_to(out, {3, 8}, want, 0, 0));
    else
      EXPECT_TRUE(tensor_close_to(out, {3, 8}, want, 1e-3, 1e-3));  // one half ulp
  }
}

TEST(DtypeCoverage, HalfBinaryBroadcastIsExact) {
  auto aa = random({3, 4}, kHalf, 2, -8, 8), ba = random({4}, kHalf, 3, -8, 8);
  Host ha = host_of(aa), hb = host_of(ba);
  struct Case {
    const char* name;
    Expr (*build)(Expr, Expr);
    double (*ref)(double, double);
  };
  const Case cases[] = {
      {"add", op::add, [](double a, double b) { return a + b; }},
      {"multiply", op::multiply, [](double a, double b) { return a * b; }},
      {"maximum", op::maximum, [](double a, double b) { return std::max(a, b); }},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    OpRunner r;
    Ref<tir::Var> n = tir::var("n");
    auto a = r.param("a", {PrimExpr(n), int_imm(4)}, kHalf);
    auto b = r.param("b", std::vector<int64_t>{4}, kHalf);
    std::vector<double> want;
    for (size_t i = 0; i < ha.size(); ++i) want.push_back(round_to_half(c.ref(ha[i], hb[i % 4])));
    EXPECT_TRUE(tensor_close_to(r.run1(c.build(a, b), {{a, aa}, {b, ba}}), {3, 4}, want, 0, 0));
  }
}

TEST(DtypeCoverage, HalfReductionsAndSoftmax) {
  auto xa = random({3, 8}, kHalf, 4, -2, 2);
  Host h = host_of(xa);
  std::vector<double> sum(3, 0), mx(3, -INFINITY);
  for (size_t i = 0; i < h.size(); ++i) {
    sum[i / 8] += h[i];
    mx[i / 8] = std::max(mx[i / 8], h[i]);
  }
  OpRunner r1;
  auto x1 = r1.param("x", {3, 8}, kHalf);
  EXPECT_TRUE(tensor_close_to(r1.run1(op::sum(x1, std::vector<int64_t>{1}), {{x1, xa}}), {3}, sum,
                              4e-3, 1e-2));
  OpRunner r2;
  auto x2 = r2.param("x", {3, 8}, kHalf);
  EXPECT_TRUE(
      tensor_close_to(r2.run1(op::max(x2, std::vector<int64_t>{1}), {{x2, xa}}), {3}, mx, 0, 0));
  OpRunner r3;
  Ref<tir::Var> n = tir::var("n");
  auto x3 = r3.param("x", {PrimExpr(n), int_imm(8)}, kHalf);
  std::vector<double> sm;
  for (size_t i = 0; i < h.size(); ++i) {
    double den = 0;
    for (size_t k = 0; k < 8; ++k) den += std::exp(h[i / 8 * 8 + k] - mx[i / 8]);
    sm.push_back(std::exp(h[i] - mx[i / 8]) / den);
  }
  EXPECT_TRUE(tensor_close_to(r3.run1(op::softmax(x3, -1), {{x3, xa}}), {3, 8}, sm, 5e-3, 1e-3));
}

TEST(DtypeCoverage, HalfMatmulAndConv2d) {
  auto aa = random({3, 8}, kHalf, 5), ba = random({8, 4}, kHalf, 6);
  Host ha = host_of(aa), hb = host_of(ba);
  std::vector<double> mm(12, 0);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 8; ++k)
        mm[size_t(i * 4 + j)] += ha[size_t(i * 8 + k)] * hb[size_t(k * 4 + j)];
  OpRunner r;
  Ref<tir::Var> n = tir::var("n");
  auto a = r.param("a", {PrimExpr(n), int_imm(8)}, kHalf);
  auto b = r.param("b", {8, 4}, kHalf);
  EXPECT_TRUE(
      tensor_close_to(r.run1(op::matmul(a, b), {{a, aa}, {b, ba}}), {3, 4}, mm, 5e-3, 5e-3));

  // conv2d NCHW / OIHW, 1x2x5x5 by 3x2x3x3, stride 1, padding 1.
  auto da = random({1, 2, 5, 5}, kHalf, 7), wa = random({3, 2, 3, 3}, kHalf, 8);
  Host hd = host_of(da), hw = host_of(wa);
  std::vector<double> conv(75, 0);
  for (int o = 0; o < 3; ++o)
    for (int y = 0; y < 5; ++y)
      for (int x = 0; x < 5; ++x)
        for (int c = 0; c < 2; ++c)
          for (int ky = 0; ky < 3; ++ky)
            for (int kx = 0; kx < 3; ++kx) {
              int iy = y + ky - 1, ix = x + kx - 1;
              if (iy < 0 || iy >= 5 || ix < 0 || ix >= 5) continue;
              conv[size_t((o * 5 + y) * 5 + x)] +=
                  hd[size_t((c * 5 + iy) * 5 + ix)] * hw[size_t(((o * 2 + c) * 3 + ky) * 3 + kx)];
            }
  OpRunner rc;
  auto d = rc.param("d", {1, 2, 5, 5}, kHalf);
  auto w = rc.param("w", {3, 2, 3, 3}, kHalf);
  op::Conv2DOptions opt;
  opt.padding = {1, 1, 1, 1};
  EXPECT_TRUE(tensor_close_to(rc.run1(op::conv2d(d, w, opt), {{d, da}, {w, wa}}), {1, 3, 5, 5},
                              conv, 5e-3, 1e-2));
}

TEST(DtypeCoverage, HalfFloatCasts) {
  // float32 -> float16 rounds to nearest even, overflows to infinity, keeps subnormals.
  std::vector<double> in = {
      1 + 0x1p-11, 1 + 3 * 0x1p-11, -2.5, 65519, 70000, -1e-7, 3e-8, 0.1, 1e-3, -0.0, 1024.5, 2049};
  auto xa = array_of({12}, kF32, in);
  std::vector<double> want;
  for (double v : host_of(xa).data) want.push_back(round_to_half(v));
  OpRunner r;
  auto x = r.param("x", std::vector<int64_t>{12}, kF32);
  EXPECT_TRUE(tensor_close_to(r.run1(op::astype(x, kHalf), {{x, xa}}), {12}, want, 0, 0));
  // float16 -> float32 is exact.
  auto ha = random({12}, kHalf, 9, -100, 100);
  OpRunner r2;
  auto h = r2.param("h", std::vector<int64_t>{12}, kHalf);
  EXPECT_TRUE(
      tensor_close_to(r2.run1(op::astype(h, kF32), {{h, ha}}), {12}, host_of(ha).data, 0, 0));
}

TEST(DtypeCoverage, Int8AndUint8Arithmetic) {
  for (DataType t : {kI8, kU8}) {
    bool s = t == kI8;
    SCOPED_TRACE(t.to_string());
    // Operands that overflow: the results wrap to 8 bits.
    auto aa = s ? array_of({6}, t, {100, -100, 127, -128, 5, -7})
                : array_of({6}, t, {200, 100, 255, 0, 5, 130});
    auto ba = s ? array_of({6}, t, {100, -100, 1, -1, -6, 3})
                : array_of({6}, t, {100, 200, 1, 255, 250, 2});
    Host ha = host_of(aa), hb = host_of(ba);
    struct Case {
      const char* name;
      Expr (*build)(Expr, Expr);
      double (*ref)(double, double);
    };
    const Case cases[] = {
        {"add", op::add, [](double a, double b) { return a + b; }},
        {"multiply", op::multiply, [](double a, double b) { return a * b; }},
        {"maximum", op::maximum, [](double a, double b) { return std::max(a, b); }},
    };
    for (const auto& c : cases) {
      SCOPED_TRACE(c.name);
      OpRunner r;
      Ref<tir::Var> n = tir::var("n");
      auto a = r.param("a", std::vector<PrimExpr>{n}, t);
      auto b = r.param("b", std::vector<PrimExpr>{n}, t);
      std::vector<double> want;
      for (size_t i = 0; i < 6; ++i) want.push_back(wrap(c.ref(ha[i], hb[i]), 8, s));
      auto out = r.run1(c.build(a, b), {{a, aa}, {b, ba}});
      ASSERT_EQ(out.dtype(), t);
      EXPECT_TRUE(tensor_close_to(out, {6}, want, 0, 0));
    }
    struct Cmp {
      const char* name;
      Expr (*build)(Expr, Expr);
      bool (*ref)(double, double);
    };
    const Cmp cmps[] = {
        {"less", op::less, [](double a, double b) { return a < b; }},
        {"greater_equal", op::greater_equal, [](double a, double b) { return a >= b; }},
        {"equal", op::equal, [](double a, double b) { return a == b; }},
    };
    for (const auto& c : cmps) {
      SCOPED_TRACE(c.name);
      OpRunner r;
      auto a = r.param("a", std::vector<int64_t>{6}, t);
      auto b = r.param("b", std::vector<int64_t>{6}, t);
      std::vector<double> want;
      for (size_t i = 0; i < 6; ++i) want.push_back(c.ref(ha[i], hb[i]) ? 1 : 0);
      auto out = r.run1(c.build(a, b), {{a, aa}, {b, ba}});
      ASSERT_EQ(out.dtype(), kBool);
      EXPECT_TRUE(tensor_close_to(out, {6}, want, 0, 0));
    }
    // sum over all elements accumulates in the input type (relax.sum has no dtype attribute),
    // so it wraps too.
    OpRunner rs;
    auto xs = rs.param("x", std::vector<int64_t>{6}, t);
    double total = 0;
    for (size_t i = 0; i < 6; ++i) total += ha[i];
    EXPECT_TRUE(tensor_close_to(rs.run1(op::sum(xs), {{xs, aa}}), {}, {wrap(total, 8, s)}, 0, 0));
  }
}

TEST(DtypeCoverage, Int8MatmulIntoInt32) {
  auto aa = random({2, 5}, kI8, 10, -128, 127), ba = random({5, 3}, kI8, 11, -128, 127);
  Host ha = host_of(aa), hb = host_of(ba);
  std::vector<double> want(6, 0);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 5; ++k)
        want[size_t(i * 3 + j)] += ha[size_t(i * 5 + k)] * hb[size_t(k * 3 + j)];
  OpRunner r;
  auto a = r.param("a", {2, 5}, kI8);
  auto b = r.param("b", {5, 3}, kI8);
  auto out = r.run1(op::matmul(a, b, kI32), {{a, aa}, {b, ba}});
  ASSERT_EQ(out.dtype(), kI32);
  EXPECT_TRUE(tensor_close_to(out, {2, 3}, want, 0, 0));
}

TEST(DtypeCoverage, IntegerAstype) {
  auto ia = array_of({5}, kI8, {-1, -128, 127, 0, 5});
  auto ua = array_of({5}, kU8, {255, 128, 127, 0, 200});
  struct Case {
    runtime::NDArray in;
    DataType to;
    std::vector<double> want;
  };
  const Case cases[] = {
      {ia, kU8, {255, 128, 127, 0, 5}},   // two's complement reinterpretation
      {ia, kI32, {-1, -128, 127, 0, 5}},  // sign extension
      {ia, kF32, {-1, -128, 127, 0, 5}},
      {ua, kI32, {255, 128, 127, 0, 200}},  // zero extension
      {ua, kI8, {-1, -128, 127, 0, -56}},
      {ua, kHalf, {255, 128, 127, 0, 200}},
      {array_of({5}, kF32, {1.9, -1.9, 127.5, 0.2, -0.7}), kI8, {1, -1, 127, 0, 0}},  // truncation
      {ia, kBool, {1, 1, 1, 0, 1}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.in.dtype().to_string() + " -> " + c.to.to_string());
    OpRunner r;
    auto x = r.param("x", std::vector<int64_t>{5}, c.in.dtype());
    auto out = r.run1(op::astype(x, c.to), {{x, c.in}});
    ASSERT_EQ(out.dtype(), c.to);
    EXPECT_TRUE(tensor_close_to(out, {5}, c.want, 0, 0));
  }
}

TEST(DtypeCoverage, BoolLogicalAndWhere) {
  auto pa = array_of({2, 4}, kBool, {0, 0, 1, 1, 1, 0, 1, 0});
  auto qa = array_of({4}, kBool, {0, 1, 0, 1});
  Host hp = host_of(pa), hq = host_of(qa);
  struct Case {
    const char* name;
    Expr (*build)(Expr, Expr);
    bool (*ref)(bool, bool);
  };
  const Case cases[] = {
      {"logical_and", op::logical_and, [](bool a, bool b) { return a && b; }},
      {"logical_or", op::logical_or, [](bool a, bool b) { return a || b; }},
      {"logical_xor", op::logical_xor, [](bool a, bool b) { return a != b; }},
      {"equal", op::equal, [](bool a, bool b) { return a == b; }},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    OpRunner r;
    Ref<tir::Var> n = tir::var("n");
    auto p = r.param("p", {PrimExpr(n), int_imm(4)}, kBool);
    auto q = r.param("q", std::vector<int64_t>{4}, kBool);
    std::vector<double> want;
    for (size_t i = 0; i < 8; ++i) want.push_back(c.ref(hp[i] != 0, hq[i % 4] != 0));
    auto out = r.run1(c.build(p, q), {{p, pa}, {q, qa}});
    ASSERT_EQ(out.dtype(), kBool);
    EXPECT_TRUE(tensor_close_to(out, {2, 4}, want, 0, 0));
  }
  OpRunner rn;
  auto p = rn.param("p", {2, 4}, kBool);
  std::vector<double> inv;
  for (double v : hp.data) inv.push_back(v == 0);
  EXPECT_TRUE(tensor_close_to(rn.run1(op::logical_not(p), {{p, pa}}), {2, 4}, inv, 0, 0));
  // where over int8 and float16 branches, the condition broadcast along rows.
  for (DataType t : {kI8, kHalf}) {
    SCOPED_TRACE(t.to_string());
    OpRunner r;
    auto cond = r.param("c", std::vector<int64_t>{4}, kBool);
    auto a = r.param("a", {2, 4}, t);
    auto b = r.param("b", {2, 4}, t);
    auto aa = random({2, 4}, t, 12, -100, 100), ba = random({2, 4}, t, 13, -100, 100);
    Host ha = host_of(aa), hb = host_of(ba);
    std::vector<double> want;
    for (size_t i = 0; i < 8; ++i) want.push_back(hq[i % 4] != 0 ? ha[i] : hb[i]);
    EXPECT_TRUE(tensor_close_to(r.run1(op::where(cond, a, b), {{cond, qa}, {a, aa}, {b, ba}}),
                                {2, 4}, want, 0, 0));
  }
}

}  // namespace
}  // namespace relax::ops_test
