// The Vulkan backend end to end through relax-driver: models of the zoo
// (../shared/models/test) compiled with --target vulkan and run by librelax-vulkan-runtime.so
// against their reference outputs (--check), with a trace whose kernels ran on "vulkan".
#include "../../common/gpu_model_check.h"
#include "vk_test_util.h"

namespace relax::vktest {
namespace {

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
                         ::testing::Values("mlp", "small_cnn", "tiny_transformer"));

}  // namespace
}  // namespace relax::vktest
