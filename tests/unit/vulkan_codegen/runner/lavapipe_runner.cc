// The test-only Vulkan compute runner (lavapipe_runner.h).
#define VK_NO_PROTOTYPES
#include "lavapipe_runner.h"

#include <dlfcn.h>
#include <vulkan/vulkan.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace relax::vulkan::test {

#define RX_VK_FUNCS(X)                                                                           \
  X(vkEnumeratePhysicalDevices) X(vkGetPhysicalDeviceQueueFamilyProperties)                       \
  X(vkGetPhysicalDeviceFeatures2) X(vkGetPhysicalDeviceMemoryProperties) X(vkCreateDevice)        \
  X(vkGetDeviceQueue) X(vkCreateBuffer) X(vkGetBufferMemoryRequirements) X(vkAllocateMemory)      \
  X(vkBindBufferMemory) X(vkMapMemory) X(vkUnmapMemory) X(vkFreeMemory) X(vkDestroyBuffer)         \
  X(vkCreateShaderModule) X(vkDestroyShaderModule) X(vkCreateDescriptorSetLayout)                  \
  X(vkDestroyDescriptorSetLayout) X(vkCreatePipelineLayout) X(vkDestroyPipelineLayout)            \
  X(vkCreateComputePipelines) X(vkDestroyPipeline) X(vkCreateDescriptorPool)                       \
  X(vkDestroyDescriptorPool) X(vkAllocateDescriptorSets) X(vkUpdateDescriptorSets)                 \
  X(vkCreateCommandPool) X(vkDestroyCommandPool) X(vkAllocateCommandBuffers)                       \
  X(vkBeginCommandBuffer) X(vkEndCommandBuffer) X(vkCmdBindPipeline) X(vkCmdBindDescriptorSets)    \
  X(vkCmdPushConstants) X(vkCmdDispatch) X(vkCmdPipelineBarrier) X(vkQueueSubmit)                  \
  X(vkQueueWaitIdle) X(vkGetPhysicalDeviceProperties)

struct VulkanRunner::Impl {
  void* lib = nullptr;
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice phys = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t family = 0;
  VkPhysicalDeviceMemoryProperties mem{};
#define RX_X(f) PFN_##f f = nullptr;
  RX_VK_FUNCS(RX_X)
#undef RX_X
};

namespace {

void check(VkResult r, const char* call) {
  if (r != VK_SUCCESS) throw std::runtime_error(std::string(call) + " failed: VkResult " + std::to_string(int(r)));
}

struct Buf {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* mapped = nullptr;
  size_t bytes = 0;
};

Buf make_buffer(VulkanRunner::Impl& v, size_t bytes, VkBufferUsageFlags usage) {
  Buf b;
  b.bytes = bytes;
  VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bi.size = bytes < 16 ? 16 : bytes;
  bi.usage = usage;
  check(v.vkCreateBuffer(v.device, &bi, nullptr, &b.buffer), "vkCreateBuffer");
  VkMemoryRequirements req;
  v.vkGetBufferMemoryRequirements(v.device, b.buffer, &req);
  uint32_t type = UINT32_MAX;
  VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  for (uint32_t i = 0; i < v.mem.memoryTypeCount; ++i)
    if ((req.memoryTypeBits & (1u << i)) && (v.mem.memoryTypes[i].propertyFlags & want) == want) {
      type = i;
      break;
    }
  if (type == UINT32_MAX) throw std::runtime_error("no host-visible coherent memory type");
  VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  ai.allocationSize = req.size;
  ai.memoryTypeIndex = type;
  check(v.vkAllocateMemory(v.device, &ai, nullptr, &b.memory), "vkAllocateMemory");
  check(v.vkBindBufferMemory(v.device, b.buffer, b.memory, 0), "vkBindBufferMemory");
  check(v.vkMapMemory(v.device, b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped), "vkMapMemory");
  return b;
}

void free_buffer(VulkanRunner::Impl& v, Buf& b) {
  if (b.mapped) v.vkUnmapMemory(v.device, b.memory);
  if (b.buffer) v.vkDestroyBuffer(v.device, b.buffer, nullptr);
  if (b.memory) v.vkFreeMemory(v.device, b.memory, nullptr);
  b = Buf{};
}

}  // namespace

VulkanRunner& VulkanRunner::get() {
  static VulkanRunner r;
  return r;
}

VulkanRunner::VulkanRunner() : impl_(std::make_shared<Impl>()) {
  Impl& v = *impl_;
  setenv("VK_DRIVER_FILES", "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json", 0);
  v.lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!v.lib) {
    why_ = "no Vulkan loader (libvulkan.so.1)";
    return;
  }
  auto gipa = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(v.lib, "vkGetInstanceProcAddr"));
  auto create = reinterpret_cast<PFN_vkCreateInstance>(gipa(nullptr, "vkCreateInstance"));
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  if (!create || create(&ici, nullptr, &v.instance) != VK_SUCCESS) {
    why_ = "vkCreateInstance failed (no Vulkan driver)";
    return;
  }
#define RX_X(f) v.f = reinterpret_cast<PFN_##f>(gipa(v.instance, #f));
  RX_VK_FUNCS(RX_X)
#undef RX_X
  uint32_t n = 0;
  v.vkEnumeratePhysicalDevices(v.instance, &n, nullptr);
  if (n == 0) {
    why_ = "no Vulkan device";
    return;
  }
  std::vector<VkPhysicalDevice> devs(n);
  v.vkEnumeratePhysicalDevices(v.instance, &n, devs.data());
  v.phys = devs[0];
  v.vkGetPhysicalDeviceMemoryProperties(v.phys, &v.mem);
  uint32_t nq = 0;
  v.vkGetPhysicalDeviceQueueFamilyProperties(v.phys, &nq, nullptr);
  std::vector<VkQueueFamilyProperties> qs(nq);
  v.vkGetPhysicalDeviceQueueFamilyProperties(v.phys, &nq, qs.data());
  v.family = UINT32_MAX;
  for (uint32_t i = 0; i < nq; ++i)
    if (qs[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      v.family = i;
      break;
    }
  if (v.family == UINT32_MAX) {
    why_ = "no compute queue";
    return;
  }
  // Enable every optional feature the codegen may use that the device has (a test harness).
  VkPhysicalDeviceShaderFloat16Int8Features f16i8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
  VkPhysicalDevice8BitStorageFeatures s8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES};
  VkPhysicalDevice16BitStorageFeatures s16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  f2.pNext = &f16i8;
  f16i8.pNext = &s8;
  s8.pNext = &s16;
  v.vkGetPhysicalDeviceFeatures2(v.phys, &f2);
  float prio = 1;
  VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qci.queueFamilyIndex = v.family;
  qci.queueCount = 1;
  qci.pQueuePriorities = &prio;
  const char* exts[] = {"VK_KHR_shader_float16_int8", "VK_KHR_8bit_storage"};
  VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  dci.pNext = &f2;
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  dci.enabledExtensionCount = 2;
  dci.ppEnabledExtensionNames = exts;
  if (v.vkCreateDevice(v.phys, &dci, nullptr, &v.device) != VK_SUCCESS) {
    why_ = "vkCreateDevice failed";
    return;
  }
  v.vkGetDeviceQueue(v.device, v.family, 0, &v.queue);
  ok_ = true;
}

void VulkanRunner::run(const std::vector<std::pair<void*, size_t>>& host,
                       const std::vector<Dispatch>& ds) {
  Impl& v = *impl_;
  std::vector<Buf> bufs;
  std::vector<Buf> uniforms;
  std::vector<VkShaderModule> modules;
  std::vector<VkDescriptorSetLayout> set_layouts;
  std::vector<VkPipelineLayout> layouts;
  std::vector<VkPipeline> pipes;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  VkCommandPool cpool = VK_NULL_HANDLE;
  auto cleanup = [&] {
    v.vkQueueWaitIdle(v.queue);
    for (auto p : pipes) v.vkDestroyPipeline(v.device, p, nullptr);
    for (auto l : layouts) v.vkDestroyPipelineLayout(v.device, l, nullptr);
    for (auto l : set_layouts) v.vkDestroyDescriptorSetLayout(v.device, l, nullptr);
    for (auto m : modules) v.vkDestroyShaderModule(v.device, m, nullptr);
    if (pool) v.vkDestroyDescriptorPool(v.device, pool, nullptr);
    if (cpool) v.vkDestroyCommandPool(v.device, cpool, nullptr);
    for (auto& b : bufs) free_buffer(v, b);
    for (auto& b : uniforms) free_buffer(v, b);
  };
  try {
    for (const auto& [p, bytes] : host) {
      bufs.push_back(make_buffer(v, bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT));
      std::memcpy(bufs.back().mapped, p, bytes);
    }
    VkDescriptorPoolSize sizes[2] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 64 * uint32_t(ds.size() + 1)},
                                     {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, uint32_t(ds.size() + 1)}};
    VkDescriptorPoolCreateInfo pci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pci.maxSets = uint32_t(ds.size() + 1);
    pci.poolSizeCount = 2;
    pci.pPoolSizes = sizes;
    check(v.vkCreateDescriptorPool(v.device, &pci, nullptr, &pool), "vkCreateDescriptorPool");
    VkCommandPoolCreateInfo cpi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    cpi.queueFamilyIndex = v.family;
    check(v.vkCreateCommandPool(v.device, &cpi, nullptr, &cpool), "vkCreateCommandPool");
    VkCommandBuffer cmd;
    VkCommandBufferAllocateInfo cai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    cai.commandPool = cpool;
    cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cai.commandBufferCount = 1;
    check(v.vkAllocateCommandBuffers(v.device, &cai, &cmd), "vkAllocateCommandBuffers");
    VkCommandBufferBeginInfo cbi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    check(v.vkBeginCommandBuffer(cmd, &cbi), "vkBeginCommandBuffer");
    for (const Dispatch& d : ds) {
      VkShaderModuleCreateInfo smi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
      smi.codeSize = d.code.size() * 4;
      smi.pCode = d.code.data();
      modules.push_back(VK_NULL_HANDLE);
      check(v.vkCreateShaderModule(v.device, &smi, nullptr, &modules.back()), "vkCreateShaderModule");
      std::vector<VkDescriptorSetLayoutBinding> bindings;
      for (size_t i = 0; i <= d.buffers.size(); ++i) {
        if (i == d.buffers.size() && !d.uniform) break;
        VkDescriptorSetLayoutBinding b{};
        b.binding = uint32_t(i);
        b.descriptorType = i < d.buffers.size() ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER : VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
        b.descriptorCount = 1;
        b.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
        bindings.push_back(b);
      }
      VkDescriptorSetLayoutCreateInfo dli{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
      dli.bindingCount = uint32_t(bindings.size());
      dli.pBindings = bindings.data();
      set_layouts.push_back(VK_NULL_HANDLE);
      check(v.vkCreateDescriptorSetLayout(v.device, &dli, nullptr, &set_layouts.back()), "vkCreateDescriptorSetLayout");
      VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, uint32_t(d.params.size())};
      VkPipelineLayoutCreateInfo pli{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
      pli.setLayoutCount = 1;
      pli.pSetLayouts = &set_layouts.back();
      bool push = !d.uniform && !d.params.empty();
      pli.pushConstantRangeCount = push ? 1 : 0;
      pli.pPushConstantRanges = &range;
      layouts.push_back(VK_NULL_HANDLE);
      check(v.vkCreatePipelineLayout(v.device, &pli, nullptr, &layouts.back()), "vkCreatePipelineLayout");
      VkComputePipelineCreateInfo cpci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
      cpci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
      cpci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
      cpci.stage.module = modules.back();
      cpci.stage.pName = d.entry.c_str();
      cpci.layout = layouts.back();
      pipes.push_back(VK_NULL_HANDLE);
      check(v.vkCreateComputePipelines(v.device, VK_NULL_HANDLE, 1, &cpci, nullptr, &pipes.back()), "vkCreateComputePipelines");
      VkDescriptorSet set;
      VkDescriptorSetAllocateInfo dsai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
      dsai.descriptorPool = pool;
      dsai.descriptorSetCount = 1;
      dsai.pSetLayouts = &set_layouts.back();
      check(v.vkAllocateDescriptorSets(v.device, &dsai, &set), "vkAllocateDescriptorSets");
      std::vector<VkDescriptorBufferInfo> infos(bindings.size());
      std::vector<VkWriteDescriptorSet> writes(bindings.size());
      for (size_t i = 0; i < bindings.size(); ++i) {
        VkBuffer b;
        if (i < d.buffers.size()) {
          b = bufs.at(size_t(d.buffers[i])).buffer;
        } else {
          uniforms.push_back(make_buffer(v, d.params.size(), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT));
          std::memcpy(uniforms.back().mapped, d.params.data(), d.params.size());
          b = uniforms.back().buffer;
        }
        infos[i] = {b, 0, VK_WHOLE_SIZE};
        writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        writes[i].dstSet = set;
        writes[i].dstBinding = uint32_t(i);
        writes[i].descriptorCount = 1;
        writes[i].descriptorType = bindings[i].descriptorType;
        writes[i].pBufferInfo = &infos[i];
      }
      v.vkUpdateDescriptorSets(v.device, uint32_t(writes.size()), writes.data(), 0, nullptr);
      v.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipes.back());
      v.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layouts.back(), 0, 1, &set, 0, nullptr);
      if (push)
        v.vkCmdPushConstants(cmd, layouts.back(), VK_SHADER_STAGE_COMPUTE_BIT, 0,
                             uint32_t(d.params.size()), d.params.data());
      v.vkCmdDispatch(cmd, d.grid[0], d.grid[1], d.grid[2]);
      VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
      mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
      mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_HOST_READ_BIT;
      v.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                             VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                             &mb, 0, nullptr, 0, nullptr);
    }
    check(v.vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    check(v.vkQueueSubmit(v.queue, 1, &si, VK_NULL_HANDLE), "vkQueueSubmit");
    check(v.vkQueueWaitIdle(v.queue), "vkQueueWaitIdle");
    for (size_t i = 0; i < host.size(); ++i) std::memcpy(host[i].first, bufs[i].mapped, host[i].second);
  } catch (...) {
    cleanup();
    throw;
  }
  cleanup();
}

}  // namespace relax::vulkan::test
