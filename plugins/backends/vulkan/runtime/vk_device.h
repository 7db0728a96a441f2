// The Vulkan device the runtime drives: one per process (DLDevice {kDLVulkan, 0}).
//
// Discovery (vk_device.cc): an instance (API 1.1+; with RELAX_VULKAN_VALIDATION=1 the Khronos
// validation layer and a debug messenger whose errors become failures), every physical device
// described (name, type, memory, limits, the spirv_abi.h features it supports), and one chosen:
// RELAX_VULKAN_DEVICE=N (N in vkEnumeratePhysicalDevices order) or the best by type, discrete >
// integrated > virtual > CPU. When there is none (no libvulkan.so.1, no usable device, N out of
// range), unavailable() says why and every operation that needs the device throws that text.
// The logical device is created lazily, at the first operation that needs it, on one queue
// family with compute, with every known feature the device supports enabled; a library whose
// requirements the device lacks is refused at load (check_requirements), so "enabling only
// what a module declares" holds in the sense that nothing a module needs is missing.
//
// Work (vk_stream.cc): commands are recorded into one open command buffer (a "batch") under a
// mutex, each dispatch or copy followed by a global memory barrier, and submitted with a fence
// on synchronize, on a device-to-host copy of a buffer it uses, on free of a buffer it uses,
// and after kMaxDispatchesPerBatch dispatches. A buffer freed while submitted work may still use
// it is destroyed when that work completes.
//
// Buffer records (DLTensor::data of a Vulkan tensor points to one) hold the VkBuffer, its
// memory, its size and the mapping when the memory is host-visible: storage buffers live in
// host-visible device-local memory when that is the device's main memory (lavapipe, unified
// memory, resizable BAR) and copies are memcpy; otherwise in device-local memory, copied
// through host-visible staging buffers (RELAX_VULKAN_STAGING=1 forces that path).
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "vk_api.h"

namespace relax::vulkan_rt {

/// A device allocation; what a Vulkan DLTensor's data points to.
struct Buffer {
  static constexpr uint64_t kMagic = 0x52584255464b5621ull;
  uint64_t magic = kMagic;
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  uint64_t size = 0;          ///< bytes requested
  uint8_t* mapped = nullptr;  ///< host pointer when the memory is host-visible
  uint64_t last_use = 0;      ///< serial of the newest batch that uses it (0: none)
};

/// What the runtime knows of one physical device.
struct PhysicalDevice {
  VkPhysicalDevice handle = VK_NULL_HANDLE;
  uint32_t index = 0;  ///< in vkEnumeratePhysicalDevices order (RELAX_VULKAN_DEVICE)
  VkPhysicalDeviceProperties props{};
  uint32_t api = 0;  ///< min(instance API, device API)
  uint32_t subgroup_size = 0;
  uint64_t max_allocation = 0;        ///< maxMemoryAllocationSize
  uint64_t memory = 0;                ///< bytes of the device-local heaps
  int32_t queue_family = -1;          ///< the first family with compute; -1: none
  bool push_descriptor = false;       ///< VK_KHR_push_descriptor available
  uint32_t max_push_descriptors = 0;  ///< its limit on the bindings of a pushed set
  std::vector<std::string> extensions;
  std::map<std::string, bool> features;  ///< spirv_abi.h feature name -> supported
  std::string unusable;                  ///< why it cannot be used ("" when it can)

  std::string type_name() const;
  /// One line: name, type, Vulkan version, memory, limits, features.
  std::string description() const;
};

/// A kernel launch ready to record (built by the module, vk_module.cc).
struct Dispatch {
  const std::string* kernel = nullptr;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  std::vector<VkDescriptorBufferInfo> bindings;  ///< storage buffers, binding i = i
  std::vector<Buffer*> used;                     ///< marked as used by the batch
  std::vector<uint8_t> params;                   ///< the parameter block (spirv_abi.h)
  bool params_in_uniform_buffer = false;         ///< else push constants
  bool push_descriptors = false;  ///< pushed (VK_KHR_push_descriptor), else a pool's set
  std::array<uint32_t, 3> grid{1, 1, 1};
};

class Device {
 public:
  /// Dispatches recorded before a batch is submitted without being asked to.
  static constexpr int kMaxDispatchesPerBatch = 128;

  /// The process's device (discovered on first use).
  static Device& get();

  /// Every physical device, the chosen one first (device id 0), then the others by rank.
  const std::vector<PhysicalDevice>& devices() const { return devices_; }
  /// Why there is no device ("" when one is chosen).
  const std::string& unavailable() const { return unavailable_; }
  /// The chosen device; throws VkError("no Vulkan device: ...") when there is none.
  const PhysicalDevice& chosen() const;
  /// Creates the logical device if it does not exist yet (throws VkError when it cannot).
  void ensure_ready();
  /// Throws VkError naming the features/limits of `requirements` (Library::requirements) that
  /// the chosen device lacks, and `library` for context; unknown names are lacking too.
  void check_requirements(const std::map<std::string, std::string>& requirements) const;
  /// The first validation error reported since the last call, or "" (RELAX_VULKAN_VALIDATION).
  std::string take_validation_error();

  VkDevice vk_device() const { return device_; }
  VkPipelineCache pipeline_cache() const { return pipeline_cache_; }
  /// Whether a set of `bindings` descriptors is pushed (else allocated from a batch's pool).
  bool pushes_descriptors(size_t bindings) const {
    return use_push_descriptor_ && bindings <= devices_.front().max_push_descriptors;
  }
  /// Writes the pipeline cache to disk when pipelines were added since the last save.
  void save_pipeline_cache();
  void note_pipeline_created() { cache_dirty_ = true; }

  // Memory and work (vk_stream.cc). All thread-safe.
  /// A storage buffer of `nbytes`; VkError when the device cannot allocate it.
  Buffer* alloc(uint64_t nbytes);
  /// Frees now, or when the submitted work that uses it completes; `submit`: also submit the
  /// open batch when it uses the buffer.
  void free(Buffer* b, bool submit);
  void copy_to_device(const void* src, Buffer* dst, uint64_t offset, uint64_t n);
  void copy_to_host(Buffer* src, uint64_t offset, void* dst, uint64_t n);
  void copy_on_device(Buffer* src, uint64_t src_offset, Buffer* dst, uint64_t dst_offset,
                      uint64_t n);
  void dispatch(Dispatch& d);
  void synchronize();

 private:
  /// One command buffer with its fence, the buffers to destroy when it completes and, without
  /// push descriptors, the descriptor pools its sets come from.
  struct Batch {
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    uint64_t serial = 0;
    int dispatches = 0;
    std::vector<Buffer*> frees;
    std::vector<VkDescriptorPool> pools;  ///< pools.back() is the one allocated from
    std::vector<std::string> kernels;     ///< what it runs, for messages
    /// "kernels 'a', 'b'" for the failure of a submission or a wait ("" when none).
    std::string context() const;
  };
  Device();
  void discover();
  void create_logical_device();
  void load_pipeline_cache();
  std::string pipeline_cache_path() const;

  Buffer* create_buffer(uint64_t nbytes, VkBufferUsageFlags usage, bool host_visible,
                        const std::string& context);
  void destroy_buffer(Buffer* b);
  Batch& open_batch_locked();
  void barrier_locked(Batch& b);
  void flush_locked();
  void wait_locked(uint64_t serial);
  void retire_locked();
  void poll_locked();
  bool busy_locked(const Buffer* b) const;
  VkDescriptorSet allocate_set_locked(Batch& b, VkDescriptorSetLayout layout,
                                      const std::string& kernel);

  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  uint32_t instance_api_ = 0;
  std::vector<PhysicalDevice> devices_;
  std::string unavailable_;

  std::mutex init_mutex_;
  std::string init_error_;  ///< a failed logical-device creation, repeated to every caller
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkCommandPool command_pool_ = VK_NULL_HANDLE;
  VkPipelineCache pipeline_cache_ = VK_NULL_HANDLE;
  bool use_push_descriptor_ = false;
  bool prefer_mapped_ = false;  ///< storage in host-visible device-local memory (see alloc)
  bool cache_dirty_ = false;
  std::mutex cache_mutex_;
  VkPhysicalDeviceMemoryProperties memory_props_{};

  std::mutex validation_mutex_;
  std::vector<std::string> validation_errors_;
  friend VkBool32 VKAPI_PTR on_debug_message(VkDebugUtilsMessageSeverityFlagBitsEXT,
                                             VkDebugUtilsMessageTypeFlagsEXT,
                                             const VkDebugUtilsMessengerCallbackDataEXT*, void*);

  std::mutex stream_mutex_;
  std::unique_ptr<Batch> open_;
  std::deque<std::unique_ptr<Batch>> in_flight_;
  std::vector<std::unique_ptr<Batch>> spare_;
  uint64_t next_serial_ = 1;
  uint64_t completed_serial_ = 0;  ///< every batch up to this serial has completed
};

}  // namespace relax::vulkan_rt
