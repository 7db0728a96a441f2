// The RFC's example programs (examples/rfc/*.rx) compiled with relax-driver for the LLVM
// backend and run, with the packed functions they call supplied by the test plugin
// librelax-test-rfc-funcs.so (tests/plugins/rfc_funcs_plugin.cc); every result checked against
// a reference computed here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "../../common/driver_runner.h"
#include "relax/runtime/tensor_io.h"

namespace relax {
namespace {

namespace fs = std::filesystem;
using runtime::NDArray;

const std::string kRfc = RELAX_SOURCE_DIR "/examples/rfc/";
const std::string kFuncsPlugin = RELAX_BINARY_DIR "/tests/plugins/librelax-test-rfc-funcs.so";

NDArray random_f32(const std::vector<int64_t>& shape, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  NDArray a = NDArray::empty(shape, DataType::Float(32));
  for (int64_t i = 0; i < a.numel(); ++i) static_cast<float*>(a.data())[i] = dist(gen);
  return a;
}

const float* f(const NDArray& a) { return static_cast<const float*>(a.data()); }

/// a (r, c) times b (c, s) -> row-major (r, s).
std::vector<float> matmul(const NDArray& a, const NDArray& b) {
  int64_t r = a.shape()[0], c = a.shape()[1], s = b.shape()[1];
  std::vector<float> out(size_t(r * s));
  for (int64_t i = 0; i < r; ++i)
    for (int64_t j = 0; j < s; ++j) {
      float acc = 0;
      for (int64_t k = 0; k < c; ++k) acc += f(a)[i * c + k] * f(b)[k * s + j];
      out[size_t(i * s + j)] = acc;
    }
  return out;
}

class RfcExamples : public test::LLVMDriverTest {
 protected:
  std::string save(const std::string& name, const NDArray& a) {
    std::string p = (dir_ / (name + ".npy")).string();
    runtime::save_npy(p, a);
    return p;
  }

  /// Compiles `example` to an executable, runs `func` on `inputs` (NAME=FILE), returns the
  /// first output and leaves the driver's stdout in last_out_.
  NDArray compile_and_run(const std::string& example, const std::string& func,
                          const std::string& inputs) {
    std::string exe = (dir_ / (example + ".rxe")).string();
    test::DriverResult c = run("compile " + kRfc + example + ".rx --target llvm -o " + exe);
    EXPECT_EQ(c.rc, 0) << example << ": " << c.err;
    if (c.rc != 0) return NDArray();
    test::DriverResult r = run("--plugin " + kFuncsPlugin + " run " + exe + " --func " + func +
                               " " + inputs + " --output-dir out");
    EXPECT_EQ(r.rc, 0) << example << ": " << r.err;
    last_out_ = r.out;
    if (r.rc != 0) return NDArray();
    return runtime::load_npy((dir_ / "out" / "output_0.npy").string());
  }

  void expect_values(const NDArray& got, const std::vector<int64_t>& shape,
                     const std::vector<float>& want) {
    ASSERT_TRUE(got.defined());
    ASSERT_EQ(got.shape(), shape);
    for (size_t i = 0; i < want.size(); ++i)
      ASSERT_NEAR(f(got)[i], want[i], 1e-4f + 1e-4f * std::abs(want[i])) << "element " << i;
  }

  std::string last_out_;
};

TEST_F(RfcExamples, CallDpsModule) {
  // tir_matmul reads C[i, j] += A[i, k] * B[j, k] over (m, n, k): in bounds when n == k.
  NDArray x = random_f32({2, 3}, 1), y = random_f32({3, 3}, 2);
  NDArray got = compile_and_run("call_dps_module", "relax_func",
                                "--input x=" + save("x", x) + " --input y=" + save("y", y));
  std::vector<float> want(2 * 6);
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j) {
      float c = 0;
      for (int64_t k = 0; k < 3; ++k) c += f(x)[i * 3 + k] * f(y)[j * 3 + k];
      want[size_t(i * 6 + j)] = want[size_t(i * 6 + j + 3)] = 2 * c;  // custom_add, custom_tile
    }
  expect_values(got, {2, 6}, want);
  EXPECT_NE(last_out_.find("custom_print: (2, 3) sum="), std::string::npos) << last_out_;
}

TEST_F(RfcExamples, CallTirLowering) {
  NDArray x = random_f32({3, 4}, 3);
  NDArray got = compile_and_run("call_tir_lowering", "relax_function", "--input x=" + save("x", x));
  std::vector<float> want;
  for (int64_t i = 0; i < 12; ++i) want.push_back(std::exp(f(x)[i]));
  expect_values(got, {12}, want);
}

TEST_F(RfcExamples, MyIRModule) {
  NDArray x = random_f32({2, 5}, 4), w = random_f32({5, 3}, 5);
  NDArray got = compile_and_run("my_ir_module", "relax_func",
                                "--input x=" + save("x", x) + " --input w=" + save("w", w));
  std::vector<float> want = matmul(x, w);
  for (float& v : want) v = std::exp(v) + 1;  // tir_exp_func, then custom_inplace_update
  expect_values(got, {6}, want);
}

TEST_F(RfcExamples, RelaxFuncBindings) {
  NDArray x = random_f32({4, 2}, 6), w = random_f32({2, 3}, 7);
  NDArray got = compile_and_run("relax_func_bindings", "relax_func",
                                "--input x=" + save("x", x) + " --input w=" + save("w", w));
  std::vector<float> want = matmul(x, w);
  for (float& v : want) v += 1;
  expect_values(got, {12}, want);
}

TEST_F(RfcExamples, ShapeExampleWithDataDependentUnique) {
  // unique's length is known only at run time (m); the program then asserts that myshape_func's
  // shape (n * 4,) is (m,) too, so it runs when the elements are distinct: unique sorts them.
  NDArray x = NDArray::empty({3, 2, 2}, DataType::Float(32));
  std::vector<float> vals = {3, 1, 2, -3, 0.5f, 1.5f, 2.5f, 7, 8, -0.5f, 4, -1};
  std::copy(vals.begin(), vals.end(), static_cast<float*>(x.data()));
  NDArray got = compile_and_run("shape_example", "shape_example", "--input x=" + save("x", x));
  std::set<float> distinct(vals.begin(), vals.end());
  std::vector<float> want;
  for (float v : distinct) want.push_back(std::exp(v));
  expect_values(got, {int64_t(want.size())}, want);
}

TEST_F(RfcExamples, TwoDataflowBlocks) {
  NDArray x = random_f32({1, 784}, 8), w = random_f32({128, 784}, 9), b = random_f32({128}, 10);
  NDArray t = random_f32({1, 128}, 11);
  {
    std::ofstream txt(dir_ / "tensor.txt");
    for (int64_t i = 0; i < 128; ++i) txt << f(t)[i] << " ";
  }
  NDArray got = compile_and_run("two_dataflow_blocks", "main",
                                "--input x=" + save("x", x) + " --input w=" + save("w", w) +
                                    " --input b=" + save("b", b));
  // read_tensor_from_file parsed the printed text: compare with what it read.
  NDArray read = NDArray::empty({1, 128}, DataType::Float(32));
  {
    std::ifstream txt(dir_ / "tensor.txt");
    for (int64_t i = 0; i < 128; ++i) txt >> static_cast<float*>(read.data())[i];
  }
  std::vector<float> want(128);
  for (int64_t j = 0; j < 128; ++j) {
    float acc = f(b)[j];
    for (int64_t i = 0; i < 784; ++i) acc += f(x)[i] * f(w)[j * 784 + i];
    float gv0 = std::max(acc, 0.0f) + 1;  // relu, then custom_inplace_update
    want[size_t(j)] = gv0 * f(read)[j] + f(b)[j];
  }
  expect_values(got, {1, 128}, want);
}

TEST_F(RfcExamples, MissingPackedFunctionIsAClearError) {
  std::string exe = (dir_ / "bindings.rxe").string();
  ASSERT_EQ(run("compile " + kRfc + "relax_func_bindings.rx -o " + exe).rc, 0);
  NDArray x = random_f32({4, 2}, 6), w = random_f32({2, 3}, 7);
  test::DriverResult r = run("run " + exe + " --func relax_func --input x=" + save("x", x) +
                             " --input w=" + save("w", w));  // no --plugin
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("custom_inplace_update"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace relax
