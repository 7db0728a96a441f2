// The Vulkan entry points the runtime uses, resolved at run time: libvulkan.so.1 is opened with
// dlopen (never linked), so a machine without a Vulkan loader still loads the plugin and reports
// "no Vulkan device". Global functions come from vkGetInstanceProcAddr(NULL), instance functions
// once the instance exists, device functions from vkGetDeviceProcAddr.
//
// check() turns a failing VkResult into a VkError naming the call, the VkResult and, where there
// is one, the kernel being launched.
#pragma once

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <vulkan/vulkan.h>

#include <stdexcept>
#include <string>

namespace relax::vulkan_rt {

#define RX_VK_GLOBAL_FUNCS(X)               \
  X(vkCreateInstance)                       \
  X(vkEnumerateInstanceExtensionProperties) \
  X(vkEnumerateInstanceLayerProperties)

#define RX_VK_INSTANCE_FUNCS(X)               \
  X(vkDestroyInstance)                        \
  X(vkEnumeratePhysicalDevices)               \
  X(vkGetPhysicalDeviceProperties)            \
  X(vkGetPhysicalDeviceProperties2)           \
  X(vkGetPhysicalDeviceFeatures2)             \
  X(vkGetPhysicalDeviceMemoryProperties)      \
  X(vkGetPhysicalDeviceQueueFamilyProperties) \
  X(vkEnumerateDeviceExtensionProperties)     \
  X(vkCreateDevice)                           \
  X(vkGetDeviceProcAddr)

#define RX_VK_DEVICE_FUNCS(X)      \
  X(vkDestroyDevice)               \
  X(vkGetDeviceQueue)              \
  X(vkCreateBuffer)                \
  X(vkDestroyBuffer)               \
  X(vkGetBufferMemoryRequirements) \
  X(vkAllocateMemory)              \
  X(vkFreeMemory)                  \
  X(vkBindBufferMemory)            \
  X(vkMapMemory)                   \
  X(vkCreateCommandPool)           \
  X(vkDestroyCommandPool)          \
  X(vkAllocateCommandBuffers)      \
  X(vkResetCommandBuffer)          \
  X(vkBeginCommandBuffer)          \
  X(vkEndCommandBuffer)            \
  X(vkCmdCopyBuffer)               \
  X(vkCmdPipelineBarrier)          \
  X(vkCmdBindPipeline)             \
  X(vkCmdBindDescriptorSets)       \
  X(vkCmdPushConstants)            \
  X(vkCmdDispatch)                 \
  X(vkQueueSubmit)                 \
  X(vkCreateFence)                 \
  X(vkDestroyFence)                \
  X(vkWaitForFences)               \
  X(vkResetFences)                 \
  X(vkGetFenceStatus)              \
  X(vkCreateShaderModule)          \
  X(vkDestroyShaderModule)         \
  X(vkCreateDescriptorSetLayout)   \
  X(vkDestroyDescriptorSetLayout)  \
  X(vkCreatePipelineLayout)        \
  X(vkDestroyPipelineLayout)       \
  X(vkCreateComputePipelines)      \
  X(vkDestroyPipeline)             \
  X(vkCreatePipelineCache)         \
  X(vkGetPipelineCacheData)        \
  X(vkCreateDescriptorPool)        \
  X(vkDestroyDescriptorPool)       \
  X(vkResetDescriptorPool)         \
  X(vkAllocateDescriptorSets)      \
  X(vkUpdateDescriptorSets)

#define RX_VK_DECLARE(name) PFN_##name name = nullptr;

/// The entry points; null until load_* resolved them.
struct VkApi {
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
  PFN_vkEnumerateInstanceVersion vkEnumerateInstanceVersion = nullptr;  ///< null: Vulkan 1.0
  RX_VK_GLOBAL_FUNCS(RX_VK_DECLARE)
  RX_VK_INSTANCE_FUNCS(RX_VK_DECLARE)
  RX_VK_DEVICE_FUNCS(RX_VK_DECLARE)
  // Optional: VK_EXT_debug_utils (validation runs) and VK_KHR_push_descriptor.
  PFN_vkCreateDebugUtilsMessengerEXT vkCreateDebugUtilsMessengerEXT = nullptr;
  PFN_vkDestroyDebugUtilsMessengerEXT vkDestroyDebugUtilsMessengerEXT = nullptr;
  PFN_vkCmdPushDescriptorSetKHR vkCmdPushDescriptorSetKHR = nullptr;

  /// dlopens the loader ($RELAX_VULKAN_LIBRARY, else libvulkan.so.1) and resolves the global
  /// functions; "" on success, else why not ("libvulkan.so.1 not found").
  std::string load_global();
  /// Resolves the instance functions; "" or the name of the first missing one.
  std::string load_instance(VkInstance instance);
  /// Resolves the device functions; "" or the name of the first missing one.
  std::string load_device(VkDevice device);
};

/// A Vulkan info struct with its sType set and every other field zero.
template <typename T>
T vk_struct(VkStructureType type) {
  T v{};
  v.sType = type;
  return v;
}

/// The process-wide table (the runtime opens one loader).
VkApi& vk();

/// "VK_ERROR_OUT_OF_DEVICE_MEMORY", ... ("VkResult(-13)" for one it does not know).
std::string result_name(VkResult r);

/// A failing Vulkan call or a device limit hit: its message says which.
struct VkError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Throws VkError("<call> failed: <VkResult name>[ (<context>)]") unless r is VK_SUCCESS;
/// `context` says what was being done ("kernel 'add0'", "allocating 64 bytes").
void check(VkResult r, const char* call, const std::string& context = "");

}  // namespace relax::vulkan_rt
