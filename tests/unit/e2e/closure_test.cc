// Local functions and closures end to end: the programs of examples/closures compiled with
// relax-driver (default pipeline, LLVM) and run, and recursive local functions (built in C++:
// the parser does not read a nested function naming itself yet) through build() on every
// kernel target with both built-in pipelines. Every result checked against values computed
// here; error paths (calling a non-callable, wrong arity) give clear errors.
#include <gtest/gtest.h>

#include <random>

#include "../../common/closure_modules.h"
#include "../../common/driver_runner.h"
#include "../../common/error_of.h"
#include "relax/runtime/tensor_io.h"
#include "relax/runtime/vm.h"
#include "relax/target/build.h"
#include "relax/text/parser.h"

namespace relax {
namespace {

using runtime::NDArray;

const std::string kExamples = RELAX_SOURCE_DIR "/examples/closures/";

NDArray random_f32(const std::vector<int64_t>& shape, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  NDArray a = NDArray::empty(shape, DataType::Float(32));
  for (int64_t i = 0; i < a.numel(); ++i) a.data_as<float>()[i] = dist(gen);
  return a;
}

class ClosurePrograms : public test::LLVMDriverTest {
 protected:
  /// Compiles examples/closures/`name`.rx with the driver's defaults, runs main(x, y) and
  /// returns its output.
  NDArray compile_and_run(const std::string& name, const NDArray& x, const NDArray& y) {
    std::string exe = (dir_ / (name + ".rxe")).string();
    test::DriverResult c = run("compile " + kExamples + name + ".rx -o " + exe);
    EXPECT_EQ(c.rc, 0) << name << ": " << c.err;
    if (c.rc != 0) return NDArray();
    runtime::save_npy((dir_ / "x.npy").string(), x);
    runtime::save_npy((dir_ / "y.npy").string(), y);
    test::DriverResult r =
        run("run " + exe + " --func main --input x=x.npy --input y=y.npy --output-dir out");
    EXPECT_EQ(r.rc, 0) << name << ": " << r.err;
    if (r.rc != 0) return NDArray();
    return runtime::load_npy((dir_ / "out" / "output_0.npy").string());
  }

  /// Checks main(x, y) of `name` against want(x_i, y_i) elementwise.
  template <class F>
  void check(const std::string& name, F want) {
    NDArray x = random_f32({2, 3}, 1), y = random_f32({2, 3}, 2);
    NDArray got = compile_and_run(name, x, y);
    ASSERT_TRUE(got.defined());
    ASSERT_EQ(got.shape(), (std::vector<int64_t>{2, 3}));
    for (int64_t i = 0; i < 6; ++i) {
      float w = want(x.data_as<float>()[i], y.data_as<float>()[i]);
      EXPECT_NEAR(got.data_as<float>()[i], w, 1e-5f) << name << " element " << i;
    }
  }
};

TEST_F(ClosurePrograms, LocalFunctionCapturingATensor) {
  check("capture", [](float x, float y) { return y * x * x; });
}

TEST_F(ClosurePrograms, ClosureReturnedByALocalFunction) {
  check("nested_closure", [](float x, float y) { return x + y; });
}

TEST_F(ClosurePrograms, FunctionsPassedAsValuesToAHigherOrderFunction) {
  check("higher_order", [](float x, float y) { return 4 * (y + 2 * x); });
}

TEST_F(ClosurePrograms, ClosuresReturnedFromAModuleFunction) {
  check("returned_closure", [](float x, float y) { return x + 2 * y; });
}

TEST_F(ClosurePrograms, FunctionWithoutCapturesReturnedAsAValue) {
  check("returned_function", [](float x, float y) { return y - x; });
}

TEST_F(ClosurePrograms, ExplicitMakeAndInvokeClosure) {
  check("explicit_closure", [](float x, float y) { return x + y; });
}

TEST_F(ClosurePrograms, O0PipelineRunsClosuresToo) {
  std::string exe = (dir_ / "o0.rxe").string();
  test::DriverResult c = run("compile " + kExamples + "higher_order.rx -O0 -o " + exe);
  ASSERT_EQ(c.rc, 0) << c.err;
  NDArray x = random_f32({2, 3}, 3), y = random_f32({2, 3}, 4);
  runtime::save_npy((dir_ / "x.npy").string(), x);
  runtime::save_npy((dir_ / "y.npy").string(), y);
  test::DriverResult r =
      run("run " + exe + " --func main --input x=x.npy --input y=y.npy --output-dir out");
  ASSERT_EQ(r.rc, 0) << r.err;
  NDArray got = runtime::load_npy((dir_ / "out" / "output_0.npy").string());
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_NEAR(got.data_as<float>()[i], 4 * (y.data_as<float>()[i] + 2 * x.data_as<float>()[i]),
                1e-5f);
}

TEST_F(ClosurePrograms, CallingANonCallableIsAClearError) {
  std::ofstream(dir_ / "bad.rx") << R"(
@R.function
def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
    y = x(x)
    return y
)";
  test::DriverResult r = run("compile bad.rx -o bad.rxe");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("call of 'x', which is Tensor((2, 3), float32), not a function"),
            std::string::npos)
      << r.err;
}

TEST_F(ClosurePrograms, CallingAClosureWithTheWrongArityIsAClearError) {
  std::ofstream(dir_ / "bad.rx") << R"(
@R.function
def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
    @R.function
    def add_x(v: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        w = R.add(v, x)
        return w
    y = add_x(x, x)
    return y
)";
  test::DriverResult r = run("compile bad.rx -o bad.rxe");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("'add_x' takes 1 argument(s), got 2"), std::string::npos) << r.err;
}

// ---- Recursive local functions through build().

class RecursiveClosure
    : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(RecursiveClosure, CountingLoopByRecursionCapturingATensor) {
  auto [target, pipeline] = GetParam();
  BuildOptions options;
  options.target = target;
  options.pipeline = pipeline;
  Ref<runtime::Executable> exec = build(test::recursive_module(), options);
  auto vm = runtime::VirtualMachine::create(exec);
  NDArray x = random_f32({2, 3}, 5);
  NDArray got = vm->invoke("main", {x}).as_tensor();
  ASSERT_EQ(got.shape(), (std::vector<int64_t>{2, 3}));
  // while_loop(0, x) adds x ten times.
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_NEAR(got.data_as<float>()[i], 11 * x.data_as<float>()[i], 1e-5f) << "element " << i;
}

TEST_P(RecursiveClosure, LocalFunctionUsingASymbolicDimensionOfItsEnclosingFunction) {
  auto [target, pipeline] = GetParam();
  BuildOptions options;
  options.target = target;
  options.pipeline = pipeline;
  auto vm = runtime::VirtualMachine::create(build(parse_module(test::kSymbolicCapture), options));
  for (int64_t n : {1, 5}) {
    runtime::Shape got = vm->invoke("main", {random_f32({n}, 6)}).as_shape();
    EXPECT_EQ(got.dims(), std::vector<int64_t>{n});
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, RecursiveClosure,
                         ::testing::Combine(::testing::Values("tir-interp"
#ifdef RELAX_HAVE_LLVM_BACKEND
                                                              ,
                                                              "llvm"
#endif
                                                              ),
                                            ::testing::Values("o0", "default")));

}  // namespace
}  // namespace relax
