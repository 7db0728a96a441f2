// The Analyzer as a whole: facts, Select, Cast, Let, and a randomized check of the simplifier
// against a reference evaluator.
#include <random>

#include "arith_test_util.h"

namespace relax::arith::testing {
namespace {

TEST(Analyzer, BindSubstitutes) {
  Analyzer an;
  auto n = var("n"), m = var("m");
  an.bind(n, int_imm(4));
  EXPECT_EQ(simplified(an, n * m + n), "m * 4 + 4");
  an.bind(m, n * 2);
  EXPECT_EQ(simplified(an, m), "8");
}

TEST(Analyzer, SelectWithProvableCondition) {
  Analyzer an;
  auto i = var("i"), x = var("x"), y = var("y");
  an.bind_range(i, int_imm(0), int_imm(8));
  EXPECT_EQ(simplified(an, select(lt(i, int_imm(8)), x, y)), "x");
  EXPECT_EQ(simplified(an, select(lt(i, int_imm(0)), x, y)), "y");
  EXPECT_EQ(simplified(an, select(lt(x, y), x + 1, 1 + x)), "x + 1");
  EXPECT_EQ(simplified(an, select(logical_not(lt(x, y)), x, y)), "select(y <= x, x, y)");
  EXPECT_EQ(simplified(an, select(lt(x, y), x, y)), "select(x < y, x, y)");
}

TEST(Analyzer, CastOfConstants) {
  EXPECT_EQ(simplify(cast(DataType::Int(32), int_imm(5) + 2))->dtype, DataType::Int(32));
  EXPECT_EQ(simplified(cast(DataType::Int(32), int_imm(5) + 2)), "7");
  EXPECT_EQ(simplified(cast(DataType::Float(32), int_imm(3))), "3");
  Analyzer an;
  auto i = var("i");
  an.set_bound(i, 0, 100);
  // int64(int32(i)) is i when i fits in int32.
  PrimExpr e = make_ref<Cast>(DataType::Int(64), make_ref<Cast>(DataType::Int(32), i));
  EXPECT_EQ(simplified(an, e), "i");
  auto big = var("big");
  PrimExpr wrap = make_ref<Cast>(DataType::Int(64), make_ref<Cast>(DataType::Int(32), big));
  EXPECT_EQ(simplified(wrap), "int64(int32(big))");
}

TEST(Analyzer, Let) {
  auto x = var("x"), t = var("t"), y = var("y");
  // A constant value is inlined.
  EXPECT_EQ(simplified(make_ref<Let>(t, int_imm(3), t * x + t)), "x * 3 + 3");
  // A compound value stays bound, its bounds known inside the body.
  Analyzer an;
  an.set_bound(y, 0, 3);
  PrimExpr kept = make_ref<Let>(t, x * y, t + t);
  EXPECT_EQ(simplified(an, kept), "(let t = x * y in t * 2)");
  PrimExpr bounded = make_ref<Let>(t, y + 1, floordiv(t, 8));
  EXPECT_EQ(simplified(an, bounded), "0");
  // An unused binding disappears.
  EXPECT_EQ(simplified(make_ref<Let>(t, x * y, x + 1)), "x + 1");
}

TEST(Analyzer, ProveHelpers) {
  Analyzer an;
  auto n = var("n");
  an.set_bound(n, 1, 64);
  EXPECT_TRUE(an.can_prove_greater_equal(n * 2 - 2, 0));
  EXPECT_FALSE(an.can_prove_greater_equal(n - 2, 0));
  EXPECT_TRUE(an.can_prove_less(floormod(n, 16), 16));
  EXPECT_FALSE(an.can_prove_less(n, 64));
}

TEST(Analyzer, IssueExamples) {
  auto n = var("n"), m = var("m"), h = var("h"), x = var("x");
  EXPECT_EQ(simplified(floordiv(n * 4, 4)), "n");
  EXPECT_TRUE(prove_equal(n * m, m * n));
  EXPECT_EQ(simplified(floordiv(h + 2 - 3, 1) + 1), "h");
  EXPECT_EQ(simplified(x * 2 + x), "x * 3");
}

// ---- Randomized soundness: simplify(e) evaluates like e at every point of a grid.

class RandomExpr {
 public:
  RandomExpr(uint32_t seed, std::vector<Ref<Var>> vars) : rng_(seed), vars_(std::move(vars)) {}

  PrimExpr make(int depth) {
    if (depth == 0 || pick(4) == 0) {
      if (pick(3) == 0) return int_imm(int64_t(pick(17)) - 8);
      return vars_[pick(vars_.size())];
    }
    PrimExpr a = make(depth - 1);
    PrimExpr b = make(depth - 1);
    int64_t c = int64_t(pick(8)) + 1;
    if (pick(4) == 0) c = -c;
    switch (pick(9)) {
      case 0:
        return a + b;
      case 1:
        return a - b;
      case 2:
        return a * (pick(2) ? b : int_imm(c));
      case 3:
        return floordiv(a, c);
      case 4:
        return floormod(a, c);
      case 5:
        return min(a, b);
      case 6:
        return max(a, b);
      case 7:
        return select(lt(a, b), a + int_imm(c), b);
      default:
        return a * int_imm(c) + b;
    }
  }

  PrimExpr make_condition(int depth) {
    PrimExpr a = make(depth), b = make(depth);
    switch (pick(6)) {
      case 0:
        return eq(a, b);
      case 1:
        return ne(a, b);
      case 2:
        return lt(a, b);
      case 3:
        return le(a, b);
      case 4:
        return gt(a, b);
      default:
        return ge(a, b);
    }
  }

 private:
  size_t pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }
  std::mt19937 rng_;
  std::vector<Ref<Var>> vars_;
};

void check_same_values(const PrimExpr& e, const PrimExpr& s, int64_t lo, int64_t hi) {
  for (int64_t x = lo; x <= hi; ++x) {
    for (int64_t y = lo; y <= hi; ++y) {
      std::map<std::string, int64_t> env{{"x", x}, {"y", y}};
      auto want = eval(e, env);
      auto got = eval(s, env);
      ASSERT_TRUE(want && got) << to_string(e) << " -> " << to_string(s);
      ASSERT_EQ(*want, *got) << "x=" << x << " y=" << y << "\n  " << to_string(e) << "\n  -> "
                             << to_string(s);
    }
  }
}

TEST(Analyzer, RandomizedSoundness) {
  auto x = var("x"), y = var("y");
  RandomExpr gen(1234, {x, y});
  for (int i = 0; i < 400; ++i) {
    PrimExpr e = gen.make(4);
    check_same_values(e, simplify(e), -9, 9);
    if (::testing::Test::HasFatalFailure()) return;
  }
  for (int i = 0; i < 300; ++i) {
    PrimExpr e = gen.make_condition(3);
    check_same_values(e, simplify(e), -9, 9);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(Analyzer, RandomizedSoundnessWithBounds) {
  auto x = var("x"), y = var("y");
  RandomExpr gen(99, {x, y});
  for (int i = 0; i < 400; ++i) {
    Analyzer an;
    an.set_bound(x, 0, 7);
    an.set_bound(y, -3, 5);
    PrimExpr e = i % 2 ? gen.make(4) : gen.make_condition(3);
    PrimExpr s = an.simplify(e);
    for (int64_t xv = 0; xv <= 7; ++xv) {
      for (int64_t yv = -3; yv <= 5; ++yv) {
        std::map<std::string, int64_t> env{{"x", xv}, {"y", yv}};
        ASSERT_EQ(*eval(e, env), *eval(s, env))
            << "x=" << xv << " y=" << yv << "\n  " << to_string(e) << "\n  -> " << to_string(s);
      }
    }
    // A proof must hold at every point.
    if (e->dtype.is_bool() && an.can_prove(e)) {
      for (int64_t xv = 0; xv <= 7; ++xv)
        for (int64_t yv = -3; yv <= 5; ++yv)
          ASSERT_EQ(*eval(e, {{"x", xv}, {"y", yv}}), 1) << "proved but false: " << to_string(e);
    }
  }
}

}  // namespace
}  // namespace relax::arith::testing
