// pack-weights end to end through relax-driver and the default pipeline: matmuls whose right
// operand is a constant, in awkward shapes (columns not a multiple of the panel, a symbolic
// row count, a batch matmul, one weight shared by two calls, k longer than the backend's k
// chunk), compiled for llvm and run, against a reference computed here. Each also checks that
// the pipeline did pack (the kernel carries weight_panel), so a pass that stops applying fails.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <random>

#include "../../common/driver_runner.h"
#include "relax/runtime/tensor_io.h"

namespace relax {
namespace {

namespace fs = std::filesystem;
using runtime::NDArray;

const std::string kDefault = RELAX_SOURCE_DIR "/config/pipelines/default.yaml";

/// Element i of a weight: multiples of 1/8 in [-1, 1], exact in float and in the text.
float weight(int64_t i) { return float((i * 37) % 17 - 8) / 8.0f; }

/// `R.const` of `shape` filled by weight(i).
std::string weight_text(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::string values, dims;
  for (int64_t i = 0; i < n; ++i) values += (i ? ", " : "") + std::to_string(weight(i));
  for (int64_t d : shape) dims += std::to_string(d) + ", ";
  return "R.const([" + values + "], \"float32\", shape=(" + dims + "))";
}

NDArray random_input(const std::vector<int64_t>& shape, uint32_t seed) {
  NDArray a = NDArray::empty(shape, DataType::Float(32));
  std::mt19937 gen(seed);
  for (int64_t i = 0; i < a.numel(); ++i)
    a.data_as<float>()[i] = std::uniform_real_distribution<float>(-1, 1)(gen);
  return a;
}

/// out[b, i, j] = sum_k x[b, i, k] * w[b or 0, k, j] (a batch of 1 for 2-d operands).
std::vector<double> reference(const NDArray& x, int64_t batches, int64_t m, int64_t k, int64_t n,
                              bool batched_weight) {
  std::vector<double> out(size_t(batches * m * n), 0.0);
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t r = 0; r < k; ++r)
          s += double(x.data_as<float>()[(b * m + i) * k + r]) *
               weight((batched_weight ? b * k * n : 0) + r * n + j);
        out[size_t((b * m + i) * n + j)] = s;
      }
  return out;
}

/// The panel the default pipeline's pack-weights picks on this host: its widest panel and
/// vector are the host's (64 and 16 lanes with AVX-512, 16 and 8 with AVX2, 8 and 4 elsewhere).
int host_panel(int avx512, int avx2, int other) {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512f")) return avx512;
  if (__builtin_cpu_supports("avx2")) return avx2;
#endif
  return other;
}

class PackWeights : public test::LLVMDriverTest {
 protected:
  /// Writes `rx` (a module whose metadata holds the weights), compiles it with the default
  /// pipeline (checking that a kernel got packed in panels of `panel` columns) and returns the
  /// executable's path.
  std::string compile(const std::string& rx, int panel) {
    std::ofstream(dir_ / "m.rx") << rx;
    test::DriverResult opt = run("opt m.rx --pipeline " + kDefault);
    EXPECT_EQ(opt.rc, 0) << opt.err;
    EXPECT_NE(opt.out.find("\"weight_panel\": " + std::to_string(panel)), std::string::npos)
        << "pack-weights did not pack the weight:\n"
        << opt.out.substr(0, 4000);
    test::DriverResult c = run("compile m.rx -p " + kDefault + " -o m.rxe");
    EXPECT_EQ(c.rc, 0) << c.err;
    return "m.rxe";
  }
  /// Runs the executable on `x` and compares output 0 with `want`.
  void run_and_check(const std::string& exe, const NDArray& x, const std::vector<double>& want) {
    runtime::save_npy((dir_ / "x.npy").string(), x);
    fs::remove_all(dir_ / "out");
    test::DriverResult r = run("run " + exe + " --input x=x.npy --output-dir out");
    ASSERT_EQ(r.rc, 0) << r.err;
    NDArray got = runtime::load_npy((dir_ / "out" / "output_0.npy").string());
    ASSERT_EQ(got.numel(), int64_t(want.size()));
    for (size_t i = 0; i < want.size(); ++i)
      ASSERT_NEAR(got.data_as<float>()[i], want[i], 1e-4 * std::max(1.0, std::fabs(want[i])))
          << "element " << i;
  }
};

std::string module(const std::string& x_shape, const std::string& out_shape,
                   const std::string& body, const std::string& constants,
                   const std::string& sym = "") {
  return "@I.ir_module\nclass Module:\n    @R.function\n"
         "    def main(x: R.Tensor((" +
         x_shape + "), \"float32\")) -> R.Tensor((" + out_shape + "), \"float32\"):\n" + sym +
         "        with R.dataflow():\n" + body +
         "            R.output(y)\n        return y\n\n"
         "metadata = {\"relax.expr.Constant\": [" +
         constants + "]}\n";
}

const std::string kMatmul = "            y = R.matmul(x, metadata[\"relax.expr.Constant\"][0])\n";

TEST_F(PackWeights, ColumnsNotAMultipleOfThePanel) {
  // 23 columns (no width of a vector or more divides them): a full panel of 16 and one of 7
  // columns padded with 9 zeros.
  std::string exe =
      compile(module("5, 7", "5, 23", kMatmul, weight_text({7, 23})), host_panel(16, 16, 8));
  NDArray x = random_input({5, 7}, 1);
  run_and_check(exe, x, reference(x, 1, 5, 7, 23, false));
}

TEST_F(PackWeights, SymbolicRowsAndLongReduction) {
  // k = 300 is longer than the k chunk (kc = 128 or 256); m is known at run time only, so
  // the rows may be one (a matrix-vector product): 40 columns in one panel of 40 (five half
  // vectors, five accumulator chains) with AVX-512, else five panels of 8.
  std::string exe = compile(module("\"m\", 300", "\"m\", 40", kMatmul, weight_text({300, 40}),
                                   "        m = T.int64()\n"),
                            host_panel(40, 8, 8));
  for (int64_t m : {1, 3, 17}) {
    NDArray x = random_input({m, 300}, uint32_t(m));
    run_and_check(exe, x, reference(x, 1, m, 300, 40, false));
  }
}

TEST_F(PackWeights, BatchMatmulWithABatchedWeight) {
  // 36 columns in three panels of 12 (one and a half 8-lane vectors each; four panels of 4
  // with 4-lane vectors).
  std::string exe = compile(module("2, 9, 8", "2, 9, 36", kMatmul, weight_text({2, 8, 36})),
                            host_panel(12, 12, 4));
  NDArray x = random_input({2, 9, 8}, 2);
  run_and_check(exe, x, reference(x, 2, 9, 8, 36, true));
}

TEST_F(PackWeights, OneWeightSharedByTwoCalls) {
  // Two kernels (a fused matmul + relu, then a matmul) read the same constant; its 24 columns
  // go in one zero-padded panel of 32 with AVX-512 (two vectors, the last 8 columns masked).
  std::string body =
      "            h = R.nn.relu(R.matmul(x, metadata[\"relax.expr.Constant\"][0]))\n"
      "            y = R.matmul(h, metadata[\"relax.expr.Constant\"][0])\n";
  std::string exe =
      compile(module("6, 24", "6, 24", body, weight_text({24, 24})), host_panel(32, 8, 8));
  NDArray x = random_input({6, 24}, 3);
  std::vector<double> h = reference(x, 1, 6, 24, 24, false);
  NDArray hx = NDArray::empty({6, 24}, DataType::Float(32));
  for (size_t i = 0; i < h.size(); ++i) hx.data_as<float>()[i] = float(std::max(0.0, h[i]));
  run_and_check(exe, x, reference(hx, 1, 6, 24, 24, false));
}

TEST_F(PackWeights, LargeActivationOperandIsPackedAtRunTime) {
  // y = x @ w with both operands parameters: w (520 x 263, over half a MiB) read by 300 rows is
  // packed into panels by a layout_transform before the kernel (263 columns, prime: panels of
  // 16, the last padded); a small right operand read by few rows is left as it is.
  std::string rx =
      "@I.ir_module\nclass Module:\n    @R.function\n"
      "    def main(x: R.Tensor((300, 520), \"float32\"), w: R.Tensor((520, 263), \"float32\"),"
      " s: R.Tensor((6, 24), \"float32\"), v: R.Tensor((24, 24), \"float32\"))"
      " -> R.Tuple(R.Tensor((300, 263), \"float32\"), R.Tensor((6, 24), \"float32\")):\n"
      "        with R.dataflow():\n"
      "            y = R.matmul(x, w)\n"
      "            z = R.matmul(s, v)\n"
      "            R.output(y, z)\n"
      "        return (y, z)\n";
  std::ofstream(dir_ / "m.rx") << rx;
  test::DriverResult opt = run("opt m.rx --pipeline " + kDefault);
  ASSERT_EQ(opt.rc, 0) << opt.err;
  size_t panels = 0;
  for (size_t p = opt.out.find("\"weight_panel\""); p != std::string::npos;
       p = opt.out.find("\"weight_panel\"", p + 1))
    ++panels;
  EXPECT_EQ(panels, 1u) << "one kernel packed (the large one):\n" << opt.out.substr(0, 6000);
  EXPECT_NE(opt.out.find("\"weight_panel\": " + std::to_string(host_panel(16, 16, 8))),
            std::string::npos)
      << opt.out.substr(0, 6000);
  test::DriverResult c = run("compile m.rx -p " + kDefault + " -o m.rxe");
  ASSERT_EQ(c.rc, 0) << c.err;
  NDArray x = random_input({300, 520}, 4), w = random_input({520, 263}, 5);
  NDArray sm = random_input({6, 24}, 6), v = random_input({24, 24}, 7);
  for (auto [name, a] : {std::pair<const char*, NDArray>{"x", x}, {"w", w}, {"s", sm}, {"v", v}})
    runtime::save_npy((dir_ / (std::string(name) + ".npy")).string(), a);
  test::DriverResult r =
      run("run m.rxe --input x=x.npy --input w=w.npy --input s=s.npy --input v=v.npy "
          "--output-dir out");
  ASSERT_EQ(r.rc, 0) << r.err;
  auto check = [&](const char* file, const NDArray& a, const NDArray& b, int64_t m, int64_t k,
                   int64_t n) {
    NDArray got = runtime::load_npy((dir_ / "out" / file).string());
    ASSERT_EQ(got.numel(), m * n);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double want = 0;
        for (int64_t r2 = 0; r2 < k; ++r2)
          want += double(a.data_as<float>()[i * k + r2]) * b.data_as<float>()[r2 * n + j];
        ASSERT_NEAR(got.data_as<float>()[i * n + j], want, 1e-4 * std::max(1.0, std::fabs(want)))
            << file << " element " << i << ", " << j;
      }
  };
  check("output_0.npy", x, w, 300, 520, 263);
  check("output_1.npy", sm, v, 6, 24, 24);
}

}  // namespace
}  // namespace relax
