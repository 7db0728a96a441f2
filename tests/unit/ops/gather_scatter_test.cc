// gather_elements, gather_nd, scatter_elements, scatter_nd and nonzero: inference and kernels
// against the ONNX definitions written as plain loops.
#include "ops_test_common.h"
#include "relax/text/parser.h"
#include "relax/runtime/vm.h"
#include "relax/target/build.h"

namespace relax::ops_test {
namespace {

TEST(GatherElements, InferenceAndRun) {
  OpRunner r;
  auto x = r.param("x", sym0({3, 4}), kF32);
  auto ind = r.param("ind", sym0({3, 2}), kI64);
  EXPECT_EQ(r.infer(op::gather_elements(x, ind, -1)), "Tensor((n, 2), float32)");
  auto bad = r.param("bad", std::vector<int64_t>{3}, kI64);
  EXPECT_ERROR_HAS(op::gather_elements(x, bad), "relax.gather_elements: 'indices' has rank 1");
  auto fidx = r.param("f", {3, 2}, kF32);
  EXPECT_ERROR_HAS(op::gather_elements(x, fidx), "'indices' should be an integer tensor");
  auto xa = random({3, 4}, kF32, 1);
  auto ia = array_of({3, 2}, kI64, {0, 3, -1, 1, 2, 2});
  Host hx = host_of(xa), hi = host_of(ia);
  std::vector<double> want;
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 2; ++j) {
      int64_t k = int64_t(hi[size_t(i * 2 + j)]);
      if (k < 0) k += 4;
      want.push_back(hx[size_t(i * 4 + k)]);
    }
  EXPECT_TRUE(
      tensor_close_to(r.run1(op::gather_elements(x, ind, -1), {{x, xa}, {ind, ia}}), {3, 2}, want));
}

TEST(GatherND, InferenceAndRunWithBatchDims) {
  OpRunner r;
  auto x = r.param("x", {2, 3, 4}, kI32);
  auto ind = r.param("ind", {2, 5, 1}, kI32);
  EXPECT_EQ(r.infer(op::gather_nd(x, ind, 1)), "Tensor((2, 5, 4), int32)");
  auto deep = r.param("deep", {2, 4}, kI32);
  EXPECT_ERROR_HAS(op::gather_nd(x, deep), "relax.gather_nd: the index depth 4 plus batch_dims 0");
  auto xa = random({2, 3, 4}, kI32, 2, -100, 100);
  auto ia = random({2, 5, 1}, kI32, 3, -3, 2);
  Host hx = host_of(xa), hi = host_of(ia);
  std::vector<double> want;
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t i = 0; i < 5; ++i)
      for (int64_t c = 0; c < 4; ++c) {
        int64_t k = int64_t(hi[size_t(b * 5 + i)]);
        if (k < 0) k += 3;
        want.push_back(hx[size_t(offset({b, k, c}, {2, 3, 4}))]);
      }
  EXPECT_TRUE(
      tensor_close_to(r.run1(op::gather_nd(x, ind, 1), {{x, xa}, {ind, ia}}), {2, 5, 4}, want));
  // No batch dims, full-depth indices with a symbolic count: picks single elements.
  OpRunner r2;
  auto x2 = r2.param("x", {2, 3, 4}, kI32);
  auto ind2 = r2.param("ind", sym0({4, 3}), kI64);
  EXPECT_EQ(r2.infer(op::gather_nd(x2, ind2)), "Tensor((n,), int32)");
  auto ia2 = array_of({4, 3}, kI64, {0, 0, 0, 1, 2, 3, 1, -1, -4, 0, 1, 2});
  std::vector<double> want2 = {hx[0], hx[size_t(offset({1, 2, 3}, {2, 3, 4}))],
                               hx[size_t(offset({1, 2, 0}, {2, 3, 4}))],
                               hx[size_t(offset({0, 1, 2}, {2, 3, 4}))]};
  EXPECT_TRUE(
      tensor_close_to(r2.run1(op::gather_nd(x2, ind2), {{x2, xa}, {ind2, ia2}}), {4}, want2));
}

/// ScatterElements on a 2-d tensor along `axis` as a sequential loop.
std::vector<double> scatter_elements_ref(const Host& x, const Host& ind, const Host& upd,
                                         int axis, const std::string& red) {
  std::vector<double> out = x.data;
  for (int64_t i = 0; i < ind.shape[0]; ++i)
    for (int64_t j = 0; j < ind.shape[1]; ++j) {
      int64_t k = int64_t(ind[size_t(i * ind.shape[1] + j)]);
      if (k < 0) k += x.shape[size_t(axis)];
      int64_t o = axis == 0 ? k * x.shape[1] + j : i * x.shape[1] + k;
      double u = upd[size_t(i * ind.shape[1] + j)];
      double& d = out[size_t(o)];
      if (red == "none") d = u;
      if (red == "add") d += u;
      if (red == "mul") d *= u;
      if (red == "min") d = std::min(d, u);
      if (red == "max") d = std::max(d, u);
    }
  return out;
}

TEST(ScatterElements, InferenceAndAllReductions) {
  OpRunner r0;
  auto x0 = r0.param("x", sym0({4, 3}), kF32);
  auto i0 = r0.param("i", {2, 3}, kI64);
  auto u0 = r0.param("u", {2, 3}, kF32);
  EXPECT_EQ(r0.infer(op::scatter_elements(x0, i0, u0)), "Tensor((n, 3), float32)");
  EXPECT_ERROR_HAS(op::scatter_elements(x0, i0, u0, 0, "sub"),
                   "relax.scatter_elements: reduction 'sub' is not one of none, add, mul, min, max");
  auto u1 = r0.param("u1", {2, 2}, kF32);
  EXPECT_ERROR_HAS(op::scatter_elements(x0, i0, u1), "must have the same shape");
  for (int axis : {0, 1}) {
    for (std::string red : {"none", "add", "mul", "min", "max"}) {
      OpRunner r;
      auto x = r.param("x", {4, 3}, kF32);
      auto ind = r.param("ind", {2, 2}, kI32);
      auto upd = r.param("upd", {2, 2}, kF32);
      auto xa = random({4, 3}, kF32, 4);
      // Duplicates on purpose: (0,0) and (1,0) hit the same row along axis 0.
      auto ia = array_of({2, 2}, kI32, {1, -1, 1, 2});
      auto ua = random({2, 2}, kF32, 5);
      SCOPED_TRACE(red + " axis " + std::to_string(axis));
      EXPECT_TRUE(tensor_close_to(
          r.run1(op::scatter_elements(x, ind, upd, axis, red), {{x, xa}, {ind, ia}, {upd, ua}}),
          {4, 3}, scatter_elements_ref(host_of(xa), host_of(ia), host_of(ua), axis, red)));
    }
  }
}

TEST(ScatterND, InferenceAndReductions) {
  OpRunner r0;
  auto x0 = r0.param("x", {4, 3}, kF32);
  auto i0 = r0.param("i", {2, 1}, kI64);
  auto u0 = r0.param("u", {2, 3}, kF32);
  EXPECT_EQ(r0.infer(op::scatter_nd(x0, i0, u0)), "Tensor((4, 3), float32)");
  auto ub = r0.param("ub", {2, 4}, kF32);
  EXPECT_ERROR_HAS(op::scatter_nd(x0, i0, ub), "relax.scatter_nd: 'updates'");
  EXPECT_ERROR_HAS(op::scatter_nd(x0, i0, u0, "max"), "reduction 'max' is not one of none, add, mul");
  for (std::string red : {"none", "add", "mul"}) {
    // Row updates (depth 1) with a repeated row.
    OpRunner r;
    auto x = r.param("x", {4, 3}, kI64);
    auto ind = r.param("ind", {3, 1}, kI64);
    auto upd = r.param("upd", {3, 3}, kI64);
    auto xa = random({4, 3}, kI64, 6, -9, 9);
    auto ia = array_of({3, 1}, kI64, {2, 0, -2});
    auto ua = random({3, 3}, kI64, 7, -9, 9);
    Host hx = host_of(xa), hi = host_of(ia), hu = host_of(ua);
    std::vector<double> want = hx.data;
    for (int64_t b = 0; b < 3; ++b) {
      int64_t row = int64_t(hi[size_t(b)]);
      if (row < 0) row += 4;
      for (int64_t c = 0; c < 3; ++c) {
        double& d = want[size_t(row * 3 + c)];
        double u = hu[size_t(b * 3 + c)];
        d = red == "none" ? u : red == "add" ? d + u : d * u;
      }
    }
    SCOPED_TRACE(red);
    EXPECT_TRUE(tensor_close_to(
        r.run1(op::scatter_nd(x, ind, upd, red), {{x, xa}, {ind, ia}, {upd, ua}}), {4, 3}, want));
  }
  // Element updates (full depth) and indices of rank 1 (one update).
  OpRunner r;
  auto x = r.param("x", {2, 3}, kF32);
  auto ind = r.param("ind", std::vector<int64_t>{2}, kI32);
  auto upd = r.param("upd", std::vector<int64_t>{}, kF32);
  auto xa = random({2, 3}, kF32, 8);
  auto ia = array_of({2}, kI32, {1, 2});
  auto ua = array_of({}, kF32, {7.5});
  std::vector<double> want = host_of(xa).data;
  want[5] = 7.5;
  EXPECT_TRUE(tensor_close_to(r.run1(op::scatter_nd(x, ind, upd), {{x, xa}, {ind, ia}, {upd, ua}}),
                              {2, 3}, want));
}

TEST(NonZero, InferenceLegalisationAndRun) {
  OpRunner r;
  auto x = r.param("x", sym0({3, 4}), kI32);
  EXPECT_EQ(r.infer(op::nonzero(x)), "Tensor(ndim=2, int64)");
  // Legalised to the runtime builtin, built and run in the VM.
  auto vm = runtime::VirtualMachine::create(relax::build(parse_module(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "int32")) -> R.Tensor(ndim=2, dtype="int64"):
        y = R.nonzero(x)
        return y
)"), relax::BuildOptions{"tir-interp", "o0"}));
  auto xa = array_of({2, 3}, kI32, {0, 5, 0, -1, 0, 2});
  runtime::NDArray got = vm->invoke("main", {runtime::Value(xa)}).as_tensor();
  std::vector<double> want;
  std::vector<std::pair<int, int>> hits;
  Host h = host_of(xa);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      if (h[size_t(i * 3 + j)] != 0) hits.emplace_back(i, j);
  for (auto& [i, j] : hits) want.push_back(i);
  for (auto& [i, j] : hits) want.push_back(j);
  EXPECT_TRUE(tensor_close_to(got, {2, int64_t(hits.size())}, want));
}

}  // namespace
}  // namespace relax::ops_test
