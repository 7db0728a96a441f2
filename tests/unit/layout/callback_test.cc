// The flow callback (the design's fallback for opaque computations), through the layout
// plugin loaded in-process: a PrimFunc the block analysis cannot read keeps its rewrite; with
// a callback registered for it, the rewrite flows to the operand the callback names.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include "../../../plugins/passes/layout/flow_callbacks.h"
#include "relax/runtime/registry.h"
#include "relax/text/parser.h"
#include "relax/text/printer.h"
#include "relax/transform/pass_context.h"
#include "relax/transform/pipeline.h"
#include "relax/transform/plugin.h"

namespace relax {
namespace {

// A skew: out[i, j] = x[i, (i + j) % 8] — an index that reads two output indices, which the
// block analysis does not follow (a window along one axis, such as (j + 1) % 8, it does).
const char* kProgram = R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 8), "float32")) -> R.Tensor((8, 2), "float32"):
        cls = Module
        with R.dataflow():
            y = R.call_tir(cls.roll, (x,), out_sinfo=R.Tensor((2, 8), dtype="float32"))
            r = R.permute_dims(y, axes=[1, 0])
            R.output(r)
        return r

    @T.prim_func
    def roll(x: T.Buffer((2, 8), "float32"), out: T.Buffer((2, 8), "float32")):
        with T.block("root"):
            for i, j in T.grid(2, 8):
                with T.block("roll"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    out[vi, vj] = x[vi, (vi + vj) % 8]
)";

class FlowCallbackTest : public ::testing::Test {
 protected:
  void SetUp() override {
    plugins_.add_search_dir(RELAX_PLUGIN_DIR);
    const transform::LoadedPlugin& p = plugins_.load("layout");
    void* handle = dlopen(p.path.c_str(), RTLD_NOW | RTLD_NOLOAD);
    ASSERT_NE(handle, nullptr) << p.path;
    register_ = reinterpret_cast<void (*)(const char*, const void*)>(
        dlsym(handle, "relax_layout_register_flow_callback"));
    ASSERT_NE(register_, nullptr);
  }
  void TearDown() override {
    if (register_) register_("roll", nullptr);
  }

  std::string plan(const std::string& pipeline = "flow-layout{greedy=true}",
                   const char* program = kProgram) {
    auto passes = transform::parse_pipeline_line(pipeline, registry_).build(registry_);
    transform::PassContext ctx;
    return print_module(transform::run_passes(passes, parse_module(program), ctx));
  }

  transform::PassRegistry registry_;
  transform::PluginManager plugins_{registry_};
  void (*register_)(const char*, const void*) = nullptr;
};

TEST_F(FlowCallbackTest, OpaqueBlockKeepsItsRewriteUntilACallbackSaysHowToFlow) {
  std::string before = plan();
  EXPECT_NE(before.find("R.permute_dims(y, axes=[1, 0])"), std::string::npos) << before;
  // The callback: the operand takes the result's permutation (valid for any map here, since
  // flow-layout transforms the PrimFunc's buffers, not its computation).
  int calls = 0;
  layout::FlowCallback cb = [&](const Call&, const arith::IndexMap& m) {
    ++calls;
    return std::optional<std::vector<std::optional<arith::IndexMap>>>(
        std::vector<std::optional<arith::IndexMap>>{m});
  };
  register_("roll", &cb);
  std::string after = plan();
  EXPECT_EQ(calls, 1);
  EXPECT_NE(after.find("R.permute_dims(x, axes=[1, 0])"), std::string::npos) << after;
  EXPECT_NE(after.find("R.call_tir(cls.roll_relayout"), std::string::npos) << after;
  EXPECT_NE(after.find("out[v0, v1] = x[(v0 + v1) % 8, v1]"), std::string::npos) << after;
  // A callback that refuses leaves the rewrite where it is.
  layout::FlowCallback no = [](const Call&, const arith::IndexMap&) {
    return std::optional<std::vector<std::optional<arith::IndexMap>>>();
  };
  register_("roll", &no);
  EXPECT_NE(plan().find("R.permute_dims(y, axes=[1, 0])"), std::string::npos);
}

TEST_F(FlowCallbackTest, ABackendRequestsLayoutsThroughFreezeLayout) {
  // A backend's rule asks NHWC / HWIO for 4-D convolutions with 2 channels, nothing else.
  std::vector<std::string> asked;
  runtime::Registry::register_func(
      "layout.request.testbk",
      [&](runtime::Args a) -> runtime::Value {
        asked.push_back(a[0].as_string() + " " + a[1].as_string());
        return std::string(a[1].as_string() == "1x2x3x3;2x2x1x1" ? "NHWC:HWIO" : "");
      },
      true);
  const char* conv = R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 3, 3), "float32"), w: R.Tensor((2, 2, 1, 1), "float32"), v: R.Tensor((1, 4, 3, 3), "float32"), u: R.Tensor((2, 4, 1, 1), "float32")) -> R.Tuple(R.Tensor((1, 2, 3, 3), "float32"), R.Tensor((1, 2, 3, 3), "float32")):
        with R.dataflow():
            c = R.nn.conv2d(x, w)
            d = R.nn.conv2d(v, u)
            R.output(c, d)
        return (c, d)
)";
  std::string out = plan("freeze-layout{request=testbk}", conv);
  runtime::Registry::remove("layout.request.testbk");
  EXPECT_EQ(asked, (std::vector<std::string>{"relax.nn.conv2d 1x2x3x3;2x2x1x1",
                                             "relax.nn.conv2d 1x4x3x3;2x4x1x1"}));
  EXPECT_NE(out.find("R.permute_dims(x, axes=[0, 2, 3, 1])"), std::string::npos) << out;
  EXPECT_NE(out.find("R.permute_dims(w, axes=[2, 3, 1, 0])"), std::string::npos) << out;
  EXPECT_NE(out.find("R.call_tir(cls.conv2d_frozen"), std::string::npos) << out;
  EXPECT_NE(out.find("d: R.Tensor((1, 2, 3, 3), dtype=\"float32\") = R.nn.conv2d(v, u)"),
            std::string::npos)
      << out;
}

}  // namespace
}  // namespace relax
