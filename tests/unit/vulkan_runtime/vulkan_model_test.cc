// The Vulkan backend end to end through relax-driver: models of the zoo
// (../shared/models/test) compiled with --target vulkan and run by librelax-vulkan-runtime.so
// against their reference outputs (--check), with a trace whose kernels ran on "vulkan".
#include <sstream>

#include "../../common/gpu_model_check.h"
#include "vk_test_util.h"

namespace relax::vktest {
namespace {

namespace fs = std::filesystem;

class VulkanModel : public test::GpuModelTest, public ::testing::WithParamInterface<std::string> {
 protected:
  void SetUp() override {
    test::GpuModelTest::SetUp();
    std::string why = no_device_reason();
    require_device(why.empty() ? why : "no Vulkan device: " + why, "RELAX_REQUIRE_VULKAN");
  }
};

TEST_P(VulkanModel, CompilesAndMatchesTheReference) { expect_model_runs_on("vulkan", GetParam()); }

INSTANTIATE_TEST_SUITE_P(Zoo, VulkanModel,
                         ::testing::Values("mlp", "small_cnn", "tiny_transformer",
                                           "mobilenet_v2_w025"));

// `run --profile` on a GPU build: the timed runs only (not the warm-up), and each kernel timed
// to its completion (launches are asynchronous: unsynchronised, the device-to-host copy at the
// end took the kernels' time). small_cnn's kernels take milliseconds on lavapipe, its copies
// microseconds.
TEST_F(VulkanModel, ProfileTimesKernelsToTheirCompletion) {
  fs::path dir = fs::path(RELAX_SOURCE_DIR) / ".." / "shared" / "models" / "test" / "small_cnn";
  if (!fs::exists(dir / "model.onnx")) GTEST_SKIP() << dir << " is missing";
  ASSERT_EQ(run("compile '" + (dir / "model.onnx").string() + "' --target vulkan -o m.rxe").rc, 0);
  test::DriverResult r = run("run m.rxe --warmup 1 --repeat 2 --profile --profile-top 0");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("(over 2 runs)"), std::string::npos) << r.err;
  double kernels = 0, builtins = 0;
  std::istringstream lines(r.err);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    double ms, pct, calls;
    std::string name;
    if (!(fields >> ms >> pct >> calls >> name)) continue;
    (name.rfind("vm.builtin.", 0) == 0 ? builtins : kernels) += ms;
  }
  EXPECT_GT(kernels, 0) << r.err;
  EXPECT_GT(kernels, builtins) << r.err;
}

}  // namespace
}  // namespace relax::vktest
