// The LLVM backend's default schedule of injective kernels (schedule_rules_injective.cc:
// inlined elementwise chains, broadcasts and transposes that keep their innermost loop or tile
// it) and its vector math (codegen_intrin.cc: exp, erf, tanh, sigmoid as polynomials): each
// kernel goes through relax.backend.llvm.build, which applies the default schedule, and is
// compared with the interpreter or with libm; softmax and layer norm against double references.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "relax/op/compute.h"
#include "relax/kernel/lower.h"
#include "relax/tir/stmt_functor.h"
#include "schedule_test_util.h"

namespace relax::tir {
namespace {

using runtime::NDArray;
using runtime::Value;

constexpr DataType kF32 = DataType::Float(32);

class LLVMInjective : public ScheduleTest {
 protected:
  static std::string emit_ir(const Ref<PrimFunc>& f) {
    runtime::PackedFunc ir = runtime::Registry::get("relax.backend.llvm.emit_ir");
    return ir(std::vector<Value>{Value(""), Value("k"), Value::from_object(f)}).as_string();
  }
};

int count_blocks(const Ref<PrimFunc>& f) {
  int n = 0;
  post_order_visit(f->body, [&](const Stmt& s) { n += s.as<Block>() != nullptr; });
  return n;
}

NDArray filled(const std::vector<float>& values) {
  NDArray a = NDArray::empty({int64_t(values.size())}, kF32);
  std::copy(values.begin(), values.end(), a.data_as<float>());
  return a;
}

/// Y = fn(X) over n elements, built by the backend with its default schedule.
Ref<PrimFunc> unary_kernel(PrimExpr (*fn)(PrimExpr), int64_t n) {
  te::Tensor X = te::placeholder({int_imm(n)}, kF32, "X");
  te::Tensor Y = te::compute({int_imm(n)}, [&](const auto& i) { return fn(X(i[0])); }, "Y");
  return te::create_prim_func({X, Y});
}

/// Runs a one-input one-output kernel compiled from `f` on `x`.
std::vector<float> run_unary(const runtime::Module& m, const std::string& name,
                             const std::vector<float>& x) {
  NDArray in = filled(x), out = NDArray::empty({int64_t(x.size())}, kF32);
  m->get_function(name)(std::vector<Value>{Value(in), Value(out)});
  return std::vector<float>(out.data_as<float>(), out.data_as<float>() + x.size());
}

/// Inputs from lo to hi in `n` steps (odd counts leave a vector tail), then the special values.
std::vector<float> sweep(float lo, float hi, int n) {
  std::vector<float> x;
  for (int i = 0; i < n; ++i) x.push_back(lo + (hi - lo) * float(i) / float(n - 1));
  float inf = std::numeric_limits<float>::infinity();
  for (float v : {0.0f, -0.0f, 1e-30f, -1e-30f, 1e-6f, inf, -inf, std::nanf("")}) x.push_back(v);
  return x;
}

void expect_close_to(const std::vector<float>& got, const std::vector<float>& x,
                     double (*ref)(double), double rel, double abs, const char* what) {
  for (size_t i = 0; i < x.size(); ++i) {
    double want = ref(double(x[i]));
    float g = got[i];
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(g)) << what << "(" << x[i] << ") = " << g;
    } else if (std::isinf(want) || std::fabs(want) > double(std::numeric_limits<float>::max())) {
      EXPECT_EQ(double(g), std::copysign(double(std::numeric_limits<float>::infinity()), want))
          << what << "(" << x[i] << ")";
    } else {
      EXPECT_NEAR(g, want, std::max(abs, rel * std::fabs(want))) << what << "(" << x[i] << ")";
    }
    if (::testing::Test::HasFailure()) return;
  }
}

double sigmoid_ref(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double exp_ref(double x) { return std::exp(x); }
double erf_ref(double x) { return std::erf(x); }
double tanh_ref(double x) { return std::tanh(x); }

TEST_F(LLVMInjective, VectorExpErfTanhSigmoidArePolynomialsAsAccurateAsLibm) {
  struct Case {
    PrimExpr (*fn)(PrimExpr);
    double (*ref)(double);
    const char* libm;
    float lo, hi;
    double rel, abs;
  };
  // Results below the smallest normal float may flush to 0 (as with the denormal modes
  // runtimes set), hence the absolute tolerance of exp and sigmoid.
  for (const Case& c : {Case{exp, exp_ref, "@expf", -110.0f, 90.0f, 3e-7, 1.2e-38},
                        Case{erf, erf_ref, "@erff", -6.0f, 6.0f, 1e-6, 2e-7},
                        Case{tanh, tanh_ref, "@tanhf", -12.0f, 12.0f, 1e-6, 2e-7},
                        Case{sigmoid, sigmoid_ref, "@expf", -100.0f, 100.0f, 1e-6, 1.2e-38}}) {
    SCOPED_TRACE(c.libm);
    std::vector<float> x = sweep(c.lo, c.hi, 4001);
    Ref<PrimFunc> f = unary_kernel(c.fn, int64_t(x.size()));
    EXPECT_EQ(emit_ir(f).find(c.libm), std::string::npos) << "a libm call per lane";
    std::string name = c.libm + 1;
    expect_close_to(run_unary(build({{name, f}}), name, x), x, c.ref, c.rel, c.abs, c.libm);
  }
  // exp near the underflow and overflow edges.
  std::vector<float> x{-87.3f, -88.0f, -95.0f, -103.0f, -104.5f, 88.5f, 88.72f, 88.73f, 0.5f};
  expect_close_to(run_unary(build({{"exp_edges", unary_kernel(exp, int64_t(x.size()))}}),
                            "exp_edges", x),
                  x, exp_ref,
                  3e-7, 1.2e-38, "exp");
}

TEST_F(LLVMInjective, ElementwiseChainIsInlinedIntoOnePass) {
  // (A + B) * 2 then transposed: three blocks, one pass once inlined.
  Ref<Var> n = var("n");
  te::Tensor A = te::placeholder({n, int_imm(19)}, kF32, "A");
  te::Tensor B = te::placeholder({int_imm(19)}, kF32, "B");
  te::Tensor S = te::compute(
      {n, int_imm(19)}, [&](const auto& i) { return A(i[0], i[1]) + B(i[1]); }, "S");
  te::Tensor M = te::compute(
      {n, int_imm(19)}, [&](const auto& i) { return S(i[0], i[1]) * float_imm(2.0, kF32); },
      "M");
  te::Tensor T = te::compute({int_imm(19), n}, [&](const auto& i) { return M(i[1], i[0]); }, "T");
  Ref<PrimFunc> f = te::create_prim_func({A, B, T});
  Ref<PrimFunc> s = schedule(f);
  EXPECT_EQ(count_blocks(s), 2) << "the root block and T: " << to_string(s);
  runtime::Module m = build({{"chain", f}});
  for (int64_t rows : {1, 9, 130}) {
    SCOPED_TRACE(rows);
    expect_matches_interpreter(m, "chain", lower(f),
                               {random_array({rows, 19}, kF32, 1), random_array({19}, kF32, 2),
                                NDArray::empty({19, rows}, kF32)},
                               0.0);
  }
}

TEST_F(LLVMInjective, BroadcastKeepsTheInnermostLoopVectorizedUnderParallelRows) {
  // Y[i, j] = X[i, j] - mean[i]: the rows stay a loop, so mean[i] is uniform over each vector.
  Ref<Var> n = var("n");
  te::Tensor X = te::placeholder({n, int_imm(37)}, kF32, "X");
  te::Tensor Mean = te::placeholder({n}, kF32, "mean");
  te::Tensor Y = te::compute(
      {n, int_imm(37)}, [&](const auto& i) { return X(i[0], i[1]) - Mean(i[0]); }, "Y");
  Ref<PrimFunc> f = te::create_prim_func({X, Mean, Y});
  Ref<PrimFunc> s = schedule(f);
  auto par = loops_of_kind(s, ForKind::kParallel);
  auto vec = loops_of_kind(s, ForKind::kVectorized);
  ASSERT_EQ(par.size(), 1u) << to_string(s);
  ASSERT_EQ(vec.size(), 1u) << to_string(s);
  EXPECT_TRUE(par[0]->extent.same_as(n)) << "parallel over the rows: " << to_string(s);
  EXPECT_EQ(extent_of(vec[0]), 8) << to_string(s);
  runtime::Module m = build({{"bcast", f}});
  for (int64_t rows : {1, 5, 64}) {
    SCOPED_TRACE(rows);
    expect_matches_interpreter(m, "bcast", lower(f),
                               {random_array({rows, 37}, kF32, 3), random_array({rows}, kF32, 4),
                                NDArray::empty({rows, 37}, kF32)},
                               0.0);
  }
}

TEST_F(LLVMInjective, ShortChannelsKeepTheirRowLoopOutOfTheParallelOne) {
  // An NHWC nearest-neighbour upsample of symbolic size: Y[n, i, j, c] = X[n, i / 2, j / 2, c]
  // over 16 channels. The width stays a serial loop inside the parallel (batch x height) one:
  // fused into it, every pixel would rebuild i and j with divisions by symbolic extents.
  Ref<Var> h = var("h"), w = var("w");
  te::Tensor X = te::placeholder({int_imm(2), h, w, int_imm(16)}, kF32, "X");
  te::Tensor Y = te::compute(
      {int_imm(2), h * int_imm(2), w * int_imm(2), int_imm(16)},
      [&](const auto& i) {
        return X(i[0], floordiv(i[1], int_imm(2)), floordiv(i[2], int_imm(2)), i[3]);
      },
      "Y");
  Ref<PrimFunc> f = te::create_prim_func({X, Y});
  Ref<PrimFunc> s = schedule(f);
  auto par = loops_of_kind(s, ForKind::kParallel);
  ASSERT_EQ(par.size(), 1u) << to_string(s);
  EXPECT_FALSE(uses_var(par[0]->extent, w.get())) << to_string(s);
  bool width_loop = false;
  for (const For* l : loops_of_kind(s, ForKind::kSerial))
    width_loop |= uses_var(l->extent, w.get());
  EXPECT_TRUE(width_loop) << to_string(s);
  runtime::Module m = build({{"upsample", f}});
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{1, 1}, {3, 5}, {8, 13}}) {
    SCOPED_TRACE(rows * 100 + cols);
    expect_matches_interpreter(m, "upsample", lower(f),
                               {random_array({2, rows, cols, 16}, kF32, 5),
                                NDArray::empty({2, rows * 2, cols * 2, 16}, kF32)},
                               0.0);
  }
}

TEST_F(LLVMInjective, TransposesAreTiledWithContiguousStores) {
  // A 2-D transpose of awkward extents, and BERT's head split: (s, b, h * d) -> (b * h, d, s)
  // with a symbolic batch b.
  te::Tensor A = te::placeholder({int_imm(37), int_imm(45)}, kF32, "A");
  te::Tensor T = te::compute(
      {int_imm(45), int_imm(37)}, [&](const auto& i) { return A(i[1], i[0]); }, "T");
  Ref<PrimFunc> f2 = te::create_prim_func({A, T});
  Ref<PrimFunc> s2 = schedule(f2);
  auto vec = loops_of_kind(s2, ForKind::kVectorized);
  ASSERT_EQ(vec.size(), 1u) << to_string(s2);
  EXPECT_EQ(extent_of(vec[0]), 8) << to_string(s2);
  // The tile: rows along the transposed operand's contiguous axis (45: 15, the divisor up to
  // 16) around the vector loop.
  auto serial = loops_of_kind(s2, ForKind::kSerial);
  ASSERT_FALSE(serial.empty()) << to_string(s2);
  EXPECT_EQ(extent_of(serial.back()), 15) << to_string(s2);

  Ref<Var> b = var("b");
  constexpr int64_t kSeq = 11, kHeads = 3, kDim = 10;
  te::Tensor X = te::placeholder({int_imm(kSeq), b, int_imm(kHeads * kDim)}, kF32, "X");
  te::Tensor H = te::compute(
      {b * int_imm(kHeads), int_imm(kDim), int_imm(kSeq)},
      [&](const auto& i) {
        return X(i[2], floordiv(i[0], kHeads),
                 floormod(i[0], kHeads) * int_imm(kDim) + i[1]);
      },
      "H");
  Ref<PrimFunc> f3 = te::create_prim_func({X, H});
  EXPECT_EQ(loops_of_kind(schedule(f3), ForKind::kVectorized).size(), 1u)
      << to_string(schedule(f3));
  // One library for both: a second library loaded while the first is open could come back as
  // the first from dlopen (same soname), so each test here builds one.
  runtime::Module m3 = build({{"t2", f2}, {"heads", f3}});
  expect_matches_interpreter(m3, "t2", lower(f2),
                             {random_array({37, 45}, kF32, 5), NDArray::empty({45, 37}, kF32)},
                             0.0);
  for (int64_t batch : {1, 2}) {
    SCOPED_TRACE(batch);
    expect_matches_interpreter(
        m3, "heads", lower(f3),
        {random_array({kSeq, batch, kHeads * kDim}, kF32, 6),
         NDArray::empty({batch * kHeads, kDim, kSeq}, kF32)},
        0.0);
  }
}

/// softmax over the last axis of (rows, cols) in te, as the op library legalises it.
Ref<PrimFunc> softmax_kernel(const Ref<Var>& rows, int64_t cols) {
  te::Tensor X = te::placeholder({rows, int_imm(cols)}, kF32, "X");
  te::Axis k = te::reduce_axis(cols, "k");
  te::Tensor mx = te::compute({rows}, [&](const auto& i) { return te::max(X(i[0], k), {k}); },
                              "maxelem");
  te::Axis k2 = te::reduce_axis(cols, "k2");
  te::Tensor sum = te::compute(
      {rows}, [&](const auto& i) { return te::sum(exp(X(i[0], k2) - mx(i[0])), {k2}); },
      "expsum");
  te::Tensor Y = te::compute(
      {rows, int_imm(cols)},
      [&](const auto& i) { return truncdiv(exp(X(i[0], i[1]) - mx(i[0])), sum(i[0])); }, "Y");
  return te::create_prim_func({X, Y});
}

/// Layer norm over the last axis: (x - mean) / sqrt(var + eps) * g + b.
Ref<PrimFunc> layer_norm_kernel(const Ref<Var>& rows, int64_t cols) {
  te::Tensor X = te::placeholder({rows, int_imm(cols)}, kF32, "X");
  te::Tensor G = te::placeholder({int_imm(cols)}, kF32, "G");
  te::Tensor B = te::placeholder({int_imm(cols)}, kF32, "B");
  PrimExpr inv_n = float_imm(1.0 / double(cols), kF32);
  te::Axis k = te::reduce_axis(cols, "k");
  te::Tensor mean = te::compute(
      {rows}, [&](const auto& i) { return te::sum(X(i[0], k), {k}); }, "sum");
  te::Tensor d = te::compute(
      {rows, int_imm(cols)}, [&](const auto& i) { return X(i[0], i[1]) - mean(i[0]) * inv_n; },
      "d");
  te::Axis k2 = te::reduce_axis(cols, "k2");
  te::Tensor var_sum = te::compute(
      {rows}, [&](const auto& i) { return te::sum(d(i[0], k2) * d(i[0], k2), {k2}); }, "var");
  te::Tensor Y = te::compute(
      {rows, int_imm(cols)},
      [&](const auto& i) {
        return truncdiv(d(i[0], i[1]), sqrt(var_sum(i[0]) * inv_n + float_imm(1e-5, kF32))) *
                   G(i[1]) +
               B(i[1]);
      },
      "Y");
  return te::create_prim_func({X, G, B, Y});
}

TEST_F(LLVMInjective, SoftmaxAndLayerNormOfOddLengthsMatchDoubleReferences) {
  // One library (see TransposesAreTiledWithContiguousStores).
  const std::vector<int64_t> lengths{1, 37, 128, 769};
  std::vector<std::pair<std::string, Ref<PrimFunc>>> kernels;
  for (int64_t cols : lengths) {
    kernels.emplace_back("softmax" + std::to_string(cols), softmax_kernel(var("n"), cols));
    kernels.emplace_back("layer_norm" + std::to_string(cols), layer_norm_kernel(var("n"), cols));
  }
  runtime::Module lib = build(kernels);
  for (int64_t cols : lengths) {
    SCOPED_TRACE(cols);
    const int64_t rows = 7;
    NDArray x = random_array({rows, cols}, kF32, uint32_t(cols));
    for (int64_t j = 0; j < cols; j += 5) x.data_as<float>()[j] *= 30.0f;  // large logits
    const float* xp = x.data_as<float>();

    std::string tag = std::to_string(cols);
    NDArray y = NDArray::empty({rows, cols}, kF32);
    lib->get_function("softmax" + tag)(std::vector<Value>{Value(x), Value(y)});
    for (int64_t r = 0; r < rows; ++r) {
      double mx = -INFINITY, sum = 0;
      for (int64_t j = 0; j < cols; ++j) mx = std::max(mx, double(xp[r * cols + j]));
      for (int64_t j = 0; j < cols; ++j) sum += std::exp(double(xp[r * cols + j]) - mx);
      for (int64_t j = 0; j < cols; ++j)
        ASSERT_NEAR(y.data_as<float>()[r * cols + j],
                    std::exp(double(xp[r * cols + j]) - mx) / sum, 1e-6)
            << "softmax row " << r << " column " << j;
    }

    NDArray g = random_array({cols}, kF32, 7), bias = random_array({cols}, kF32, 8);
    NDArray z = NDArray::empty({rows, cols}, kF32);
    lib->get_function("layer_norm" + tag)(std::vector<Value>{Value(x), Value(g), Value(bias), Value(z)});
    for (int64_t r = 0; r < rows; ++r) {
      double mean = 0, var = 0;
      for (int64_t j = 0; j < cols; ++j) mean += xp[r * cols + j];
      mean /= double(cols);
      for (int64_t j = 0; j < cols; ++j) var += std::pow(xp[r * cols + j] - mean, 2);
      var /= double(cols);
      for (int64_t j = 0; j < cols; ++j) {
        double want = (xp[r * cols + j] - mean) / std::sqrt(var + 1e-5) * g.data_as<float>()[j] +
                      bias.data_as<float>()[j];
        ASSERT_NEAR(z.data_as<float>()[r * cols + j], want, 1e-4 * std::max(1.0, std::fabs(want)))
            << "layer norm row " << r << " column " << j;
      }
    }
  }
}

}  // namespace
}  // namespace relax::tir
