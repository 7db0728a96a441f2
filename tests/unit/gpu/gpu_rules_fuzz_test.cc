// Schedule robustness of the default GPU rules: ops over shapes 1, 2, 3, primes and symbolic
// dims, under device limits down to a few threads and a grid smaller than the work (so the
// grid-stride and fallback paths run), scheduled, run in the interpreter's GPU mode and
// compared with the unscheduled function (op_test_gpu.h). The rules must never throw and
// never change a result. Seeded: a failure names its seed and case.
#include <random>

#include "../ops/op_test_util.h"
#include "relax/op/nn.h"

namespace relax::ops_test {
namespace {

// The harness runs each kernel in the interpreter's GPU mode (op_test_mode.h).
[[maybe_unused]] const bool gpu_mode = set_op_test_mode({OpTestBackend::kGpu, ""});

/// Dimension sizes the fuzz draws from: tiny, odd and prime.
constexpr int64_t kDims[] = {1, 2, 3, 5, 7, 13, 17, 31};

struct Fuzz {
  std::mt19937 rng;
  int64_t dim() { return kDims[rng() % std::size(kDims)]; }
  /// A small dimension (1, 2, 3 or 5), for the ops whose work grows with the product of many.
  int64_t small() { return kDims[rng() % 4]; }
  bool coin() { return rng() % 2 == 0; }
};

/// One op over random shapes: the harness checks the GPU schedule against the unscheduled
/// function. `sym` makes dim 0 of the first input symbolic.
void run_case(Fuzz& f, int which, bool sym) {
  OpRunner r;
  Ref<tir::Var> n = tir::var("n");
  auto shape_of = [&](std::vector<int64_t> s) {
    std::vector<PrimExpr> e = const_shape(s);
    if (sym && !s.empty()) e[0] = n;
    return e;
  };
  uint32_t seed = uint32_t(f.rng());
  switch (which) {
    case 0: {  // broadcasting add
      std::vector<int64_t> s = {f.dim(), f.dim(), f.dim()}, t = {1, s[1], f.coin() ? s[2] : 1};
      auto x = r.param("x", shape_of(s), kF32);
      auto y = r.param("y", const_shape(t), kF32);
      r.run(op::add(x, y), {{x, random(s, kF32, seed)}, {y, random(t, kF32, seed + 1)}});
      break;
    }
    case 1: {  // sum over one axis or all
      std::vector<int64_t> s = {f.dim(), f.dim() * f.small(), f.small()};
      auto x = r.param("x", shape_of(s), kF32);
      std::optional<std::vector<int64_t>> axis;
      if (f.coin()) axis = std::vector<int64_t>{int64_t(f.rng() % 3)};
      r.run(op::sum(x, axis, f.coin()), {{x, random(s, kF32, seed)}});
      break;
    }
    case 2: {  // matmul, batched or not
      int64_t m = f.dim(), k = f.small() * 3, nn = f.dim();
      std::vector<int64_t> a = {f.small(), m, k}, b = {k, nn};
      auto x = r.param("x", shape_of(a), kF32);
      auto w = r.param("w", const_shape(b), kF32);
      r.run(op::matmul(x, w), {{x, random(a, kF32, seed)}, {w, random(b, kF32, seed + 1)}});
      break;
    }
    case 3: {  // softmax over the last axis
      std::vector<int64_t> s = {f.dim(), f.dim() * f.dim()};
      auto x = r.param("x", shape_of(s), kF32);
      r.run(op::softmax(x, -1), {{x, random(s, kF32, seed)}});
      break;
    }
    case 4: {  // max over a long row (a cross-thread reduction)
      std::vector<int64_t> s = {f.dim(), 40 + f.dim() * 7};
      auto x = r.param("x", shape_of(s), kF32);
      r.run(op::max(x, std::vector<int64_t>{1}, false), {{x, random(s, kF32, seed)}});
      break;
    }
    case 5: {  // transpose
      std::vector<int64_t> s = {f.dim(), f.dim(), f.dim()};
      auto x = r.param("x", shape_of(s), kF32);
      r.run(op::permute_dims(x, std::vector<int64_t>{2, 0, 1}), {{x, random(s, kF32, seed)}});
      break;
    }
    default: {  // conv2d, NCHW
      int64_t c = f.small(), h = f.dim() + 2, w = f.small() + 2;
      std::vector<int64_t> xs = {f.small(), c, h, w}, ws = {f.small(), c, 3, 3};
      auto x = r.param("x", shape_of(xs), kF32);
      auto k = r.param("k", const_shape(ws), kF32);
      op::Conv2DOptions o;
      o.padding = {1, 1, 1, 1};
      r.run(op::conv2d(x, k, o), {{x, random(xs, kF32, seed)}, {k, random(ws, kF32, seed + 1)}});
      break;
    }
  }
}

class GpuRulesFuzz : public ::testing::TestWithParam<uint32_t> {
 protected:
  void TearDown() override { interp_gpu_limits() = saved_; }
  tir::GpuLimits saved_ = interp_gpu_limits();
};

TEST_P(GpuRulesFuzz, MatchUnscheduled) {
  Fuzz f{std::mt19937(GetParam())};
  for (int i = 0; i < 12; ++i) {
    tir::GpuLimits& l = interp_gpu_limits();
    l = saved_;
    // Threads per block from 1 to 1024; grids from 3 blocks to the usual limits.
    l.max_threads_per_block = int64_t(1) << (f.rng() % 11);
    l.max_block = {l.max_threads_per_block, l.max_threads_per_block, 64};
    if (f.coin()) l.max_grid = {3 + int64_t(f.rng() % 5), 2, 2};
    int which = int(f.rng() % 7);
    bool sym = f.coin();
    SCOPED_TRACE("seed " + std::to_string(GetParam()) + " case " + std::to_string(i) + ": op " +
                 std::to_string(which) + (sym ? " symbolic" : " static") + ", threads " +
                 std::to_string(l.max_threads_per_block) + ", grid " +
                 std::to_string(l.max_grid[0]));
    run_case(f, which, sym);
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, GpuRulesFuzz, ::testing::Range(1u, 9u));

}  // namespace
}  // namespace relax::ops_test
