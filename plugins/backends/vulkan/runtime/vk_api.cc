// Resolving the Vulkan entry points through dlopen (see vk_api.h).
#include "vk_api.h"

#include <dlfcn.h>

#include <cstdlib>

namespace relax::vulkan_rt {

VkApi& vk() {
  static VkApi* api = new VkApi();  // never destroyed: the loader stays open until exit
  return *api;
}

std::string VkApi::load_global() {
  const char* override_path = std::getenv("RELAX_VULKAN_LIBRARY");
  std::string path = override_path && *override_path ? override_path : "libvulkan.so.1";
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return path + " not found";
  vkGetInstanceProcAddr =
      reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(handle, "vkGetInstanceProcAddr"));
  if (vkGetInstanceProcAddr == nullptr) return path + " has no vkGetInstanceProcAddr";
  vkEnumerateInstanceVersion = reinterpret_cast<PFN_vkEnumerateInstanceVersion>(
      vkGetInstanceProcAddr(nullptr, "vkEnumerateInstanceVersion"));
#define RX_VK_LOAD_GLOBAL(name)                                               \
  name = reinterpret_cast<PFN_##name>(vkGetInstanceProcAddr(nullptr, #name)); \
  if (name == nullptr) return path + " has no " #name;
  RX_VK_GLOBAL_FUNCS(RX_VK_LOAD_GLOBAL)
#undef RX_VK_LOAD_GLOBAL
  return "";
}

std::string VkApi::load_instance(VkInstance instance) {
#define RX_VK_LOAD_INSTANCE(name)                                              \
  name = reinterpret_cast<PFN_##name>(vkGetInstanceProcAddr(instance, #name)); \
  if (name == nullptr) return #name;
  RX_VK_INSTANCE_FUNCS(RX_VK_LOAD_INSTANCE)
#undef RX_VK_LOAD_INSTANCE
  vkCreateDebugUtilsMessengerEXT = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
      vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
  vkDestroyDebugUtilsMessengerEXT = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
      vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
  return "";
}

std::string VkApi::load_device(VkDevice device) {
#define RX_VK_LOAD_DEVICE(name)                                            \
  name = reinterpret_cast<PFN_##name>(vkGetDeviceProcAddr(device, #name)); \
  if (name == nullptr) return #name;
  RX_VK_DEVICE_FUNCS(RX_VK_LOAD_DEVICE)
#undef RX_VK_LOAD_DEVICE
  vkCmdPushDescriptorSetKHR = reinterpret_cast<PFN_vkCmdPushDescriptorSetKHR>(
      vkGetDeviceProcAddr(device, "vkCmdPushDescriptorSetKHR"));
  return "";
}

std::string result_name(VkResult r) {
  switch (r) {
#define RX_VK_RESULT(x) \
  case x:               \
    return #x;
    RX_VK_RESULT(VK_SUCCESS)
    RX_VK_RESULT(VK_NOT_READY)
    RX_VK_RESULT(VK_TIMEOUT)
    RX_VK_RESULT(VK_EVENT_SET)
    RX_VK_RESULT(VK_EVENT_RESET)
    RX_VK_RESULT(VK_INCOMPLETE)
    RX_VK_RESULT(VK_ERROR_OUT_OF_HOST_MEMORY)
    RX_VK_RESULT(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    RX_VK_RESULT(VK_ERROR_INITIALIZATION_FAILED)
    RX_VK_RESULT(VK_ERROR_DEVICE_LOST)
    RX_VK_RESULT(VK_ERROR_MEMORY_MAP_FAILED)
    RX_VK_RESULT(VK_ERROR_LAYER_NOT_PRESENT)
    RX_VK_RESULT(VK_ERROR_EXTENSION_NOT_PRESENT)
    RX_VK_RESULT(VK_ERROR_FEATURE_NOT_PRESENT)
    RX_VK_RESULT(VK_ERROR_INCOMPATIBLE_DRIVER)
    RX_VK_RESULT(VK_ERROR_TOO_MANY_OBJECTS)
    RX_VK_RESULT(VK_ERROR_FORMAT_NOT_SUPPORTED)
    RX_VK_RESULT(VK_ERROR_FRAGMENTED_POOL)
    RX_VK_RESULT(VK_ERROR_UNKNOWN)
    RX_VK_RESULT(VK_ERROR_OUT_OF_POOL_MEMORY)
    RX_VK_RESULT(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    RX_VK_RESULT(VK_ERROR_FRAGMENTATION)
    RX_VK_RESULT(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    RX_VK_RESULT(VK_PIPELINE_COMPILE_REQUIRED)
    RX_VK_RESULT(VK_ERROR_INVALID_SHADER_NV)
#undef RX_VK_RESULT
    default:
      return "VkResult(" + std::to_string(int(r)) + ")";
  }
}

void check(VkResult r, const char* call, const std::string& context) {
  if (r == VK_SUCCESS) return;
  std::string msg = std::string(call) + " failed: " + result_name(r);
  if (!context.empty()) msg += " (" + context + ")";
  throw VkError(msg);
}

}  // namespace relax::vulkan_rt
