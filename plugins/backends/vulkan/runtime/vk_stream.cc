// Buffers, batches of recorded work, copies and dispatches (see vk_device.h).
#include <algorithm>
#include <cstring>

#include "vk_device.h"

namespace relax::vulkan_rt {

namespace {

constexpr VkBufferUsageFlags kStorageUsage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                             VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                             VK_BUFFER_USAGE_TRANSFER_DST_BIT;
constexpr uint32_t kSetsPerPool = 64;
constexpr size_t kMaxBatchesInFlight = 8;

std::string bytes_text(uint64_t n) { return std::to_string(n) + " bytes"; }

}  // namespace

std::string Device::Batch::context() const {
  std::vector<std::string> names;
  for (const std::string& k : kernels)
    if (std::find(names.begin(), names.end(), k) == names.end()) names.push_back(k);
  if (names.empty()) return "";
  std::string s = names.size() == 1 ? "kernel " : "kernels ";
  for (size_t i = 0; i < names.size() && i < 4; ++i) s += (i ? ", '" : "'") + names[i] + "'";
  if (names.size() > 4) s += " and " + std::to_string(names.size() - 4) + " more";
  return s;
}

Buffer* Device::create_buffer(uint64_t nbytes, VkBufferUsageFlags usage, bool host_visible,
                              const std::string& context) {
  const PhysicalDevice& d = chosen();
  ensure_ready();
  if (d.max_allocation != 0 && nbytes > d.max_allocation)
    throw VkError("cannot allocate " + bytes_text(nbytes) + " on vulkan:0 (" + d.props.deviceName +
                  "): the device allows at most " + bytes_text(d.max_allocation) +
                  " per allocation");
  VkApi& api = vk();
  auto* b = new Buffer();
  b->size = nbytes;
  auto info = vk_struct<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
  info.size = nbytes == 0 ? 4 : nbytes;
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  try {
    check(api.vkCreateBuffer(device_, &info, nullptr, &b->buffer), "vkCreateBuffer", context);
    VkMemoryRequirements req;
    api.vkGetBufferMemoryRequirements(device_, b->buffer, &req);
    // Candidate memory types, best first; a type whose heap is out of memory passes to the
    // next. Storage: host-visible device-local memory (mapped copies) only where its heap is
    // the device's largest device-local heap (unified memory, resizable BAR), not a small BAR
    // window, and not under RELAX_VULKAN_STAGING=1 (tests of the staged path); then
    // device-local (staged copies); then anything. Staging and parameter blocks: host-visible
    // and coherent.
    const VkMemoryPropertyFlags coherent =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    const VkMemoryPropertyFlags local = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    std::vector<VkMemoryPropertyFlags> wanted;
    if (host_visible)
      wanted = {coherent};
    else if (prefer_mapped_)
      wanted = {coherent | local, local, 0};
    else
      wanted = {local, 0};
    std::vector<uint32_t> candidates;
    for (VkMemoryPropertyFlags want : wanted) {
      for (uint32_t i = 0; i < memory_props_.memoryTypeCount; ++i) {
        VkMemoryPropertyFlags f = memory_props_.memoryTypes[i].propertyFlags;
        uint64_t heap = memory_props_.memoryHeaps[memory_props_.memoryTypes[i].heapIndex].size;
        bool listed = std::find(candidates.begin(), candidates.end(), i) != candidates.end();
        if ((req.memoryTypeBits & (1u << i)) && (f & want) == want && req.size <= heap && !listed)
          candidates.push_back(i);
      }
    }
    if (candidates.empty())
      throw VkError("cannot allocate " + bytes_text(nbytes) + " on vulkan:0 (" +
                    d.props.deviceName + "): no memory type can hold it");
    VkResult r = VK_ERROR_OUT_OF_DEVICE_MEMORY;
    uint32_t type = candidates.front();
    for (uint32_t t : candidates) {
      auto alloc = vk_struct<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
      alloc.allocationSize = req.size;
      alloc.memoryTypeIndex = t;
      r = api.vkAllocateMemory(device_, &alloc, nullptr, &b->memory);
      type = t;
      if (r != VK_ERROR_OUT_OF_DEVICE_MEMORY) break;
    }
    check(r, "vkAllocateMemory", context);
    check(api.vkBindBufferMemory(device_, b->buffer, b->memory, 0), "vkBindBufferMemory", context);
    // Mapped only where copies are to use the mapping (see above).
    bool mappable =
        memory_props_.memoryTypes[type].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
    if (mappable && (host_visible || prefer_mapped_)) {
      void* p = nullptr;
      check(api.vkMapMemory(device_, b->memory, 0, VK_WHOLE_SIZE, 0, &p), "vkMapMemory", context);
      b->mapped = static_cast<uint8_t*>(p);
    }
  } catch (...) {
    destroy_buffer(b);
    throw;
  }
  return b;
}

void Device::destroy_buffer(Buffer* b) {
  VkApi& api = vk();
  if (b->buffer != VK_NULL_HANDLE) api.vkDestroyBuffer(device_, b->buffer, nullptr);
  if (b->memory != VK_NULL_HANDLE) api.vkFreeMemory(device_, b->memory, nullptr);  // unmaps
  b->magic = 0;
  delete b;
}

Buffer* Device::alloc(uint64_t nbytes) {
  try {
    return create_buffer(nbytes, kStorageUsage, false, "allocating " + bytes_text(nbytes));
  } catch (const VkError& e) {
    std::string what = e.what();
    if (what.starts_with("cannot allocate") || what.starts_with("no Vulkan device")) throw;
    throw VkError("cannot allocate " + bytes_text(nbytes) + " on vulkan:0 (" +
                  chosen().props.deviceName + "): " + what);
  }
}

bool Device::busy_locked(const Buffer* b) const { return b->last_use > completed_serial_; }

void Device::free(Buffer* b, bool submit) {
  std::lock_guard lock(stream_mutex_);
  poll_locked();
  if (!busy_locked(b)) {
    destroy_buffer(b);
    return;
  }
  if (!in_flight_.empty() && b->last_use <= in_flight_.back()->serial) {
    in_flight_.back()->frees.push_back(b);
    return;
  }
  if (!open_) {  // cannot happen: busy, yet used by no batch
    destroy_buffer(b);
    return;
  }
  open_->frees.push_back(b);  // busy and newer than every submission: the open batch uses it
  if (submit) flush_locked();
}

Device::Batch& Device::open_batch_locked() {
  if (open_) return *open_;
  VkApi& api = vk();
  std::unique_ptr<Batch> b;
  if (!spare_.empty()) {
    b = std::move(spare_.back());
    spare_.pop_back();
  } else {
    b = std::make_unique<Batch>();
    auto info =
        vk_struct<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
    info.commandPool = command_pool_;
    info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    info.commandBufferCount = 1;
    check(api.vkAllocateCommandBuffers(device_, &info, &b->cmd), "vkAllocateCommandBuffers");
    auto fence = vk_struct<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
    check(api.vkCreateFence(device_, &fence, nullptr, &b->fence), "vkCreateFence");
  }
  auto begin = vk_struct<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  check(api.vkBeginCommandBuffer(b->cmd, &begin), "vkBeginCommandBuffer");
  b->serial = next_serial_++;
  b->dispatches = 0;
  open_ = std::move(b);
  return *open_;
}

// Every command is followed by a global barrier: what a dispatch or copy wrote is visible to
// the next dispatch or copy (the simple, always-correct ordering of dependent launches).
void Device::barrier_locked(Batch& b) {
  auto m = vk_struct<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
  m.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  m.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                    VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  VkPipelineStageFlags stages =
      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  vk().vkCmdPipelineBarrier(b.cmd, stages, stages, 0, 1, &m, 0, nullptr, 0, nullptr);
}

void Device::flush_locked() {
  if (!open_) return;
  VkApi& api = vk();
  Batch& b = *open_;
  auto m =
      vk_struct<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);  // results readable by the host
  m.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  m.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  api.vkCmdPipelineBarrier(b.cmd,
                           VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                           VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &m, 0, nullptr, 0, nullptr);
  check(api.vkEndCommandBuffer(b.cmd), "vkEndCommandBuffer");
  auto submit = vk_struct<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &b.cmd;
  check(api.vkQueueSubmit(queue_, 1, &submit, b.fence), "vkQueueSubmit", b.context());
  in_flight_.push_back(std::move(open_));
  poll_locked();
  // Bound the submitted work (and the memory its frees hold) when the host never waits.
  if (in_flight_.size() > kMaxBatchesInFlight) wait_locked(in_flight_.front()->serial);
}

void Device::retire_locked() {
  VkApi& api = vk();
  std::unique_ptr<Batch> b = std::move(in_flight_.front());
  in_flight_.pop_front();
  completed_serial_ = b->serial;
  for (Buffer* f : b->frees) destroy_buffer(f);
  b->frees.clear();
  b->kernels.clear();
  for (size_t i = 0; i < b->pools.size(); ++i) {
    if (i == 0)
      api.vkResetDescriptorPool(device_, b->pools[0], 0);
    else
      api.vkDestroyDescriptorPool(device_, b->pools[i], nullptr);
  }
  if (b->pools.size() > 1) b->pools.resize(1);
  check(api.vkResetFences(device_, 1, &b->fence), "vkResetFences");
  spare_.push_back(std::move(b));
}

void Device::poll_locked() {
  while (!in_flight_.empty()) {
    VkResult r = vk().vkGetFenceStatus(device_, in_flight_.front()->fence);
    if (r == VK_NOT_READY) return;
    check(r, "vkGetFenceStatus", in_flight_.front()->context());
    retire_locked();
  }
}

void Device::wait_locked(uint64_t serial) {
  if (open_ && open_->serial <= serial) flush_locked();
  while (!in_flight_.empty() && in_flight_.front()->serial <= serial) {
    check(vk().vkWaitForFences(device_, 1, &in_flight_.front()->fence, VK_TRUE, UINT64_MAX),
          "vkWaitForFences", in_flight_.front()->context());
    retire_locked();
  }
}

void Device::synchronize() {
  ensure_ready();
  std::lock_guard lock(stream_mutex_);
  wait_locked(next_serial_);
}

void Device::copy_to_device(const void* src, Buffer* dst, uint64_t offset, uint64_t n) {
  if (n == 0) return;
  if (dst->mapped) {
    std::lock_guard lock(stream_mutex_);
    if (busy_locked(dst)) wait_locked(dst->last_use);
    std::memcpy(dst->mapped + offset, src, n);
    return;
  }
  Buffer* staging = create_buffer(n, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true, "staging a copy");
  std::memcpy(staging->mapped, src, n);
  std::lock_guard lock(stream_mutex_);
  Batch& b = open_batch_locked();
  VkBufferCopy region{0, offset, n};
  vk().vkCmdCopyBuffer(b.cmd, staging->buffer, dst->buffer, 1, &region);
  barrier_locked(b);
  dst->last_use = staging->last_use = b.serial;
  b.frees.push_back(staging);
}

void Device::copy_to_host(Buffer* src, uint64_t offset, void* dst, uint64_t n) {
  if (n == 0) return;
  if (src->mapped) {
    std::lock_guard lock(stream_mutex_);
    if (busy_locked(src)) wait_locked(src->last_use);
    std::memcpy(dst, src->mapped + offset, n);
    return;
  }
  Buffer* staging = create_buffer(n, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true, "staging a copy");
  std::lock_guard lock(stream_mutex_);
  Batch& b = open_batch_locked();
  VkBufferCopy region{offset, 0, n};
  vk().vkCmdCopyBuffer(b.cmd, src->buffer, staging->buffer, 1, &region);
  src->last_use = staging->last_use = b.serial;
  wait_locked(b.serial);
  std::memcpy(dst, staging->mapped, n);
  destroy_buffer(staging);
}

void Device::copy_on_device(Buffer* src, uint64_t src_offset, Buffer* dst, uint64_t dst_offset,
                            uint64_t n) {
  if (n == 0) return;
  // vkCmdCopyBuffer forbids overlapping regions of one buffer: go through a temporary.
  Buffer* tmp = nullptr;
  if (src == dst && src_offset < dst_offset + n && dst_offset < src_offset + n)
    tmp = create_buffer(n, kStorageUsage, false, "copying within one buffer");
  std::lock_guard lock(stream_mutex_);
  Batch& b = open_batch_locked();
  if (tmp) {
    VkBufferCopy in{src_offset, 0, n}, out{0, dst_offset, n};
    vk().vkCmdCopyBuffer(b.cmd, src->buffer, tmp->buffer, 1, &in);
    barrier_locked(b);
    vk().vkCmdCopyBuffer(b.cmd, tmp->buffer, dst->buffer, 1, &out);
    tmp->last_use = b.serial;
    b.frees.push_back(tmp);
  } else {
    VkBufferCopy region{src_offset, dst_offset, n};
    vk().vkCmdCopyBuffer(b.cmd, src->buffer, dst->buffer, 1, &region);
  }
  barrier_locked(b);
  src->last_use = dst->last_use = b.serial;
}

VkDescriptorSet Device::allocate_set_locked(Batch& b, VkDescriptorSetLayout layout,
                                            const std::string& kernel) {
  VkApi& api = vk();
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!b.pools.empty()) {
      auto info =
          vk_struct<VkDescriptorSetAllocateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO);
      info.descriptorPool = b.pools.back();
      info.descriptorSetCount = 1;
      info.pSetLayouts = &layout;
      VkDescriptorSet set = VK_NULL_HANDLE;
      VkResult r = api.vkAllocateDescriptorSets(device_, &info, &set);
      if (r == VK_SUCCESS) return set;
      if (r != VK_ERROR_OUT_OF_POOL_MEMORY && r != VK_ERROR_FRAGMENTED_POOL)
        check(r, "vkAllocateDescriptorSets", "kernel '" + kernel + "'");
    }
    VkDescriptorPoolSize sizes[2] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kSetsPerPool * 16},
                                     {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, kSetsPerPool}};
    auto pool =
        vk_struct<VkDescriptorPoolCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO);
    pool.maxSets = kSetsPerPool;
    pool.poolSizeCount = 2;
    pool.pPoolSizes = sizes;
    VkDescriptorPool p = VK_NULL_HANDLE;
    check(api.vkCreateDescriptorPool(device_, &pool, nullptr, &p), "vkCreateDescriptorPool",
          "kernel '" + kernel + "'");
    b.pools.push_back(p);
  }
  throw VkError("vkAllocateDescriptorSets failed: the kernel '" + kernel +
                "' needs more descriptors than a pool holds");
}

void Device::dispatch(Dispatch& d) {
  VkApi& api = vk();
  const std::string& kernel = *d.kernel;
  Buffer* ubo = nullptr;
  if (d.params_in_uniform_buffer) {
    ubo = create_buffer(d.params.size(), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, true,
                        "the parameter block of kernel '" + kernel + "'");
    std::memcpy(ubo->mapped, d.params.data(), d.params.size());
  }
  std::vector<VkWriteDescriptorSet> writes(d.bindings.size() + (ubo ? 1 : 0));
  VkDescriptorBufferInfo ubo_info{ubo ? ubo->buffer : VK_NULL_HANDLE, 0, VK_WHOLE_SIZE};
  for (size_t i = 0; i < writes.size(); ++i) {
    VkWriteDescriptorSet& w = writes[i];
    w = vk_struct<VkWriteDescriptorSet>(VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET);
    w.dstBinding = uint32_t(i);
    w.descriptorCount = 1;
    bool uniform = i == d.bindings.size();
    w.descriptorType =
        uniform ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    w.pBufferInfo = uniform ? &ubo_info : &d.bindings[i];
  }
  std::lock_guard lock(stream_mutex_);
  Batch& b = open_batch_locked();
  api.vkCmdBindPipeline(b.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, d.pipeline);
  if (!writes.empty()) {
    if (d.push_descriptors) {
      api.vkCmdPushDescriptorSetKHR(b.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, d.layout, 0,
                                    uint32_t(writes.size()), writes.data());
    } else {
      VkDescriptorSet set = allocate_set_locked(b, d.set_layout, kernel);
      for (auto& w : writes) w.dstSet = set;
      api.vkUpdateDescriptorSets(device_, uint32_t(writes.size()), writes.data(), 0, nullptr);
      api.vkCmdBindDescriptorSets(b.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, d.layout, 0, 1, &set, 0,
                                  nullptr);
    }
  }
  if (!d.params_in_uniform_buffer && !d.params.empty())
    api.vkCmdPushConstants(b.cmd, d.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                           uint32_t(d.params.size()), d.params.data());
  api.vkCmdDispatch(b.cmd, d.grid[0], d.grid[1], d.grid[2]);
  barrier_locked(b);
  b.kernels.push_back(kernel);
  for (Buffer* u : d.used) u->last_use = b.serial;
  if (ubo) {
    ubo->last_use = b.serial;
    b.frees.push_back(ubo);
  }
  if (++b.dispatches >= kMaxDispatchesPerBatch) flush_locked();
}

}  // namespace relax::vulkan_rt
