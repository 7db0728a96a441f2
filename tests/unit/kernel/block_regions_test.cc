// relax_range / relax_region: bounds of index expressions while some loops run.
#include <gtest/gtest.h>

#include "relax/arith/analyzer.h"
#include "relax/kernel/block_regions.h"

namespace relax::tir {
namespace {

struct Relax : ::testing::Test {
  Ref<Var> io = var("io"), ii = var("ii"), n = var("n");
  arith::Analyzer ana{arith::AnalyzerOptions{true}};
  RelaxDomain dom;
  void SetUp() override {
    ana.bind_range(io, int_imm(0), int_imm(4));
    ana.bind_range(ii, int_imm(0), int_imm(8));
    dom[ii.get()] = Range::from_min_extent(int_imm(0), int_imm(8));
  }
  /// "min:extent" of the relaxed range, or "none".
  std::string relaxed(const PrimExpr& e) {
    auto r = relax_range(e, dom, &ana);
    if (!r) return "none";
    return to_string(r->min) + ":" + to_string(r->extent);
  }
};

TEST_F(Relax, AffineKeepsTheFixedLoop) {
  EXPECT_EQ(relaxed(io * 8 + ii), to_string(ana.simplify(io * 8)) + ":8");
  EXPECT_EQ(relaxed(io * 8 - ii * 2), to_string(ana.simplify(io * 8 - 14)) + ":15");
  EXPECT_EQ(relaxed(io), to_string(PrimExpr(io)) + ":1");
}

TEST_F(Relax, DivisionAndRemainder) {
  EXPECT_EQ(relaxed(floordiv(ii, 4)), "0:2");
  EXPECT_EQ(relaxed(floormod(ii, 16)), "0:8");  // within one period
  EXPECT_EQ(relaxed(floormod(ii + 2, 4)), "0:4");
  EXPECT_EQ(relaxed(min(ii, int_imm(3))), "0:4");
}

TEST_F(Relax, UnboundedFormsAreReported) {
  EXPECT_EQ(relaxed(ii * ii), "none");
  EXPECT_EQ(relaxed(floordiv(int_imm(8), ii + 1)), "none");
  // relax_region falls back to the whole dimension.
  Ref<Buffer> b = decl_buffer({n}, DataType::Float(32), "B");
  auto region = relax_region(BufferRegion{b, {Range::point(ii * ii)}}, dom, &ana);
  ASSERT_EQ(region.size(), 1u);
  EXPECT_EQ(to_string(region[0].min), "0");
  EXPECT_TRUE(region[0].extent.same_as(b->shape[0]));
}

}  // namespace
}  // namespace relax::tir
