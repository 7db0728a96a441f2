// Vulkan runtime behaviour that depends on the environment at start-up, each run by ctest in a
// process of its own (tests/CMakeLists.txt) with the variable set, and skipped otherwise:
//  - RELAX_VULKAN_LIBRARY naming a missing loader: the plugin loads, the device does not exist,
//    and every call that needs it fails with "no Vulkan device: ... not found";
//  - RELAX_VULKAN_TEST_CORRUPT_CACHE=1: a garbage pipeline cache is ignored and replaced;
//  - RELAX_VULKAN_DEVICE out of range: an error listing the devices;
//  - RELAX_VULKAN_VALIDATION=1 with the validation layer: what it reports fails the call.
#include <cstring>
#include <filesystem>
#include <fstream>

#include "vk_test_util.h"

namespace relax::vktest {
namespace {

bool env_set(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0';
}

TEST(VulkanRuntimeEnv, MissingLoaderMeansNoDevice) {
  if (!env_set("RELAX_VULKAN_LIBRARY")) GTEST_SKIP() << "run by ctest with RELAX_VULKAN_LIBRARY";
  ASSERT_EQ(load_plugin(), "");
  EXPECT_EQ(api().attribute(kVk, kRxDeviceExists).as_int(), 0);
  EXPECT_EQ(api().attribute(kVk, kRxDeviceCount).as_int(), 0);
  std::string e = error_of([] { api().alloc(kVk, 16, 64); });
  EXPECT_NE(e.find("no Vulkan device: "), std::string::npos) << e;
  EXPECT_NE(e.find("not found"), std::string::npos) << e;
  e = error_of([] { api().synchronize(kVk); });
  EXPECT_NE(e.find("no Vulkan device"), std::string::npos) << e;
  gpu::Library lib;
  lib.format = "spirv";
  e = error_of([&] { load(lib); });
  EXPECT_NE(e.find("no Vulkan device"), std::string::npos) << e;
}

TEST(VulkanRuntimeEnv, DeviceIndexOutOfRange) {
  const char* pick = std::getenv("RELAX_VULKAN_DEVICE");
  if (!pick || std::string(pick) != "99")
    GTEST_SKIP() << "run by ctest with RELAX_VULKAN_DEVICE=99";
  ASSERT_EQ(load_plugin(), "");
  EXPECT_EQ(api().attribute(kVk, kRxDeviceExists).as_int(), 0);
  std::string e = error_of([] { api().alloc(kVk, 16, 64); });
  EXPECT_NE(e.find("RELAX_VULKAN_DEVICE=99 is not one of the devices"), std::string::npos) << e;
  EXPECT_NE(e.find("0: "), std::string::npos) << "lists the devices: " << e;
}

TEST(VulkanRuntimeEnv, CorruptPipelineCacheIsIgnored) {
  if (!env_set("RELAX_VULKAN_TEST_CORRUPT_CACHE") || !env_set("RELAX_CACHE_DIR"))
    GTEST_SKIP() << "run by ctest with RELAX_VULKAN_TEST_CORRUPT_CACHE=1 and RELAX_CACHE_DIR";
  std::filesystem::path dir = std::getenv("RELAX_CACHE_DIR");
  std::filesystem::create_directories(dir);
  std::filesystem::path file = dir / "vulkan-pipelines.bin";
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << std::string(100, '\x5a');  // before the device exists: it reads this at creation
  }
  RX_REQUIRE_VULKAN_DEVICE();
  {
    gpu::Library lib;
    lib.format = "spirv";
    lib.kernels = {offset_copy_kernel()};
    lib.functions = {offset_copy_function()};
    runtime::Module m = load(lib);
    std::vector<int64_t> sn{64};
    DevBuffer xb(256), yb(256);
    DLTensor x = view(xb, sn, kF32, 0), y = view(yb, sn, kF32, 0);
    m->get_function("double_it").call(arg(x), arg(y));
  }  // released: the cache is saved
  std::ifstream in(file, std::ios::binary);
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GE(data.size(), 32u);
  EXPECT_NE(data, std::string(100, '\x5a'));
  uint32_t version = 0;
  std::memcpy(&version, data.data() + 4, 4);
  EXPECT_EQ(version, 1u) << "VK_PIPELINE_CACHE_HEADER_VERSION_ONE";
}

TEST(VulkanRuntimeEnv, ValidationErrorsFailTheCall) {
  const char* v = std::getenv("RELAX_VULKAN_VALIDATION");
  if (!v || std::string(v) != "1") GTEST_SKIP() << "run by ctest with RELAX_VULKAN_VALIDATION=1";
  RX_REQUIRE_VULKAN_DEVICE();
  // The kernel info claims one buffer; the shader uses binding 1 too, which the descriptor-set
  // layout then lacks: the layer reports it at pipeline creation.
  gpu::Library lib;
  lib.format = "spirv";
  lib.kernels = {offset_copy_kernel()};
  lib.kernels[0].buffer_dtypes.pop_back();
  lib.functions = {offset_copy_function()};
  lib.functions[0].steps[0].args.erase(lib.functions[0].steps[0].args.begin() + 1);
  runtime::Module m = load(lib);
  std::vector<int64_t> sn{64};
  DevBuffer xb(256), yb(256);
  DLTensor x = view(xb, sn, kF32, 0), y = view(yb, sn, kF32, 0);
  std::string e = error_of([&] { m->get_function("double_it").call(arg(x), arg(y)); });
  EXPECT_NE(e.find("Vulkan validation error"), std::string::npos) << e;
  EXPECT_NE(e.find("kernel 'offset_copy'"), std::string::npos) << e;
}

}  // namespace
}  // namespace relax::vktest
