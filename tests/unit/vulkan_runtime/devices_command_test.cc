// relax-driver devices with the Vulkan runtime plugin in the build's plugin directory: the
// devices it sees with their limits, and the reason when there is none.
#include "../../common/driver_runner.h"
#include "vk_test_util.h"

namespace relax::vktest {
namespace {

class DevicesCommand : public test::DriverTest {};

TEST_F(DevicesCommand, ListsVulkanDevicesWithLimits) {
  RX_REQUIRE_VULKAN_DEVICE();
  test::DriverResult r = run("devices");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("cpu:0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("vulkan-runtime ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("vulkan:0  " + api().attribute(kVk, kRxDeviceName).as_string()),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("max storage buffer range"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("search path: "), std::string::npos) << r.out;
}

TEST_F(DevicesCommand, SaysWhyThereIsNoVulkanDevice) {
  test::DriverResult r =
      run("devices", "RELAX_VULKAN_LIBRARY=/nonexistent/libvulkan.so.1 " + test::kDriverPath);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(
      r.out.find("vulkan: no device: no Vulkan device: /nonexistent/libvulkan.so.1 not found"),
      std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace relax::vktest
