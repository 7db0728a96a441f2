// conv1d on the llvm target, built the way models are (the default pipeline: convert-layout to
// NWC / WIO, so the register-blocked rule takes the output positions as the rows of its tile
// and the output channels as its vector columns), and with the NCW layout kept (the minimum
// build), each against the interpreter's run of the same pipeline: a filterbank with
// long taps and a large stride, dilated blocks with a fused bias and ReLU over a symbolic
// length, stride with dilation and asymmetric padding, and a depthwise conv1d.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../../common/tensor_compare.h"
#include "llvm_test_util.h"
#include "relax/runtime/vm.h"
#include "relax/target/build.h"
#include "relax/text/parser.h"

namespace relax {
namespace {

using runtime::NDArray;

/// A module whose main is `y = R.nn.relu(R.nn.conv1d(x, w, ATTRS) + b)` (b broadcast over the
/// time axis) for an input of shape `x` ("n" for a symbolic length) and a weight of shape
/// `w` (OIW).
std::string conv1d_module(const std::string& x, const std::vector<int64_t>& w,
                          const std::string& attrs) {
  std::string ws = "(" + std::to_string(w[0]) + ", " + std::to_string(w[1]) + ", " +
                   std::to_string(w[2]) + ")";
  std::string b = "(" + std::to_string(w[0]) + ", 1)";
  return R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor()" +
         x + R"(, "float32"), w: R.Tensor()" + ws + R"(, "float32"), b: R.Tensor()" + b +
         R"(, "float32")):
        with R.dataflow():
            c = R.nn.conv1d(x, w, )" +
         attrs + R"()
            y = R.nn.relu(R.add(c, b))
            R.output(y)
        return y
)";
}

/// main of `text` built for `target` with `pipeline`, run on `args`.
NDArray run(const std::string& text, const std::string& target, const std::string& pipeline,
            const std::vector<NDArray>& args) {
  BuildOptions options;
  options.target = target;
  options.pipeline = pipeline;
  auto vm = runtime::VirtualMachine::create(build(parse_module(text), options));
  std::vector<runtime::Value> values;
  for (const NDArray& a : args) values.emplace_back(a);
  return vm->invoke("main", values).as_tensor();
}

/// The module run on random inputs of shapes `x` (concrete) and `w` by the default pipeline
/// and (with `minimum_build`) by the minimum build on the llvm target, against the
/// interpreter's run of the same pipeline.
void expect_matches_interpreter(const std::string& text, const std::vector<int64_t>& x,
                                const std::vector<int64_t>& w, bool minimum_build = true) {
#ifndef RELAX_HAVE_LLVM_BACKEND
  GTEST_SKIP() << "built without the LLVM backend";
#endif
  std::vector<NDArray> args{tir::random_array(x, DataType::Float(32), 1),
                            tir::random_array(w, DataType::Float(32), 2),
                            tir::random_array({w[0], 1}, DataType::Float(32), 3)};
  NDArray want = run(text, "tir-interp", "default", args);
  NDArray nwc = run(text, "llvm", "default", args);
  EXPECT_TRUE(test::tensors_close(nwc, want, 1e-4, 1e-4)) << "default pipeline (NWC)";
  if (!minimum_build) return;
  NDArray want_ncw = run(text, "tir-interp", "o0", args);
  EXPECT_TRUE(test::tensors_close(want_ncw, want, 1e-4, 1e-4)) << "interpreter, NCW";
  NDArray ncw = run(text, "llvm", "o0", args);
  EXPECT_TRUE(test::tensors_close(ncw, want, 1e-4, 1e-4)) << "minimum build (NCW)";
}

TEST(Conv1dLLVM, FilterbankWithLongTapsAndLargeStride) {
  // speech_conv1d's front end, smaller: 400 taps, stride 160, padding 200; 3337 samples give
  // 21 frames, rows that no tile of 4 divides (a guarded last row tile), 160 give 2. (The
  // symbolic length of the model is covered by the dilated blocks below: a module with an
  // input of length n and an output of n // 160 + 1 fails in the VM here, "variable n has no
  // value", before any kernel runs.)
  for (int64_t n : {3337, 160, 2000}) {
    std::string x = "(1, 1, " + std::to_string(n) + ")";
    expect_matches_interpreter(
        conv1d_module(x, {24, 1, 400}, "strides=[160], padding=[200, 200]"), {1, 1, n},
        {24, 1, 400});
  }
}

TEST(Conv1dLLVM, DilatedBlocksWithBiasAndRelu) {
  for (int64_t d : {1, 2, 4}) {
    std::string p = std::to_string(2 * d);
    std::string text = conv1d_module("(2, 24, \"n\")", {20, 24, 5},
                                     "padding=[" + p + ", " + p + "], dilation=[" +
                                         std::to_string(d) + "]");
    expect_matches_interpreter(text, {2, 24, 37}, {20, 24, 5});
  }
}

TEST(Conv1dLLVM, StrideWithDilationAndAsymmetricPadding) {
  std::string text = conv1d_module("(1, 8, 50)", {12, 8, 7},
                                   "strides=[3], padding=[1, 4], dilation=[2]");
  expect_matches_interpreter(text, {1, 8, 50}, {12, 8, 7});
}

TEST(Conv1dLLVM, Depthwise) {
  std::string text = conv1d_module("(1, 48, 40)", {48, 1, 3}, "padding=[1, 1], groups=48");
  expect_matches_interpreter(text, {1, 48, 40}, {48, 1, 3});
}

TEST(Conv1dLLVM, MismatchedChannelsAreRefusedNamingTheOp) {
  std::string text = conv1d_module("(1, 8, 50)", {12, 6, 7}, "padding=[3, 3]");
  BuildOptions options;
  options.target = "llvm";
  try {
    build(parse_module(text), options);
    ADD_FAILURE() << "expected a relax::Error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("conv1d"), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace relax
