// fuse-ops-by-pattern end to end through relax-driver: a pipeline that runs it before the
// default passes compiles the MLP example (no backend claims the composites, so they are
// legalised and fused like ordinary groups) and the program computes the reference outputs; the
// same with annotate-codegen, whose Codegen wrappers then stay plain function calls.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "../../common/driver_runner.h"
#include "../../common/tensor_compare.h"
#include "relax/runtime/tensor_io.h"

namespace relax {
namespace {

namespace fs = std::filesystem;

const std::string kExamples = RELAX_SOURCE_DIR "/examples/mlp";

/// default.yaml with fuse-ops-by-pattern (options `extra`) before legalize-ops.
std::string pipeline(const std::string& extra) {
  return R"(plugins: [cleanup, memory, fusion]
target: llvm
passes:
  - normalize
  - remove-unused-functions: {entry: main}
  - attach-global-symbol
  - canonicalize-bindings
  - cse
  - dead-code-elimination
  - fuse-ops-by-pattern:
      patterns: |
        cpu.dense_bias_relu = relax.nn.relu(relax.add(relax.matmul($x, $w:const), $b:const))
        cpu.dense_bias = relax.add(relax.matmul($x, $w:const), $b:const)
)" + extra +
         R"(
  - legalize-ops
  - fold-constant
  - dead-code-elimination
  - annotate-op-pattern
  - fuse-ops
  - fuse-tir
  - call-tir-rewrite
  - static-plan-block-memory
  - to-non-dataflow
  - vm-shape-lower
  - kill-after-last-use
)";
}

class FuseByPattern : public test::LLVMDriverTest {
 protected:
  /// Writes the pipeline, checks what the pattern pass makes of the MLP, compiles and runs it
  /// at batch 3 and compares with the reference output.
  void compile_and_check(const std::string& extra, const std::string& expect_in_ir,
                         const std::string& expect_in_stats) {
    { std::ofstream(dir_ / "p.yaml") << pipeline(extra); }
    test::DriverResult o = run("opt " + kExamples + "/mlp.rx --passes \"normalize," +
                               "fuse-ops-by-pattern{patterns=\\\"cpu.dense_bias_relu = " +
                               "relax.nn.relu(relax.add(relax.matmul(\\$x, \\$w:const), " +
                               "\\$b:const))\\\"" + extra_line(extra) + "}\" --plugin fusion");
    ASSERT_EQ(o.rc, 0) << o.err;
    EXPECT_NE(o.out.find(expect_in_ir), std::string::npos) << o.out;
    test::DriverResult c = run("compile " + kExamples + "/mlp.rx -p p.yaml --stats -o m.rxe");
    ASSERT_EQ(c.rc, 0) << c.err;
    EXPECT_NE((c.out + c.err).find(expect_in_stats), std::string::npos) << c.out << c.err;
    test::DriverResult r =
        run("run m.rxe --input x=" + kExamples + "/input_b3.npy --output-dir out");
    ASSERT_EQ(r.rc, 0) << r.err;
    runtime::NDArray got = runtime::load_npy((dir_ / "out" / "output_0.npy").string());
    runtime::NDArray want = runtime::load_npy(kExamples + "/expected_b3.npy");
    EXPECT_TRUE(test::tensors_close(got, want, 0, 1e-5));
  }

  static std::string extra_line(const std::string& extra) {
    return extra.empty() ? "" : ",annotate-codegen=true";
  }
};

TEST_F(FuseByPattern, MlpCompositesCompileAndMatchTheReference) {
  // Three composites of one kernel each, and the softmax.
  compile_and_check("", "R.func_attr({\"Composite\": \"cpu.dense_bias_relu\", \"Primitive\": 1})",
                    "main: 4 kernel launches");
}

TEST_F(FuseByPattern, MlpWithCodegenWrappersCompilesAndMatchesTheReference) {
  compile_and_check("      annotate-codegen: true", "R.func_attr({\"Codegen\": \"cpu\"})",
                    "cpu_dense_bias_relu_1: 1 kernel launches");
}

}  // namespace
}  // namespace relax
