// Instance, physical-device discovery and choice, the logical device, requirement checks and
// the on-disk pipeline cache (see vk_device.h).
#include "vk_device.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "spirv_abi.h"

namespace relax::vulkan_rt {

VkBool32 VKAPI_PTR on_debug_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                    VkDebugUtilsMessageTypeFlagsEXT,
                                    const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  if (severity < VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) return VK_FALSE;
  const char* text = data && data->pMessage ? data->pMessage : "(no message)";
  bool error = severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  std::fprintf(stderr, "relax vulkan validation %s: %s\n", error ? "error" : "warning", text);
  if (error) {
    auto* device = static_cast<Device*>(user);
    std::lock_guard lock(device->validation_mutex_);
    device->validation_errors_.push_back(text);
  }
  return VK_FALSE;
}

namespace {

bool env_is(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v != nullptr && std::strcmp(v, value) == 0;
}

std::string version_string(uint32_t v) {
  return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) +
         "." + std::to_string(VK_API_VERSION_PATCH(v));
}

int type_rank(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return 3;
    default:
      return 4;
  }
}

bool has(const std::vector<std::string>& list, const char* name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

/// Fills everything but `index` and `handle` of `d`.
void describe(PhysicalDevice& d, uint32_t instance_api) {
  VkApi& api = vk();
  api.vkGetPhysicalDeviceProperties(d.handle, &d.props);
  d.api = std::min(instance_api, d.props.apiVersion);
  uint32_t n = 0;
  api.vkEnumerateDeviceExtensionProperties(d.handle, nullptr, &n, nullptr);
  std::vector<VkExtensionProperties> exts(n);
  api.vkEnumerateDeviceExtensionProperties(d.handle, nullptr, &n, exts.data());
  for (const auto& e : exts) d.extensions.push_back(e.extensionName);
  d.push_descriptor = has(d.extensions, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
  if (d.api < VK_API_VERSION_1_1) {
    d.unusable = "Vulkan " + version_string(d.props.apiVersion) + " (1.1 is needed)";
    return;
  }
  auto subgroup = vk_struct<VkPhysicalDeviceSubgroupProperties>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES);
  auto m3 = vk_struct<VkPhysicalDeviceMaintenance3Properties>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES);
  subgroup.pNext = &m3;
  auto props2 =
      vk_struct<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2);
  props2.pNext = &subgroup;
  auto push = vk_struct<VkPhysicalDevicePushDescriptorPropertiesKHR>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PUSH_DESCRIPTOR_PROPERTIES_KHR);
  if (d.push_descriptor) m3.pNext = &push;
  api.vkGetPhysicalDeviceProperties2(d.handle, &props2);
  d.subgroup_size = subgroup.subgroupSize;
  d.max_allocation = m3.maxMemoryAllocationSize;
  d.max_push_descriptors = d.push_descriptor ? push.maxPushDescriptors : 0;

  VkPhysicalDeviceMemoryProperties mem;
  api.vkGetPhysicalDeviceMemoryProperties(d.handle, &mem);
  for (uint32_t i = 0; i < mem.memoryHeapCount; ++i)
    if (mem.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
      d.memory += mem.memoryHeaps[i].size;

  uint32_t nq = 0;
  api.vkGetPhysicalDeviceQueueFamilyProperties(d.handle, &nq, nullptr);
  std::vector<VkQueueFamilyProperties> families(nq);
  api.vkGetPhysicalDeviceQueueFamilyProperties(d.handle, &nq, families.data());
  for (uint32_t i = 0; i < nq && d.queue_family < 0; ++i)
    if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) d.queue_family = int32_t(i);
  if (d.queue_family < 0) d.unusable = "no queue family with compute";

  bool v12 = d.api >= VK_API_VERSION_1_2;
  auto s16 = vk_struct<VkPhysicalDevice16BitStorageFeatures>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES);
  auto s8 = vk_struct<VkPhysicalDevice8BitStorageFeatures>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES);
  auto f16 = vk_struct<VkPhysicalDeviceShaderFloat16Int8Features>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES);
  auto f2 = vk_struct<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
  f2.pNext = &s16;
  void** tail = &s16.pNext;
  if (v12 || has(d.extensions, VK_KHR_8BIT_STORAGE_EXTENSION_NAME)) {
    *tail = &s8;
    tail = &s8.pNext;
  }
  if (v12 || has(d.extensions, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME)) *tail = &f16;
  api.vkGetPhysicalDeviceFeatures2(d.handle, &f2);
  d.features[vulkan::kFeatureFloat16] = f16.shaderFloat16;
  d.features[vulkan::kFeatureInt8] = f16.shaderInt8;
  d.features[vulkan::kFeatureFloat64] = f2.features.shaderFloat64;
  d.features[vulkan::kFeatureInt16] = f2.features.shaderInt16;
  d.features[vulkan::kFeatureInt64] = f2.features.shaderInt64;
  d.features[vulkan::kFeatureStorage8] = s8.storageBuffer8BitAccess;
  d.features[vulkan::kFeatureStorage16] = s16.storageBuffer16BitAccess;
}

}  // namespace

std::string PhysicalDevice::type_name() const {
  switch (props.deviceType) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return "CPU";
    default:
      return "other";
  }
}

std::string PhysicalDevice::description() const {
  const VkPhysicalDeviceLimits& l = props.limits;
  std::ostringstream os;
  os << props.deviceName << " (" << type_name() << ", Vulkan " << version_string(props.apiVersion)
     << ", RELAX_VULKAN_DEVICE=" << index << ")";
  if (!unusable.empty()) {
    os << ": unusable: " << unusable;
    return os.str();
  }
  os << ": memory " << (memory >> 20) << " MiB, max allocation " << (max_allocation >> 20)
     << " MiB, max threads per block " << l.maxComputeWorkGroupInvocations << ", max block "
     << l.maxComputeWorkGroupSize[0] << "x" << l.maxComputeWorkGroupSize[1] << "x"
     << l.maxComputeWorkGroupSize[2] << ", max grid " << l.maxComputeWorkGroupCount[0] << "x"
     << l.maxComputeWorkGroupCount[1] << "x" << l.maxComputeWorkGroupCount[2] << ", shared memory "
     << l.maxComputeSharedMemorySize << " B, subgroup " << subgroup_size << ", push constants "
     << l.maxPushConstantsSize << " B, max storage buffer range " << l.maxStorageBufferRange
     << " B, push descriptors " << (push_descriptor ? "yes" : "no") << ", features:";
  bool any = false;
  for (const auto& [name, ok] : features)
    if (ok) {
      os << " " << name;
      any = true;
    }
  if (!any) os << " none";
  return os.str();
}

Device& Device::get() {
  static Device* device = new Device();  // never destroyed: see save_pipeline_cache
  return *device;
}

Device::Device() { discover(); }

void Device::discover() {
  VkApi& api = vk();
  if (std::string why = api.load_global(); !why.empty()) {
    unavailable_ = "no Vulkan device: " + why;
    return;
  }
  uint32_t loader_version = VK_API_VERSION_1_0;
  if (api.vkEnumerateInstanceVersion) api.vkEnumerateInstanceVersion(&loader_version);
  if (loader_version < VK_API_VERSION_1_1) {
    unavailable_ = "no Vulkan device: the Vulkan loader implements " +
                   version_string(loader_version) + " (1.1 is needed)";
    return;
  }
  instance_api_ = loader_version >= VK_API_VERSION_1_3 ? VK_API_VERSION_1_3 : loader_version;

  std::vector<const char*> layers, extensions;
  bool validation = env_is("RELAX_VULKAN_VALIDATION", "1");
  if (validation) {
    uint32_t n = 0;
    api.vkEnumerateInstanceLayerProperties(&n, nullptr);
    std::vector<VkLayerProperties> all(n);
    api.vkEnumerateInstanceLayerProperties(&n, all.data());
    bool found = false;
    for (const auto& l : all) found |= std::strcmp(l.layerName, "VK_LAYER_KHRONOS_validation") == 0;
    if (found)
      layers.push_back("VK_LAYER_KHRONOS_validation");
    else
      std::fprintf(stderr,
                   "relax vulkan: RELAX_VULKAN_VALIDATION=1 but VK_LAYER_KHRONOS_validation is not "
                   "installed\n");
    uint32_t ne = 0;
    api.vkEnumerateInstanceExtensionProperties(nullptr, &ne, nullptr);
    std::vector<VkExtensionProperties> exts(ne);
    api.vkEnumerateInstanceExtensionProperties(nullptr, &ne, exts.data());
    for (const auto& e : exts)
      if (std::strcmp(e.extensionName, VK_EXT_DEBUG_UTILS_EXTENSION_NAME) == 0)
        extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  }
  auto app = vk_struct<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
  app.pApplicationName = "relax";
  app.pEngineName = "relax";
  app.apiVersion = instance_api_;
  auto info = vk_struct<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
  info.pApplicationInfo = &app;
  info.enabledLayerCount = uint32_t(layers.size());
  info.ppEnabledLayerNames = layers.data();
  info.enabledExtensionCount = uint32_t(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  VkResult r = api.vkCreateInstance(&info, nullptr, &instance_);
  if (r != VK_SUCCESS) {
    unavailable_ = "no Vulkan device: vkCreateInstance failed: " + result_name(r);
    return;
  }
  if (std::string missing = api.load_instance(instance_); !missing.empty()) {
    unavailable_ = "no Vulkan device: the Vulkan loader has no " + missing;
    return;
  }
  if (!extensions.empty() && api.vkCreateDebugUtilsMessengerEXT) {
    auto m = vk_struct<VkDebugUtilsMessengerCreateInfoEXT>(
        VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT);
    m.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                        VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    m.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                    VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                    VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    m.pfnUserCallback = &on_debug_message;
    m.pUserData = this;
    api.vkCreateDebugUtilsMessengerEXT(instance_, &m, nullptr, &messenger_);
  }

  uint32_t n = 0;
  api.vkEnumeratePhysicalDevices(instance_, &n, nullptr);
  std::vector<VkPhysicalDevice> handles(n);
  if (n > 0) api.vkEnumeratePhysicalDevices(instance_, &n, handles.data());
  for (uint32_t i = 0; i < n; ++i) {
    PhysicalDevice d;
    d.handle = handles[i];
    d.index = i;
    describe(d, instance_api_);
    devices_.push_back(std::move(d));
  }
  // Ranked: usable first, then by type, then in enumeration order.
  std::stable_sort(devices_.begin(), devices_.end(), [](const auto& a, const auto& b) {
    return std::make_pair(!a.unusable.empty(), type_rank(a.props.deviceType)) <
           std::make_pair(!b.unusable.empty(), type_rank(b.props.deviceType));
  });
  std::string listing;
  for (const auto& d : devices_)
    listing += "\n  " + std::to_string(d.index) + ": " + d.props.deviceName + " (" + d.type_name() +
               (d.unusable.empty() ? "" : ", unusable: " + d.unusable) + ")";
  if (devices_.empty()) {
    unavailable_ = "no Vulkan device: the Vulkan loader reports no physical device";
    return;
  }
  if (const char* pick = std::getenv("RELAX_VULKAN_DEVICE"); pick && *pick) {
    char* end = nullptr;
    long want = std::strtol(pick, &end, 10);
    auto it = std::find_if(devices_.begin(), devices_.end(),
                           [&](const PhysicalDevice& d) { return long(d.index) == want; });
    if (*end != '\0' || it == devices_.end()) {
      unavailable_ = "no Vulkan device: RELAX_VULKAN_DEVICE=" + std::string(pick) +
                     " is not one of the devices:" + listing;
      return;
    }
    if (!it->unusable.empty()) {
      unavailable_ = "no Vulkan device: RELAX_VULKAN_DEVICE=" + std::string(pick) +
                     " names an unusable device:" + listing;
      return;
    }
    std::rotate(devices_.begin(), it, it + 1);
  } else if (!devices_.front().unusable.empty()) {
    unavailable_ = "no Vulkan device: none is usable:" + listing;
  }
}

const PhysicalDevice& Device::chosen() const {
  if (!unavailable_.empty()) throw VkError(unavailable_);
  return devices_.front();
}

void Device::check_requirements(const std::map<std::string, std::string>& requirements) const {
  const PhysicalDevice& d = chosen();
  std::vector<std::string> lacking;
  for (const auto& [name, value] : requirements) {
    if (name == "max-threads-per-block" || name == "shared-bytes") {
      uint64_t need = std::strtoull(value.c_str(), nullptr, 10);
      uint64_t have = name == "shared-bytes" ? d.props.limits.maxComputeSharedMemorySize
                                             : d.props.limits.maxComputeWorkGroupInvocations;
      if (need > have)
        lacking.push_back(name + " " + value + " (the device has " + std::to_string(have) + ")");
      continue;
    }
    auto it = d.features.find(name);
    if (it == d.features.end()) {
      lacking.push_back(name + " (a requirement this runtime does not know)");
    } else if (value != "0" && !it->second) {
      lacking.push_back(name);
    }
  }
  if (lacking.empty()) return;
  std::string list;
  for (const auto& l : lacking) list += (list.empty() ? "" : ", ") + l;
  throw VkError("the kernel library needs what the Vulkan device " +
                std::string(d.props.deviceName) + " lacks: " + list);
}

void Device::ensure_ready() {
  std::lock_guard lock(init_mutex_);
  if (device_ != VK_NULL_HANDLE) return;
  if (!init_error_.empty()) throw VkError(init_error_);
  try {
    create_logical_device();
  } catch (const VkError& e) {
    init_error_ = e.what();
    throw;
  }
}

void Device::create_logical_device() {
  const PhysicalDevice& d = chosen();
  VkApi& api = vk();
  bool v12 = d.api >= VK_API_VERSION_1_2;
  std::vector<const char*> exts;
  use_push_descriptor_ = d.push_descriptor && !env_is("RELAX_VULKAN_PUSH_DESCRIPTORS", "0");
  if (use_push_descriptor_) exts.push_back(VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
  bool with8 = v12 || has(d.extensions, VK_KHR_8BIT_STORAGE_EXTENSION_NAME);
  bool withf16 = v12 || has(d.extensions, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);
  if (!v12 && with8) exts.push_back(VK_KHR_8BIT_STORAGE_EXTENSION_NAME);
  if (!v12 && withf16) exts.push_back(VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);

  auto on = [&](const char* name) -> VkBool32 { return d.features.at(name) ? VK_TRUE : VK_FALSE; };
  auto s16 = vk_struct<VkPhysicalDevice16BitStorageFeatures>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES);
  s16.storageBuffer16BitAccess = on(vulkan::kFeatureStorage16);
  auto s8 = vk_struct<VkPhysicalDevice8BitStorageFeatures>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES);
  s8.storageBuffer8BitAccess = on(vulkan::kFeatureStorage8);
  auto f16 = vk_struct<VkPhysicalDeviceShaderFloat16Int8Features>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES);
  f16.shaderFloat16 = on(vulkan::kFeatureFloat16);
  f16.shaderInt8 = on(vulkan::kFeatureInt8);
  auto f2 = vk_struct<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
  f2.features.shaderFloat64 = on(vulkan::kFeatureFloat64);
  f2.features.shaderInt16 = on(vulkan::kFeatureInt16);
  f2.features.shaderInt64 = on(vulkan::kFeatureInt64);
  f2.pNext = &s16;
  void** tail = &s16.pNext;
  if (with8) {
    *tail = &s8;
    tail = &s8.pNext;
  }
  if (withf16) *tail = &f16;

  float priority = 1.0f;
  auto queue = vk_struct<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
  queue.queueFamilyIndex = uint32_t(d.queue_family);
  queue.queueCount = 1;
  queue.pQueuePriorities = &priority;
  auto info = vk_struct<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO);
  info.pNext = &f2;
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queue;
  info.enabledExtensionCount = uint32_t(exts.size());
  info.ppEnabledExtensionNames = exts.data();
  std::string ctx = "device " + std::string(d.props.deviceName);
  check(api.vkCreateDevice(d.handle, &info, nullptr, &device_), "vkCreateDevice", ctx);
  if (std::string missing = api.load_device(device_); !missing.empty())
    throw VkError("no Vulkan device: the driver of " + std::string(d.props.deviceName) +
                  " has no " + missing);
  if (use_push_descriptor_ && !api.vkCmdPushDescriptorSetKHR) use_push_descriptor_ = false;
  api.vkGetDeviceQueue(device_, uint32_t(d.queue_family), 0, &queue_);
  api.vkGetPhysicalDeviceMemoryProperties(d.handle, &memory_props_);
  uint64_t largest_local = 0, largest_mapped_local = 0;
  for (uint32_t i = 0; i < memory_props_.memoryTypeCount; ++i) {
    VkMemoryPropertyFlags f = memory_props_.memoryTypes[i].propertyFlags;
    uint64_t heap = memory_props_.memoryHeaps[memory_props_.memoryTypes[i].heapIndex].size;
    if (!(f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)) continue;
    largest_local = std::max(largest_local, heap);
    if ((f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) && (f & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT))
      largest_mapped_local = std::max(largest_mapped_local, heap);
  }
  prefer_mapped_ = largest_mapped_local > 0 && largest_mapped_local == largest_local &&
                   !env_is("RELAX_VULKAN_STAGING", "1");
  auto pool = vk_struct<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
  pool.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool.queueFamilyIndex = uint32_t(d.queue_family);
  check(api.vkCreateCommandPool(device_, &pool, nullptr, &command_pool_), "vkCreateCommandPool",
        ctx);
  load_pipeline_cache();
}

std::string Device::take_validation_error() {
  std::lock_guard lock(validation_mutex_);
  if (validation_errors_.empty()) return "";
  std::string first = validation_errors_.front();
  validation_errors_.clear();
  return "Vulkan validation error: " + first;
}

// The pipeline cache: $RELAX_CACHE_DIR (else ~/.cache/relax)/vulkan-pipelines.bin. Data whose
// header names another device or driver, or that the driver refuses, is ignored.
std::string Device::pipeline_cache_path() const {
  std::string dir;
  if (const char* c = std::getenv("RELAX_CACHE_DIR"); c && *c)
    dir = c;
  else if (const char* home = std::getenv("HOME"); home && *home)
    dir = std::string(home) + "/.cache/relax";
  else
    return "";
  return dir + "/vulkan-pipelines.bin";
}

void Device::load_pipeline_cache() {
  const PhysicalDevice& d = devices_.front();
  std::vector<char> data;
  if (std::string path = pipeline_cache_path(); !path.empty()) {
    std::ifstream in(path, std::ios::binary);
    if (in) data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  VkPipelineCacheHeaderVersionOne header{};
  bool valid = data.size() >= sizeof(header);
  if (valid) {
    std::memcpy(&header, data.data(), sizeof(header));
    valid = header.headerSize >= sizeof(header) && header.headerSize <= data.size() &&
            header.headerVersion == VK_PIPELINE_CACHE_HEADER_VERSION_ONE &&
            header.vendorID == d.props.vendorID && header.deviceID == d.props.deviceID &&
            std::memcmp(header.pipelineCacheUUID, d.props.pipelineCacheUUID, VK_UUID_SIZE) == 0;
  }
  auto info = vk_struct<VkPipelineCacheCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO);
  if (valid) {
    info.initialDataSize = data.size();
    info.pInitialData = data.data();
  }
  VkApi& api = vk();
  if (api.vkCreatePipelineCache(device_, &info, nullptr, &pipeline_cache_) != VK_SUCCESS) {
    info.initialDataSize = 0;
    info.pInitialData = nullptr;
    check(api.vkCreatePipelineCache(device_, &info, nullptr, &pipeline_cache_),
          "vkCreatePipelineCache");
  }
}

void Device::save_pipeline_cache() {
  std::lock_guard lock(cache_mutex_);
  if (!cache_dirty_ || pipeline_cache_ == VK_NULL_HANDLE) return;
  cache_dirty_ = false;
  std::string path = pipeline_cache_path();
  if (path.empty()) return;
  size_t n = 0;
  if (vk().vkGetPipelineCacheData(device_, pipeline_cache_, &n, nullptr) != VK_SUCCESS) return;
  std::vector<char> data(n);
  if (vk().vkGetPipelineCacheData(device_, pipeline_cache_, &n, data.data()) != VK_SUCCESS) return;
  // Best effort: a cache that cannot be written only costs time on the next run.
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  std::string tmp = path + ".tmp" + std::to_string(uintptr_t(this) ^ uintptr_t(&n));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return;
    out.write(data.data(), std::streamsize(n));
    if (!out) return;
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

}  // namespace relax::vulkan_rt
