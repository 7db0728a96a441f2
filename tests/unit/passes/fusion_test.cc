// The fusion plugin (plugins/passes/fusion) end to end: modules compiled with
// annotate-op-pattern, fuse-ops and fuse-tir compute what the unfused modules compute, on the
// reference interpreter and (when built) the LLVM backend; every fused kernel lowers; and the
// kernel counts of the MLP example and of a small conv net drop as expected.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "../../common/error_of.h"
#include "relax/ir/expr_functor.h"
#include "relax/ir/well_formed.h"
#include "relax/kernel/lower.h"
#include "relax/runtime/vm.h"
#include "relax/target/build.h"
#include "relax/target/compile.h"
#include "relax/text/parser.h"
#include "relax/transform/pass_context.h"
#include "relax/transform/pipeline.h"
#include "relax/transform/plugin.h"

namespace relax {
namespace {

using runtime::NDArray;

constexpr const char* kFuse = "normalize,legalize-ops,annotate-op-pattern,fuse-ops,fuse-tir";
constexpr const char* kLegalize = "normalize,legalize-ops";

/// Two conv2d + bias + relu layers, a spatial sum and a scaling.
constexpr const char* kConvNet = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 3, 8, 8), "float32"), k0: R.Tensor((4, 3, 3, 3), "float32"), b0: R.Tensor((1, 4, 1, 1), "float32"), k1: R.Tensor((4, 4, 3, 3), "float32"), b1: R.Tensor((1, 4, 1, 1), "float32")) -> R.Tensor((1, 4), "float32"):
        with R.dataflow():
            c0 = R.nn.conv2d(x, k0)
            a0 = R.add(c0, b0)
            r0 = R.nn.relu(a0)
            c1 = R.nn.conv2d(r0, k1)
            a1 = R.add(c1, b1)
            r1 = R.nn.relu(a1)
            s = R.sum(r1, axis=[2, 3])
            y = R.multiply(s, R.const(0.25, "float32"))
            R.output(y)
        return y
)";

class Fusion : public ::testing::Test {
 protected:
  Fusion() : registry_(make_core_registry()), plugins_(registry_) {
    plugins_.add_search_dir(RELAX_PLUGIN_DIR);
    plugins_.load("fusion");
  }

  IRModule run(const IRModule& mod, const std::string& line) {
    std::vector<transform::Pass> passes =
        transform::parse_pipeline_line(line, registry_).build(registry_);
    transform::PassContext ctx;
    return transform::run_passes(passes, mod, ctx);
  }

  static std::vector<float> execute(const IRModule& mod, const std::string& target,
                                    const std::vector<NDArray>& inputs) {
    BuildOptions options;
    options.target = target;
    options.pipeline = "o0";
    auto vm = runtime::VirtualMachine::create(build(mod, options));
    std::vector<runtime::Value> args(inputs.begin(), inputs.end());
    NDArray out = vm->invoke("main", args).as_tensor();
    return std::vector<float>(out.data_as<float>(), out.data_as<float>() + out.numel());
  }

  /// Runs the unfused and the fused module on every target; results agree to 1e-5.
  void expect_same_results(const IRModule& mod, const std::vector<NDArray>& inputs) {
    IRModule plain = run(mod, kLegalize);
    IRModule fused = run(mod, kFuse);
    ASSERT_TRUE(is_well_formed(fused)) << well_formed_errors(fused)[0].to_string();
    for (const auto& e : fused.functions()) {
      if (auto f = e.func.as_ref<tir::PrimFunc>()) {
        EXPECT_NO_THROW(tir::lower(f)) << e.gv->name;
      }
    }
    std::vector<std::string> targets{"tir-interp"};
#ifdef RELAX_FUSION_TEST_LLVM
    targets.push_back("llvm");
#endif
    std::vector<float> want = execute(plain, "tir-interp", inputs);
    for (const std::string& t : targets) {
      std::vector<float> got = execute(fused, t, inputs);
      ASSERT_EQ(got.size(), want.size()) << t;
      for (size_t i = 0; i < got.size(); ++i)
        ASSERT_NEAR(got[i], want[i], 1e-5) << t << ": element " << i;
    }
  }

  transform::PassRegistry registry_;
  transform::PluginManager plugins_;
};

/// The number of call_tir calls in the module's Relax functions (kernel launches).
int count_call_tir(const IRModule& mod) {
  int n = 0;
  for (const auto& e : mod.functions()) {
    if (!e.func.is<Function>()) continue;
    post_order_visit(e.func, [&](const Expr& x) {
      auto* c = x.as<Call>();
      auto* op = c ? c->op.as<Op>() : nullptr;
      n += op && op->name == "relax.call_tir";
    });
  }
  return n;
}

int count_prim_funcs(const IRModule& mod) {
  int n = 0;
  for (const auto& e : mod.functions()) n += e.func.is<tir::PrimFunc>();
  return n;
}

NDArray pattern_tensor(std::vector<int64_t> shape, int seed) {
  NDArray t = NDArray::empty(shape, DataType::Float(32));
  float* p = t.data_as<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = float((i * 7 + seed * 13) % 17 - 8) / 16.0f;
  return t;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST_F(Fusion, MlpExampleKeepsItsResultsWithFewerKernels) {
  IRModule mlp = parse_module(read_file(RELAX_SOURCE_DIR "/examples/mlp/mlp.rx"));
  IRModule plain = run(mlp, kLegalize);
  IRModule fused = run(mlp, kFuse);
  // matmul, add, relu (x2), matmul, add, softmax: 9 kernels; fused: matmul+add+relu twice,
  // matmul+add, softmax.
  EXPECT_EQ(count_call_tir(plain), 9);
  EXPECT_EQ(count_call_tir(fused), 4);
  EXPECT_EQ(count_prim_funcs(fused), 4);
  expect_same_results(mlp, {pattern_tensor({3, 64}, 1)});
}

TEST_F(Fusion, ConvNetKeepsItsResultsWithFewerKernels) {
  IRModule net = parse_module(kConvNet);
  // conv, add, relu (x2), sum, multiply: 8 kernels; fused: conv+add+relu twice, sum with
  // its multiply consumer left alone (a reduction does not fuse forward): 4.
  EXPECT_EQ(count_call_tir(run(net, kLegalize)), 8);
  EXPECT_EQ(count_call_tir(run(net, kFuse)), 4);
  expect_same_results(net, {pattern_tensor({1, 3, 8, 8}, 1), pattern_tensor({4, 3, 3, 3}, 2),
                            pattern_tensor({1, 4, 1, 1}, 3), pattern_tensor({4, 4, 3, 3}, 4),
                            pattern_tensor({1, 4, 1, 1}, 5)});
}

TEST_F(Fusion, ReductionWithProducersAndRepeatedKernels) {
  // exp and permute_dims fuse into the sum; the same PrimFunc (add) twice in one group.
  IRModule m = parse_module(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 8), "float32"), y: R.Tensor(("n", 8), "float32")) -> R.Tensor((8,), "float32"):
        n = T.int64()
        with R.dataflow():
            a = R.add(x, y)
            b = R.add(a, x)
            e = R.exp(b)
            t = R.permute_dims(e)
            s = R.sum(t, axis=[1])
            R.output(s)
        return s
)");
  IRModule fused = run(m, kFuse);
  EXPECT_EQ(count_call_tir(fused), 1);
  expect_same_results(m, {pattern_tensor({5, 8}, 1), pattern_tensor({5, 8}, 2)});
}

TEST_F(Fusion, FuseOpsRejectsBadOptions) {
  IRModule m = parse_module(kConvNet);
  std::string e = test::error_of(
      [&] { run(m, "normalize,legalize-ops,annotate-op-pattern,fuse-ops{max-depth=0}"); });
  EXPECT_NE(e.find("max-depth"), std::string::npos) << e;
}

TEST_F(Fusion, MaxDepthBoundsTheGroups) {
  IRModule m = parse_module(kConvNet);
  IRModule fused =
      run(m, "normalize,legalize-ops,annotate-op-pattern,fuse-ops{max-depth=2},fuse-tir");
  // conv+add, relu, conv+add, relu+sum (an elementwise producer of a reduction), multiply.
  EXPECT_EQ(count_call_tir(fused), 5);
}

}  // namespace
}  // namespace relax
